import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Db } from './client.ts';

/** Turns a `sql` template into text and parameters (raw SQL: no table names to case). */
const dialect = new PgDialect();

/** A database or a transaction: drizzle's session runs the statement on the transaction's client. */
export type NamedExecutor = Pick<Db, '_'>;

/**
 * Runs `query` as a named prepared statement: on PostgreSQL each connection plans it once and then
 * reuses the plan, where an unnamed statement is planned on every call. That matters on the ingest
 * path, whose state query took 2.5 ms to plan and 1 ms to run. The text must be the same on every
 * call with one `name` (only the parameters may change); PGlite ignores the name.
 */
export async function executeNamed<T>(db: NamedExecutor, name: string, query: SQL): Promise<{ rows: T[] }> {
  const prepared = db._.session.prepareQuery(dialect.sqlToQuery(query), undefined, name, false);
  return (await prepared.execute()) as { rows: T[] };
}
