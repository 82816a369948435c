import { eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../apps/server/src/app.ts';
import { adAudiences, clients, cohortMembers, prospects } from '../apps/server/src/db/schema/index.ts';
import { hashEmail } from '../apps/server/src/modules/ad-networks/index.ts';
import { addMembers, connectLinkedInDirectly, makeCohort } from '../apps/server/test/ad-network-kit.ts';
import { startFakeLinkedIn } from '../apps/server/test/fakes/linkedin.ts';
import { benchConfig, report, sampleRss, scratchDatabase, timeBatches } from './lib.ts';

/**
 * Issue 39: ad-audience.bench.ts for LinkedIn (`npm run bench -- ad-linkedin`). A cohort of BENCH_AUDIENCE_MEMBERS (100,000) pushed
 * to the LinkedIn fake as a DMP segment by the push job (5,000 users per BATCH_CREATE, the 5 s wait
 * LinkedIn asks after creating a segment included), then again after 1 % left and 1 % joined:
 * seconds, requests, peak RSS. Baseline in the same run: plain `fetch` posts of the same batches to
 * the same fake, no database.
 */
export async function run() {
  const members = Number(process.env.BENCH_AUDIENCE_MEMBERS ?? 100_000);
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  const fake = await startFakeLinkedIn();
  const db = await scratchDatabase(serverUrl);
  let app: FastifyInstance | undefined;
  try {
    app = await buildApp(
      benchConfig(db.url, {
        LINKEDIN_CLIENT_ID: fake.clientId,
        LINKEDIN_CLIENT_SECRET: fake.clientSecret,
        LINKEDIN_API_URL: fake.url,
        LINKEDIN_AUTH_URL: fake.url,
        LINKEDIN_API_VERSION: fake.version,
      }),
      { workers: false },
    );
    await app.ready();
    const [client] = await app.db.insert(clients).values({ name: 'Bench' }).returning({ id: clients.id });
    const clientId = client!.id;
    const tokens = fake.mintTokens();
    const token = tokens.accessToken;
    const connection = await connectLinkedInDirectly(app, clientId, {
      ...tokens,
      expiresAt: new Date(Date.now() + 60 * 24 * 3600_000).toISOString(),
    });
    const t0 = performance.now();
    const cohort = await makeCohort(app, clientId, 'Bench', members);
    console.log(
      `ad-linkedin: ${members} members written in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${serverUrl ? 'postgres' : 'pglite'}`,
    );

    // Baseline: the same batches of hashes posted with plain fetch to a scratch audience.
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'LinkedIn-Version': fake.version,
      'X-Restli-Protocol-Version': '2.0.0',
    };
    const created = await fetch(`${fake.url}/rest/dmpSegments`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: 'baseline',
        account: 'urn:li:sponsoredAccount:5001',
        accessPolicy: 'PRIVATE',
        type: 'USER',
        sourcePlatform: 'RALLY',
        destinations: [{ destination: 'LINKEDIN' }],
      }),
    });
    const baselineId = created.headers.get('x-restli-id');
    // LinkedIn: wait 5 s after creating a segment before adding users (as the job does).
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const hashes = Array.from({ length: members }, (_, i) => hashEmail(`person${i}@example.com`)!);
    const baseline = await timeBatches(hashes, 5_000, (batch) =>
      fetch(`${fake.url}/rest/dmpSegments/${baselineId}/users`, {
        method: 'POST',
        headers: { ...headers, 'X-RestLi-Method': 'BATCH_CREATE' },
        body: JSON.stringify({
          elements: batch.map((h) => ({ action: 'ADD', userIds: [{ idType: 'SHA256_EMAIL', idValue: h }] })),
        }),
      }),
    );

    const [audience] = await app.db
      .insert(adAudiences)
      .values({
        clientId,
        connectionId: connection.id,
        sourceKind: 'cohort',
        cohortId: cohort.cohortId,
        name: 'Bench',
        adAccountId: '5001',
      })
      .returning();
    const rss = sampleRss();
    const before = fake.requests.length;
    const tp = performance.now();
    await app.adNetworks.push(audience!.id);
    const pushSeconds = (performance.now() - tp) / 1000;
    const pushRequests = fake.requests.slice(before).filter((r) => r.path.endsWith('/users')).length;
    const [done] = await app.db.select().from(adAudiences).where(eq(adAudiences.id, audience!.id));
    if (done?.memberCount !== members)
      throw new Error(`pushed ${done?.memberCount} members (${done?.pushError})`);

    // 1 % leave, 1 % join; the next push sends those only.
    const change = Math.max(1, Math.floor(members / 100));
    const leaving = await app.db
      .select({ id: prospects.id })
      .from(prospects)
      .where(
        inArray(
          prospects.externalId,
          Array.from({ length: change }, (_, i) => `p${i}`),
        ),
      );
    await app.db.delete(cohortMembers).where(
      inArray(
        cohortMembers.prospectId,
        leaving.map((p) => p.id),
      ),
    );
    await addMembers(
      app,
      clientId,
      cohort.cohortId,
      cohort.cadenceId,
      cohort.integrationId,
      change,
      members * 10,
    );
    const before2 = fake.requests.length;
    const t2 = performance.now();
    await app.adNetworks.push(audience!.id);
    const againSeconds = (performance.now() - t2) / 1000;
    const againRequests = fake.requests.slice(before2).filter((r) => r.path.endsWith('/users')).length;
    const peakMiB = rss.stop();

    report(
      'ad-audience push (LinkedIn)',
      `${pushSeconds.toFixed(1)} s, ${pushRequests} req`,
      `${baseline.seconds.toFixed(2)} s, ${baseline.requests} req`,
      pushSeconds / baseline.seconds,
    );
    console.log(
      `    the push includes LinkedIn's 5 s wait after creating the segment; peak RSS ${peakMiB.toFixed(0)} MiB; after ${change} left and ${change} joined: ${againSeconds.toFixed(1)} s, ${againRequests} requests`,
    );
  } finally {
    await app?.close();
    await db.drop();
    await fake.close();
  }
}
