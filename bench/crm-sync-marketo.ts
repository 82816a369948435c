import { and, count, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../apps/server/src/app.ts';
import { crmContacts, crmListMembers, crmLists, integrations } from '../apps/server/src/db/schema/index.ts';
import { benchConfig, connectMarketo, forkFake, report, sampleRss, scratchDatabase } from './lib.ts';

type FakeInfo = { restUrl: string; clientId: string; clientSecret: string; listId: number; seededMs: number };

/** The fields the sync's contacts phase asks of a list's leads (marketo/adapter.ts LEAD_FIELDS). */
const LEAD_FIELDS = 'email,firstName,lastName,title,company,unsubscribed,updatedAt';
/** The adapter's pace (marketo/adapter.ts PACE_CALLS per PACE_WINDOW_MS): half of Marketo's 100 per 20 s. */
const PACE_PER_S = 50 / 20;

/**
 * The floor: a token, the static lists, and the list's leads with the sync's fields, walked by
 * nextPageToken with plain fetch at the largest page (300), nothing stored, no pacing.
 */
async function plainPaging(info: FakeInfo) {
  const t = performance.now();
  let requests = 0;
  let rows = 0;
  const get = async (url: string, token?: string) => {
    const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    requests++;
    const body = (await res.json()) as {
      access_token?: string;
      success?: boolean;
      result?: unknown[];
      nextPageToken?: string;
      moreResult?: boolean;
    };
    if (!res.ok || body.success === false)
      throw new Error(`plain paging: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  const origin = info.restUrl.replace(/\/rest$/, '');
  const token = (
    await get(
      `${origin}/identity/oauth/token?${new URLSearchParams({ grant_type: 'client_credentials', client_id: info.clientId, client_secret: info.clientSecret })}`,
    )
  ).access_token;
  for (const path of ['/v1/lists.json', `/v1/lists/${info.listId}/leads.json`]) {
    let next: string | undefined;
    do {
      const q = new URLSearchParams({
        batchSize: '300',
        ...(path.includes('/leads') ? { fields: LEAD_FIELDS } : {}),
      });
      if (next) q.set('nextPageToken', next);
      const body = await get(`${info.restUrl}${path}?${q}`, token);
      rows += body.result?.length ?? 0;
      next = body.moreResult ? body.nextPageToken : undefined;
    } while (next);
  }
  return { seconds: (performance.now() - t) / 1000, rows, requests };
}

/**
 * Issue 43's Marketo list sync: a first sync of a subscription whose BENCH_CRM_MARKETO_MEMBERS
 * (100,000) leads are all in one static list, from the in-repo fake (own process) into a fresh
 * database, set against paging the same list and leads with plain fetch in the same run: seconds,
 * requests, peak RSS and the live heap's growth. The adapter keeps to half of Marketo's rate limit
 * (50 calls per 20 s), so the seconds that pace alone imposes are printed too.
 */
export async function runMarketo() {
  const members = Number(process.env.BENCH_CRM_MARKETO_MEMBERS ?? 100_000);
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  const driver = serverUrl ? 'postgres' : 'pglite';
  const fake = await forkFake('bench/marketo-server.ts', 'Marketo', {
    BENCH_CRM_MARKETO_MEMBERS: String(members),
  });
  const info = await fake.call<FakeInfo>('info');
  console.log(
    `crm-sync: Marketo fake (own process) seeded with ${members} leads in one static list in ${(info.seededMs / 1000).toFixed(1)} s; ${driver}`,
  );
  const db = await scratchDatabase(serverUrl);
  let app: FastifyInstance | undefined;
  try {
    const config = benchConfig(db.url, { ALLOW_PRIVATE_FETCH: 'true' });
    app = await buildApp(config, { workers: false });
    await app.ready();
    const { clientId, integrationId } = await connectMarketo(app, info);

    await plainPaging(info); // warm-up (JIT, sockets)
    await fake.call('clear');
    const floor = await plainPaging(info);
    if (floor.rows !== members + 1)
      throw new Error(`plain paging read ${floor.rows} rows, not ${members + 1}`);

    await fake.call('clear');
    const rssBefore = process.memoryUsage().rss;
    const memory = sampleRss();
    const started = performance.now();
    await app.crmSync.run({ integrationId });
    const seconds = (performance.now() - started) / 1000;
    const peak = memory.stop();
    const requests = await fake.call<number>('requests');
    const paths = await fake.call<Record<string, number>>('paths');
    const [row] = await app.db.select().from(integrations).where(eq(integrations.id, integrationId));
    if (row?.lastError) throw new Error(`sync: ${row.lastError}`);
    const [c] = await app.db
      .select({ n: count() })
      .from(crmContacts)
      .where(eq(crmContacts.clientId, clientId));
    const [list] = await app.db
      .select({ id: crmLists.id })
      .from(crmLists)
      .where(and(eq(crmLists.clientId, clientId), eq(crmLists.externalId, String(info.listId))));
    const [m] = await app.db
      .select({ n: count() })
      .from(crmListMembers)
      .where(eq(crmListMembers.listId, list!.id));
    if (c!.n !== members || m!.n !== members) throw new Error(`stored ${c!.n} contacts and ${m!.n} members`);
    report(
      `crm-sync Marketo list of ${members} (${driver})`,
      `${seconds.toFixed(1)} s, ${Math.round(members / seconds)} members/s`,
      `${floor.seconds.toFixed(1)} s (plain paging)`,
      seconds / floor.seconds,
    );
    report(
      '  requests to Marketo',
      `${requests}`,
      `${floor.requests} (plain paging)`,
      requests / floor.requests,
    );
    const paced = (n: number) => Math.max(0, n - 50) / PACE_PER_S;
    console.log(
      `    the adapter's pace alone: ${paced(requests).toFixed(0)} s for the sync's calls, ${paced(floor.requests).toFixed(0)} s for the floor's; calls by path ${JSON.stringify(paths)}`,
    );
    console.log(
      `    peak RSS ${peak.toFixed(0)} MiB (${(rssBefore / 2 ** 20).toFixed(0)} MiB just before the sync); live heap's growth ${memory.liveHeapGrowthMiB().toFixed(0)} MiB`,
    );
  } finally {
    await app?.close();
    await db.drop();
    await fake.stop();
  }
}
