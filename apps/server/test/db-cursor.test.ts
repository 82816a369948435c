import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { cursorPages } from '../src/db/cursor.ts';
import { rowsOf } from '../src/modules/reports/repository.ts';
import { createTestApp } from './helpers.ts';

/**
 * `cursorPages` (src/db/cursor.ts), which the reports' exports stream through: the same rows as one
 * `db.execute`, in order and typed alike, a page at a time; on PostgreSQL a cursor whose connection
 * and transaction are given back when the reader stops early or the statement fails.
 */
describe('cursorPages: a statement read a page at a time', async () => {
  const app = await createTestApp();
  const statement = (n: number) => sql`
    select g as n, 'row ' || g as label, timestamptz '2026-01-01 00:00:00+00' + g * interval '1 second' as at,
           date '2026-01-01' + g as day, g % 2 = 0 as even
      from generate_series(1, ${n}) g order by g`;

  const collect = async (n: number, pageSize: number) => {
    const pages = [];
    for await (const page of cursorPages(app.db, statement(n), pageSize)) pages.push(page);
    return pages;
  };

  it('gives every row once, in order, in pages of the size asked, typed as db.execute types them', async () => {
    const pages = await collect(7, 3);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(rowsOf(await app.db.execute(statement(7))));
    expect(pages.flat().map((r) => r.n)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // A whole last page ends with an empty fetch, and no empty page is given.
    expect((await collect(6, 3)).map((p) => p.length)).toEqual([3, 3]);
    expect(await collect(0, 3)).toEqual([]);
  });

  /** On PostgreSQL: the server's own view of the app's connections. */
  const sessions = async () =>
    rowsOf(
      await app.db.execute(sql`
        select count(*)::int as open_transactions
          from pg_stat_activity where state like 'idle in transaction%' and datname = current_database()
           and pid <> pg_backend_pid()`),
    )[0]!;

  it('gives its connection back when the reader stops after the first page or the statement fails', async () => {
    const pool = (app.db as unknown as { $client: { totalCount?: number; idleCount?: number } }).$client;
    for await (const page of cursorPages(app.db, statement(10), 4)) {
      expect(page).toHaveLength(4);
      // While it is read, the cursor's transaction is open (so the check below can see one).
      if (app.database.driver === 'postgres') expect(await sessions()).toEqual({ open_transactions: 1 });
      break;
    }
    const failing = sql`select 10 / (3 - g) as n from generate_series(1, 5) g`;
    const error = await (async () => {
      for await (const page of cursorPages(app.db, failing, 1)) expect(page).toHaveLength(1);
    })().then(
      () => null,
      (e: Error & { cause?: Error }) => `${e.message} ${e.cause?.message ?? ''}`,
    );
    expect(error).toMatch(/division by zero/);
    // The app still reads, and on PostgreSQL no transaction is left open on any connection.
    expect((await collect(3, 2)).flat()).toHaveLength(3);
    if (app.database.driver === 'postgres') {
      // The app's own workers borrow a connection now and then (a job poll): wait for the pool to
      // be idle rather than catch one of them mid-query (CI saw 10 connections, 9 idle).
      await expect.poll(() => pool.totalCount === pool.idleCount, { timeout: 10_000 }).toBe(true);
      expect(await sessions()).toEqual({ open_transactions: 0 });
    }
  });
  it('serves at most half the pool with cursors at once; another export waits for a turn', async (ctx) => {
    if (app.database.driver !== 'postgres') return ctx.skip();
    const pool = (app.db as unknown as { $client: { options: { max: number } } }).$client;
    const turns = Math.max(1, Math.floor(pool.options.max / 2));
    const held = Array.from({ length: turns }, () => cursorPages(app.db, statement(10), 2));
    const extra = cursorPages(app.db, statement(10), 2);
    let served = false;
    let first: Promise<unknown> | undefined;
    try {
      for (const cursor of held) expect((await cursor.next()).value).toHaveLength(2);
      first = extra.next().then((r) => ((served = true), r.value));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(served, 'waits while every turn is taken').toBe(false);
      // Other requests still get a connection meanwhile.
      expect(rowsOf(await app.db.execute(sql`select 1 as one`))).toEqual([{ one: 1 }]);
      await held[0]!.return(undefined);
      expect(await first).toHaveLength(2);
    } finally {
      // Whatever failed, every cursor gives its connection back (or the app could not close).
      for (const cursor of held) await cursor.return(undefined);
      await first;
      await extra.return(undefined);
    }
    expect(await sessions()).toEqual({ open_transactions: 0 });
  });
});
