import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { campaigns } from '../../db/schema/index.ts';
import {
  DEMO_CLIENTS,
  seedDemo,
  seedDemoCampaignData,
  seedDemoCohortData,
  seedDemoCrmData,
  seedDemoData,
  seedDemoEngagementData,
} from '../../db/seed.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeContent } from '../../../test/engagement.ts';
import { signedIn } from '../../../test/http.ts';
import { demoCohortId } from '../cohorts/index.ts';
import { demoCampaignId } from './demo.ts';

describe('demo campaign (issue 18 "Demo")', () => {
  it('one active campaign on the CRM list cohort per demo client, with a working download; once', async () => {
    const app = await createTestApp();
    await seedDemo(app.db);
    await seedDemoData(app);
    await seedDemoCrmData(app.db);
    const acme = DEMO_CLIENTS.acme.id;
    await makeContent(app, acme, { title: 'Acme demo ad' });
    await seedDemoEngagementData(app);
    await seedDemoCohortData(app);

    expect(await seedDemoCampaignData(app)).toEqual({ campaigns: 2 });
    const rows = await app.db.select().from(campaigns).where(eq(campaigns.clientId, acme));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: demoCampaignId(acme),
      cohortId: demoCohortId(acme, 0),
      status: 'active',
    });

    const { browser } = await signedIn(app, { [acme]: 'green_manager' });
    const campaign = (await browser.get(`/v1/rest/campaign/${demoCampaignId(acme)}`)).json();
    expect(campaign).toMatchObject({ live: true, content_name: 'Acme demo ad' });
    const zip = await browser.get(`/v1/download/${demoCampaignId(acme)}`);
    expect(zip.statusCode).toBe(200);
    expect(zip.headers['content-type']).toBe('application/zip');

    expect(await seedDemoCampaignData(app)).toEqual({ campaigns: 0 });
    // Five seeds in a row: slow on a busy machine.
  }, 150_000);
});
