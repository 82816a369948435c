import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../apps/server/src/app.ts';
import { clients } from '../apps/server/src/db/schema/index.ts';
import { erase } from '../apps/server/src/modules/erasures/index.ts';
import { makeCadence, makeTarget } from '../apps/server/test/engagement.ts';
import { benchConfig, report, scratchDatabase } from './lib.ts';
import { BIG_CLIENT } from './reports-data.ts';

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
  if (process.env.BENCH_ERASURE_ON === 'reports') return onReportsDatabase(serverUrl, perPerson);
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
    console.log(
      `erasure: ${others} targets × 10 events and 2 × ${perPerson} written in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${serverUrl ? 'postgres' : 'pglite'}`,
    );
    const figures = await eraseBesideDelete(app, clientId, cadenceId, person, twin, perPerson);
    report(
      'erasure (10,000 events)',
      `${figures.seconds.toFixed(2)} s`,
      `DELETE of ${perPerson} events ${figures.baseline.toFixed(2)} s`,
      figures.seconds / figures.baseline,
    );
  } finally {
    await app?.close();
    await db.drop();
  }
}

/**
 * Writes `perPerson` events for each of two targets over the last year, then times a plain DELETE
 * of the twin's events (the baseline) and `erase()` of the person (the API's one transaction).
 */
async function eraseBesideDelete(
  app: FastifyInstance,
  clientId: string,
  cadenceId: number,
  person: { id: string; prospectId: string },
  twin: { id: string },
  perPerson: number,
) {
  for (const t of [person, twin]) {
    await app.db.execute(sql`
      insert into engagement_events (client_id, target_id, cadence_id, type, occurred_at)
      select ${clientId}, ${t.id}, ${cadenceId}, case when g % 10 = 0 then 'click' else 'impression' end,
             now() - ((g % 2000) || ' hours')::interval
        from generate_series(1, ${perPerson}) g`);
  }
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
  return { seconds, baseline };
}

/**
 * Issue 44's figure "erasure of a person with 10,000 events on the reports bench database": the
 * reports bench's kept database (1,000,000 targets, 10,000,000 events, 100,000 opportunities; generate
 * it first with `BENCH_REPORTS_GENERATE_ONLY=1 npm run bench -- reports`), its big client. The
 * person and the twin are added for the run and removed after, in a cadence kept for these runs (the
 * erasure's own record, suppression and audit entry stay, as they would).
 */
async function onReportsDatabase(serverUrl: string | undefined, perPerson: number) {
  if (!serverUrl) throw new Error('BENCH_ERASURE_ON=reports needs BENCH_DATABASE_URL or TEST_DATABASE_URL');
  const url = new URL(serverUrl);
  url.pathname = `/${process.env.BENCH_ERASURE_REPORTS_DB ?? 'rally_bench_reports_1000000_10000000_100000'}`;
  const app = await buildApp(benchConfig(url.toString()), { workers: false });
  try {
    await app.ready();
    const [ready] = (
      (await app.db.execute(
        sql`select count(*)::int as n from pg_tables where tablename = 'bench_reports_ready'`,
      )) as unknown as { rows: { n: number }[] }
    ).rows;
    if (!ready?.n) throw new Error(`${url.pathname.slice(1)}: not a finished reports bench database`);
    const [size] = (
      (await app.db.execute(sql`
        select count(*)::int as targets from targets where client_id = ${BIG_CLIENT}`)) as unknown as {
        rows: { targets: number }[];
      }
    ).rows;
    // One cadence for every run, kept: deleting a cadence and its integration on this database
    // checks their references over millions of rows (it ran for minutes).
    const [kept] = (
      (await app.db.execute(
        sql`select id from cadences where client_id = ${BIG_CLIENT} and name = 'Erasure bench' limit 1`,
      )) as unknown as { rows: { id: number }[] }
    ).rows;
    const cadenceId = kept?.id ?? (await makeCadence(app, BIG_CLIENT, { name: 'Erasure bench' }));
    const person = await makeTarget(app, BIG_CLIENT, cadenceId);
    const twin = await makeTarget(app, BIG_CLIENT, cadenceId);
    try {
      const figures = await eraseBesideDelete(app, BIG_CLIENT, cadenceId, person, twin, perPerson);
      console.log(`erasure: on ${url.pathname.slice(1)} (${size?.targets} targets in the client)`);
      report(
        `erasure (${perPerson} events, reports bench database)`,
        `${figures.seconds.toFixed(2)} s`,
        `DELETE of ${perPerson} events ${figures.baseline.toFixed(2)} s`,
        figures.seconds / figures.baseline,
      );
    } finally {
      await app.db.execute(sql`delete from targets where cadence_id = ${cadenceId}`);
      await app.db.execute(sql`delete from prospects where id = ${twin.prospectId}`);
    }
  } finally {
    await app.close();
  }
}
