import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engagementEvents, landingPages, targets, uncountedEvents } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient } from '../../../test/http.ts';
import {
  BROWSER_UA,
  makeCadence,
  makeContent,
  makeRep,
  makeTarget,
  rawGet,
  setVerifiedDomain,
  showing,
} from '../../../test/engagement.ts';

/**
 * Issue 38, decision 0017's landing-view rule: "a click with no landing-page view from a browser
 * afterwards, where the click leads to a Rally landing page" is a scanner's. A person's browser
 * follows the click's redirect and loads the page (which counts a view); a mail gateway that only
 * fetches the link at delivery does not. Over real HTTP, with the rule's wait shortened to 5 s: at
 * 1.5 s, a followed click's view came after the wait in a CI-like run at load 20 (24 clicks and their
 * redirects at once beside three other files), and the click was judged a scanner's.
 */
const WAIT_MS = 5_000;
let app: FastifyInstance;
let base: string;
let clientId: string;
let toLanding: number;
let toCalendar: number;
let repId: string;

beforeAll(async () => {
  app = await createTestApp({ env: { TRACKING_LANDING_VIEW_MS: String(WAIT_MS) } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  clientId = await makeClient(app, 'Landing views');
  repId = await makeRep(app, clientId, { calendarUrl: 'https://cal.example/maya' });
  await setVerifiedDomain(app, clientId, 'cal.example');
  const [page] = await app.db
    .insert(landingPages)
    .values({
      clientId,
      name: 'Offer',
      landingPagePayload: {
        content_html: '<p>Hi</p>',
        footer_html: '',
        hero_html: '<h1>Offer</h1>',
        hero_img: '',
      },
      colors: { background: '#ffffff', text: '#000000', accent: '#1c7ed6' },
    })
    .returning({ id: landingPages.id });
  toLanding = await makeCadence(app, clientId, {
    days: { 1: showing(await makeContent(app, clientId, { landingPageId: page!.id })) },
  });
  // No landing page on the ad: the click goes to the rep's calendar, where no view can come back.
  toCalendar = await makeCadence(app, clientId, { days: { 1: showing(await makeContent(app, clientId)) } });
});
afterAll(async () => {
  await app.close();
});

const row = async (id: string) => (await app.db.select().from(targets).where(eq(targets.id, id)))[0]!;
const uncounted = async (id: string) =>
  (
    await app.db
      .select({
        type: uncountedEvents.type,
        verdict: uncountedEvents.verdict,
        reason: uncountedEvents.reason,
      })
      .from(uncountedEvents)
      .where(eq(uncountedEvents.targetId, id))
  ).map((u) => `${u.type} ${u.verdict} ${u.reason}`);
const clickReasons = async (id: string) =>
  (
    await app.db
      .select({ reason: engagementEvents.reason })
      .from(engagementEvents)
      .where(and(eq(engagementEvents.targetId, id), eq(engagementEvents.type, 'click')))
  ).map((e) => e.reason);
const click = (token: string) => rawGet(`${base}/t/${token}/c`);
/** The landing page the click redirected to, loaded as a browser (or as `agent`) does. */
const follow = async (res: Response, agent = BROWSER_UA) => {
  expect(res.status).toBe(302);
  const to = res.headers.get('location')!;
  expect(to).toMatch(/^\/lp\//);
  const page = await rawGet(`${base}${to}`, { 'user-agent': agent, 'sec-fetch-mode': 'navigate' });
  expect(page.status).toBe(200);
};

describe('a click to our landing page counts once a browser views the page (issue 38)', () => {
  it('followed to the page: counted as a person’s', async () => {
    const t = await makeTarget(app, clientId, toLanding, { repId });
    await follow(await click(t.token));
    await app.tracking.settled();
    expect(await row(t.id)).toMatchObject({ clicks: 1, views: 1 });
    expect((await row(t.id)).superDate).toBeInstanceOf(Date);
    expect(await clickReasons(t.id)).toEqual(['browser']);
    expect(await uncounted(t.id)).toEqual([]);
  });

  it('not followed (a gateway fetching the link at delivery): stored as a scanner’s, no click, no superprospect', async () => {
    const t = await makeTarget(app, clientId, toLanding, { repId });
    expect((await click(t.token)).status).toBe(302);
    await app.tracking.settled();
    expect(await row(t.id)).toMatchObject({ clicks: 0, views: 0, superDate: null });
    expect(await uncounted(t.id)).toEqual(['click scanner no_landing_view']);
  });

  it('followed by a crawler only (its view is not counted): still a scanner’s', async () => {
    const t = await makeTarget(app, clientId, toLanding, { repId });
    await follow(await click(t.token), 'curl/8.5.0');
    await app.tracking.settled();
    expect(await row(t.id)).toMatchObject({ clicks: 0, views: 0, superDate: null });
    expect(await uncounted(t.id)).toEqual(['click scanner no_landing_view']);
  });

  it('a view from before the click does not vouch for it', async () => {
    const t = await makeTarget(app, clientId, toLanding, { repId });
    await app.tracking.record({ token: t.token, type: 'view', at: new Date(Date.now() - 60_000) });
    await app.tracking.settled();
    expect((await click(t.token)).status).toBe(302);
    await app.tracking.settled();
    expect(await row(t.id)).toMatchObject({ clicks: 0, views: 1 });
    expect(await uncounted(t.id)).toEqual(['click scanner no_landing_view']);
  });

  it('a click that leads elsewhere (the rep’s calendar), where no view can come back, counts without one', async () => {
    const t = await makeTarget(app, clientId, toCalendar, { repId });
    const res = await click(t.token);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://cal.example/maya');
    await app.tracking.settled();
    expect(await row(t.id)).toMatchObject({ clicks: 1 });
    expect(await uncounted(t.id)).toEqual([]);
  });

  it('concurrently: of 24 targets clicked at once, the 12 whose page was viewed count, the 12 others are scanners', async () => {
    const made = await Promise.all(
      Array.from({ length: 24 }, async () => makeTarget(app, clientId, toLanding, { repId })),
    );
    await Promise.all(
      made.map(async (t, i) => {
        const res = await click(t.token);
        if (i % 2 === 0) await follow(res);
        else expect(res.status).toBe(302);
      }),
    );
    await app.tracking.settled();
    for (const [i, t] of made.entries()) {
      const r = await row(t.id);
      if (i % 2 === 0) {
        expect(r, t.id).toMatchObject({ clicks: 1, views: 1 });
        expect(await uncounted(t.id)).toEqual([]);
      } else {
        expect(r, t.id).toMatchObject({ clicks: 0, views: 0, superDate: null });
        expect(await uncounted(t.id)).toEqual(['click scanner no_landing_view']);
      }
    }
  });
});
