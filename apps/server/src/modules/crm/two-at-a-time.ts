import { postgresCodeOf } from '../../lib/errors.ts';

/**
 * Stores batches two at a time, each in its own transaction (issue 43: a batch's upsert is the
 * database's CPU, one core, while the other waited). `prepare` is called in order as each batch
 * starts and returns its task (what it needs from the sync's state is taken then); `committed` is
 * called in order once a batch's task succeeded, and only after every batch before it did, so a
 * caller can move a cursor there: a batch started may write what `committed` learnt of the batches
 * two before it, never of the one still running beside it.
 *
 * Two batches that share rows lock them in one order (the upserts sort by key), but the triggers of
 * an update lock rows of their own (a prospect's ties) in row order; a deadlock between the two is
 * not a failure of the sync: the batch PostgreSQL chose is run again, alone, once the other ended.
 * When a batch fails otherwise, the one beside it is awaited before the error goes up, so no
 * transaction outlives the sync.
 */
export async function twoAtATime<B>(
  source: AsyncIterable<B>,
  prepare: (batch: B) => () => Promise<unknown>,
  committed: (batch: B) => void,
): Promise<void> {
  type Running = { batch: B; task: () => Promise<unknown>; done: Promise<unknown> };
  const start = (batch: B): Running => {
    const task = prepare(batch);
    const done = task();
    done.catch(() => {}); // awaited in `settle`; not unhandled while the one before is awaited
    return { batch, task, done };
  };
  const settle = async (r: Running, beside: Running | null) => {
    try {
      await r.done;
    } catch (err) {
      if (beside) await beside.done.catch(() => {});
      if (postgresCodeOf(err) !== '40P01') throw err;
      await r.task();
    }
    committed(r.batch);
  };
  let running: Running | null = null;
  for await (const batch of source) {
    const next = start(batch);
    if (running) await settle(running, next);
    running = next;
  }
  if (running) await settle(running, null);
}
