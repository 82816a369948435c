import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { cohorts, journeyMoves } from '../../db/schema/index.ts';
import { demoJourneyId } from './demo.ts';
import {
  DEMO_CLIENTS,
  seedDemo,
  seedDemoCohortData,
  seedDemoCrmData,
  seedDemoData,
  seedDemoEngagementData,
} from '../../db/seed.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeContent } from '../../../test/engagement.ts';
import { signedIn } from '../../../test/http.ts';

describe('demo cohorts (issue 18 "Demo")', () => {
  it('two cohorts per demo client, one from a CRM list and one from filters, with engagement; once', async () => {
    const app = await createTestApp();
    await seedDemo(app.db);
    await seedDemoData(app);
    await seedDemoCrmData(app.db);
    const acme = DEMO_CLIENTS.acme.id;
    await makeContent(app, acme, { title: 'Acme demo ad' });
    await seedDemoEngagementData(app);

    const first = await seedDemoCohortData(app);
    expect(first.cohorts).toBe(4);
    expect(first.events).toBeGreaterThan(50);
    const rows = await app.db.select().from(cohorts).where(eq(cohorts.clientId, acme));
    expect(rows.map((c) => c.sourceKind).sort()).toEqual(['crm_list', 'filter']);
    expect(rows.every((c) => c.syncState === 'done' && c.size > 0)).toBe(true);

    const { browser } = await signedIn(app, { [acme]: 'green_manager' });
    for (const c of rows) {
      const res = await browser.get(`/v1/api/cohort/${c.id}`);
      expect(res.json().impressions).toBeGreaterThan(0);
      const now = Math.floor(Date.now() / 1000);
      const impact = await browser.get(
        `/v1/report/cohort/${c.id}/impact/by_date?from=${now - 61 * 86_400}&to=${now + 60}`,
      );
      expect(impact.json().by_date.length).toBeGreaterThan(10);
    }

    // The journey: accounts moved stage over the 60 days, and the view shows it.
    const moves = await app.db
      .select()
      .from(journeyMoves)
      .where(eq(journeyMoves.journeyId, demoJourneyId(acme)));
    expect(moves.length).toBeGreaterThan(3);
    const days = new Set(moves.map((m) => m.movedAt.toISOString().slice(0, 10)));
    expect(days.size).toBeGreaterThan(2);
    const cohortOfJourney = rows.find((c) => c.sourceKind === 'crm_list') ?? rows[0]!;
    const now = Math.floor(Date.now() / 1000);
    const view = await browser.get(
      `/v1/report/client/${acme}/cohort/${cohortOfJourney.id}/journey/view?from=${now - 61 * 86_400}&to=${now + 60}`,
    );
    expect(view.statusCode, view.body).toBe(200);
    const funnel = view.json().by_date as { accounts: number[] }[];
    expect(funnel[0]!.accounts.slice(1).every((n) => n === 0)).toBe(true);
    expect(
      funnel
        .at(-1)!
        .accounts.slice(1)
        .some((n) => n > 0),
    ).toBe(true);

    const second = await seedDemoCohortData(app);
    expect(second).toEqual({ cohorts: 0, events: 0 });
    // Four seeds in a row: slow on a busy machine.
  }, 120_000);
});
