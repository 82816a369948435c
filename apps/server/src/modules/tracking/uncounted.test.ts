import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uncountedLines } from '@rally/shared/schemas/tracking';
import type { UncountedSummary } from '@rally/shared/schemas/tracking';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';
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
 * What was not counted, visible (issue 38): the prospect drawer (GET /sc/prospects/{id}), the feed's
 * last 7 days (GET /sc/dashboard/engagement/last) and the engagement report
 * (GET /sc/performance/by_date), from events sent over real HTTP and judged by the classifier.
 */
describe('uncounted events in the drawer, the feed and the engagement report', () => {
  let app: FastifyInstance;
  let base: string;
  let clientId: string;
  let otherClientId: string;
  let owner: Browser;
  let viewer: Browser;
  let outsider: Browser;
  let target: { id: string; token: string; prospectId: string };
  let quiet: { id: string; token: string; prospectId: string };
  let foreign: { id: string; token: string; prospectId: string };
  const RANGE = `from=${Math.floor(Date.now() / 1000) - 86_400}&to=${Math.floor(Date.now() / 1000) + 3600}`;

  const setUp = async (name: string) => {
    const id = await makeClient(app, name);
    const repId = await makeRep(app, id, { calendarUrl: 'https://cal.example/maya' });
    await setVerifiedDomain(app, id, 'cal.example');
    const contentId = await makeContent(app, id);
    const cadenceId = await makeCadence(app, id, { days: { 1: showing(contentId) } });
    return { id, repId, cadenceId };
  };
  const img = (token: string, ua: string) =>
    rawGet(`${base}/t/${token}/ad/300x250.png`, { 'user-agent': ua });
  const click = (token: string, headers: Record<string, string>) => rawGet(`${base}/t/${token}/c`, headers);
  /** Two scanner clicks (no navigation), one gateway open, one bot open and one person's open. */
  const engage = async (token: string) => {
    const asImage = { 'user-agent': BROWSER_UA, 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' };
    expect((await click(token, asImage)).status).toBeLessThan(400);
    expect((await click(token, asImage)).status).toBeLessThan(400);
    expect((await img(token, 'Barracuda Sentinel (EE)')).status).toBe(200);
    expect((await img(token, 'Mozilla/5.0')).status).toBe(200);
    expect((await img(token, BROWSER_UA)).status).toBe(200);
  };
  const WANT: UncountedSummary = [
    { type: 'click', verdict: 'scanner', count: 2 },
    { type: 'impression', verdict: 'scanner', count: 1 },
    { type: 'impression', verdict: 'bot', count: 1 },
  ];

  beforeAll(async () => {
    app = await createTestApp();
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const mine = await setUp('Uncounted');
    const theirs = await setUp('Uncounted, foreign');
    clientId = mine.id;
    otherClientId = theirs.id;
    target = await makeTarget(app, clientId, mine.cadenceId, { repId: mine.repId });
    quiet = await makeTarget(app, clientId, mine.cadenceId, { repId: mine.repId });
    foreign = await makeTarget(app, otherClientId, theirs.cadenceId, { repId: theirs.repId });
    await engage(target.token);
    // The foreign client's events are twice as many: a leak would show in every number below.
    await engage(foreign.token);
    await engage(foreign.token);
    await app.tracking.settled();
    owner = (await signedIn(app, { [clientId]: 'purple_owner' })).browser;
    viewer = (await signedIn(app, { [clientId]: 'grey_viewer' })).browser;
    outsider = (await signedIn(app, { [otherClientId]: 'purple_owner' })).browser;
    outsider.clientId = clientId;
  });
  afterAll(async () => {
    await app.close();
  });

  it('the drawer: each cadence entry says what was not counted, and why; the counts stay people only', async () => {
    const res = await owner.get(`/sc/prospects/${target.prospectId}`);
    expect(res.statusCode).toBe(200);
    const [entry] = res.json().cadences;
    expect(entry).toMatchObject({ target_id: target.id, impressions: 1, engagements: 0, uncounted: WANT });
    expect(uncountedLines(entry.uncounted)).toEqual([
      '2 clicks by a mail security scanner not counted',
      '1 open by a mail security scanner not counted',
      '1 open by bots not counted',
    ]);
    const none = await owner.get(`/sc/prospects/${quiet.prospectId}`);
    expect(none.json().cadences[0].uncounted).toEqual([]);
    // The list leaves it out (one query per page more for a field the list does not show).
    const list = await owner.get('/sc/prospects?page_size=5');
    expect(list.statusCode).toBe(200);
    expect(list.json().items[0].cadences[0]).not.toHaveProperty('uncounted');
  });

  it('the feed: the last 7 days of the client', async () => {
    const res = await viewer.get('/sc/dashboard/engagement/last');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ impressions: 1, clicks: 0, uncounted: WANT });
  });

  it('the engagement report: the range of the client; an empty range has none', async () => {
    const res = await owner.get(`/sc/performance/by_date?${RANGE}&view=daily`);
    expect(res.statusCode).toBe(200);
    expect(res.json().uncounted).toEqual(WANT);
    const past = await owner.get('/sc/performance/by_date?from=1000000000&to=1000086400');
    expect(past.json().uncounted).toEqual([]);
  });

  it('bad input names the field', async () => {
    const drawer = await owner.get('/sc/prospects/not-a-uuid');
    expect(drawer.statusCode).toBe(422);
    expect(JSON.stringify(drawer.json())).toContain('params.id');
    const report = await owner.get(`/sc/performance/by_date?${RANGE}&view=hourly`);
    expect(report.statusCode).toBe(422);
    expect(JSON.stringify(report.json())).toContain('querystring.view');
  });

  it('missing permission: 401 signed out, 403 without reports.read, 403 for a non-member', async () => {
    const anon = new Browser(app);
    anon.clientId = clientId;
    expect((await anon.get(`/sc/prospects/${target.prospectId}`)).statusCode).toBe(401);
    expect((await viewer.get(`/sc/performance/by_date?${RANGE}`)).statusCode).toBe(403);
    for (const url of [
      `/sc/prospects/${target.prospectId}`,
      '/sc/dashboard/engagement/last',
      `/sc/performance/by_date?${RANGE}`,
    ]) {
      expect((await outsider.get(url)).statusCode, url).toBe(403);
    }
  });

  it('foreign tenant: another client’s prospect is not found; its events never show here', async () => {
    expect((await owner.get(`/sc/prospects/${foreign.prospectId}`)).statusCode).toBe(404);
    const theirs = await outsider.get('/sc/dashboard/engagement/last', { clientId: otherClientId });
    expect(theirs.json().uncounted).toEqual(WANT.map((w) => ({ ...w, count: w.count * 2 })));
    const report = await outsider.get(`/sc/performance/by_date?${RANGE}`, { clientId: otherClientId });
    expect(report.json().uncounted).toEqual(WANT.map((w) => ({ ...w, count: w.count * 2 })));
  });
});
