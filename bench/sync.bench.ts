import { and, count, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../apps/server/src/app.ts';
import { clients, integrations, targets } from '../apps/server/src/db/schema/index.ts';
import { createSecretBox } from '../apps/server/src/lib/crypto.ts';
import { oauthCredentialsFrom } from '../apps/server/src/modules/integrations/vendor-http.ts';
import type { TokenReply } from '../apps/server/test/fakes/salesloft.ts';
import { benchConfig, forkFake, report, scratchDatabase } from './lib.ts';
import { STEP_DAYS, dayOf } from './salesloft-team.ts';

type FakeInfo = { apiUrl: string; authUrl: string; clientId: string; clientSecret: string; seededMs: number };
type Requests = { total: number; byResource: Record<string, number>; cost: number };

/** The Salesloft fake in a child process (bench/salesloft-server.ts), driven over IPC. */
async function startFake(size: number) {
  const fake = await forkFake('bench/salesloft-server.ts', 'Salesloft', {
    BENCH_SYNC_MEMBERSHIPS: String(size),
  });
  return {
    info: await fake.call<FakeInfo>('info'),
    tokens: () => fake.call<TokenReply>('tokens'),
    now: () => fake.call<string>('now'),
    clear: () => fake.call<null>('clear'),
    requests: () => fake.call<Requests>('requests'),
    moveToLastStep: (ids: number[]) => fake.call<null>('moveToLastStep', ids),
    stop: fake.stop,
  };
}
type Fake = Awaited<ReturnType<typeof startFake>>;

const byResource = (r: Requests) =>
  Object.entries(r.byResource)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');

/**
 * The floor: every membership updated after `since` read with plain fetch, 100 a page, walking the
 * `updated_at` cursor as the adapter does (the fake's stamps are unique, so `gt` loses nothing).
 */
async function plainPaging(apiUrl: string, token: string, since: string | null) {
  const t = performance.now();
  let cursor = since;
  let rows = 0;
  let requests = 0;
  for (;;) {
    const q = new URLSearchParams({ sort_by: 'updated_at', sort_direction: 'ASC', per_page: '100' });
    if (cursor) q.set('updated_at[gt]', cursor);
    const res = await fetch(`${apiUrl}/cadence_memberships.json?${q}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    requests++;
    if (!res.ok) throw new Error(`plain paging: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { data: { updated_at: string }[] };
    rows += body.data.length;
    if (body.data.length < 100) break;
    cursor = body.data.at(-1)!.updated_at;
  }
  return { seconds: (performance.now() - t) / 1000, rows, requests };
}

/**
 * Issue 6: a full sync of `BENCH_SYNC_MEMBERSHIPS` (50,000) Salesloft memberships from the in-repo
 * fake into a fresh database (PGlite, or a scratch database on BENCH_DATABASE_URL /
 * TEST_DATABASE_URL), then an incremental sync with nothing changed and one after 1% changed. Each
 * is set against plain paging of the same memberships with fetch and no database, so the ratio is
 * our overhead: the extra lookups the adapter makes (people, accounts, actions, steps) and storing.
 */
export async function run() {
  const size = Number(process.env.BENCH_SYNC_MEMBERSHIPS ?? 50_000);
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  const driver = serverUrl ? 'postgres' : 'pglite';

  // Its budget is one no sync of this size reaches: the figure is our speed, not Salesloft's limit.
  const fake: Fake = await startFake(size);
  const { apiUrl, authUrl, clientId, clientSecret, seededMs } = fake.info;
  console.log(
    `sync: Salesloft fake (own process) seeded with ${size} memberships in ${(seededMs / 1000).toFixed(1)} s; ${driver}`,
  );

  const db = await scratchDatabase(serverUrl);
  let app: FastifyInstance | undefined;
  try {
    const config = benchConfig(db.url, {
      SALESLOFT_CLIENT_ID: clientId,
      SALESLOFT_CLIENT_SECRET: clientSecret,
      SALESLOFT_API_URL: apiUrl,
      SALESLOFT_AUTH_URL: authUrl,
    });
    // No workers: the bench runs the sync itself, so nothing else competes for the database.
    app = await buildApp(config, { workers: false });
    await app.ready();
    const [client] = await app.db.insert(clients).values({ name: 'Bench' }).returning({ id: clients.id });
    const tokens = await fake.tokens();
    const [integration] = await app.db
      .insert(integrations)
      .values({
        clientId: client!.id,
        source: 'salesloft',
        credentialsEnc: createSecretBox(config.appSecret).encrypt(
          JSON.stringify(oauthCredentialsFrom(tokens)),
        ),
        accountName: 'Bench Team',
      })
      .returning({ id: integrations.id });
    const integrationId = integration!.id;
    const theApp = app;

    const sync = async (label: string) => {
      await fake.clear();
      const started = performance.now();
      await theApp.integrationSync.run({ integrationId });
      const took = (performance.now() - started) / 1000;
      const [row] = await theApp.db.select().from(integrations).where(eq(integrations.id, integrationId));
      if (row?.lastError) throw new Error(`${label}: ${row.lastError}`);
      return { seconds: took, requests: await fake.requests() };
    };
    const countOf = async (table: typeof targets) =>
      (await theApp.db.select({ n: count() }).from(table).where(eq(table.clientId, client!.id)))[0]!.n;

    // Warm-up: the plain walk once (JIT, sockets), then measured.
    await plainPaging(apiUrl, tokens.access_token, null);
    const floor = await plainPaging(apiUrl, tokens.access_token, null);
    if (floor.rows !== size) throw new Error(`plain paging read ${floor.rows} of ${size} memberships`);

    // The adapter alone (its lookups of people, accounts, actions and steps; no database) splits our
    // overhead between talking to Salesloft and storing.
    await fake.clear();
    const walkStarted = performance.now();
    const credentials = oauthCredentialsFrom(tokens);
    const ctx = { credentials: () => credentials, saveCredentials: async () => {} };
    let walked = 0;
    for await (const page of app.integrationSync.adapters.salesloft.memberships(ctx, null)) {
      walked += page.items.length;
    }
    const walk = { seconds: (performance.now() - walkStarted) / 1000, requests: await fake.requests() };
    if (walked !== size) throw new Error(`the adapter read ${walked} of ${size} memberships`);

    const full = await sync('full sync');
    const stored = await countOf(targets);
    if (stored !== size) throw new Error(`full sync stored ${stored} targets of ${size}`);
    report(
      `sync ${size} memberships (${driver})`,
      `${full.seconds.toFixed(1)} s, ${Math.round(size / full.seconds)}/s`,
      `${floor.seconds.toFixed(1)} s (plain paging)`,
      full.seconds / floor.seconds,
    );
    report(
      '  requests to Salesloft',
      `${full.requests.total}`,
      `${floor.requests} (plain paging)`,
      full.requests.total / floor.requests,
    );
    console.log(`    ${byResource(full.requests)}`);
    // Against the real Salesloft the team's budget (600 cost a minute) bounds a sync from below.
    console.log(
      `    cost ${full.requests.cost}: at least ${(full.requests.cost / 600).toFixed(1)} min within Salesloft's 600 a minute`,
    );
    report(
      '  of which adapter alone',
      `${walk.seconds.toFixed(1)} s, ${walk.requests.total} req`,
      `${floor.seconds.toFixed(1)} s (plain paging)`,
      walk.seconds / floor.seconds,
    );

    const cursorBefore = await fake.now();
    const nothing = await sync('incremental sync');
    const emptyFloor = await plainPaging(apiUrl, tokens.access_token, cursorBefore);
    report(
      '  re-sync, nothing changed',
      `${nothing.seconds.toFixed(2)} s, ${nothing.requests.total} requests`,
      `${emptyFloor.seconds.toFixed(2)} s, ${emptyFloor.requests} req`,
      nothing.seconds / emptyFloor.seconds,
    );
    console.log(`    ${byResource(nothing.requests)}`);

    // 1% of the memberships move on a step (a new latest action, a new day), spread over the team.
    // Only memberships not already on the last step, so the check below sees each one move.
    const changed = Math.max(1, Math.round(size / 100));
    const lastDay = STEP_DAYS.at(-1)!;
    const movers: number[] = [];
    for (let id = 1; movers.length < changed && id <= size; id += Math.floor(size / changed) || 1) {
      let pick = id;
      while (dayOf(pick) === lastDay) pick++;
      movers.push(pick);
    }
    const since = await fake.now();
    await fake.moveToLastStep(movers);
    const some = await sync('incremental sync after changes');
    const changedFloor = await plainPaging(apiUrl, tokens.access_token, since);
    if (changedFloor.rows !== movers.length)
      throw new Error(`${changedFloor.rows} changed of ${movers.length}`);
    const [moved] = await app.db
      .select({ n: count() })
      .from(targets)
      .where(
        and(
          eq(targets.clientId, client!.id),
          inArray(targets.externalId, movers.map(String)),
          eq(targets.dayNumber, lastDay),
        ),
      );
    if (moved!.n !== movers.length) throw new Error(`${moved!.n} of ${movers.length} targets moved on`);
    report(
      `  re-sync, ${movers.length} changed (1%)`,
      `${some.seconds.toFixed(2)} s, ${some.requests.total} requests`,
      `${changedFloor.seconds.toFixed(2)} s, ${changedFloor.requests} req`,
      some.seconds / changedFloor.seconds,
    );
    console.log(`    ${byResource(some.requests)}`);
  } finally {
    await app?.close();
    await db.drop();
    await fake.stop();
  }
}
