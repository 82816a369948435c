import { describe, expect, it } from 'vitest';
import type { ContentItem, LandingPage } from '@rally/shared/schemas/content';
import { DEMO_CLIENTS, DEMO_EMAIL, DEMO_PASSWORD, seedDemo, seedDemoContentData } from '../../db/seed.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser } from '../../../test/http.ts';
import { executableParts } from '../../../test/xss-corpus.ts';

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

  it('keeps settings a user changed', async () => {
    const demo = await new Browser(app).signIn(DEMO_EMAIL, DEMO_PASSWORD);
    demo.clientId = DEMO_CLIENTS.acme.id;
    await demo.put('/sc/settings', { website_url: 'https://changed.example' });
    await seedDemoContentData(app.db);
    expect((await demo.get('/sc/settings')).json().website_url).toBe('https://changed.example');
  });
});
