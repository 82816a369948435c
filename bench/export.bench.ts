import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../apps/server/src/app.ts';
import { clients, integrations } from '../apps/server/src/db/schema/index.ts';
import { hashPassword } from '../apps/server/src/lib/passwords.ts';
import { memberships, users } from '../apps/server/src/db/schema/index.ts';
import { BUILT_IN_ROLES } from '@rally/shared';
import { benchConfig, downloadCsv, report, scratchDatabase } from './lib.ts';

/** Signs in over HTTP as the app's own client does; the cookie and CSRF token for the next calls. */
async function signIn(base: string, email: string, password: string) {
  const csrfRes = await fetch(`${base}/v1/api/auth/csrf`);
  const cookies = csrfRes.headers.getSetCookie().map((c) => c.split(';')[0]);
  const res = await fetch(`${base}/v1/api/auth`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-xsrf-token': csrfRes.headers.get('x-xsrf-token') ?? '',
      cookie: cookies.join('; '),
    },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`sign-in: ${res.status} ${await res.text()}`);
  return [...cookies, ...res.headers.getSetCookie().map((c) => c.split(';')[0])].join('; ');
}

/**
 * Issue 17 "a 1,000,000-row export: seconds and peak RSS (aim: constant memory)". The opportunity
 * export of BENCH_EXPORT_ROWS (1,000,000) deals over HTTP from a server in this process, on a scratch
 * PostgreSQL database (BENCH_DATABASE_URL / TEST_DATABASE_URL) or PGlite; the baseline is the same
 * export of a tenth of the rows, in the same run: constant memory shows as the same peak RSS.
 */
export async function run() {
  const rows = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  const driver = serverUrl ? 'postgres' : 'pglite';
  const db = await scratchDatabase(serverUrl);
  let app: FastifyInstance | undefined;
  try {
    const config = benchConfig(db.url);
    app = await buildApp(config, { workers: false });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const password = 'bench export password';
    const [user] = await app.db
      .insert(users)
      .values({
        email: 'bench@export.example',
        firstName: 'Bench',
        lastName: 'Export',
        passwordHash: await hashPassword(password),
      })
      .returning({ id: users.id });
    const made: string[] = [];
    for (const n of [rows / 10, rows]) {
      const [client] = await app.db
        .insert(clients)
        .values({ name: `Export ${n}` })
        .returning({ id: clients.id });
      await app.db.insert(memberships).values({
        userId: user!.id,
        clientId: client!.id,
        role: 'purple_owner',
        permissions: [...BUILT_IN_ROLES.purple_owner],
        isDefault: n === rows / 10,
      });
      const [crm] = await app.db
        .insert(integrations)
        .values({ clientId: client!.id, source: 'salesforce' })
        .returning({ id: integrations.id });
      const seeded = performance.now();
      await app.db.execute(sql`
        insert into opportunities (client_id, integration_id, external_id, name, account_name, amount_cents,
                                   currency, stage, crm_created_at)
        select ${client!.id}, ${crm!.id}, 'ext-' || n, 'Deal ' || n, 'Account ' || (n % 1000), n * 100,
               'USD', 'Prospecting', timestamptz '2026-02-01 00:00:00+00' + ((n / 7) || ' seconds')::interval
          from generate_series(1, ${n}) n`);
      console.log(
        `export: ${n} opportunities seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s (${driver})`,
      );
      made.push(client!.id);
    }
    const cookie = await signIn(base, 'bench@export.example', password);
    const range = `from=${Date.UTC(2026, 0, 1) / 1000}&to=${Date.UTC(2027, 0, 1) / 1000}`;
    const url = (id: string) => `${base}/v1/report/client/${id}/opportunity/export?${range}`;
    // The first report call of a client computes the stored attribution of its new opportunities
    // (a sweep over them, once); timed apart, so the export's own figures are the streaming's.
    const first = async (id: string) => {
      const started = performance.now();
      const res = await fetch(`${base}/v1/report/client/${id}/opportunity?${range}&page_size=1`, {
        headers: { cookie, 'x-client-id': id },
      });
      if (res.status !== 200) throw new Error(`opportunity: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      return (performance.now() - started) / 1000;
    };
    const smallFirst = await first(made[0]!);
    const bigFirst = await first(made[1]!);
    const small = await downloadCsv(url(made[0]!), { cookie, 'x-client-id': made[0]! });
    const big = await downloadCsv(url(made[1]!), { cookie, 'x-client-id': made[1]! });
    if (big.lines !== rows + 1 || small.lines !== rows / 10 + 1)
      throw new Error(`exported ${small.lines} and ${big.lines} lines`);
    report(
      `attribution of new opps (${driver})`,
      `${bigFirst.toFixed(1)} s for ${rows}`,
      `${smallFirst.toFixed(1)} s for ${rows / 10}`,
      bigFirst / smallFirst,
    );
    report(
      `export ${rows} rows (${driver})`,
      `${big.seconds.toFixed(1)} s, ${Math.round(rows / big.seconds)} rows/s, ${(big.bytes / 2 ** 20).toFixed(0)} MiB`,
      `${small.seconds.toFixed(1)} s for ${rows / 10}`,
      big.seconds / small.seconds,
    );
    report(
      `export peak RSS (${driver})`,
      `${big.peakMiB.toFixed(0)} MiB at ${rows} rows`,
      `${small.peakMiB.toFixed(0)} MiB at ${rows / 10}`,
      big.peakMiB / small.peakMiB,
    );
    report(
      `export heap growth (${driver})`,
      `${big.heapGrowthMiB.toFixed(0)} MiB at ${rows} rows`,
      `${small.heapGrowthMiB.toFixed(0)} MiB at ${rows / 10}`,
      big.heapGrowthMiB / Math.max(1, small.heapGrowthMiB),
    );
  } finally {
    await app?.close();
    await db.drop();
  }
}
