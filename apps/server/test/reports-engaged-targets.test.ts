import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { engagementEvents } from '../src/db/schema/index.ts';
import { rowsOf } from '../src/modules/reports/repository.ts';
import { createTestApp } from './helpers.ts';
import { signedIn } from './http.ts';
import { epoch, standardScene } from './reports-world.ts';

/**
 * The dashboard's engaged targets (docs/reports.md "Engaged targets", migration 0035): counted from
 * each target's last event when the range ends within the last hour, from the raw events otherwise.
 * Either way the number must be the distinct targets of the client's events in the range, whatever
 * was written, backdated, moved or deleted since.
 */
describe('dashboard/stats engaged targets from each target’s last event (issue 17)', async () => {
  const app = await createTestApp();
  const s = await standardScene(app, 'Acme');
  const foreign = await standardScene(app, 'Foreign');
  const { browser: owner } = await signedIn(app, { [s.clientId]: 'purple_owner' });
  const base = `/v1/report/client/${s.clientId}`;
  // Whole seconds: the API takes epoch seconds.
  const now = Math.floor(Date.now() / 1000) * 1000;
  const at = (ms: number) => new Date(now + ms);
  const MIN = 60_000;
  const DAY = 86_400_000;

  const raw = async (from: Date, to: Date) =>
    Number(
      rowsOf(
        await app.db.execute(sql`select count(distinct target_id) as n from engagement_events
          where client_id = ${s.clientId} and occurred_at >= ${from} and occurred_at < ${to}`),
      )[0]?.n,
    );
  const shown = async (from: Date, to: Date) => {
    // Each call computes afresh: the minute's results (issue 43, report-results.ts) are forgotten.
    await app.db.execute(sql`delete from report_results`);
    const res = await owner.get(`${base}/dashboard/stats?from=${epoch(from)}&to=${epoch(to)}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().engaged_targets as number;
  };
  const ranges: [string, Date, Date][] = [
    ['the last week, up to a minute ago', at(-7 * DAY), at(-MIN)],
    ['the last five minutes', at(-5 * MIN), at(0)],
    ['sixty days and one ahead', at(-60 * DAY), at(DAY)],
    ['50 to 20 days ago (raw events)', at(-50 * DAY), at(-20 * DAY)],
    ['the last three days, up to 30 minutes ago', at(-3 * DAY), at(-30 * MIN)],
  ];
  // The table itself: each client's and target's latest event, no more and no fewer rows.
  const lastEvents = async (table: 'stored' | 'raw') =>
    rowsOf(
      await app.db.execute(
        table === 'stored'
          ? sql`select client_id::text as c, target_id::text as t, last_at as at from target_engagement_last
                 order by 1, 2`
          : sql`select client_id::text as c, target_id::text as t, max(occurred_at) as at from engagement_events
                 group by 1, 2 order by 1, 2`,
      ),
    ).map((r) => `${r.c} ${r.t} ${new Date(r.at as string).toISOString()}`);
  const expectAllEqual = async (when: string) => {
    expect(await lastEvents('stored'), `${when}: the last events`).toEqual(await lastEvents('raw'));
    for (const [name, from, to] of ranges)
      expect(await shown(from, to), `${when}: ${name}`).toBe(await raw(from, to));
  };
  const event = (targetId: string, cadenceId: number, occurredAt: Date, clientId = s.clientId) =>
    app.db
      .insert(engagementEvents)
      .values({ clientId, targetId, cadenceId, type: 'impression', occurredAt })
      .returning({ id: engagementEvents.id });

  it('equals the raw distinct count as events are added, backdated, moved and deleted', async () => {
    await expectAllEqual('the scene');

    // Avery was seen ten days ago and two minutes ago; Bo 40 days ago and 30 seconds ago, so Bo's last
    // event is after the end of "up to a minute ago" with none inside it: counted out, not in.
    await event(s.avery.targetId, s.cadenceId, at(-10 * DAY));
    const [averyLatest] = await event(s.avery.targetId, s.cadenceId, at(-2 * MIN));
    await event(s.bo.targetId, s.cadenceId, at(-40 * DAY));
    await event(s.bo.targetId, s.cadenceId, at(-30_000));
    await expectAllEqual('new events');
    const lastWeek = ranges[0]!;
    const before = await shown(lastWeek[1], lastWeek[2]);
    expect(before).toBeGreaterThan(0);

    // An event written later but dated inside the range (an import) counts.
    const [backdated] = await event(s.cleo.targetId, s.cadenceId, at(-3 * DAY));
    await expectAllEqual('a backdated event');

    // Avery's latest event deleted: her last event is ten days ago again.
    await app.db.delete(engagementEvents).where(eq(engagementEvents.id, averyLatest!.id));
    await expectAllEqual("Avery's latest event deleted");

    // Cleo's event moved 25 days back, then every event of hers deleted.
    await app.db
      .update(engagementEvents)
      .set({ occurredAt: at(-25 * DAY) })
      .where(eq(engagementEvents.id, backdated!.id));
    await expectAllEqual("Cleo's event moved");
    await app.db
      .delete(engagementEvents)
      .where(and(eq(engagementEvents.clientId, s.clientId), eq(engagementEvents.targetId, s.cleo.targetId)));
    await expectAllEqual("Cleo's events deleted");
    const left = rowsOf(
      await app.db.execute(sql`select count(*) as n from target_engagement_last
        where client_id = ${s.clientId} and target_id = ${s.cleo.targetId}`),
    );
    expect(Number(left[0]?.n), 'no row without events').toBe(0);

    // An event of this client naming another client's target counts for this client, as the raw
    // events do; the other client's own count does not move.
    const foreignRange = `from=${epoch(at(-DAY))}&to=${epoch(at(DAY))}`;
    const { browser: foreignOwner } = await signedIn(app, { [foreign.clientId]: 'purple_owner' });
    await app.db.execute(sql`delete from report_results`);
    const foreignBefore = (
      await foreignOwner.get(`/v1/report/client/${foreign.clientId}/dashboard/stats?${foreignRange}`)
    ).json().engaged_targets;
    await event(foreign.avery.targetId, foreign.cadenceId, at(-MIN));
    await expectAllEqual("an event on another client's target");
    expect(
      (await foreignOwner.get(`/v1/report/client/${foreign.clientId}/dashboard/stats?${foreignRange}`)).json()
        .engaged_targets,
    ).toBe(foreignBefore);
  });
});
