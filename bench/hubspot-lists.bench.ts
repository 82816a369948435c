import { and, count, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../apps/server/src/app.ts';
import { crmListMembers, crmLists, integrations } from '../apps/server/src/db/schema/index.ts';
import type { OAuthCredentials } from '../apps/server/src/modules/crm/index.ts';
import { benchConfig, connectCrm, forkFake, report, scratchDatabase } from './lib.ts';

type FakeInfo = {
  apiUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: string;
  listId: string;
  seededMs: number;
};

/** The HubSpot fake in a child process (bench/hubspot-server.ts), driven over IPC. */
async function startFake(members: number) {
  const fake = await forkFake('bench/hubspot-server.ts', 'HubSpot', {
    BENCH_HUBSPOT_MEMBERS: String(members),
  });
  return {
    info: await fake.call<FakeInfo>('info'),
    clear: () => fake.call<null>('clear'),
    requests: () => fake.call<number>('requests'),
    stop: fake.stop,
  };
}

/**
 * The floor: what the sync must read for the list, paged with plain fetch and nothing stored: the
 * companies and contacts by search sorted by modified time (a new query past HubSpot's 10,000-result
 * cap, as the adapter does), the lists search, and the list's memberships by `after`.
 */
async function plainPaging(api: string, creds: OAuthCredentials, listId: string, listOnly = false) {
  const t = performance.now();
  let requests = 0;
  const call = async <T>(url: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${api}${url}`, {
      method: body ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${creds.accessToken}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });
    requests++;
    if (!res.ok) throw new Error(`plain paging: ${url} ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  type Search = {
    results: { id: string; properties: Record<string, string> }[];
    paging?: { next?: { after: string } };
  };
  const seen = { companies: new Set<string>(), contacts: new Set<string>() };
  for (const [type, modified] of [
    ['companies', 'hs_lastmodifieddate'],
    ['contacts', 'lastmodifieddate'],
  ] as const) {
    if (listOnly) break;
    let from: string | null = null;
    let after: string | undefined;
    for (;;) {
      const reply: Search = await call<Search>(`/crm/v3/objects/${type}/search`, {
        filterGroups: from
          ? [{ filters: [{ propertyName: modified, operator: 'GTE', value: String(Date.parse(from)) }] }]
          : [],
        sorts: [{ propertyName: modified, direction: 'ASCENDING' }],
        properties: [modified],
        limit: 200,
        ...(after ? { after } : {}),
      });
      for (const r of reply.results) seen[type].add(r.id);
      const next = reply.paging?.next?.after;
      if (!next || reply.results.length === 0) break;
      if (Number(next) + 200 > 10_000) {
        from = reply.results.at(-1)!.properties[modified]!;
        after = undefined;
      } else after = next;
    }
  }
  await call('/crm/v3/lists/search', { offset: 0, count: 500 });
  let memberships = 0;
  let after: string | undefined;
  do {
    const q = new URLSearchParams({ limit: '250', ...(after ? { after } : {}) });
    const reply = await call<{ results: unknown[]; paging?: { next?: { after: string } } }>(
      `/crm/v3/lists/${listId}/memberships?${q}`,
    );
    memberships += reply.results.length;
    after = reply.paging?.next?.after;
  } while (after);
  return {
    seconds: (performance.now() - t) / 1000,
    requests,
    contacts: seen.contacts.size,
    memberships,
  };
}

/**
 * Issue 18: the first HubSpot sync of a portal whose one static list has BENCH_HUBSPOT_MEMBERS
 * (100,000) contacts, from the in-repo fake into a fresh database (PGlite, or a scratch database on
 * BENCH_DATABASE_URL / TEST_DATABASE_URL): seconds, requests, peak RSS of this process, against
 * paging the same records with plain fetch and no database in the same run. Then the cohort made
 * from that list (its members become prospects with ad tags), timed on its own.
 */
export async function run() {
  const members = Number(process.env.BENCH_HUBSPOT_MEMBERS ?? 100_000);
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  const driver = serverUrl ? 'postgres' : 'pglite';
  const fake = await startFake(members);
  const { apiUrl, authUrl, clientId, clientSecret, listId, seededMs } = fake.info;
  console.log(
    `hubspot-lists: HubSpot fake (own process) seeded with a list of ${members} contacts in ${(seededMs / 1000).toFixed(1)} s; ${driver}`,
  );
  const db = await scratchDatabase(serverUrl);
  let app: FastifyInstance | undefined;
  try {
    const config = benchConfig(db.url, {
      HUBSPOT_CLIENT_ID: clientId,
      HUBSPOT_CLIENT_SECRET: clientSecret,
      HUBSPOT_API_URL: apiUrl,
      HUBSPOT_AUTH_URL: authUrl,
    });
    // No workers: the bench runs the sync itself, so nothing else competes for the database.
    app = await buildApp(config, { workers: false });
    await app.ready();
    const { creds, clientId: benchClientId, integrationId } = await connectCrm(app, 'hubspot');

    // Warm-up (JIT, sockets) on the memberships alone: a whole pass costs minutes at 100,000 contacts.
    await plainPaging(apiUrl, creds as OAuthCredentials, listId, true);
    await fake.clear();
    const floor = await plainPaging(apiUrl, creds as OAuthCredentials, listId);
    if (floor.memberships !== members) throw new Error(`plain paging read ${floor.memberships} members`);

    await fake.clear();
    // The live heap (after a full collection, once every 2 s) besides RSS: V8 keeps what it once
    // reserved, so RSS alone cannot tell members held in memory from garbage not yet collected.
    globalThis.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    let samples = 0;
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
      if (globalThis.gc && ++samples % 20 === 0) {
        globalThis.gc();
        heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
      }
    }, 100);
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    await app.crmSync.run({ integrationId: integrationId });
    const seconds = (performance.now() - started) / 1000;
    const syncPeak = peak;
    const heapGrowth = heapPeak - heapBefore;
    const requests = await fake.requests();
    const [row] = await app.db.select().from(integrations).where(eq(integrations.id, integrationId));
    if (row?.lastError) throw new Error(`sync: ${row.lastError}`);
    const [list] = await app.db
      .select({ id: crmLists.id })
      .from(crmLists)
      .where(and(eq(crmLists.clientId, benchClientId), eq(crmLists.externalId, listId)));
    const [stored] = await app.db
      .select({ n: count() })
      .from(crmListMembers)
      .where(eq(crmListMembers.listId, list!.id));
    if (stored!.n !== members) throw new Error(`stored ${stored!.n} list members`);
    report(
      `hubspot-lists: sync of a ${members}-member list (${driver})`,
      `${seconds.toFixed(1)} s, ${Math.round(members / seconds)} members/s`,
      `${floor.seconds.toFixed(1)} s (plain paging)`,
      seconds / floor.seconds,
    );
    report(
      '  requests to HubSpot',
      `${requests}`,
      `${floor.requests} (plain paging)`,
      requests / floor.requests,
    );
    console.log(
      `    peak RSS ${(syncPeak / 2 ** 20).toFixed(0)} MiB (${(rssBefore / 2 ** 20).toFixed(0)} MiB just before the sync, ` +
        `+${((syncPeak - rssBefore) / 2 ** 20).toFixed(0)} MiB); live heap's growth ${(heapGrowth / 2 ** 20).toFixed(0)} MiB`,
    );
    if (process.env.BENCH_HUBSPOT_COHORT === '0') {
      clearInterval(sampler);
      return;
    }

    // The cohort from that list: every member becomes a prospect with an ad tag (no HubSpot calls).
    const t = performance.now();
    const cohort = await app.cohorts.createAndSync(benchClientId, {
      name: 'Bench list cohort',
      source_kind: 'crm_list',
      crm_list_id: list!.id,
    });
    const cohortSeconds = (performance.now() - t) / 1000;
    clearInterval(sampler);
    const synced = await app.cohorts.read(benchClientId, cohort.id);
    if (synced.size !== members) throw new Error(`the cohort has ${synced.size} members`);
    console.log(
      `    then the cohort from the list: ${synced.size} members with ad tags in ${cohortSeconds.toFixed(1)} s ` +
        `(${Math.round(members / cohortSeconds)} members/s), peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB`,
    );
  } finally {
    await app?.close();
    await db.drop();
    await fake.stop();
  }
}
