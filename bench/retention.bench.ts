import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../apps/server/src/app.ts';
import { clients } from '../apps/server/src/db/schema/index.ts';
import { foldCutoff, runRetention } from '../apps/server/src/modules/retention/index.ts';
import { benchConfig, report, scratchDatabase } from './lib.ts';

const DAY_MS = 86_400_000;
const rowsOf = (result: unknown) => (result as { rows: Record<string, unknown>[] }).rows;

/**
 * Issue 44 "the retention job over 10,000,000 events (seconds, rows folded)". BENCH_RETENTION_EVENTS
 * (default 1,000,000) events of one client spread over the 90 days before the 25-month cutoff are
 * folded into the daily rollups and deleted by `runRetention` (batches of 10,000), on a scratch
 * PostgreSQL database (BENCH_DATABASE_URL / TEST_DATABASE_URL) or PGlite; the baseline is a tenth (BENCH_RETENTION_BASELINE sets another count)
 * of the events in the same run. Then a second run (idempotent: folds nothing) and a check that the
 * rollups hold every event.
 */
export async function run() {
  const events = Number(process.env.BENCH_RETENTION_EVENTS ?? 1_000_000);
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  const driver = serverUrl ? 'postgres' : 'pglite';
  const db = await scratchDatabase(serverUrl);
  let app: FastifyInstance | undefined;
  try {
    app = await buildApp(benchConfig(db.url), { workers: false });
    await app.ready();
    const now = new Date();
    const cutoff = foldCutoff(now, 25);
    const figures: { n: number; seconds: number; folded: number }[] = [];
    // The baseline's size: a tenth by default; BENCH_RETENTION_BASELINE sets it (at 10,000,000 events
    // a 100,000 baseline saves seeding and folding 1,000,000 more).
    const baseline = Number(process.env.BENCH_RETENTION_BASELINE ?? Math.round(events / 10));
    for (const n of [baseline, events]) {
      const [client] = await app.db
        .insert(clients)
        .values({ name: `Retention ${n}` })
        .returning({ id: clients.id });
      const clientId = client!.id;
      const seeded = performance.now();
      // 90 days before the cutoff, a thousand targets, three types, ten content items and none.
      for (let lo = 1; lo <= n; lo += 1_000_000) {
        const hi = Math.min(n, lo + 999_999);
        await app.db.execute(sql`
          insert into engagement_events (client_id, target_id, cadence_id, type, content_id, occurred_at)
          select ${clientId}::uuid,
                 ('00000000-0000-4000-8000-' || lpad((g % 1000)::text, 12, '0'))::uuid, 1,
                 (array['impression', 'impression', 'impression', 'click', 'view'])[1 + g % 5],
                 case when g % 11 = 0 then null
                      else ('00000000-0000-4000-9000-' || lpad((g % 10)::text, 12, '0'))::uuid end,
                 ${new Date(cutoff.getTime() - 90 * DAY_MS)}::timestamptz + ((g % 90) || ' days')::interval
                   + ((g % 86400) || ' seconds')::interval
            from generate_series(${lo}::int, ${hi}::int) g`);
      }
      console.log(
        `retention: ${n} events seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s (${driver})`,
      );
      const started = performance.now();
      const totals = await runRetention(app.db, { clientId, now });
      const seconds = (performance.now() - started) / 1000;
      const again = performance.now();
      const second = await runRetention(app.db, { clientId, now });
      const [sum] = rowsOf(
        await app.db.execute(
          sql`select coalesce(sum(events), 0)::bigint as n from engagement_rollups where client_id = ${clientId}`,
        ),
      );
      console.log(
        `retention: ${n} events: ${totals.eventsFolded} folded over ${totals.daysCounted} days in ` +
          `${seconds.toFixed(1)} s (${Math.round(totals.eventsFolded / seconds)} events/s); second run ` +
          `${second.eventsFolded} folded in ${((performance.now() - again) / 1000).toFixed(2)} s; rollups hold ${String(sum?.n)}`,
      );
      if (Number(sum?.n) !== n || totals.eventsFolded !== n || second.eventsFolded !== 0)
        throw new Error('retention: the rollups do not hold every event once');
      figures.push({ n, seconds, folded: totals.eventsFolded });
    }
    const [small, big] = figures;
    report(
      `retention fold (${driver})`,
      `${big!.folded} in ${big!.seconds.toFixed(1)} s`,
      `${small!.folded} in ${small!.seconds.toFixed(1)} s`,
      big!.seconds / small!.seconds,
    );
  } finally {
    await app?.close();
    await db.drop();
  }
}
