import type { SQL } from 'drizzle-orm';
import type { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import type { Db } from './client.ts';

export type Row = Record<string, unknown>;

/**
 * The types Drizzle's node-postgres driver leaves as text for a raw `db.execute` (timestamps, dates,
 * intervals and their arrays), so rows read here are the same as rows read through Drizzle.
 */
const AS_TEXT = new Set([1184, 1114, 1082, 1186, 1231, 1115, 1185, 1187, 1182]);
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    AS_TEXT.has(oid) ? (value: string) => value : pg.types.getTypeParser(oid, format),
};

/**
 * The rows of one statement, `pageSize` at a time, for exports of any size at constant memory.
 *
 * On PostgreSQL the statement runs once, as a cursor in a read-only transaction on a connection of
 * its own, and each page is fetched when the consumer asks for it (a download is read as fast as the
 * client takes it). A consumer that stops early (a download cut short) closes the generator, which
 * rolls the transaction back and gives the connection back.
 *
 * On PGlite the database lives in this process's memory and serves one connection, which a cursor
 * held open across a slow download would take from every other request: the statement is read whole
 * and handed out in pages.
 */
export async function* cursorPages(db: Db, query: SQL, pageSize = 2_000): AsyncGenerator<Row[]> {
  const client = (db as unknown as { $client: unknown }).$client;
  if (!(client instanceof pg.Pool)) {
    const rows = (((await db.execute(query)) as unknown as { rows: Row[] }).rows ?? []) as Row[];
    for (let i = 0; i < rows.length; i += pageSize) yield rows.slice(i, i + pageSize);
    return;
  }
  const { sql: text, params } = (db as unknown as { dialect: PgDialect }).dialect.sqlToQuery(query);
  const release = await turnOf(client);
  let conn: pg.PoolClient;
  try {
    conn = await client.connect();
  } catch (e) {
    release();
    throw e;
  }
  let done = false;
  try {
    await conn.query('begin read only');
    // The whole result is read: planned for all of it, not for its first tenth (a cursor's default).
    await conn.query('set local cursor_tuple_fraction = 1');
    await conn.query({ text: `declare export_rows no scroll cursor for ${text}`, values: params });
    for (;;) {
      const { rows } = await conn.query<Row>({ text: `fetch ${Number(pageSize)} from export_rows`, types });
      if (rows.length) yield rows;
      if (rows.length < pageSize) break;
    }
    await conn.query('commit');
    done = true;
  } finally {
    // Cut short (or failed): the transaction is rolled back; a connection that cannot even do that
    // is destroyed rather than given back to the pool.
    const broken = done
      ? undefined
      : await conn.query('rollback').then(
          () => undefined,
          (e: Error) => e,
        );
    conn.release(broken);
    release();
  }
}

/**
 * A cursor holds its connection for as long as its download lasts, so at most half the pool's
 * connections serve cursors at once: more exports wait for a turn rather than every other request
 * waiting for a connection.
 */
const turns = new WeakMap<pg.Pool, { active: number; waiting: (() => void)[] }>();

async function turnOf(pool: pg.Pool): Promise<() => void> {
  const max = Math.max(1, Math.floor((pool.options.max ?? 10) / 2));
  let t = turns.get(pool);
  if (!t) turns.set(pool, (t = { active: 0, waiting: [] }));
  const state = t;
  if (state.active >= max) await new Promise<void>((resolve) => state.waiting.push(resolve));
  else state.active++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // The turn passes to the next waiting export, or is given back.
    const next = state.waiting.shift();
    if (next) next();
    else state.active--;
  };
}

/** Each page of `pages` mapped row by row, keeping the rows `keep` accepts. */
export async function* mapPages<T>(
  pages: AsyncIterable<Row[]>,
  map: (row: Row) => T,
  keep: (row: Row) => boolean = () => true,
): AsyncGenerator<T[]> {
  for await (const rows of pages) yield rows.filter(keep).map(map);
}
