import { PgBoss } from 'pg-boss';
import type { Job, Queue, SendOptions } from 'pg-boss';

type QueueOptions = Omit<Queue, 'name'>;
import type { FastifyBaseLogger } from 'fastify';
import type { SqlExecutor } from '../db/client.ts';

export type JobHandler<T> = (data: T, job: Job<T>) => Promise<void>;

/**
 * How a queue's worker takes jobs. Default: one job per fetch, then the polling interval. A queue of
 * many short jobs (webhook deliveries) takes `batchSize` at a time, runs them side by side, and
 * fetches again at once while batches come back full.
 */
export type WorkOptions = { batchSize?: number };

type Registration = {
  name: string;
  options: QueueOptions;
  handler: JobHandler<never>;
  work: WorkOptions;
};

/**
 * The durable job queue (ARCHITECTURE.md §3): pg-boss in the application database, reached through
 * the same SQL executor on PGlite and PostgreSQL. Handlers must be idempotent: a job may run again
 * after a crash or a retry.
 */
export class JobQueue {
  readonly boss: PgBoss;
  private readonly registrations: Registration[] = [];
  private started = false;
  private workersStarted = false;
  private readonly log: FastifyBaseLogger;
  private readonly pollingIntervalSeconds: number;
  private readonly serialiseStart: <T>(fn: () => Promise<T>) => Promise<T>;
  /** This process's worker of each queue, woken when this process sends it a job. */
  private readonly workerIds = new Map<string, string>();

  constructor(
    execute: SqlExecutor,
    log: FastifyBaseLogger,
    opts: {
      pollingIntervalSeconds?: number;
      /** How often jobs whose heartbeat or time ran out are failed (then retried); pg-boss: 60. */
      superviseIntervalSeconds?: number;
      /**
       * Runs the start (pg-boss's schema, then each queue) under a lock shared by every instance
       * on the database: started together, two instances raced to create both (issue 41 item 1).
       */
      serialiseStart?: <T>(fn: () => Promise<T>) => Promise<T>;
    } = {},
  ) {
    this.log = log;
    this.pollingIntervalSeconds = opts.pollingIntervalSeconds ?? 1;
    this.serialiseStart = opts.serialiseStart ?? ((fn) => fn());
    const supervise = opts.superviseIntervalSeconds;
    this.boss = new PgBoss({
      db: { executeSql: (text, values) => execute(text, values) },
      schedule: false,
      // The monitor pass is the one that fails timed-out jobs; it runs at most this often.
      ...(supervise ? { superviseIntervalSeconds: supervise, monitorIntervalSeconds: supervise } : {}),
    });
    this.boss.on('error', (err) => log.error({ err }, 'job queue error'));
  }

  /** Declares a queue and its handler; the worker starts with the queue. */
  register<T extends object>(
    name: string,
    handler: JobHandler<T>,
    options: QueueOptions = {},
    work: WorkOptions = {},
  ): void {
    if (this.started) throw new Error(`Register job "${name}" before the queue starts`);
    this.registrations.push({ name, options, handler: handler as JobHandler<never>, work });
  }

  async start(opts: { workers: boolean }): Promise<void> {
    await this.serialiseStart(async () => {
      await this.boss.start();
      // One read instead of a create per queue on every restart: each create takes pg-boss's
      // advisory lock and a statement (18 of them were about 0.5 s of an embedded start), and for an
      // existing queue it does nothing (ON CONFLICT DO NOTHING), so skipping those changes nothing.
      const existing = new Set((await this.boss.getQueues()).map((q) => q.name));
      for (const r of this.registrations) {
        if (existing.has(r.name)) continue;
        await this.boss.createQueue(r.name, {
          retryLimit: 5,
          retryDelay: 5,
          retryBackoff: true,
          ...r.options,
        });
      }
    });
    this.started = true;
    if (opts.workers) await this.startWorkers();
  }

  /**
   * Starts this process's worker of every queue (once; `start` does it unless told not to). The
   * embedded server calls it after `listen`, so the workers' first fetches do not run in the middle
   * of the start (bench/README.md "Embedded mode").
   */
  async startWorkers(): Promise<void> {
    if (!this.started) throw new Error('Start the queue before its workers');
    if (this.workersStarted) return;
    this.workersStarted = true;
    for (const r of this.registrations) {
      const batchSize = r.work.batchSize ?? 1;
      const handler = r.handler as JobHandler<object>;
      const workerId = await this.boss.work<object>(
        r.name,
        {
          pollingIntervalSeconds: this.pollingIntervalSeconds,
          batchSize,
          ...(batchSize > 1 ? { burstWhenBatchFull: true } : {}),
        },
        async (jobs) => {
          // A worker fetches again at once after jobs, not after the polling interval: with
          // several jobs queued (a chain, a burst of sends) each would otherwise wait a poll.
          // pg-boss bursts on its own only for full batches of more than one. An empty fetch
          // goes back to polling.
          try {
            await this.runFetched(r.name, batchSize, handler, jobs);
          } finally {
            const id = this.workerIds.get(r.name);
            if (id && this.started) this.boss.notifyWorker(id);
          }
        },
      );
      this.workerIds.set(r.name, workerId);
    }
  }

  private async runFetched(
    name: string,
    batchSize: number,
    handler: JobHandler<object>,
    jobs: Job<object>[],
  ): Promise<void> {
    if (batchSize > 1) {
      // Side by side; one failure fails the batch, whose jobs are retried (handlers are idempotent).
      const results = await Promise.allSettled(jobs.map((job) => handler(job.data, job)));
      const failed = results.find((x) => x.status === 'rejected');
      if (failed) throw failed.reason;
      return;
    }
    for (const job of jobs) {
      this.log.debug({ job: name, id: job.id }, 'job started');
      await handler(job.data, job);
    }
  }

  /**
   * Queues a job. A job this process can run at once wakes its worker here instead of waiting for
   * the next poll (up to the polling interval of latency per step of a chain of jobs); other
   * instances' workers find it at their next poll, as before.
   */
  async send<T extends object>(name: string, data: T, options: SendOptions = {}): Promise<string | null> {
    const id = await this.boss.send(name, data, options);
    const workerId = this.workerIds.get(name);
    if (id && workerId && this.started && !options.startAfter) this.boss.notifyWorker(workerId);
    return id;
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.workerIds.clear();
    await this.boss.stop({ graceful: true, timeout: 10_000 });
  }
}
