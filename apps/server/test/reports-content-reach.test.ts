import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { engagementEvents } from '../src/db/schema/index.ts';
import { rowsOf } from '../src/modules/reports/repository.ts';
import { foldCutoff, runRetention } from '../src/modules/retention/index.ts';
import { BROWSER_UA, makeCadence, makeRep, makeTarget, showing } from './engagement.ts';
import { createTestApp } from './helpers.ts';
import { signedIn } from './http.ts';
import { epoch, standardScene } from './reports-world.ts';

/**
 * Content's targets reached from each (ad, target) pair's last event (issue 43, docs/reports.md
 * "Targets reached", migration 0072). The kept pairs and the days' counts must equal a recomputation
 * from the raw events after every kind of write (the ingest consumer, late and backdated events,
 * moves, deletes, writers at once, the retention job), and the report's number the distinct targets
 * of the raw events, for ranges that cut their first day on either side of noon, end now, soon, later
 * or long ago.
 */
describe('content targets reached from each ad and target’s last event (issue 43)', async () => {
  const app = await createTestApp();
  const s = await standardScene(app, 'Acme');
  const foreign = await standardScene(app, 'Foreign');
  const { browser: owner } = await signedIn(app, { [s.clientId]: 'purple_owner' });
  const base = `/v1/report/client/${s.clientId}`;
  // Whole seconds: the API takes epoch seconds.
  const now = Math.floor(Date.now() / 1000) * 1000;
  const at = (ms: number) => new Date(now + ms);
  const MIN = 60_000;
  const HOUR = 3_600_000;
  const DAY = 86_400_000;
  const today = Math.floor(now / DAY) * DAY;
  const utc = (daysBack: number, hours: number) => new Date(today - daysBack * DAY + hours * HOUR);

  const ranges: [string, Date, Date][] = [
    ['90 days from 03:00 UTC (the cut day taken from its start)', utc(89, 3), at(1000)],
    ['30 days from 20:00 UTC (the cut day added to the days after)', utc(30, 20), at(1000)],
    ['from a midnight to a day ahead', utc(14, 0), at(DAY)],
    ['five days, up to 30 minutes ago', utc(5, 6), at(-30 * MIN)],
    ['the last five minutes', at(-5 * MIN), at(0)],
    ['50 to 20 days ago (raw events)', at(-50 * DAY), at(-20 * DAY)],
    ['within one day, 02:00 to 23:00 a week ago (raw events)', utc(7, 2), utc(7, 23)],
  ];

  const raw = async (clientId: string, from: Date, to: Date, contentId?: string) =>
    Object.fromEntries(
      rowsOf(
        await app.db.execute(sql`select content_id::text as c, count(distinct target_id)::int as n
          from engagement_events where client_id = ${clientId} and content_id is not null
           and occurred_at >= ${from} and occurred_at < ${to}
           ${contentId ? sql`and content_id = ${contentId}` : sql``}
         group by 1`),
      ).map((r) => [String(r.c), Number(r.n)]),
    );
  const shown = async (from: Date, to: Date) => {
    const res = await owner.get(`${base}/content?from=${epoch(from)}&to=${epoch(to)}`);
    expect(res.statusCode, res.body).toBe(200);
    const ads = res.json().ads as { content_id: string; targets_reached: number }[];
    return Object.fromEntries(
      ads.filter((a) => a.targets_reached > 0).map((a) => [a.content_id, a.targets_reached]),
    );
  };
  const shownOne = async (contentId: string, from: Date, to: Date) => {
    const res = await owner.get(`${base}/content/${contentId}?from=${epoch(from)}&to=${epoch(to)}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().content.targets_reached as number;
  };
  // The tables themselves: every pair's last event, and the days' counts recomputed from the pairs.
  const kept = async (since = new Date(0)) =>
    rowsOf(
      await app.db
        .execute(sql`select client_id::text as c, content_id::text as k, target_id::text as t, last_at as at
        from content_target_last where last_at >= ${since} order by 1, 2, 3`),
    ).map((r) => `${r.c} ${r.k} ${r.t} ${new Date(r.at as string).toISOString()}`);
  const recomputed = async (since = new Date(0)) =>
    rowsOf(
      await app.db.execute(sql`select client_id::text as c, content_id::text as k, target_id::text as t,
          max(occurred_at) as at from engagement_events where content_id is not null
         group by 1, 2, 3 having max(occurred_at) >= ${since} order by 1, 2, 3`),
    ).map((r) => `${r.c} ${r.k} ${r.t} ${new Date(r.at as string).toISOString()}`);
  const days = async (table: 'kept' | 'raw', since = new Date(0)) =>
    rowsOf(
      await app.db.execute(
        table === 'kept'
          ? sql`select client_id::text as c, content_id::text as k, day::text as d, targets as n
                  from content_reach_days where targets <> 0 and day >= (${since}::timestamptz at time zone 'UTC')::date
                 order by 1, 2, 3`
          : sql`select c, k, d, count(*)::int as n from (
                  select client_id::text as c, content_id::text as k,
                         (max(occurred_at) at time zone 'UTC')::date::text as d
                    from engagement_events where content_id is not null group by client_id, content_id, target_id
                ) x where d::date >= (${since}::timestamptz at time zone 'UTC')::date
                group by 1, 2, 3 order by 1, 2, 3`,
      ),
    ).map((r) => `${r.c} ${r.k} ${r.d} ${Number(r.n)}`);
  const expectAllEqual = async (when: string) => {
    expect(await kept(), `${when}: the pairs`).toEqual(await recomputed());
    expect(await days('kept'), `${when}: the days`).toEqual(await days('raw'));
    for (const [name, from, to] of ranges) {
      const want = await raw(s.clientId, from, to);
      expect(await shown(from, to), `${when}: ${name}`).toEqual(want);
      expect(await shownOne(s.adA, from, to), `${when}: ${name}, content/{id}`).toBe(want[s.adA] ?? 0);
    }
  };
  const event = (
    targetId: string,
    occurredAt: Date,
    contentId: string | null = s.adA,
    clientId = s.clientId,
    cadenceId = s.cadenceId,
  ) =>
    app.db
      .insert(engagementEvents)
      .values({ clientId, targetId, cadenceId, type: 'impression', contentId, occurredAt })
      .returning({ id: engagementEvents.id });

  it('equals the raw distinct count as events are added, backdated, moved and deleted', async () => {
    await expectAllEqual('the scene');

    // Each side of each cut: 89 days back at 01:00 (before the 03:00 start) and 05:00 (after it), 30
    // days back at 10:00 (before 20:00) and 21:00; a pair seen before and after a range's end.
    await event(s.avery.targetId, utc(89, 1));
    await event(s.bo.targetId, utc(89, 1));
    await event(s.bo.targetId, utc(89, 5), s.adB);
    await event(s.cleo.targetId, utc(30, 10));
    await event(s.cleo.targetId, utc(30, 21), s.adB);
    await event(s.avery.targetId, at(-10 * MIN));
    await event(s.bo.targetId, at(-20 * MIN), s.adB);
    await event(s.bo.targetId, at(-2 * DAY), s.adB);
    // Events without an ad are not reached by any.
    await event(s.cleo.targetId, at(-MIN), null);
    await expectAllEqual('new events');

    // A late event, dated before the pair's last (an import, a consumer catching up): the last stays.
    const [late] = await event(s.avery.targetId, utc(40, 12));
    await expectAllEqual('a late event');

    // The pair's latest event deleted: its last is the one before, on another day.
    const [latest] = await event(s.cleo.targetId, at(-3 * MIN));
    await expectAllEqual("Cleo's latest");
    await app.db.delete(engagementEvents).where(eq(engagementEvents.id, latest!.id));
    await expectAllEqual("Cleo's latest deleted");

    // An event moved in time, then to another ad, then every event of a target deleted.
    await app.db
      .update(engagementEvents)
      .set({ occurredAt: utc(3, 4) })
      .where(eq(engagementEvents.id, late!.id));
    await expectAllEqual('an event moved back');
    await app.db.update(engagementEvents).set({ contentId: s.adB }).where(eq(engagementEvents.id, late!.id));
    await expectAllEqual('an event moved to another ad');
    await app.db
      .delete(engagementEvents)
      .where(and(eq(engagementEvents.clientId, s.clientId), eq(engagementEvents.targetId, s.cleo.targetId)));
    await expectAllEqual("Cleo's events deleted");
    const left = rowsOf(
      await app.db.execute(sql`select count(*)::int as n from content_target_last
        where client_id = ${s.clientId} and target_id = ${s.cleo.targetId}`),
    );
    expect(Number(left[0]?.n), 'no pair without events').toBe(0);

    // Another client's events change nothing here, and its own count is its own.
    await event(foreign.avery.targetId, at(-MIN), foreign.adA, foreign.clientId, foreign.cadenceId);
    await expectAllEqual("another client's event");
  });

  it('follows the ingest consumer: tag requests folded from the queue', async () => {
    const repId = await makeRep(app, s.clientId);
    const cadenceId = await makeCadence(app, s.clientId, { days: { 1: showing(s.adB) } });
    const served = await Promise.all(
      Array.from({ length: 4 }, () => makeTarget(app, s.clientId, cadenceId, { repId })),
    );
    const answers = await Promise.all(
      served.flatMap((t, i) =>
        Array.from({ length: i + 1 }, () =>
          app.inject({
            method: 'GET',
            url: `/t/${t.token}/ad/300x250.png`,
            headers: { 'user-agent': BROWSER_UA },
          }),
        ),
      ),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(answers.map(() => 200));
    await app.tracking.settled();
    const counted = rowsOf(
      await app.db.execute(sql`select count(*)::int as n from engagement_events
        where content_id = ${s.adB} and target_id = any(${sql.param(served.map((t) => t.id))}::uuid[])`),
    );
    expect(Number(counted[0]?.n)).toBe(10);
    await expectAllEqual('after the consumer folded');
  });

  it('stays exact with writers at once on the same pairs', async () => {
    const targets = [s.avery.targetId, s.bo.targetId, s.cleo.targetId];
    const ads = [s.adA, s.adB];
    // Each writer adds events to every pair at its own times (some later, some earlier than the
    // others'), in one transaction of several statements; two of them delete what they wrote.
    const writers = Array.from({ length: 12 }, (_, w) =>
      app.db.transaction(async (tx) => {
        const ids: number[] = [];
        for (const [i, targetId] of targets.entries())
          for (const [j, contentId] of ads.entries()) {
            const occurredAt = at(-(((w * 7 + i * 3 + j) % 20) * DAY) - w * MIN);
            const [row] = await tx
              .insert(engagementEvents)
              .values({
                clientId: s.clientId,
                targetId,
                cadenceId: s.cadenceId,
                type: 'impression',
                contentId,
                occurredAt,
              })
              .returning({ id: engagementEvents.id });
            ids.push(row!.id);
          }
        if (w % 6 === 5)
          await tx
            .delete(engagementEvents)
            .where(sql`${engagementEvents.id} = any(${sql.param(ids)}::bigint[])`);
      }),
    );
    await Promise.all(writers);
    await expectAllEqual('writers at once');
  });

  it('after the retention job: the pairs and days after the cutoff equal the events, and so do later ranges', async () => {
    const cutoff = foldCutoff(new Date(now), 25);
    const old = new Date(cutoff.getTime() - 10 * DAY);
    // Avery: only folded events on ad B; Bo: folded and recent events on ad A.
    await event(s.avery.targetId, old, s.adB);
    await event(s.bo.targetId, old);
    await event(s.bo.targetId, at(-4 * HOUR));
    const run = await runRetention(app.db, { clientId: s.clientId, now: new Date(now) });
    expect(run.eventsFolded).toBeGreaterThanOrEqual(2);
    expect(await kept(cutoff), 'the pairs after the cutoff').toEqual(await recomputed(cutoff));
    expect(await days('kept', cutoff), 'the days after the cutoff').toEqual(await days('raw', cutoff));
    for (const [name, from, to] of ranges)
      expect(await shown(from, to), `after retention: ${name}`).toEqual(await raw(s.clientId, from, to));
  });
});
