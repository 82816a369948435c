import { eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { adAudiences, cohortMembers, prospects } from '../apps/server/src/db/schema/index.ts';
import { hashEmail } from '../apps/server/src/modules/ad-networks/index.ts';
import { addMembers, makeCohort } from '../apps/server/test/ad-network-kit.ts';
import { startFakeMeta } from '../apps/server/test/fakes/meta.ts';
import { report, sampleRss, scratchDatabase, timeBatches } from './lib.ts';
import { metaBenchApp } from './meta-bench-app.ts';

/**
 * Issue 39: a cohort of BENCH_AUDIENCE_MEMBERS (100,000) pushed to the Meta fake as a custom
 * audience by the push job (hashing, per-member push state in the database, 10,000 per request),
 * then pushed again after 1 % left and 1 % joined (only the difference is sent): seconds, requests,
 * peak RSS of this process. Baseline in the same run: plain `fetch` posts of the same batches of
 * hashes to the same fake, no database.
 */
export async function run() {
  const members = Number(process.env.BENCH_AUDIENCE_MEMBERS ?? 100_000);
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  const fake = await startFakeMeta();
  const db = await scratchDatabase(serverUrl);
  let app: FastifyInstance | undefined;
  try {
    const started = await metaBenchApp(fake, db.url);
    app = started.app;
    const { clientId, token, connection } = started;
    const t0 = performance.now();
    const cohort = await makeCohort(app, clientId, 'Bench', members);
    console.log(
      `ad-audience: ${members} members written in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${serverUrl ? 'postgres' : 'pglite'}`,
    );

    // Baseline: the same batches of hashes posted with plain fetch to a scratch audience.
    const created = await fetch(`${fake.url}/${fake.version}/act_1001/customaudiences`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'baseline', customer_file_source: 'USER_PROVIDED_ONLY' }),
    });
    const baselineId = ((await created.json()) as { id: string }).id;
    const hashes = Array.from({ length: members }, (_, i) => hashEmail(`person${i}@example.com`)!);
    const baseline = await timeBatches(hashes, 10_000, (batch) =>
      fetch(`${fake.url}/${fake.version}/${baselineId}/users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          payload: { schema: ['EMAIL'], data: batch.map((h) => [h]) },
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
        adAccountId: 'act_1001',
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
      'ad-audience push',
      `${pushSeconds.toFixed(1)} s, ${pushRequests} req`,
      `${baseline.seconds.toFixed(2)} s, ${baseline.requests} req`,
      pushSeconds / baseline.seconds,
    );
    console.log(
      `    peak RSS ${peakMiB.toFixed(0)} MiB; after ${change} left and ${change} joined: ${againSeconds.toFixed(1)} s, ${againRequests} requests`,
    );
  } finally {
    await app?.close();
    await db.drop();
    await fake.close();
  }
}
