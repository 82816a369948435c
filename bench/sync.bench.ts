import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { and, count, eq, inArray } from 'drizzle-orm';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../apps/server/src/app.ts';
import { loadConfig } from '../apps/server/src/config/env.ts';
import { clients, integrations, targets } from '../apps/server/src/db/schema/index.ts';
import { createSecretBox } from '../apps/server/src/lib/crypto.ts';
import { oauthCredentialsFrom } from '../apps/server/src/modules/integrations/vendor-http.ts';
import { pageCost, startFakeSalesloft } from '../apps/server/test/fakes/salesloft.ts';
import type {
  FakeSalesloft,
  FakeSalesloftSeed,
  SeedCadence,
  SeedMembership,
  SeedPerson,
} from '../apps/server/test/fakes/salesloft.ts';
import { report, root } from './lib.ts';

/** Days of every generated cadence's steps (about two weeks of outreach over ten days). */
const STEP_DAYS = [1, 1, 2, 3, 5, 7, 8, 10];

/** The day generated membership `id` starts on (see generateTeam). */
const dayOf = (id: number) => STEP_DAYS[Math.floor((id - 1) / 10) % STEP_DAYS.length]!;

/**
 * A generated Salesloft team: 20 reps, 10 cadences, `memberships` people across ~2,000 accounts,
 * each person on one cadence, spread over the cadence's days. Deterministic (no randomness) so runs
 * compare; built as plain arrays in one pass.
 */
export function generateTeam(memberships: number): FakeSalesloftSeed {
  const users = Array.from({ length: 20 }, (_, i) => ({
    id: i + 1,
    first_name: `Rep${i + 1}`,
    last_name: 'Bench',
    email: `rep${i + 1}@bench.example`,
    team_admin: i === 0,
  }));
  const accountCount = Math.max(1, Math.round(memberships / 25));
  const accounts = Array.from({ length: accountCount }, (_, i) => ({
    id: i + 1,
    name: `Company ${i + 1}`,
    domain: `company${i + 1}.example`,
  }));
  const cadences: SeedCadence[] = Array.from({ length: 10 }, (_, c) => ({
    id: c + 1,
    name: `Cadence ${c + 1}`,
    owner_id: (c % users.length) + 1,
    steps: STEP_DAYS.map((day, s) => ({
      id: c * 100 + s + 1,
      day,
      type: s % 2 ? ('phone' as const) : ('email' as const),
    })),
  }));
  const people: SeedPerson[] = new Array(memberships);
  const list: SeedMembership[] = new Array(memberships);
  for (let i = 0; i < memberships; i++) {
    people[i] = {
      id: i + 1,
      first_name: `First${i}`,
      last_name: `Last${i}`,
      email_address: `person${i}@company${(i % accountCount) + 1}.example`,
      title: i % 3 ? 'VP Sales' : 'CTO',
      account_id: (i % accountCount) + 1,
      owner_id: (i % users.length) + 1,
    };
    const cadence = cadences[i % cadences.length]!;
    const step = cadence.steps![Math.floor(i / cadences.length) % STEP_DAYS.length]!;
    list[i] = {
      id: i + 1,
      cadence_id: cadence.id!,
      person_id: i + 1,
      user_id: (i % users.length) + 1,
      current_state: i % 50 === 0 ? 'completed' : 'active',
      step_id: step.id!,
      counts: { sent_emails: Number(step.day) > 1 ? 1 : 0 },
    };
  }
  return { team: { name: 'Bench Team' }, users, accounts, people, cadences, memberships: list };
}

/** A scratch database on the PostgreSQL server at `url`, or none (PGlite) when `url` is unset. */
async function scratchDatabase(url: string | undefined) {
  if (!url) return { url: undefined, drop: async () => {} };
  const name = `rally_bench_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`create database ${name}`);
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  return { url: scratch.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

type Counted = { total: number; byResource: string; cost: number };

/** Requests the fake received since the last clear, by resource (`/v2/people.json` → people). */
function requestsOf(fake: FakeSalesloft): Counted {
  const by = new Map<string, number>();
  let cost = 0;
  for (const r of fake.requests) {
    const name = r.path.replace(/^\/v2\//, '').replace(/\.json$/, '');
    by.set(name, (by.get(name) ?? 0) + 1);
    cost += pageCost(Number(r.query.get('page') ?? 1));
  }
  const byResource = [...by]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return { total: fake.requests.length, byResource, cost };
}

/**
 * The floor: every membership updated after `since` read with plain fetch, 100 a page, walking the
 * `updated_at` cursor as the adapter does (the fake's stamps are unique, so `gt` loses nothing).
 */
async function plainPaging(fake: FakeSalesloft, token: string, since: string | null) {
  const t = performance.now();
  let cursor = since;
  let rows = 0;
  let requests = 0;
  for (;;) {
    const q = new URLSearchParams({ sort_by: 'updated_at', sort_direction: 'ASC', per_page: '100' });
    if (cursor) q.set('updated_at[gt]', cursor);
    const res = await fetch(`${fake.apiUrl}/cadence_memberships.json?${q}`, {
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

  const t = performance.now();
  // A budget no sync of this size reaches: the figure is our speed, not Salesloft's 600 a minute.
  const fake = await startFakeSalesloft({ rateLimitPerMinute: 1e9, seed: generateTeam(size) });
  console.log(`sync: seeded the Salesloft fake with ${size} memberships in ${seconds(t)} s (${driver})`);

  const db = await scratchDatabase(serverUrl);
  let app: FastifyInstance | undefined;
  try {
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: 'memory://',
      DATABASE_URL: db.url,
      LOG_LEVEL: 'silent',
      SEED_DEMO: 'false',
      WEB_DIST: path.join(root, 'apps/server/test/fixtures/web-dist'),
      APP_SECRET: randomBytes(32).toString('hex'),
      SALESLOFT_CLIENT_ID: fake.clientId,
      SALESLOFT_CLIENT_SECRET: fake.clientSecret,
      SALESLOFT_API_URL: fake.apiUrl,
      SALESLOFT_AUTH_URL: fake.authUrl,
    });
    // No workers: the bench runs the sync itself, so nothing else competes for the database.
    app = await buildApp(config, { workers: false });
    await app.ready();
    const [client] = await app.db.insert(clients).values({ name: 'Bench' }).returning({ id: clients.id });
    const tokens = fake.grantTokens();
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
      fake.clearRequests();
      const started = performance.now();
      await theApp.integrationSync.run({ integrationId });
      const took = (performance.now() - started) / 1000;
      const [row] = await theApp.db.select().from(integrations).where(eq(integrations.id, integrationId));
      if (row?.lastError) throw new Error(`${label}: ${row.lastError}`);
      return { seconds: took, requests: requestsOf(fake) };
    };
    const countOf = async (table: typeof targets) =>
      (await theApp.db.select({ n: count() }).from(table).where(eq(table.clientId, client!.id)))[0]!.n;

    // Warm-up: the plain walk once (JIT, sockets), then measured.
    await plainPaging(fake, tokens.access_token, null);
    const floor = await plainPaging(fake, tokens.access_token, null);
    if (floor.rows !== size) throw new Error(`plain paging read ${floor.rows} of ${size} memberships`);

    // The adapter alone (its lookups of people, accounts, actions and steps; no database) splits our
    // overhead between talking to Salesloft and storing.
    fake.clearRequests();
    const walkStarted = performance.now();
    const credentials = oauthCredentialsFrom(tokens);
    const ctx = { credentials: () => credentials, saveCredentials: async () => {} };
    let walked = 0;
    for await (const page of app.integrationSync.adapters.salesloft.memberships(ctx, null)) {
      walked += page.items.length;
    }
    const walk = { seconds: (performance.now() - walkStarted) / 1000, requests: requestsOf(fake) };
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
    console.log(`    ${full.requests.byResource}`);
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

    const cursorBefore = fake.now();
    const nothing = await sync('incremental sync');
    const emptyFloor = await plainPaging(fake, tokens.access_token, cursorBefore);
    report(
      '  re-sync, nothing changed',
      `${nothing.seconds.toFixed(2)} s, ${nothing.requests.total} requests`,
      `${emptyFloor.seconds.toFixed(2)} s, ${emptyFloor.requests} req`,
      nothing.seconds / emptyFloor.seconds,
    );
    console.log(`    ${nothing.requests.byResource}`);

    // 1% of the memberships move on a step (a new latest action, a new day), spread over the team.
    // Only memberships not already on the last step, so the check below sees each one move.
    const changed = Math.max(1, Math.round(size / 100));
    const lastDay = STEP_DAYS.at(-1)!;
    const movers: string[] = [];
    const since = fake.now();
    for (let id = 1; movers.length < changed && id <= size; id += Math.floor(size / changed) || 1) {
      let pick = id;
      while (dayOf(pick) === lastDay) pick++;
      fake.update('membership', pick, { step_id: ((pick - 1) % 10) * 100 + STEP_DAYS.length });
      movers.push(String(pick));
    }
    const some = await sync('incremental sync after changes');
    const changedFloor = await plainPaging(fake, tokens.access_token, since);
    if (changedFloor.rows !== movers.length)
      throw new Error(`${changedFloor.rows} changed of ${movers.length}`);
    const [moved] = await app.db
      .select({ n: count() })
      .from(targets)
      .where(
        and(
          eq(targets.clientId, client!.id),
          inArray(targets.externalId, movers),
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
    console.log(`    ${some.requests.byResource}`);
  } finally {
    await app?.close();
    await db.drop();
    await fake.close();
  }
}

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);
