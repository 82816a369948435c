import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import type { ProspectSort } from '@rally/shared/schemas/prospects';
import { buildApp } from '../apps/server/src/app.ts';
import { loadConfig } from '../apps/server/src/config/env.ts';
import { encodeCursor, listFingerprint } from '../apps/server/src/modules/prospects/index.ts';
import { signedIn } from '../apps/server/test/http.ts';
import type { Browser } from '../apps/server/test/http.ts';
import { BIG_CLIENT, generateProspectsData } from './prospects-data.ts';
import { adminQuery, databaseUrl, dropDatabase } from '../scripts/pg-admin.ts';
import { report, root } from './lib.ts';

/**
 * Issue 7: `GET /sc/prospects` over 1,000,000 generated targets (prospects-data.ts) on real
 * PostgreSQL — first pages, deep pages (row 100,000 to 400,000 of a sort, through a cursor at that
 * row), every sort, searches and filters — p50/p95 of the API call through `app.inject` (routing,
 * session and membership check, validation, SQL, reply serialisation). Baseline in the same run: a
 * `SELECT … WHERE id = $1` on the prospects primary key through the same pool. Aim: p95 < 50 ms.
 *
 * BENCH_DATABASE_URL (or TEST_DATABASE_URL) names the server; a scratch database is created and
 * dropped. BENCH_PROSPECTS_TARGETS sets the size; BENCH_PROSPECTS_KEEP=1 keeps the database and
 * prints its name, BENCH_PROSPECTS_DB=<name> reuses one (no generation).
 */
const ITERATIONS = Number(process.env.BENCH_PROSPECTS_ITERATIONS ?? 40);

type Scenario = {
  label: string;
  query: Record<string, string>;
  /** SQL giving the keys of the row a deep page starts after (the cursor the API would have sent). */
  deep?: { phase: number; sql: string };
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function timeIt(n: number, fn: (i: number) => Promise<void>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < 3; i++) await fn(i); // warm the plan and the pages
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

export async function run() {
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  if (!serverUrl) {
    console.log('prospects: skipped (set BENCH_DATABASE_URL or TEST_DATABASE_URL to a PostgreSQL server)');
    return;
  }
  const targets = Number(process.env.BENCH_PROSPECTS_TARGETS ?? 1_000_000);
  const reuse = process.env.BENCH_PROSPECTS_DB;
  const keep = Boolean(reuse) || process.env.BENCH_PROSPECTS_KEEP === '1';
  const name = reuse ?? `rally_bench_prospects_${randomBytes(5).toString('hex')}`;
  if (!reuse) await adminQuery(serverUrl, `create database ${name}`);
  const url = new URL(databaseUrl(serverUrl, name));

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
      if (!reuse) {
        const t = performance.now();
        console.log(`prospects: generating ${targets.toLocaleString('en')} targets in ${name}`);
        await generateProspectsData(c, { targets }, (line) => console.log(line));
        console.log(`prospects: generated in ${((performance.now() - t) / 1000).toFixed(0)} s`);
      }
      const one = async (text: string) => (await c.query(text)).rows[0] as Record<string, unknown>;
      const counts = await one(`select
        (select count(*) from targets where client_id = '${BIG_CLIENT}')::int as targets,
        (select count(*) from prospects where client_id = '${BIG_CLIENT}')::int as prospects,
        (select count(*) from targets where client_id = '${BIG_CLIENT}' and super_date is not null)::int as supers`);
      const ids = await one(`select
        (select id from cadences where client_id = '${BIG_CLIENT}' and external_id = 'cad10') as mid_cadence,
        (select id from cadences where client_id = '${BIG_CLIENT}' and external_id = 'cad26') as tiny_cadence,
        (select id::text from sales_reps where client_id = '${BIG_CLIENT}' and external_id = 'rep7') as rep,
        (select split_part(email, '@', 1) from prospects where client_id = '${BIG_CLIENT}'
           and external_id = 'p123457') as rare`);
      console.log(
        `prospects: ${Number(counts.targets).toLocaleString('en')} targets, ` +
          `${Number(counts.prospects).toLocaleString('en')} prospects, ` +
          `${Number(counts.supers).toLocaleString('en')} super entries`,
      );

      const inBig = `client_id = '${BIG_CLIENT}'`;
      const scenarios: Scenario[] = [
        { label: 'first page (name)', query: {} },
        {
          label: 'deep page, row 400,000 (name)',
          query: {},
          deep: {
            phase: 0,
            sql: `select lower(first_name) k0, lower(last_name) k1, id::text k2 from prospects where ${inBig}
              order by 1, 2, 3 offset 400000 limit 1`,
          },
        },
        { label: 'sort company', query: { sort: 'company' } },
        {
          label: 'deep page, row 300,000 (company)',
          query: { sort: 'company' },
          deep: {
            phase: 0,
            sql: `select lower(c.name) k0, c.id::text k1, p.id::text k2 from companies c join prospects p
              on p.company_id = c.id where c.${inBig} order by 1, 2, 3 offset 300000 limit 1`,
          },
        },
        { label: 'sort email desc', query: { sort: 'email', order: 'desc' } },
        {
          label: 'deep page, row 300,000 (title)',
          query: { sort: 'title' },
          deep: {
            phase: 0,
            sql: `select lower(title) k0, id::text k1 from prospects where ${inBig} order by 1, 2
              offset 300000 limit 1`,
          },
        },
        { label: 'sort super_date (newest)', query: { sort: 'super_date' } },
        {
          label: 'deep page, entry 100,000 (super_date)',
          query: { sort: 'super_date' },
          deep: {
            phase: 0,
            sql: `select super_date::text k0, id::text k1 from targets where ${inBig} and super_date is not null
              order by super_date desc, id desc offset 100000 limit 1`,
          },
        },
        { label: 'sort impressions (most)', query: { sort: 'impressions' } },
        {
          label: 'deep page, entry 400,000 (impr.)',
          query: { sort: 'impressions' },
          deep: {
            phase: 0,
            sql: `select impressions::text k0, id::text k1 from targets where ${inBig}
              order by impressions desc, id desc offset 400000 limit 1`,
          },
        },
        // Issue 42 item 11: by how many cadences; no index serves the count (a top-N of the client).
        { label: 'sort cadences (most)', query: { sort: 'cadences' } },
        { label: 'search a last name', query: { search: 'nguyen' } },
        { label: 'search one e-mail', query: { search: String(ids.rare) } },
        { label: 'search a company', query: { search: 'wonka' } },
        { label: 'search 2 letters', query: { search: 'an' } },
        { label: 'filter a cadence (~2%)', query: { cadence_id: String(ids.mid_cadence) } },
        { label: 'filter a 50-target cadence', query: { cadence_id: String(ids.tiny_cadence) } },
        {
          label: 'rep + super, by super_date',
          query: { sales_rep_id: String(ids.rep), super: 'true', sort: 'super_date' },
        },
        { label: 'inactive only', query: { active: 'false' } },
        { label: 'never super, by impressions', query: { super: 'false', sort: 'impressions' } },
        {
          label: 'search + cadence, by impr.',
          query: { search: 'smith', cadence_id: String(ids.mid_cadence), sort: 'impressions' },
        },
        {
          label: 'search + cadence, by name',
          query: { search: 'smith', cadence_id: String(ids.mid_cadence) },
        },
        {
          label: 'search 2 letters + super, by date',
          query: { search: 'an', super: 'true', sort: 'super_date' },
        },
        // A broad search with a cadence: its rows are left to the ordered walk (see listPage).
        {
          label: 'search 2 letters + cadence, by name',
          query: { search: 'an', cadence_id: String(ids.mid_cadence) },
        },
      ];

      const theApp = app;
      const { browser } = await signedIn(theApp, { [BIG_CLIENT]: 'purple_owner' });
      const get = async (b: Browser, q: URLSearchParams) => {
        const res = await b.get(`/sc/prospects?${q}`);
        if (res.statusCode !== 200) throw new Error(`${q}: ${res.statusCode} ${res.body}`);
        return res.json<{ items: unknown[] }>();
      };

      const prospectIds = (
        await c.query<{ id: string }>(`select id::text from prospects where ${inBig} limit 2000`)
      ).rows.map((r) => r.id);
      const baseline = await timeIt(ITERATIONS * 5, async (i) => {
        await theApp.database.execute('select * from prospects where id = $1', [
          prospectIds[i % prospectIds.length],
        ]);
      });

      console.log(
        `${'prospects: scenario'.padEnd(40)} ${'rows'.padStart(5)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)}`,
      );
      const all: number[] = [];
      let worst = { label: '', p95: 0 };
      for (const s of scenarios) {
        const q = new URLSearchParams({ page_size: '50', ...s.query });
        if (s.deep) {
          const keys = Object.values(await one(s.deep.sql)).map(String);
          const sort = (s.query.sort ?? 'name') as ProspectSort;
          const order = s.query.order ?? (sort === 'super_date' || sort === 'impressions' ? 'desc' : 'asc');
          q.set(
            'cursor',
            encodeCursor({
              sort,
              order: order as 'asc' | 'desc',
              filters: listFingerprint({}),
              phase: s.deep.phase,
              keys,
            }),
          );
        }
        const rows = (await get(browser, q)).items.length;
        const r = await timeIt(ITERATIONS, async () => {
          await get(browser, q);
        });
        all.push(r.p95);
        if (r.p95 > worst.p95) worst = { label: s.label, p95: r.p95 };
        console.log(
          `  ${s.label.padEnd(38)} ${String(rows).padStart(5)} ${r.p50.toFixed(1).padStart(8)} ${r.p95.toFixed(1).padStart(8)}`,
        );
      }
      all.sort((a, b) => a - b);
      console.log(
        `  ${'baseline: SELECT by primary key'.padEnd(38)} ${'1'.padStart(5)} ${baseline.p50.toFixed(2).padStart(8)} ${baseline.p95.toFixed(2).padStart(8)}`,
      );
      const medianP95 = percentile(all, 50);
      report(
        'prospects list p95 (median)',
        `${medianP95.toFixed(1)} ms`,
        `${baseline.p95.toFixed(2)} ms PK select`,
        medianP95 / baseline.p95,
      );
      report(
        'prospects list p95 (worst)',
        `${worst.p95.toFixed(1)} ms`,
        `${baseline.p95.toFixed(2)} ms PK select`,
        worst.p95 / baseline.p95,
      );
      console.log(
        `prospects: worst scenario "${worst.label}"; aim p95 < 50 ms: ${worst.p95 < 50 ? 'met' : 'NOT met'}`,
      );
    } finally {
      await c.end();
    }
  } finally {
    await app?.close();
    if (keep) console.log(`prospects: kept database ${name} (BENCH_PROSPECTS_DB=${name} reuses it)`);
    else await dropDatabase(serverUrl, name);
  }
}
