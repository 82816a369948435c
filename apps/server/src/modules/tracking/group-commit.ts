/**
 * Group commit (ARCHITECTURE.md §5): requests hand their item in and wait; whatever arrives while a
 * flush is running goes into the next flush, so at low load each item is written at once and under
 * load many items share one transaction. A request's promise settles only after its flush has
 * committed. When a batch of several fails, its items are retried one by one, so one bad item
 * cannot fail the requests it happened to share a transaction with. While a flush runs, another
 * starts only once `gather` items wait: under load the requests that arrive meanwhile share one
 * statement instead of each starting a flush of their own (issue 43: with four flushes let start
 * on any item, half the ingest queue's appends carried 1-4 items, and each append costs
 * PostgreSQL about as much as a score of items on top of them).
 */
export type GroupCommitOptions = {
  /** Largest batch one flush takes. */
  maxBatch: number;
  /** Flushes allowed at once (1 on a single-connection database). */
  concurrency: number;
  /** Items that must be waiting before a flush starts beside one already running (default 1). */
  gather?: number;
};

type Pending<I, O> = { item: I; resolve: (value: O) => void; reject: (err: unknown) => void };

export class GroupCommit<I, O> {
  private readonly queue: Pending<I, O>[] = [];
  private running = 0;
  private readonly flush: (items: I[]) => Promise<O[]>;
  private readonly opts: GroupCommitOptions;
  private idleWaiters: (() => void)[] = [];

  constructor(flush: (items: I[]) => Promise<O[]>, opts: GroupCommitOptions) {
    this.flush = flush;
    this.opts = opts;
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  /** Resolves when nothing is queued or being written (for shutdown). */
  idle(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    const gather = this.opts.gather ?? 1;
    while (
      this.running < this.opts.concurrency &&
      this.running < this.queue.length &&
      (this.running === 0 || this.queue.length >= gather)
    ) {
      this.running++;
      void this.next().finally(() => {
        this.running--;
        this.pump();
        if (this.running === 0 && this.queue.length === 0) {
          const waiters = this.idleWaiters;
          this.idleWaiters = [];
          for (const w of waiters) w();
        }
      });
    }
  }

  /**
   * One turn of the event loop first: requests already received get to queue their items (an
   * embedded database answers without yielding to I/O, so without it every batch would be one).
   */
  private async next(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    const batch = this.queue.splice(0, this.opts.maxBatch);
    if (batch.length > 0) await this.write(batch);
  }

  private async write(batch: Pending<I, O>[]): Promise<void> {
    try {
      const out = await this.flush(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(out[i] as O));
    } catch (err) {
      const [only] = batch;
      if (batch.length === 1 && only) {
        only.reject(err);
        return;
      }
      for (const p of batch) {
        try {
          const [one] = await this.flush([p.item]);
          p.resolve(one as O);
        } catch (e) {
          p.reject(e);
        }
      }
    }
  }
}
