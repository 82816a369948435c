import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { engagementEvents, targets } from '../../db/schema/index.ts';
import { createTestApp, sendWhenIdle, waitFor } from '../../../test/helpers.ts';
import { makeClient } from '../../../test/http.ts';
import {
  BROWSER_UA,
  makeCadence,
  makeContent,
  makeRep,
  makeTarget,
  showing,
} from '../../../test/engagement.ts';
import { applyTransitions, TRANSITIONS_JOB } from './transitions.ts';

/**
 * Day transition actions (ARCHITECTURE.md §5: action_type move_to_day / finish, action_rule
 * impressions_gte / clicks_gte / days_on_day_gte, action_rule_value), applied by a queue job.
 */
let app: FastifyInstance;
let clientId: string;
let repId: string;
let day1: string;
let day2: string;

beforeAll(async () => {
  // No job workers here: the tests below run the transitions themselves and must not race the job.
  app = await createTestApp({ workers: false });
  clientId = await makeClient(app, 'Acme');
  repId = await makeRep(app, clientId);
  day1 = await makeContent(app, clientId, { title: 'Day one' });
  day2 = await makeContent(app, clientId, { title: 'Day two' });
});
afterAll(() => app.close());

const row = async (id: string) => (await app.db.select().from(targets).where(eq(targets.id, id)))[0]!;
// Counters follow the answers within the ingest queue's fold; each helper waits for it.
const impress = async (token: string, n: number) => {
  const answers = await Promise.all(
    Array.from({ length: n }, () =>
      app.inject({ url: `/t/${token}/ad/300x250.png`, headers: { 'user-agent': BROWSER_UA } }),
    ),
  );
  await app.tracking.settled();
  return answers;
};
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);

describe('transition actions', () => {
  it('impressions_gte → move_to_day: the target moves to target_day_number with fresh day counters, and sees that day’s content', async () => {
    const cadenceId = await makeCadence(app, clientId, {
      days: {
        1: showing(day1, [
          {
            action_type: 'move_to_day',
            action_rule: 'impressions_gte',
            action_rule_value: 3,
            target_day_number: 2,
          },
        ]),
        2: showing(day2),
      },
    });
    const ready = await makeTarget(app, clientId, cadenceId, { repId });
    const notYet = await makeTarget(app, clientId, cadenceId, { repId });
    await impress(ready.token, 3);
    await impress(notYet.token, 2);

    expect(await applyTransitions(app.db)).toMatchObject({ moved: 1, finished: 0 });
    const moved = await row(ready.id);
    expect(moved).toMatchObject({
      dayNumber: 2,
      dayImpressions: 0,
      dayClicks: 0,
      impressions: 3,
      isActive: true,
    });
    expect(moved.dayEnteredAt.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(await row(notYet.id)).toMatchObject({ dayNumber: 1, dayImpressions: 2 });

    // Idempotent: running again changes nothing.
    expect(await applyTransitions(app.db)).toEqual({ moved: 0, finished: 0 });
    expect(await row(ready.id)).toMatchObject({ dayNumber: 2 });

    // The next impression shows day 2's content and counts on day 2.
    await impress(ready.token, 1);
    const [last] = await app.db
      .select()
      .from(engagementEvents)
      .where(and(eq(engagementEvents.targetId, ready.id), eq(engagementEvents.dayNumber, 2)));
    expect(last).toMatchObject({ contentId: day2, dayNumber: 2 });
    expect(await row(ready.id)).toMatchObject({ dayImpressions: 1, impressions: 4 });
  });

  it('clicks_gte → finish: the target leaves the cadence (is_active false) and its tag stops counting', async () => {
    const cadenceId = await makeCadence(app, clientId, {
      days: {
        1: showing(day1, [{ action_type: 'finish', action_rule: 'clicks_gte', action_rule_value: 1 }]),
      },
    });
    const t = await makeTarget(app, clientId, cadenceId, { repId });
    await app.inject({ url: `/t/${t.token}/c`, headers: { 'user-agent': BROWSER_UA } });
    await app.tracking.settled();
    expect(await applyTransitions(app.db)).toMatchObject({ finished: 1 });
    expect(await row(t.id)).toMatchObject({ isActive: false, clicks: 1 });
    await impress(t.token, 2);
    expect(await row(t.id)).toMatchObject({ impressions: 0 });
  });

  it('days_on_day_gte compares days since day_entered_at; move_to_day without a day goes to the next day', async () => {
    const cadenceId = await makeCadence(app, clientId, {
      days: {
        3: showing(day1, [
          { action_type: 'move_to_day', action_rule: 'days_on_day_gte', action_rule_value: 2 },
        ]),
      },
    });
    const old = await makeTarget(app, clientId, cadenceId, { repId, dayNumber: 3 });
    const fresh = await makeTarget(app, clientId, cadenceId, { repId, dayNumber: 3 });
    await app.db
      .update(targets)
      .set({ dayEnteredAt: daysAgo(3) })
      .where(eq(targets.id, old.id));
    await app.db
      .update(targets)
      .set({ dayEnteredAt: daysAgo(1) })
      .where(eq(targets.id, fresh.id));
    await applyTransitions(app.db);
    expect(await row(old.id)).toMatchObject({ dayNumber: 4 });
    expect(await row(fresh.id)).toMatchObject({ dayNumber: 3 });
  });

  it('one run never carries a target through two days; a paused cadence’s actions wait', async () => {
    const always = (to: number) =>
      ({
        action_type: 'move_to_day',
        action_rule: 'impressions_gte',
        action_rule_value: 0,
        target_day_number: to,
      }) as const;
    const cadenceId = await makeCadence(app, clientId, {
      days: { 1: showing(day1, [always(2)]), 2: showing(day2, [always(3)]) },
    });
    const t = await makeTarget(app, clientId, cadenceId, { repId });
    await app.db
      .update(targets)
      .set({ dayEnteredAt: daysAgo(1) })
      .where(eq(targets.id, t.id));
    await applyTransitions(app.db);
    expect(await row(t.id)).toMatchObject({ dayNumber: 2 });

    const paused = await makeCadence(app, clientId, {
      status: 'paused',
      days: { 1: showing(day1, [always(2)]) },
    });
    const p = await makeTarget(app, clientId, paused, { repId });
    await app.db
      .update(targets)
      .set({ dayEnteredAt: daysAgo(1) })
      .where(eq(targets.id, p.id));
    await applyTransitions(app.db);
    expect(await row(p.id)).toMatchObject({ dayNumber: 1, isActive: true });
  });

  it('runs as the queue job, asked for at start-up and every minute', async () => {
    const withJobs = await createTestApp();
    const client = await makeClient(withJobs, 'Jobs');
    const rep = await makeRep(withJobs, client);
    const ad = await makeContent(withJobs, client);
    const cadenceId = await makeCadence(withJobs, client, {
      days: {
        1: showing(ad, [{ action_type: 'finish', action_rule: 'impressions_gte', action_rule_value: 1 }]),
      },
    });
    const t = await makeTarget(withJobs, client, cadenceId, { repId: rep });
    await withJobs.inject({ url: `/t/${t.token}/ad/300x250.png`, headers: { 'user-agent': BROWSER_UA } });
    // The impression reaches the target's counters through the ingest queue's fold: a run asked for
    // before it lands finds none and finishes nobody, and the next is a minute away (a CI run at
    // load 15-20 timed out here).
    await withJobs.tracking.settled();
    await sendWhenIdle(withJobs, TRANSITIONS_JOB);
    await waitFor(
      async () => !(await withJobs.db.select().from(targets).where(eq(targets.id, t.id)))[0]!.isActive,
    );
  });
});
