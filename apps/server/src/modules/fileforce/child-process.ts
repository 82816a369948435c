import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FileImportRow } from './repository.ts';
import type { S3Config } from '../../config/env.ts';
import type { FileforceDeps } from './service.ts';

/**
 * Big imports in a worker process (issue 19): on PostgreSQL the import job starts a child process
 * (import-child.ts) that streams the file and writes the batches, so the import's memory and CPU are
 * not the API process's. The job waits for it here; its heartbeat stays in this process, so a crash
 * of either ends both (the child dies with its IPC channel) and the job is resumed as before.
 */

export type ParentMessage =
  | {
      type: 'start';
      importId: string;
      databaseUrl: string;
      dataDir: string;
      s3: S3Config | null;
      holdoutDefaultPercent: number;
      /** The suppression list's derived key (not APP_SECRET), or null without one. */
      suppressionKeyHex: string | null;
    }
  | { type: 'reply'; id: number; error: string | null };

export type ChildMessage =
  | { type: 'call'; id: number; what: 'feed' | 'webhook'; args: unknown[] }
  | { type: 'result'; row: FileImportRow | null; peakRssBytes: number; cpuMicros: number }
  | { type: 'error'; message: string; stack: string | null; peakRssBytes: number; cpuMicros: number };

export type ChildRun = {
  /** The import as the child left it. */
  row: FileImportRow | null;
  /** The child's peak resident memory (the kernel's high-water mark on Linux). */
  peakRssBytes: number;
  /** CPU time the child used, user and system, in microseconds. */
  cpuMicros: number;
  pid: number;
};

const CHILD = fileURLToPath(new URL('./import-child.ts', import.meta.url));
const CHILD_FLAGS = ['--max-old-space-size=192', '--max-semi-space-size=8'];

/** Runs `runImport` for one import in a child process on the PostgreSQL database at `databaseUrl`. */
export function runImportInChild(
  deps: FileforceDeps,
  databaseUrl: string,
  importId: string,
  opts: { signal?: AbortSignal; onSpawn?: (pid: number) => void } = {},
): Promise<ChildRun> {
  opts.signal?.throwIfAborted();
  // The child is plain Node on this file's TypeScript: none of the parent's flags (a test runner's,
  // an inspector's) are passed on. What it holds at once is a batch or two (its fields are bounded),
  // so a small heap is plenty; without a limit V8 lets the heap grow to hundreds of MB before it
  // collects in earnest.
  const child = fork(CHILD, [], { execArgv: CHILD_FLAGS, serialization: 'advanced', stdio: 'inherit' });
  const pid = child.pid ?? 0;
  opts.onSpawn?.(pid);
  // What the child asked of this process; the job ends once they are done too.
  const pending: Promise<unknown>[] = [];
  let outcome: ChildMessage | null = null;

  const reply = (message: ParentMessage) => {
    if (child.connected) child.send(message);
  };
  const onCall = async (message: Extract<ChildMessage, { type: 'call' }>) => {
    try {
      if (message.what === 'feed') {
        await deps.feedBus?.add(
          message.args[0] as Parameters<NonNullable<FileforceDeps['feedBus']>['add']>[0],
        );
      } else {
        await deps.webhooks?.emit(
          ...(message.args as Parameters<NonNullable<FileforceDeps['webhooks']>['emit']>),
        );
      }
      reply({ type: 'reply', id: message.id, error: null });
    } catch (err) {
      reply({ type: 'reply', id: message.id, error: err instanceof Error ? err.message : String(err) });
    }
  };

  return new Promise<ChildRun>((resolve, reject) => {
    const abort = () => child.kill('SIGKILL');
    opts.signal?.addEventListener('abort', abort, { once: true });
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'call') pending.push(onCall(message));
      else outcome = message;
    });
    child.on('error', (err) => {
      opts.signal?.removeEventListener('abort', abort);
      reject(err);
    });
    child.on('exit', (code, signal) => {
      opts.signal?.removeEventListener('abort', abort);
      void Promise.allSettled(pending).then(() => {
        const done = outcome as ChildMessage | null;
        if (opts.signal?.aborted) reject(opts.signal.reason);
        else if (done?.type === 'result')
          resolve({ row: done.row, peakRssBytes: done.peakRssBytes, cpuMicros: done.cpuMicros, pid });
        else if (done?.type === 'error') {
          const err = new Error(done.message);
          if (done.stack) err.stack = done.stack;
          reject(err);
        } else
          reject(new Error(`the import process ended without a result (${signal ?? `exit code ${code}`})`));
      });
    });
    child.send({
      type: 'start',
      importId,
      databaseUrl,
      dataDir: deps.config.dataDir,
      s3: deps.config.s3 ?? null,
      holdoutDefaultPercent: deps.config.holdoutDefaultPercent ?? 0,
      suppressionKeyHex: deps.suppressions?.key.derivedHex ?? null,
    } satisfies ParentMessage);
  });
}
