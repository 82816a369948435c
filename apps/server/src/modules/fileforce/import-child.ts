import { readFileSync } from 'node:fs';
import { suppressionKeyOf } from '../suppressions/key.ts';
import { createSuppressionService } from '../suppressions/service.ts';
import { connectPostgres } from '../../db/client.ts';
import { BATCHES_IN_FLIGHT, runImport } from './service.ts';
import type { FileforceDeps } from './service.ts';
import type { ChildMessage, ParentMessage } from './child-process.ts';

/**
 * The process a file import runs in on PostgreSQL (child-process.ts starts it): it takes the import
 * from the parent, runs the same `runImport` as in process on a pool of its own, and hands the feed
 * item and the webhook event back to the parent, which owns them. It dies with its parent: the IPC
 * channel closing (the parent killed or gone) kills it at once, so a crash leaves what a crash in
 * process leaves, whole batches and their progress, and the job is resumed as before.
 */

process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));

const toParent = process.send?.bind(process);
if (!toParent) throw new Error('import-child.ts runs as a child process of the server (child-process.ts)');

const send = (message: ChildMessage) =>
  new Promise<void>((resolve, reject) => {
    toParent(message, undefined, undefined, (err) => (err ? reject(err) : resolve()));
  });

let nextCall = 0;
const calls = new Map<number, { resolve(): void; reject(err: Error): void }>();

/** Asks the parent to do something it owns (the feed item, the webhook event) and waits for it. */
function call(what: 'feed' | 'webhook', args: unknown[]): Promise<void> {
  const id = ++nextCall;
  return new Promise<void>((resolve, reject) => {
    calls.set(id, { resolve, reject });
    send({ type: 'call', id, what, args }).catch(reject);
  });
}

/** The kernel's high-water mark of this process's RSS (Linux), else Node's own maximum. */
function peakRssBytes(): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kb) return Number(kb) * 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS * 1024;
}

/** CPU time this process has used (user and system), in microseconds. */
function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

async function start(message: Extract<ParentMessage, { type: 'start' }>): Promise<void> {
  // Two batches written at once (service.ts writeBatch), a connection each.
  const database = connectPostgres(message.databaseUrl, BATCHES_IN_FLIGHT);
  const deps: FileforceDeps = {
    db: database.db,
    database: { driver: 'postgres' },
    config: {
      dataDir: message.dataDir,
      s3: message.s3,
      holdoutDefaultPercent: message.holdoutDefaultPercent,
    },
    suppressions: message.suppressionKeyHex
      ? createSuppressionService(database.db, suppressionKeyOf(Buffer.from(message.suppressionKeyHex, 'hex')))
      : undefined,
    feedBus: { add: (item) => call('feed', [item]) },
    webhooks: { emit: (...args) => call('webhook', args) },
  };
  try {
    const row = await runImport(deps, message.importId);
    await send({ type: 'result', row, peakRssBytes: peakRssBytes(), cpuMicros: cpuMicros() });
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    await send({
      type: 'error',
      message: e.message,
      stack: e.stack ?? null,
      peakRssBytes: peakRssBytes(),
      cpuMicros: cpuMicros(),
    });
  } finally {
    await database.close().catch(() => {});
  }
  process.exit(0);
}

process.on('message', (message: ParentMessage) => {
  if (message.type === 'start') {
    void start(message);
  } else if (message.type === 'reply') {
    const waiting = calls.get(message.id);
    calls.delete(message.id);
    if (message.error === null) waiting?.resolve();
    else waiting?.reject(new Error(message.error));
  }
});
