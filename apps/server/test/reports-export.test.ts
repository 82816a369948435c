import { parse } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { integrations } from '../src/db/schema/index.ts';
import { createTestApp } from './helpers.ts';
import { makeClient, signedIn } from './http.ts';

/**
 * Issue 17 "Exports: a 100,000-row export parses back with a CSV library to the same rows, and a
 * name starting with `=` comes out neutralised". The opportunity export streams page by page
 * (keyset pages of 2,000): the rows must come out once each, in the report's order, across pages
 * and ties on the creation time. The summary over the same range counts every row.
 */
const ROWS = 100_000;
const RANGE = `from=${Date.UTC(2026, 0, 1) / 1000}&to=${Date.UTC(2027, 0, 1) / 1000}`;

describe('issue 17: a streamed 100,000-row export', async () => {
  const app = await createTestApp();

  it('parses back to the same rows, newest first, each once, with formulas neutralised', async () => {
    const clientId = await makeClient(app, 'Export Co');
    const [crm] = await app.db.insert(integrations).values({ clientId, source: 'salesforce' }).returning();
    // Every 7 deals share a creation second (ties the pages must cut through by id), and every
    // 1,000th is named like a formula. Deal 0 has no creation time: it is won in the range.
    await app.db.execute(sql`
      insert into opportunities (client_id, integration_id, external_id, name, account_name, amount_cents,
                                 currency, stage, crm_created_at, is_closed, is_won, close_date)
      select ${clientId}, ${crm!.id}, 'ext-' || n,
             case when n % 1000 = 0 then '=HYPERLINK("http://evil.example","Deal ' || n || '")'
                  else 'Deal ' || n end,
             'Account ' || (n % 100), n * 100, 'USD', 'Prospecting',
             case when n = 0 then null
                  else timestamptz '2026-02-01 00:00:00+00' + ((n / 7) || ' seconds')::interval end,
             n = 0, n = 0, case when n = 0 then date '2026-06-01' end
        from generate_series(0, ${ROWS - 1}) n`);
    const { browser: owner } = await signedIn(app, { [clientId]: 'purple_owner' });

    const res = await owner.get(`/v1/report/client/${clientId}/opportunity/export?${RANGE}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="opportunities-all.csv"');
    const [header, ...rows] = parse(res.body) as string[][];
    expect(header?.slice(0, 4)).toEqual(['Opportunity', 'Account', 'Stage', 'Amount']);
    expect(rows).toHaveLength(ROWS);

    // Newest first: deal 0 (no creation time) leads, then creation time descending, ties by id.
    expect(rows[0]![0]).toBe(`'=HYPERLINK("http://evil.example","Deal 0")`);
    const names = rows.map((r) => r[0]!);
    expect(new Set(names).size).toBe(ROWS);
    const numberOf = (name: string) => Number(/Deal (\d+)/.exec(name)![1]);
    const created = rows.slice(1).map((r) => r[5]!);
    for (let i = 1; i < created.length; i++) expect(created[i]! <= created[i - 1]!).toBe(true);
    expect(numberOf(names.at(-1)!)).toBeLessThan(7);
    expect(names.filter((n) => n.startsWith("'=HYPERLINK")).length).toBe(ROWS / 1000);
    expect(names.some((n) => n.startsWith('='))).toBe(false);

    // The same rows as the paged report, read page by page.
    const first = (
      await owner.get(`/v1/report/client/${clientId}/opportunity?${RANGE}&page=1&page_size=100`)
    ).json() as { items: { name: string }[]; total: number };
    expect(first.total).toBe(ROWS);
    expect(first.items.map((o) => o.name.replace(/^=/, "'="))).toEqual(names.slice(0, 100));

    // The summary counts every one of them: it once read at most 10,000 opportunities of a range.
    const summary = (await owner.get(`/v1/report/client/${clientId}/summary?${RANGE}`)).json() as {
      opportunities_created: number;
      pipeline_created_cents: number;
      won: number;
    };
    expect(summary.opportunities_created).toBe(ROWS - 1);
    // Deals 1 … 99,999 at n × 100 cents each.
    expect(summary.pipeline_created_cents).toBe((100 * (ROWS - 1) * ROWS) / 2);
    expect(summary.won).toBe(1);
  }, 300_000);
});
