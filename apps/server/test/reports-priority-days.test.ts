import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { billingAccounts } from '../src/db/schema/index.ts';
import { createTestApp } from './helpers.ts';
import { signedIn } from './http.ts';
import { reportWorld } from './reports-world.ts';

/**
 * Issue 43, the product owner's decision: pipeline/priority ranks by whole days in the client's time
 * zone (its billing account's; UTC without one), today so far and the `days - 1` days before. The
 * boundaries are checked a minute either side of a local midnight that is not a UTC one.
 */
const DAY = 86_400_000;
const MINUTE = 60_000;

/** The wall clock of `zone` at `ms`, read as if it were UTC (for the zone's offset at that moment). */
function wall(zone: string, ms: number): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  return Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!);
}

/** The moment of local midnight in `zone`, `back` days before today there (computed apart from SQL). */
function localMidnight(zone: string, back: number, now = Date.now()): number {
  const today = Math.floor(wall(zone, now) / DAY) * DAY; // local date's midnight, as a UTC-read wall clock
  const target = today - back * DAY;
  // Wall clock minus the zone's offset near that moment (twice, for a day that changes offset).
  const guess = target - (wall(zone, target) - target);
  return target - (wall(zone, guess) - guess);
}

describe('pipeline/priority ranks by whole days in the client time zone (issue 43)', async () => {
  const app = await createTestApp();

  async function zoned(name: string, zone: string | null) {
    const w = await reportWorld(app, name);
    if (zone) await app.db.insert(billingAccounts).values({ clientId: w.clientId, timeZone: zone });
    const company = await w.company(`${name} Edge`);
    const person = await w.prospect(company, 'Eda', 'Edge');
    const deal = await w.deal(company, { name: `${name} Edge deal`, amount: 100_00, created: new Date() });
    const { browser } = await signedIn(app, { [w.clientId]: 'purple_owner' });
    return { ...w, person, deal, browser, zone: zone ?? 'UTC' };
  }

  for (const zone of ['America/New_York', 'Asia/Tokyo', null]) {
    it(`counts from the local midnight, in ${zone ?? 'UTC (no billing account)'}`, async () => {
      const z = await zoned(`Zone ${zone ?? 'none'}`, zone);
      const now = Date.now();
      const yesterday = localMidnight(z.zone, 1, now); // start of days=2
      const today = localMidnight(z.zone, 0, now); // start of days=1
      expect(yesterday % DAY === 0, 'a zone whose midnight is a UTC one').toBe(zone === null);
      // One event type per side of each boundary, so the counts tell which side was taken.
      await z.events(z.person.targetId, 'impression', [new Date(yesterday - MINUTE)]); // before both
      await z.events(z.person.targetId, 'click', [new Date(yesterday + MINUTE), new Date(today - MINUTE)]);
      const todayEvent = Math.min(today + MINUTE, now - 1_000);
      await z.events(z.person.targetId, 'view', [new Date(todayEvent)]);

      const get = async (days: number) => {
        const res = await z.browser.get(`/v1/report/client/${z.clientId}/pipeline/priority?days=${days}`);
        expect(res.statusCode, res.body).toBe(200);
        const body = res.json();
        return {
          body,
          item: body.items.find((i: { opportunity_id: string }) => i.opportunity_id === z.deal),
        };
      };
      const two = await get(2);
      expect(two.body).toMatchObject({ days: 2, time_zone: z.zone, from: new Date(yesterday).toISOString() });
      expect(two.item).toMatchObject({ impressions: 0, clicks: 2, views: 1, score: 15 });
      expect(two.item.last_engaged_at).toBe(new Date(todayEvent).toISOString());

      const one = await get(1);
      expect(one.body).toMatchObject({ time_zone: z.zone, from: new Date(today).toISOString() });
      expect(one.item).toMatchObject({ impressions: 0, clicks: 0, views: 1, score: 5 });

      const three = await get(3);
      expect(three.body.from).toBe(new Date(localMidnight(z.zone, 2, now)).toISOString());
      expect(three.item).toMatchObject({ impressions: 1, clicks: 2, views: 1, score: 16 });

      // The export ranks by the same days.
      const csv = await z.browser.get(`/v1/report/client/${z.clientId}/pipeline/priority/export?days=1`);
      expect(csv.statusCode).toBe(200);
      const row = (parse(csv.body) as string[][]).find((r) => r[0] === `Zone ${zone ?? 'none'} Edge deal`);
      expect(row?.[6]).toBe('5'); // the score
    });
  }
});
