import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../apps/server/src/app.ts';
import { loadConfig } from '../apps/server/src/config/env.ts';
import { report, root, scratchDatabase } from './lib.ts';

/**
 * Issue 18: the journey job (apps/server/src/modules/journeys, docs/decisions/0010) evaluating a
 * cohort of BENCH_JOURNEY_MEMBERS members (default 1,000,000; 5 members per account) on real
 * PostgreSQL: the first run (every account enters the first stage, those meeting rules move, their
 * members' targets follow) and a second run (idempotent: nothing moves), in seconds and rows
 * changed per second. Baseline in the same run: a plain `UPDATE targets SET day_number = …` of the
 * same member rows. Then (decision 0036) a third run after 1,000 accounts' members gained
 * impressions, with the accounts it read, against a forced full run of the same data.
 *
 * BENCH_DATABASE_URL (or TEST_DATABASE_URL) names the server; a scratch database is created and dropped.
 */
export async function run() {
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  if (!serverUrl) {
    console.log('journeys: skipped (set BENCH_DATABASE_URL or TEST_DATABASE_URL to a PostgreSQL server)');
    return;
  }
  const members = Number(process.env.BENCH_JOURNEY_MEMBERS ?? 1_000_000);
  const accounts = Math.max(1, Math.floor(members / 5));
  const db = await scratchDatabase(serverUrl);
  const url = new URL(db.url!);
  if (process.env.BENCH_EXPLAIN) {
    const a = new pg.Client({ connectionString: url.toString() });
    await a.connect();
    const name = url.pathname.slice(1);
    for (const set of [
      "session_preload_libraries = 'auto_explain'",
      "auto_explain.log_min_duration = '1500ms'",
      'auto_explain.log_analyze = on',
      'auto_explain.log_buffers = on',
    ])
      await a.query(`alter database ${name} set ${set}`);
    await a.end();
  }
  let app: FastifyInstance | undefined;
  try {
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: 'memory://',
      DATABASE_URL: url.toString(),
      LOG_LEVEL: 'silent',
      SEED_DEMO: 'false',
      WEB_DIST: path.join(root, 'apps/server/test/fixtures/web-dist'),
      APP_SECRET: randomBytes(32).toString('hex'),
    });
    app = await buildApp(config, { workers: false });
    await app.ready();
    const c = new pg.Client({ connectionString: url.toString() });
    await c.connect();
    try {
      const t0 = performance.now();
      const q = async (text: string) => (await c.query(text)).rows[0] as Record<string, unknown> | undefined;
      const client = (await q(`insert into clients (name) values ('Bench') returning id::text as id`))!
        .id as string;
      const integration =
        (await q(`insert into integrations (client_id, source) values ('${client}', 'fileforce')
        returning id`))!.id as number;
      const cadence =
        (await q(`insert into cadences (client_id, integration_id, external_id, name, kind, status, is_super)
        values ('${client}', ${integration}, 'cohort:bench', 'Cohort: Bench', 'cohort', 'active', true) returning id`))!
          .id as number;
      await c.query(`insert into cadence_days (client_id, cadence_id, day_number, content_days)
        values ('${client}', ${cadence}, 1, '[]')`);
      const cohort =
        (await q(`insert into cohorts (client_id, name, source_kind, cadence_id, size, accounts, sync_state)
        values ('${client}', 'Bench', 'filter', ${cadence}, ${members}, ${accounts}, 'done') returning id::text as id`))!
          .id as string;
      await c.query(`insert into companies (client_id, integration_id, external_id, name)
        select '${client}', ${integration}, 'c' || i, 'Company ' || i from generate_series(1, ${accounts}) i`);
      await c.query(`insert into prospects (client_id, integration_id, external_id, first_name, last_name, company_id)
        select '${client}', ${integration}, 'p' || i, 'Pat', 'P' || i, co.id
        from generate_series(1, ${members}) i
        join companies co on co.integration_id = ${integration} and co.external_id = 'c' || (1 + i % ${accounts})`);
      // Engagement: about one account in three reaches 3 impressions, one member in 40 clicked.
      await c.query(`insert into targets (client_id, cadence_id, prospect_id, token, impressions, clicks)
        select '${client}', ${cadence}, p.id, md5(p.id::text) || substr(md5(p.external_id), 1, 8),
          (random() < 0.12)::int * (1 + floor(random() * 4))::int, (random() < 0.025)::int
        from prospects p where p.integration_id = ${integration}`);
      await c.query(`insert into cohort_members (client_id, cohort_id, prospect_id, company_id, target_id)
        select '${client}', '${cohort}', t.prospect_id, p.company_id, t.id
        from targets t join prospects p on p.id = t.prospect_id where t.cadence_id = ${cadence}`);
      await c.query('analyze');
      console.log(
        `journeys: ${members.toLocaleString('en')} members in ${accounts.toLocaleString('en')} accounts ` +
          `generated in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
      );

      const journey = await app.journeys.create(
        client,
        null,
        {
          cohort_id: cohort,
          name: 'Bench journey',
          stages: [
            { name: 'Unaware', content_ids: [], rules: [], match: 'any' },
            { name: 'Aware', content_ids: [], rules: [{ kind: 'impressions_gte', value: 3 }], match: 'any' },
            { name: 'Engaged', content_ids: [], rules: [{ kind: 'clicks_gte', value: 1 }], match: 'any' },
            { name: 'Opportunity', content_ids: [], rules: [{ kind: 'opportunity_created' }], match: 'any' },
            {
              name: 'Customer',
              content_ids: [],
              rules: [{ kind: 'days_in_stage_gte', value: 400 }],
              match: 'any',
            },
          ],
        },
        { evaluate: false },
      );

      let t = performance.now();
      const first = await app.journeys.evaluate(journey.id);
      const firstSeconds = (performance.now() - t) / 1000;
      // Rows written: accounts entered, and per move the account, the move and the feed item; targets aligned.
      const firstRows = first.entered + first.moved * 3 + first.aligned;
      t = performance.now();
      const second = await app.journeys.evaluate(journey.id);
      const secondSeconds = (performance.now() - t) / 1000;
      console.log(
        `journeys: first run entered ${first.entered.toLocaleString('en')} accounts, moved ` +
          `${first.moved.toLocaleString('en')}, aligned ${first.aligned.toLocaleString('en')} targets; ` +
          `second run moved ${second.moved}`,
      );

      // Third run: 1,000 accounts' members gain 3 impressions each (the tracking writer's kind of
      // change), so those accounts reach Aware or stay further on; the rest changed nothing.
      const changedAccounts = Math.min(1_000, accounts);
      await c.query(`update targets t set impressions = t.impressions + 3
        from cohort_members m join companies co on co.id = m.company_id
        where m.cohort_id = '${cohort}' and t.id = m.target_id and co.integration_id = ${integration}
          and co.external_id in (select 'c' || i from generate_series(1, ${changedAccounts}) i)`);
      t = performance.now();
      const third = await app.journeys.evaluate(journey.id);
      const thirdSeconds = (performance.now() - t) / 1000;
      // Same-run baseline of the third: a full run (every account read, as every run was before
      // decision 0036) of the same data, which now moves nothing.
      await c.query(`update journeys set full_evaluated_at = null where id = '${journey.id}'`);
      t = performance.now();
      const fullRun = await app.journeys.evaluate(journey.id);
      const fullSeconds = (performance.now() - t) / 1000;
      // Runs before incremental evaluation (decision 0036) reported no count: they read every account.
      const evaluated = (r: object) =>
        'evaluated' in r ? Number(r.evaluated).toLocaleString('en') : `all ${accounts.toLocaleString('en')}`;
      console.log(
        `journeys: first run evaluated ${evaluated(first)} accounts; second run evaluated ${evaluated(second)}; ` +
          `third run (${changedAccounts.toLocaleString('en')} accounts changed) evaluated ${evaluated(third)}, ` +
          `moved ${third.moved.toLocaleString('en')}, aligned ${third.aligned.toLocaleString('en')} targets; ` +
          `full run evaluated ${evaluated(fullRun)}, moved ${fullRun.moved}`,
      );

      // Baseline: one plain UPDATE of the same member rows (their day), in the same database.
      t = performance.now();
      const plain = await c.query(
        `update targets set day_number = day_number + 10 where cadence_id = ${cadence}`,
      );
      const plainSeconds = (performance.now() - t) / 1000;
      const plainRows = plain.rowCount ?? 0;

      report(
        'journey job, first run',
        `${firstSeconds.toFixed(1)} s, ${Math.round(firstRows / firstSeconds).toLocaleString('en')} rows/s`,
        `UPDATE ${plainSeconds.toFixed(1)} s, ${Math.round(plainRows / plainSeconds).toLocaleString('en')} rows/s`,
        firstSeconds / plainSeconds,
      );
      report(
        'journey job, second run',
        `${secondSeconds.toFixed(2)} s, ${second.moved} moved`,
        `UPDATE ${plainSeconds.toFixed(1)} s`,
        secondSeconds / plainSeconds,
      );
      report(
        'journey job, third run (1,000 accounts changed)',
        `${thirdSeconds.toFixed(2)} s, ${evaluated(third)} accounts evaluated, ${third.moved} moved`,
        `full run ${fullSeconds.toFixed(2)} s`,
        thirdSeconds / fullSeconds,
      );
    } finally {
      await c.end();
    }
  } finally {
    await app?.close();
    await db.drop();
  }
}
