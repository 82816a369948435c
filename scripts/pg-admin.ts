import pg from 'pg';

/**
 * One statement on its own short-lived connection to a PostgreSQL server (create or drop a database,
 * look one up): a database cannot be created or dropped from inside a transaction or a pool that is
 * connected to it, so npm test and the benches each open one for the statement and close it.
 */
export async function adminQuery(serverUrl: string, statement: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(statement)).rows;
  } finally {
    await client.end();
  }
}

/** The URL of database `name` on the server at `serverUrl` (same host, user and options). */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops database `name` (its open connections too), if it exists. */
export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
}
