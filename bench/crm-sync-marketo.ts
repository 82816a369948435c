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
 * Marketo's documented rate limit, which the floor keeps too (issue 43: paging that ignores the
 * vendor's limit is not something any client could do): "API access per instance limited to 100
 * calls per 20 seconds" (Adobe Experience League, Marketo Integration Best Practices, "API Limits",
 * https://experienceleague.adobe.com/en/docs/marketo-developer/marketo/rest/marketo-integration-best-practices).
 */
const MARKETO_CALLS = 100;
const MARKETO_WINDOW_MS = 20_000;

/**
 * The floor: a token, the static lists, and the list's leads with the sync's fields, walked by
 * nextPageToken with plain fetch at the largest page (300), nothing stored, at Marketo's documented
 * rate limit (a call waits while 100 were sent in the last 20 s; the identity call is not an API
 * call and does not count).
 */
async function plainPaging(info: FakeInfo, paced = true) {
  const t = performance.now();
  let requests = 0;
  let rows = 0;
  const sent: number[] = [];
  const get = async (url: string, token?: string) => {
    if (token && paced) {
      if (sent.length >= MARKETO_CALLS) {
        const wait = sent[sent.length - MARKETO_CALLS]! + MARKETO_WINDOW_MS - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      sent.push(performance.now());
    }
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
 * database, set against paging the same list and leads with plain fetch at Marketo's documented
 * rate limit in the same run: seconds, requests, peak RSS and the live heap's growth. The adapter
 * keeps to half of that limit (50 calls per 20 s), so the seconds that pacing alone imposes are
 * printed too.
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

    await plainPaging(info, false); // warm-up (JIT, sockets), not paced
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
    const limited = (n: number) =>
      (Math.max(0, n - MARKETO_CALLS) / MARKETO_CALLS) * (MARKETO_WINDOW_MS / 1000);
    console.log(
      `    pacing alone: ${paced(requests).toFixed(0)} s for the sync's calls at the adapter's 50 per 20 s, ${limited(floor.requests).toFixed(0)} s for the floor's at Marketo's 100 per 20 s; calls by path ${JSON.stringify(paths)}`,
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
