import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../apps/server/src/db/client.ts';
import type { QueueItem } from '../apps/server/src/modules/tracking/repository.ts';
import {
  enqueueEvents,
  foldQueue,
  peekVersioned,
  vacuumQueue,
} from '../apps/server/src/modules/tracking/repository.ts';
import { createSuppressionKey } from '../apps/server/src/modules/suppressions/key.ts';
import { SUPER_RULE } from '@rally/shared/schemas/tracking';
import { seed } from './ingest.bench.ts';
import { report, scratchDatabase } from './lib.ts';
import { hash, zipfRanks } from './ingest-mix.ts';
import type { PeekedTarget } from './ingest-mix.ts';

/**
 * The ingest consumer once it has fallen behind (issue 43): a fold of 5,000 events should cost what
 * it takes, whatever the queue's length. For each length (FOLD_QUEUES, default 20,000 and 200,000) a
 * scratch database whose consumer had kept up (a stretch of 20,000 events folded, then the queue
 * vacuumed as the consumer does) gets that many events arrived at FOLD_RATE a second (default
 * 5,000) up to now:
 * impressions of targets drawn by a Zipf law, 1 % people's clicks to the landing page (they wait for
 * its view), four in five of them followed by the page's view within three seconds; then FOLD_ROUNDS
 * folds (default 3) with the server's burst and landing-view windows. The short queue (four
 * seconds of events, about what a consumer that keeps up holds back for the clicks' windows) is the
 * baseline: the same statement and the same kind of events, in the same run; figures per event folded.
 * Usage: TEST_DATABASE_URL=postgres://… npm run bench -- ingest-fold
 */
const adminUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
const lengths = (process.env.FOLD_QUEUES ?? '20000,200000').split(',').map(Number);
const rate = Number(process.env.FOLD_RATE ?? 5000);
const rounds = Number(process.env.FOLD_ROUNDS ?? 3);

/** Deterministic [0, 1) from an integer (the load must be the same each run). */
const unit = (n: number) => hash(n) / 2 ** 32;

/** The queue's events in arrival order: `count` of them at `rate` a second, the last now. */
function arrivals(states: PeekedTarget[], count: number, now: number): Omit<QueueItem, 'ord'>[] {
  const rank = zipfRanks(states.length);
  const pick = (u: number) => states[rank(u)]!;
  const events: Omit<QueueItem, 'ord'>[] = [];
  const views: { at: number; s: PeekedTarget }[] = [];
  for (let k = 0; k < count; k++) {
    const at = now - ((count - k) / rate) * 1000;
    while (views.length && views[0]!.at <= at) {
      const v = views.shift()!;
      events.push(event(v.s, 'view', v.at));
    }
    const { state, version } = pick(unit(k * 3 + 1));
    const click = unit(k * 3 + 2) < 0.01;
    events.push(event({ state, version }, click ? 'click' : 'impression', at));
    // A person's browser follows the click's redirect and loads the page a moment later.
    if (click && unit(k * 3 + 3) < 0.8) {
      views.push({ at: at + 500 + unit(k) * 2500, s: { state, version } });
      views.sort((a, b) => a.at - b.at);
    }
  }
  return events;
}

function event(
  { state, version }: PeekedTarget,
  type: QueueItem['type'],
  at: number,
): Omit<QueueItem, 'ord'> {
  return {
    clientId: state.clientId,
    version,
    count: true,
    targetId: state.id,
    cadenceId: state.cadenceId,
    type,
    dayNumber: state.dayNumber,
    contentId: state.content?.id ?? null,
    size: type === 'impression' ? '300x250' : null,
    at: new Date(at).toISOString(),
    verdict: 'person',
    reason: 'browser',
    awaitsView: type === 'click',
  };
}

async function measure(length: number): Promise<{ ms: number[]; taken: number[] }> {
  const scratch = await scratchDatabase(adminUrl);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rally-bench-ingest-fold-'));
  try {
    const database = await openDatabase({ databaseUrl: scratch.url, dataDir });
    const { db } = database;
    const tokens = await seed(database);
    const key = createSuppressionKey('bench-suppression-key-'.repeat(2));
    const states = (await Promise.all(tokens.map((t) => peekVersioned(db, t, key)))).filter(
      (s) => s !== null,
    );
    const fold = () => db.transaction((tx) => foldQueue(tx, 5_000, SUPER_RULE, 2_000, 15_000));
    const append = async (events: Omit<QueueItem, 'ord'>[]) => {
      for (let i = 0; i < events.length; i += 5_000)
        await enqueueEvents(
          db,
          events.slice(i, i + 5_000).map((e, ord) => ({ ...e, ord })),
        );
    };
    // A consumer that kept up: a minute-old stretch folded, then the queue vacuumed as the
    // consumer does (service.ts), which leaves the table's pages and statistics saying no rows.
    await append(arrivals(states, 20_000, Date.now() - 60_000));
    while ((await fold()).taken > 0);
    await vacuumQueue(db);
    // Then a burst the consumer has not folded yet, the last event arriving as the first fold starts
    // (the young clicks' windows are the last 2.5 and 15.5 seconds): stamped ahead by what the
    // appends take (about 0.1 ms an event here), and the fold waits for that time.
    const last = Date.now() + length * 0.1 + 1_000;
    await append(arrivals(states, length, last));
    const late = Date.now() - last;
    if (late > 0) console.log(`(the appends ended ${late} ms after the last event's time)`);
    else await new Promise((r) => setTimeout(r, -late));
    const ms: number[] = [];
    const taken: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = performance.now();
      const folded = await fold();
      ms.push(performance.now() - t0);
      taken.push(folded.taken);
    }
    await database.close();
    return { ms, taken };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await scratch.drop();
  }
}

export async function run(): Promise<void> {
  if (!adminUrl) throw new Error('set TEST_DATABASE_URL (a PostgreSQL server) for the ingest-fold bench');
  const results: { length: number; ms: number[]; taken: number[] }[] = [];
  for (const length of lengths) {
    const r = await measure(length);
    results.push({ length, ...r });
    console.log(
      `queue of ${length.toLocaleString('en')}: folds of ${r.taken.join(', ')} events in ${r.ms.map((m) => m.toFixed(0)).join(', ')} ms`,
    );
  }
  // µs per event folded over the rounds (a fold held back by young clicks takes fewer).
  const perEvent = (r: { ms: number[]; taken: number[] }) =>
    (r.ms.reduce((a, b) => a + b, 0) * 1000) /
    Math.max(
      1,
      r.taken.reduce((a, b) => a + Math.max(0, b), 0),
    );
  const base = results[0]!;
  for (const r of results.slice(1))
    report(
      `ingest fold, queue ${r.length / 1000}k`,
      `${perEvent(r).toFixed(1)} µs/event folded`,
      `${perEvent(base).toFixed(1)} µs (queue ${base.length / 1000}k)`,
      perEvent(r) / perEvent(base),
    );
}
