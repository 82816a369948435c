import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { AD_SIZES } from '@rally/shared/schemas/content';
import type { ContentItem, LandingPage } from '@rally/shared/schemas/content';
import { content } from '../../db/schema/index.ts';
import { DEMO_CLIENTS, DEMO_EMAIL, DEMO_PASSWORD, seedDemo, seedDemoContentData } from '../../db/seed.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser } from '../../../test/http.ts';
import { executableParts } from '../../../test/xss-corpus.ts';
import { adInputFor, creativeOf } from '../creative/index.ts';

describe('demo: "the seed adds two published ad creatives and a landing page per demo client" (issue 8)', async () => {
  const app = await createTestApp();
  await seedDemo(app.db);

  it('adds them once, with brand settings, and they read back through the API', async () => {
    expect((await seedDemoContentData(app.db)).created).toBe(6);
    expect((await seedDemoContentData(app.db)).created).toBe(0);
    const demo = await new Browser(app).signIn(DEMO_EMAIL, DEMO_PASSWORD);
    for (const client of [DEMO_CLIENTS.agency, DEMO_CLIENTS.acme]) {
      demo.clientId = client.id;
      const items = (await demo.get('/sc/content?status=published')).json().items as ContentItem[];
      expect(items).toHaveLength(2);
      const pages = (await demo.get(`/v1/rest/client/${client.id}/landing_page`)).json()
        .items as LandingPage[];
      expect(pages).toHaveLength(1);
      for (const item of items) {
        expect(item.landing_page_id).toBe(pages[0]!.id);
        expect(item.title).not.toBe('');
        expect(item.image_text).not.toBe('');
        // Publishing again through the API passes its checks.
        expect((await demo.put(`/sc/content/${item.id}`, { status: 'published' })).statusCode).toBe(200);
      }
      for (const html of Object.values(pages[0]!.landing_page_payload)) {
        if (typeof html === 'string') expect(executableParts(html)).toEqual([]);
      }
      expect(pages[0]!.landing_page_payload.hero_html).toContain('data-id="prospect_first_name"');
      const settings = (await demo.get('/sc/settings')).json();
      expect(settings.website_url).toMatch(/^https:\/\//);
      expect(settings.colors.accent).toMatch(/^#[0-9a-f]{6}$/);
    }
    demo.clientId = DEMO_CLIENTS.globex.id;
    expect((await demo.get('/sc/content')).json().items).toEqual([]);
  });

  it('reads whole in a generic render (no prospect): each tag shows its fallback, no markup (issue 42)', async () => {
    for (const client of [DEMO_CLIENTS.agency, DEMO_CLIENTS.acme]) {
      const brand = await creativeOf(app).brand(client.id);
      const rows = await app.db.select().from(content).where(eq(content.clientId, client.id));
      for (const row of rows) {
        for (const size of AD_SIZES) {
          const input = adInputFor(row, size, brand);
          for (const text of [input.title, input.imageText]) {
            expect(text).not.toMatch(/[<>]|^\s*[,.]|\s[,.]/);
          }
        }
      }
    }
    const [picks] = await app.db.select().from(content).where(eq(content.name, 'Picks per hour'));
    const acmeBrand = await creativeOf(app).brand(DEMO_CLIENTS.acme.id);
    expect(adInputFor(picks!, '1200x628', acmeBrand).imageText).toBe('Your warehouse, twice as fast');
  });

  it('keeps settings a user changed', async () => {
    const demo = await new Browser(app).signIn(DEMO_EMAIL, DEMO_PASSWORD);
    demo.clientId = DEMO_CLIENTS.acme.id;
    await demo.put('/sc/settings', { website_url: 'https://changed.example' });
    await seedDemoContentData(app.db);
    expect((await demo.get('/sc/settings')).json().website_url).toBe('https://changed.example');
  });
});
