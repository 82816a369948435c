import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector';
import { and, count, eq, gte } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../apps/server/src/app.ts';
import {
  crmContacts,
  crmListMembers,
  crmLists,
  integrations,
  opportunities,
} from '../apps/server/src/db/schema/index.ts';
import type { OAuthCredentials } from '../apps/server/src/modules/crm/index.ts';
import { runMarketo } from './crm-sync-marketo.ts';
import { benchConfig, connectCrm, forkFake, report, sampleRss, scratchDatabase } from './lib.ts';

type FakeInfo = {
  authUrl: string;
  clientId: string;
  clientSecret: string;
  campaignId: string | null;
  seededMs: number;
};

/** The Salesforce fake in a child process (bench/salesforce-server.ts), driven over IPC. */
async function startFake(opps: number, contacts: number, members: number) {
  const fake = await forkFake('bench/salesforce-server.ts', 'Salesforce', {
    BENCH_CRM_OPPORTUNITIES: String(opps),
    BENCH_CRM_CONTACTS: String(contacts),
    BENCH_CRM_CAMPAIGN_MEMBERS: String(members),
  });
  return {
    info: await fake.call<FakeInfo>('info'),
    clear: () => fake.call<null>('clear'),
    requests: () => fake.call<number>('requests'),
    touchCampaign: (share: number) => fake.call<number>('touchCampaign', share),
    stop: fake.stop,
  };
}

/**
 * BENCH_CPU_PROFILE=<file>: a CPU profile of this process (the server's code) for the sync alone,
 * written as a .cpuprofile (Chrome DevTools' format), to see where the sync's own time goes.
 */
async function cpuProfile() {
  const file = process.env.BENCH_CPU_PROFILE;
  if (!file) return null;
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) =>
      session.post(method, params, (err, res) => (err ? reject(err) : resolve(res as T))),
    );
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 500 });
  await post('Profiler.start');
  return {
    async stop() {
      const { profile } = await post<{ profile: unknown }>('Profiler.stop');
      await writeFile(file, JSON.stringify(profile));
      session.disconnect();
      console.log(`    CPU profile of the sync: ${file}`);
    },
  };
}

/** The floor: the same SOQL queries walked by nextRecordsUrl with plain fetch, nothing stored. */
async function plainPaging(
  creds: OAuthCredentials,
  apiVersion: string,
  campaignId: string | null,
  opts: { campaignOnly?: boolean } = {},
) {
  const t = performance.now();
  let rows = 0;
  let requests = 0;
  const queries = [
    'SELECT Id, Email, FirstName, LastName, Title, AccountId, OwnerId, IsDeleted, SystemModstamp FROM Contact ORDER BY SystemModstamp ASC',
    'SELECT Id, Name, AccountId, OwnerId, StageName, Amount, CloseDate, Probability, IsClosed, IsWon, IsDeleted, CreatedDate, SystemModstamp FROM Opportunity ORDER BY SystemModstamp ASC',
    // The campaign (a list) and its members, as the sync reads them (adapter.ts lists/listMembers).
    ...(campaignId
      ? [
          'SELECT Id, Name, IsActive, NumberOfContacts, NumberOfLeads, SystemModstamp FROM Campaign ORDER BY SystemModstamp ASC',
          `SELECT Id, ContactId, LeadId, Status, CreatedDate FROM CampaignMember WHERE CampaignId = '${campaignId}' ORDER BY CreatedDate ASC`,
        ]
      : []),
  ];
  for (const soql of opts.campaignOnly ? queries.slice(2) : queries) {
    let url: string | undefined =
      `${creds.instanceUrl}/services/data/${apiVersion}/query?${new URLSearchParams({ q: soql })}`;
    while (url) {
      const res = await fetch(url, { headers: { authorization: `Bearer ${creds.accessToken}` } });
      requests++;
      if (!res.ok) throw new Error(`plain paging: ${res.status} ${await res.text()}`);
      const body = (await res.json()) as { done: boolean; nextRecordsUrl?: string; records: unknown[] };
      rows += body.records.length;
      url = body.done ? undefined : `${creds.instanceUrl}${body.nextRecordsUrl}`;
    }
  }
  return { seconds: (performance.now() - t) / 1000, rows, requests };
}

/**
 * The next sync after 1 % of the campaign's members changed (the campaign's SystemModstamp moves, so
 * its members are read whole again): seconds and requests against paging the campaign and its members
 * with plain fetch, and how many member rows the sync rewrote (those whose `updated_at` moved).
 */
async function resyncCampaign(
  app: FastifyInstance,
  fake: Awaited<ReturnType<typeof startFake>>,
  integrationId: number,
  campaignId: string,
  creds: OAuthCredentials,
  version: string,
) {
  const moved = await fake.touchCampaign(0.01);
  const [list] = await app.db
    .select({ id: crmLists.id, count: crmLists.memberCount })
    .from(crmLists)
    .where(and(eq(crmLists.integrationId, integrationId), eq(crmLists.externalId, campaignId)));
  await fake.clear();
  const floor = await plainPaging(creds, version, campaignId, { campaignOnly: true });
  await fake.clear();
  const before = new Date();
  const started = performance.now();
  await app.crmSync.run({ integrationId });
  const seconds = (performance.now() - started) / 1000;
  const requests = await fake.requests();
  const [rewritten] = await app.db
    .select({ n: count() })
    .from(crmListMembers)
    .where(and(eq(crmListMembers.listId, list!.id), gte(crmListMembers.updatedAt, before)));
  report(
    `  the next sync, ${moved} of the campaign's ${list!.count} members changed`,
    `${seconds.toFixed(2)} s, ${requests} requests`,
    `${floor.seconds.toFixed(2)} s, ${floor.requests} requests (plain paging of the campaign)`,
    seconds / floor.seconds,
  );
  console.log(`    member rows rewritten: ${rewritten!.n} (${moved} changed)`);
}

/**
 * Issue 16: a first Salesforce sync of BENCH_CRM_OPPORTUNITIES (100,000) opportunities and
 * BENCH_CRM_CONTACTS (200,000) contacts from the in-repo fake into a fresh database (PGlite, or a
 * scratch database on BENCH_DATABASE_URL / TEST_DATABASE_URL): seconds, requests, peak RSS of this
 * process, set against paging the same records with plain fetch and no database in the same run.
 * Issue 43's Salesforce campaign sync: BENCH_CRM_CAMPAIGN_MEMBERS (0) of the contacts are members of
 * one campaign, a list whose members the sync reads whole; the floor then pages the campaign and its
 * members too. BENCH_CRM_SOURCE=marketo: a Marketo static list instead (crm-sync-marketo.ts).
 */
export async function run() {
  if (process.env.BENCH_CRM_SOURCE === 'marketo') return runMarketo();
  const opps = Number(process.env.BENCH_CRM_OPPORTUNITIES ?? 100_000);
  const contacts = Number(process.env.BENCH_CRM_CONTACTS ?? 200_000);
  const members = Math.min(contacts, Number(process.env.BENCH_CRM_CAMPAIGN_MEMBERS ?? 0));
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  const driver = serverUrl ? 'postgres' : 'pglite';
  const fake = await startFake(opps, contacts, members);
  const { authUrl, clientId, clientSecret, campaignId, seededMs } = fake.info;
  console.log(
    `crm-sync: Salesforce fake (own process) seeded with ${opps} opportunities and ${contacts} contacts${members ? ` (${members} of them in one campaign)` : ''} in ${(seededMs / 1000).toFixed(1)} s; ${driver}`,
  );
  const db = await scratchDatabase(serverUrl);
  let app: FastifyInstance | undefined;
  try {
    const config = benchConfig(db.url, {
      SALESFORCE_CLIENT_ID: clientId,
      SALESFORCE_CLIENT_SECRET: clientSecret,
      SALESFORCE_AUTH_URL: authUrl,
    });
    // No workers: the bench runs the sync itself, so nothing else competes for the database.
    app = await buildApp(config, { workers: false });
    await app.ready();
    const { creds, clientId: benchClientId, integrationId } = await connectCrm(app, 'salesforce');

    const version = config.vendors.salesforce.apiVersion;
    await plainPaging(creds, version, campaignId); // warm-up (JIT, sockets)
    await fake.clear();
    const floor = await plainPaging(creds, version, campaignId);
    const expected = opps + contacts + (campaignId ? 1 + members : 0);
    if (floor.rows !== expected) throw new Error(`plain paging read ${floor.rows} rows, not ${expected}`);

    await fake.clear();
    const rssBefore = process.memoryUsage().rss;
    const memory = sampleRss();
    const profile = await cpuProfile();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await app.crmSync.run({ integrationId: integrationId });
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    console.log(
      `    this process's CPU during the sync ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s (user ${(cpu.user / 1e6).toFixed(2)})`,
    );
    await profile?.stop();
    const peak = memory.stop() * 2 ** 20;
    const requests = await fake.requests();
    const [row] = await app.db.select().from(integrations).where(eq(integrations.id, integrationId));
    if (row?.lastError) throw new Error(`sync: ${row.lastError}`);
    const n = async (t: typeof opportunities | typeof crmContacts) =>
      (await app!.db.select({ n: count() }).from(t).where(eq(t.clientId, benchClientId)))[0]!.n;
    const stored = { opps: await n(opportunities), contacts: await n(crmContacts) };
    if (stored.opps !== opps || stored.contacts !== contacts) {
      throw new Error(`stored ${stored.opps} opportunities and ${stored.contacts} contacts`);
    }
    if (campaignId) {
      const [list] = await app.db
        .select({ id: crmLists.id })
        .from(crmLists)
        .where(and(eq(crmLists.clientId, benchClientId), eq(crmLists.externalId, campaignId)));
      const [m] = await app.db
        .select({ n: count() })
        .from(crmListMembers)
        .where(eq(crmListMembers.listId, list!.id));
      if (m!.n !== members) throw new Error(`stored ${m!.n} campaign members, not ${members}`);
    }
    report(
      `crm-sync ${opps} opportunities + ${contacts} contacts${members ? ` + a ${members}-member campaign` : ''} (${driver})`,
      `${seconds.toFixed(1)} s, ${Math.round((opps + contacts) / seconds)} rows/s`,
      `${floor.seconds.toFixed(1)} s (plain paging)`,
      seconds / floor.seconds,
    );
    report(
      '  requests to Salesforce',
      `${requests}`,
      `${floor.requests} (plain paging)`,
      requests / floor.requests,
    );
    console.log(
      `    peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB (${(rssBefore / 2 ** 20).toFixed(0)} MiB just before the sync); live heap's growth ${memory.liveHeapGrowthMiB().toFixed(0)} MiB`,
    );
    if (campaignId) await resyncCampaign(app, fake, integrationId, campaignId, creds, version);
  } finally {
    await app?.close();
    await db.drop();
    await fake.stop();
  }
}
