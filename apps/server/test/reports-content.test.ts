import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { makeContent } from './engagement.ts';
import { createTestApp } from './helpers.ts';
import { Browser, signedIn } from './http.ts';
import { RANGE, daysAgo, epoch, fieldsOf, standardScene } from './reports-world.ts';

/**
 * Issue 17, content performance per ad and landing page (docs/reports.md "Content") and the
 * reports' search over prospects, companies, cadences and content.
 */
describe('content reports and search (issue 17)', async () => {
  const app = await createTestApp();
  const s = await standardScene(app, 'Acme');
  const foreign = await standardScene(app, 'Foreign');
  const { browser: owner } = await signedIn(app, { [s.clientId]: 'purple_owner' });
  const { browser: sdr } = await signedIn(app, { [s.clientId]: 'yellow_sdr' });
  const { browser: viewer } = await signedIn(app, { [s.clientId]: 'grey_viewer' });
  const base = `/v1/report/client/${s.clientId}`;
  const formula = await makeContent(app, s.clientId, { title: '=cmd|calc' });

  it('content: impressions, clicks, views and CTR per ad, and per landing page', async () => {
    const res = await sdr.get(`${base}/content?${RANGE}`);
    expect(res.statusCode, res.body).toBe(200);
    const { ads, landing_pages } = res.json();
    expect(ads.map((a: { content_id: string }) => a.content_id)).toEqual([s.adA, s.adB, formula]);
    expect(ads[0]).toMatchObject({
      name: 'Acme ad A',
      landing_page_id: s.lp,
      impressions: 3,
      clicks: 1,
      views: 1,
      targets_reached: 1,
      ctr: 0.3333,
    });
    expect(ads[1]).toMatchObject({ impressions: 1, clicks: 0, ctr: 0 });
    expect(ads[2]).toMatchObject({ impressions: 0, ctr: null });
    expect(landing_pages).toEqual([
      {
        landing_page_id: s.lp,
        name: 'Acme demo page',
        clicks: 1,
        views: 1,
        targets_reached: 1,
        view_rate: 1,
      },
    ]);
  });

  it('content/{id}: one ad with a row per day and the targets behind its numbers', async () => {
    const from = epoch(daysAgo(14));
    const res = await owner.get(`${base}/content/${s.adA}?from=${from}`);
    expect(res.statusCode, res.body).toBe(200);
    const d = res.json();
    expect(d.content).toMatchObject({ content_id: s.adA, impressions: 3, clicks: 1, views: 1 });
    expect(d.by_date.length).toBeGreaterThanOrEqual(14);
    expect(d.by_date.reduce((n: number, r: { impressions: number }) => n + r.impressions, 0)).toBe(3);
    const clickDay = daysAgo(10).toISOString().slice(0, 10);
    expect(d.by_date.find((r: { date: string }) => r.date === clickDay)).toMatchObject({
      clicks: 1,
      views: 1,
    });
    expect(d.targets).toEqual([
      expect.objectContaining({
        target_id: s.avery.targetId,
        name: 'Avery Stone',
        company_name: 'Acme Alpha',
        impressions: 3,
        clicks: 1,
        views: 1,
      }),
    ]);
    const csv = await owner.get(`${base}/content/${s.adA}/export?from=${from}`);
    expect(csv.statusCode).toBe(200);
    expect((parse(csv.body) as string[][]).slice(1).map((r) => r[0])).toEqual(['Avery Stone']);
  });

  it('content/export: ads or landing pages as CSV, formula-safe', async () => {
    const ads = await owner.get(`${base}/content/export?${RANGE}`);
    expect(ads.statusCode).toBe(200);
    expect(ads.headers['content-disposition']).toMatch(/filename="content-ads-/);
    const rows = parse(ads.body) as string[][];
    expect(rows[0]).toEqual([
      'Ad',
      'Title',
      'Status',
      'Impressions',
      'Clicks',
      'CTR',
      'Landing page views',
      'Targets reached',
    ]);
    expect(rows.slice(1).map((r) => r[0])).toEqual(['Acme ad A', 'Acme ad B', "'=cmd|calc"]);
    const pages = await owner.get(`${base}/content/export?${RANGE}&kind=landing_pages`);
    expect(pages.headers['content-disposition']).toMatch(/filename="content-landing-pages-/);
    expect(parse(pages.body)).toEqual([
      ['Landing page', 'Clicks to it', 'Views', 'View rate', 'Targets reached'],
      ['Acme demo page', '1', '1', '1', '1'],
    ]);
  });

  it('search: prospects, companies, cadences and content of this client; wildcards match themselves', async () => {
    const res = await sdr.get(`${base}/search?search=acme`);
    expect(res.statusCode, res.body).toBe(200);
    const r = res.json();
    expect(r.companies.map((c: { name: string }) => c.name)).toEqual([
      'Acme Alpha',
      'Acme Beta',
      'Acme Delta',
      'Acme Gamma',
    ]);
    expect(r.cadences.map((c: { name: string }) => c.name)).toEqual(['Acme outbound']);
    expect(r.content.map((c: { content_id: string }) => c.content_id)).toEqual([s.adA, s.adB]);
    const people = await owner.get(`${base}/search?search=AVERY`);
    expect(people.json().prospects).toEqual([
      expect.objectContaining({
        prospect_id: s.avery.prospectId,
        name: 'Avery Stone',
        company_name: 'Acme Alpha',
        target_id: s.avery.targetId,
      }),
    ]);
    const limited = await owner.get(`${base}/search?search=acme&limit=2`);
    expect(limited.json().companies).toHaveLength(2);
    // "%" and "_" are text, not patterns.
    const pct = await owner.get(`${base}/search?search=${encodeURIComponent('0%')}`);
    expect(pct.json().companies.map((c: { name: string }) => c.name)).toEqual(['100% Fresh']);
    const under = await owner.get(`${base}/search?search=${encodeURIComponent('r_s')}`);
    expect(under.json().companies.map((c: { name: string }) => c.name)).toEqual(['Under_score']);
    const none = await owner.get(`${base}/search?search=${encodeURIComponent('%_')}`);
    expect(none.json()).toMatchObject({ prospects: [], companies: [], cadences: [], content: [] });
    // The foreign client's companies share the names' words but never show.
    const foreignRes = await owner.get(`${base}/search?search=foreign`);
    expect(foreignRes.json()).toMatchObject({ prospects: [], companies: [], cadences: [], content: [] });
  });

  it("another client's content is not found (404)", async () => {
    for (const url of [`${base}/content/${foreign.adA}`, `${base}/content/${foreign.adA}/export`]) {
      expect((await owner.get(url)).statusCode, url).toBe(404);
    }
    const ads = (await owner.get(`${base}/content?${RANGE}`)).json().ads;
    expect(ads.map((a: { content_id: string }) => a.content_id)).not.toContain(foreign.adA);
  });

  it('bad input is a 422 naming the field', async () => {
    const cases: [string, string][] = [
      [`${base}/search`, 'querystring.search'],
      [`${base}/search?search=a`, 'querystring.search'],
      [`${base}/search?search=${'x'.repeat(101)}`, 'querystring.search'],
      [`${base}/search?search=acme&limit=50`, 'querystring.limit'],
      // Spaces do not count toward the 2 characters; a limit is a whole number from 1.
      [`${base}/search?search=${encodeURIComponent('  a  ')}`, 'querystring.search'],
      [`${base}/search?search=acme&limit=0`, 'querystring.limit'],
      [`${base}/search?search=acme&limit=two`, 'querystring.limit'],
      [`${base}/content?from=tomorrow`, 'querystring.from'],
      [`${base}/content/export?kind=pdf`, 'querystring.kind'],
      [`${base}/content/not-an-id`, 'params.contentId'],
      [`${base}/content/${s.adA}?to=${epoch(daysAgo(30))}&from=${epoch(daysAgo(10))}`, 'querystring.to'],
      [`${base}/content/${s.adA}/export?from=1`, 'querystring.from'],
    ];
    for (const [url, field] of cases) {
      const res = await owner.get(url);
      expect(res.statusCode, url).toBe(422);
      expect(fieldsOf(res), url).toEqual([field]);
    }
  });

  it('401 signed out; 403 without reports.read', async () => {
    const anon = new Browser(app);
    anon.clientId = s.clientId;
    for (const path of [
      'search?search=acme',
      'content',
      'content/export',
      `content/${s.adA}`,
      `content/${s.adA}/export`,
    ]) {
      expect((await anon.get(`${base}/${path}`)).statusCode, path).toBe(401);
      const res = await viewer.get(`${base}/${path}`);
      expect(res.statusCode, path).toBe(403);
      expect(res.json().message).toMatch(/reports\.read/);
    }
  });
});
