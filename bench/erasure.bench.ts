import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../apps/server/src/app.ts';
import { clients } from '../apps/server/src/db/schema/index.ts';
import { erase } from '../apps/server/src/modules/erasures/index.ts';
import { makeCadence, makeTarget } from '../apps/server/test/engagement.ts';
import { benchConfig, report, scratchDatabase } from './lib.ts';

/**
 * Issue 44: erasure of a person with BENCH_ERASURE_EVENTS (10,000) events, in a client that holds
 * BENCH_ERASURE_TARGETS (10,000) other targets with 10 events each, through `erase()` (the one
 * transaction of the API: every table, the record, the suppression entry, the audit entry), s.
 * Baseline in the same run: a plain `DELETE` of another person's as many events by target.
 */
export async function run() {
  const perPerson = Number(process.env.BENCH_ERASURE_EVENTS ?? 10_000);
  const others = Number(process.env.BENCH_ERASURE_TARGETS ?? 10_000);
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  const db = await scratchDatabase(serverUrl);
  let app: FastifyInstance | undefined;
  try {
    app = await buildApp(benchConfig(db.url), { workers: false });
    await app.ready();
    const [client] = await app.db.insert(clients).values({ name: 'Bench' }).returning({ id: clients.id });
    const clientId = client!.id;
    const cadenceId = await makeCadence(app, clientId);
    const person = await makeTarget(app, clientId, cadenceId);
    const twin = await makeTarget(app, clientId, cadenceId);
    const t0 = performance.now();
    // The crowd: targets with 10 events each, written set-based.
    await app.db.execute(sql`
      with p as (
        insert into prospects (client_id, integration_id, external_id, email)
        select ${clientId}, (select integration_id from cadences where id = ${cadenceId}), 'crowd' || g, 'crowd' || g || '@example.com'
          from generate_series(1, ${others}) g returning id),
      t as (insert into targets (client_id, cadence_id, prospect_id, token)
        select ${clientId}, ${cadenceId}, id, replace(gen_random_uuid()::text, '-', '') from p returning id)
      insert into engagement_events (client_id, target_id, cadence_id, type, occurred_at)
      select ${clientId}, t.id, ${cadenceId}, 'impression', now() - (g || ' hours')::interval from t, generate_series(1, 10) g`);
    for (const t of [person, twin]) {
      await app.db.execute(sql`
        insert into engagement_events (client_id, target_id, cadence_id, type, occurred_at)
        select ${clientId}, ${t.id}, ${cadenceId}, case when g % 10 = 0 then 'click' else 'impression' end,
               now() - ((g % 2000) || ' hours')::interval
          from generate_series(1, ${perPerson}) g`);
    }
    console.log(
      `erasure: ${others} targets × 10 events and 2 × ${perPerson} written in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${serverUrl ? 'postgres' : 'pglite'}`,
    );
    const [row] = (
      (await app.db.execute(sql`select email from prospects where id = ${person.prospectId}`)) as unknown as {
        rows: { email: string }[];
      }
    ).rows;

    const tb = performance.now();
    await app.db.execute(
      sql`delete from engagement_events where client_id = ${clientId} and target_id = ${twin.id}`,
    );
    const baseline = (performance.now() - tb) / 1000;

    const te = performance.now();
    const done = await erase(app.db, app.suppressions.key, clientId, row!.email, { actor: null });
    const seconds = (performance.now() - te) / 1000;
    if (done?.erasure.counts.events !== perPerson)
      throw new Error(`erased ${done?.erasure.counts.events} events`);
    report(
      'erasure (10,000 events)',
      `${seconds.toFixed(2)} s`,
      `DELETE of ${perPerson} events ${baseline.toFixed(2)} s`,
      seconds / baseline,
    );
  } finally {
    await app?.close();
    await db.drop();
  }
}
