import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { cohorts } from '../../db/schema/index.ts';
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

    const second = await seedDemoCohortData(app);
    expect(second).toEqual({ cohorts: 0, events: 0 });
    // Four seeds in a row: slow on a busy machine.
  }, 120_000);
});
