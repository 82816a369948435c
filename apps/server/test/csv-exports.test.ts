import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEMO_CLIENTS, DEMO_EMAIL, DEMO_PASSWORD, seedDemoAll } from '../src/db/seed.ts';
import { FUZZ_ENV, operationsOf, valid } from './fuzz.ts';
import { createTestApp } from './helpers.ts';
import { Browser } from './http.ts';

/**
 * Issue 20: every CSV that leaves the product is formula-injection safe. The demo data's names and
 * titles (every text column so named, in every table of Acme's) are made to start with = + - @ or a
 * tab, or with a sign behind an invisible character or in its full-width form (issue 37), then every
 * export of /v1/docs/json is downloaded: no text cell may start with one of them (a spreadsheet would
 * run it), and the poisoned names must show up neutralised. A new export route is covered without a
 * change here.
 */
const STARTS = ['=', '+', '-', '@', '\t', '\u200b=', '\uff1d', '\ufeff+', ' @', '\u2060\uff0d'];
/** What a spreadsheet may run: a sign (ASCII, full-width or small) behind nothing a reader sees. */
const FORMULA = /^(?:[\t\r]|[\p{Cc}\p{Cf}\p{Z}\s]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B])/u;
const NUMBER = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

describe('CSV exports', async () => {
  const app = await createTestApp({ workers: false, env: FUZZ_ENV });
  await seedDemoAll(app);
  const acme = DEMO_CLIENTS.acme.id;
  const { rows: columns } = (await app.database.execute(
    `select c.table_name, c.column_name from information_schema.columns c
      join information_schema.columns t on t.table_schema = c.table_schema and t.table_name = c.table_name
       and t.column_name = 'client_id'
      where c.table_schema = 'public' and c.data_type = 'text'
        and c.column_name in ('name', 'title', 'first_name', 'last_name', 'company_name')
      order by 1, 2`,
  )) as { rows: { table_name: string; column_name: string }[] };
  let poisoned = 0;
  for (const [i, c] of columns.entries()) {
    const start = STARTS[i % STARTS.length]!;
    const { rows } = (await app.database.execute(
      `update "${c.table_name}" set "${c.column_name}" = $1 || "${c.column_name}"
        where client_id = $2 and "${c.column_name}" <> '' returning 1`,
      [start === '=' ? '=HYPERLINK("http://evil.example","x")' : `${start}1+1 `, acme],
    )) as { rows: unknown[] };
    poisoned += rows.length;
  }
  const owner = await new Browser(app).signIn(DEMO_EMAIL, DEMO_PASSWORD);
  owner.clientId = acme;
  const exports = (await operationsOf(app)).filter((o) => o.method === 'GET' && o.path.endsWith('/export'));
  // Path ids of exports about one thing: the Acme row with the most engagement of its table.
  const firstOf = async (sql: string) =>
    ((await app.database.execute(sql, [acme])) as { rows: { id: string }[] }).rows[0]?.id ?? 'none';
  const pathIds: Record<string, string> = {
    clientId: acme,
    targetId: await firstOf(
      'select id::text as id from targets where client_id = $1 order by clicks desc, id limit 1',
    ),
    accountId: await firstOf(
      'select company_id::text as id from prospects where client_id = $1 and company_id is not null order by 1 limit 1',
    ),
    contentId: await firstOf(
      "select id::text as id from content where client_id = $1 and status = 'published' order by id limit 1",
    ),
  };
  // A bare {id} is named by the segment before it (…/cadence/{id}/targets/export).
  const idsOf: Record<string, string> = {
    cadence: await firstOf(
      'select cadence_id::text as id from targets where client_id = $1 group by 1 order by count(*) desc, 1 limit 1',
    ),
    cohort: await firstOf(
      'select id::text as id from cohorts where client_id = $1 order by created_at, id limit 1',
    ),
  };

  it('no cell of any export starts a formula; the poisoned names come out neutralised', async () => {
    expect(poisoned).toBeGreaterThan(100);
    expect(exports.length).toBeGreaterThanOrEqual(5);
    const problems: string[] = [];
    let cells = 0;
    let neutralised = 0;
    let files = 0;
    for (const [i, op] of exports.entries()) {
      const query = fc.sample(
        fc.record(
          Object.fromEntries(
            op.params
              .filter((p) => p.in === 'query' && p.required)
              .map((p) => [p.name, valid(p.schema, { uuids: fc.uuid(), integers: fc.constant(1), all: [] })]),
          ),
        ),
        { seed: 20 + i, numRuns: 1 },
      )[0] as Record<string, unknown>;
      const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
      const path = op.path
        .replace(/\/(\w+)\/\{id\}/g, (whole, kind: string) =>
          idsOf[kind] ? `/${kind}/${idsOf[kind]}` : whole,
        )
        .replace(/\{(\w+)\}/g, (_, name: string) => pathIds[name] ?? `{${name}}`);
      const url = `${path}${qs.size ? `?${qs}` : ''}`;
      const res = await owner.get(url);
      if (res.statusCode !== 200) {
        problems.push(`GET ${url} → ${res.statusCode} ${res.body.slice(0, 160)}`);
        continue;
      }
      expect(res.headers['content-type'], url).toMatch(/^text\/csv/);
      files++;
      for (const row of parse(res.body, { relax_column_count: true }) as string[][]) {
        for (const cell of row) {
          cells++;
          if (cell.startsWith("'") && FORMULA.test(cell.slice(1))) neutralised++;
          if (FORMULA.test(cell) && !NUMBER.test(cell))
            problems.push(`GET ${url}: cell ${JSON.stringify(cell)}`);
        }
      }
    }
    console.info(
      `csv exports: ${files} files from ${exports.length} export routes, ${cells} cells, ${neutralised} formula cells neutralised, ${problems.length} problems`,
    );
    expect(problems).toEqual([]);
    expect(neutralised).toBeGreaterThan(10);
  }, 180_000);
});
