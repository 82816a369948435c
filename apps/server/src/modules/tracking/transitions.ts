import { and, eq, lt, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { cadenceDays, cadences, targets } from '../../db/schema/index.ts';
import type { JobQueue } from '../../lib/queue.ts';

export const TRANSITIONS_JOB = 'engagement-transitions';
/** How often the job is asked for; the queue keeps at most one queued or running. */
export const TRANSITIONS_EVERY_MS = 60_000;

type Action = {
  action_type?: unknown;
  action_rule?: unknown;
  action_rule_value?: unknown;
  target_day_number?: unknown;
};

/** The rule of an action, on the target's current day (SPEC.md §3 "Cadence action"); null if unknown. */
function ruleOf(a: Action, now: Date): SQL | null {
  const value = Number(a.action_rule_value);
  if (!Number.isFinite(value) || value < 0) return null;
  switch (a.action_rule) {
    case 'impressions_gte':
      return sql`${targets.dayImpressions} >= ${value}`;
    case 'clicks_gte':
      return sql`${targets.dayClicks} >= ${value}`;
    case 'days_on_day_gte':
      return sql`${targets.dayEnteredAt} <= ${new Date(now.getTime() - value * 86_400_000).toISOString()}::timestamptz`;
    default:
      return null;
  }
}

export type TransitionResult = { moved: number; finished: number };

/**
 * Applies each active cadence's day transition actions (ARCHITECTURE.md §5) to the active targets on
 * that day: `move_to_day` puts the target on `target_day_number` (the next day when absent) with
 * fresh day counters; `finish` ends its run (is_active false). Idempotent: a target moved or finished
 * no longer matches its old day's rules, and a target that arrived on a day during this run waits
 * for the next one, so one run never carries a target through several days.
 */
export async function applyTransitions(db: Db, now = new Date()): Promise<TransitionResult> {
  const result: TransitionResult = { moved: 0, finished: 0 };
  const days = await db
    .select({
      cadenceId: cadenceDays.cadenceId,
      dayNumber: cadenceDays.dayNumber,
      contentDays: cadenceDays.contentDays,
    })
    .from(cadenceDays)
    .innerJoin(cadences, eq(cadences.id, cadenceDays.cadenceId))
    .where(and(eq(cadences.status, 'active'), sql`jsonb_array_length(${cadenceDays.contentDays}) > 0`))
    .orderBy(cadenceDays.cadenceId, cadenceDays.dayNumber);
  for (const day of days) {
    const actions = (Array.isArray(day.contentDays) ? day.contentDays : []).flatMap((cd) =>
      Array.isArray(cd?.day_transition_actions) ? (cd.day_transition_actions as Action[]) : [],
    );
    for (const action of actions) {
      const rule = ruleOf(action, now);
      if (!rule) continue;
      const onThisDay = and(
        eq(targets.cadenceId, day.cadenceId),
        eq(targets.dayNumber, day.dayNumber),
        eq(targets.isActive, true),
        lt(targets.dayEnteredAt, now),
        rule,
      );
      if (action.action_type === 'move_to_day') {
        const to = Number(action.target_day_number ?? day.dayNumber + 1);
        if (!Number.isInteger(to) || to < 1 || to === day.dayNumber) continue;
        const rows = await db
          .update(targets)
          .set({ dayNumber: to, dayEnteredAt: now, dayImpressions: 0, dayClicks: 0, updatedAt: now })
          .where(onThisDay)
          .returning({ id: targets.id });
        result.moved += rows.length;
      } else if (action.action_type === 'finish') {
        const rows = await db
          .update(targets)
          .set({ isActive: false, updatedAt: now })
          .where(onThisDay)
          .returning({ id: targets.id });
        result.finished += rows.length;
      }
    }
  }
  return result;
}

/** Registers the job; call before the queue starts. */
export function registerTransitions(deps: { db: Db; queue: JobQueue; log: FastifyBaseLogger }): void {
  deps.queue.register(
    TRANSITIONS_JOB,
    async () => {
      const done = await applyTransitions(deps.db);
      if (done.moved || done.finished) deps.log.info(done, 'applied cadence day transitions');
    },
    // One queued or running at a time, whichever instance asks; a missed run is the next minute's.
    { policy: 'exclusive', retryLimit: 0 },
  );
}

/** Asks for a run now and every minute after; returns the stopper. */
export function scheduleTransitions(queue: JobQueue, log: FastifyBaseLogger): () => void {
  const ask = () => {
    queue.send(TRANSITIONS_JOB, {}).catch((err: unknown) => log.warn({ err }, 'could not queue transitions'));
  };
  ask();
  const timer = setInterval(ask, TRANSITIONS_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
