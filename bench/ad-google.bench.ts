import { eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../apps/server/src/app.ts';
import {
  adAudiences,
  adNetworkConnections,
  clients,
  cohortMembers,
  prospects,
} from '../apps/server/src/db/schema/index.ts';
import { createSecretBox } from '../apps/server/src/lib/crypto.ts';
import { hashEmailForGoogle } from '../apps/server/src/modules/ad-networks/google/normalise.ts';
import { addMembers, makeCohort } from '../apps/server/test/ad-network-kit.ts';
import { startFakeGoogleAds } from '../apps/server/test/fakes/google-ads.ts';
import { benchConfig, report, sampleRss, scratchDatabase, timeBatches } from './lib.ts';

/**
 * Issue 39: ad-audience.bench.ts for Google Ads (`npm run bench -- ad-google`). A cohort of
 * BENCH_AUDIENCE_MEMBERS (100,000) pushed to the Google fake as a Customer Match list by the push job
 * (Data Manager API `audienceMembers:ingest`, 10,000 per request), then again after 1 % left and 1 %
 * joined: seconds, requests, peak RSS. Baseline in the same run: plain `fetch` posts of the same
 * batches to the same fake, no database.
 */
export async function run() {
  const members = Number(process.env.BENCH_AUDIENCE_MEMBERS ?? 100_000);
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  const fake = await startFakeGoogleAds({ perMinute: 10_000 });
  const db = await scratchDatabase(serverUrl);
  let app: FastifyInstance | undefined;
  try {
    app = await buildApp(benchConfig(db.url, fake.env()), { workers: false });
    await app.ready();
    const [client] = await app.db.insert(clients).values({ name: 'Bench' }).returning({ id: clients.id });
    const clientId = client!.id;
    const { accessToken, refreshToken } = fake.grant();
    const [connection] = await app.db
      .insert(adNetworkConnections)
      .values({
        clientId,
        network: 'google',
        credentialsEnc: createSecretBox(app.config.appSecret).encrypt(
          JSON.stringify({
            kind: 'oauth',
            accessToken,
            refreshToken,
            expiresAt: new Date(Date.now() + 3599_000).toISOString(),
          }),
        ),
        accountName: 'Bench',
        adAccountId: '1234567890',
        adAccountName: 'Acme Search',
      })
      .returning();
    const t0 = performance.now();
    const cohort = await makeCohort(app, clientId, 'Bench', members);
    console.log(
      `ad-google: ${members} members written in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${serverUrl ? 'postgres' : 'pglite'}`,
    );

    // Baseline: the same batches of hashes ingested with plain fetch into a scratch list.
    const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    const created = await fetch(`${fake.url}/v1/accountTypes/GOOGLE_ADS/accounts/1234567890/userLists`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        displayName: 'baseline',
        ingestedUserListInfo: { uploadKeyTypes: ['CONTACT_ID'] },
      }),
    });
    const listId = ((await created.json()) as { id: string }).id;
    const hashes = Array.from({ length: members }, (_, i) => hashEmailForGoogle(`person${i}@example.com`)!);
    const baseline = await timeBatches(hashes, 10_000, (batch) =>
      fetch(`${fake.url}/v1/audienceMembers:ingest`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          destinations: [
            {
              operatingAccount: { accountType: 'GOOGLE_ADS', accountId: '1234567890' },
              productDestinationId: listId,
            },
          ],
          audienceMembers: batch.map((h) => ({ userData: { userIdentifiers: [{ emailAddress: h }] } })),
          encoding: 'HEX',
          termsOfService: { customerMatchTermsOfServiceStatus: 'ACCEPTED' },
        }),
      }),
    );

    const [audience] = await app.db
      .insert(adAudiences)
      .values({
        clientId,
        connectionId: connection!.id,
        sourceKind: 'cohort',
        cohortId: cohort.cohortId,
        name: 'Bench',
        adAccountId: '1234567890',
      })
      .returning();
    const rss = sampleRss();
    const isMembers = (r: { path: string }) => r.path.startsWith('/v1/audienceMembers:');
    const before = fake.requests.length;
    const tp = performance.now();
    await app.adNetworks.push(audience!.id);
    const pushSeconds = (performance.now() - tp) / 1000;
    const pushRequests = fake.requests.slice(before).filter(isMembers).length;
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
    const againRequests = fake.requests.slice(before2).filter(isMembers).length;
    const peakMiB = rss.stop();

    report(
      'ad-audience push (Google Ads)',
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
