import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../src/db/client.ts';
import { JobQueue } from '../src/lib/queue.ts';
import { SNAPSHOT_FILE } from './snapshot.ts';

/**
 * Builds one migrated embedded database (with the job queue's schema) and saves its dump; each test
 * file's app then starts from it in half a second instead of running initdb again.
 */
export default async function setup(): Promise<void> {
  if (process.env.TEST_DATABASE_URL) return;
  const database = await openDatabase({ dataDir: 'memory://' });
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const queue = new JobQueue(database.execute, silent as never);
  await queue.start({ workers: false });
  await queue.stop();
  const dump = await database.snapshot!();
  await database.close();
  mkdirSync(path.dirname(SNAPSHOT_FILE), { recursive: true });
  writeFileSync(SNAPSHOT_FILE, Buffer.from(await dump.arrayBuffer()));
}
