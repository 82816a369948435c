import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { cadences, cohorts, landingPages, prospects, targets } from '../../db/schema/index.ts';
import { createTestApp, startSmtpServer, waitFor } from '../../../test/helpers.ts';
import type { ReceivedMail } from '../../../test/helpers.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';
import {
  BROWSER_UA,
  makeCadence,
  makeContent,
  makeRep,
  makeTarget,
  showing,
} from '../../../test/engagement.ts';
import { adUrls } from '../tracking/index.ts';

/**
 * Issue 38: a cadence's "Add ads to your e-mails" step (its status and a test e-mail to the user
 * through the outbox and a real SMTP server on loopback) and the bulk export of a cadence's or
 * cohort's targets with their ad and click URLs.
 */
const PUBLIC_URL = 'https://ads.rally.test';
let app: FastifyInstance;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let acme: string;
let other: string;
let owner: Browser;
let viewer: Browser;
let repId: string;
let landingContent: string;

beforeAll(async () => {
  smtp = await startSmtpServer();
  app = await createTestApp({ env: { SMTP_URL: smtp.url, PUBLIC_URL } });
  acme = await makeClient(app, 'Acme');
  other = await makeClient(app, 'Other Co');
  ({ browser: owner } = await signedIn(app, { [acme]: 'purple_owner' }, { email: 'owner@acme.test' }));
  ({ browser: viewer } = await signedIn(app, { [acme]: 'grey_viewer' }));
  repId = await makeRep(app, acme);
  const [page] = await app.db
    .insert(landingPages)
    .values({
      clientId: acme,
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
  landingContent = await makeContent(app, acme, { landingPageId: page!.id });
}, 120_000);
afterAll(async () => {
  await app.close();
  await smtp.close();
});

const stepUrl = (clientId: string, id: number | string) =>
  `/v1/rest/client/${clientId}/cadence/${id}/email_snippet`;
const testUrl = (clientId: string, id: number | string) => `${stepUrl(clientId, id)}/test`;
const pathOf = (url: string) => url.replace(PUBLIC_URL, '');
const counters = async (id: string) => (await app.db.select().from(targets).where(eq(targets.id, id)))[0]!;

async function cadenceWithTarget(opts: { isSuper?: boolean } = {}) {
  const cadenceId = await makeCadence(app, acme, { days: { 1: showing(landingContent) }, ...opts });
  const target = await makeTarget(app, acme, cadenceId, { repId });
  return { cadenceId, target };
}

/** The newest mail to `to` and the test URLs in it (quoted-printable undone). */
async function testMailTo(
  to: string,
  after: number,
): Promise<{ mail: ReceivedMail; image: string; click: string }> {
  const mail = await waitFor(() => smtp.received.slice(after).find((m) => m.to.includes(to)));
  const body = mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const image = body.match(/https:\/\/ads\.rally\.test\/t\/[\w-]+\/ad\/email\.png\?test=[0-9a-f-]{36}/)?.[0];
  const click = body.match(/https:\/\/ads\.rally\.test\/t\/[\w-]+\/c\?test=[0-9a-f-]{36}/)?.[0];
  if (!image || !click) throw new Error(`no test URLs in ${body}`);
  return { mail, image, click };
}

describe('GET …/cadence/{id}/email_snippet', () => {
  it('shows the step: ads on, prospects, the preview, and Installed from the first e-mail-rendition impression', async () => {
    const { cadenceId, target } = await cadenceWithTarget();
    const first = await owner.get(stepUrl(acme, cadenceId));
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({
      cadence_id: cadenceId,
      ads_on: true,
      targets: 1,
      installed_at: null,
      last_test: null,
    });
    expect(first.json().preview_path).toMatch(/^\/content\/preview\/\w+\/email\.png$/);

    // Another size is not the e-mail: still not installed.
    await app.inject({ url: `/t/${target.token}/ad/300x250.png`, headers: { 'user-agent': BROWSER_UA } });
    await app.tracking.settled();
    expect((await owner.get(stepUrl(acme, cadenceId))).json().installed_at).toBeNull();

    const before = Date.now();
    const { image: imageUrl } = adUrls(PUBLIC_URL, target.token);
    expect(imageUrl).toBe(`${PUBLIC_URL}/t/${target.token}/ad/email.png`);
    const ad = await app.inject({ url: pathOf(imageUrl), headers: { 'user-agent': BROWSER_UA } });
    expect(ad.statusCode).toBe(200);
    await app.tracking.settled();
    const installed = (await owner.get(stepUrl(acme, cadenceId))).json().installed_at as string;
    expect(Date.parse(installed)).toBeGreaterThanOrEqual(before - 1000);
    // Every member sees it.
    expect((await viewer.get(stepUrl(acme, cadenceId))).json().installed_at).toBe(installed);
  });

  it('422 naming params.id; 404 for another client’s cadence; 403 when the path names another client; 401 signed out', async () => {
    const bad = await owner.get(stepUrl(acme, 'abc'));
    expect(bad.statusCode).toBe(422);
    expect(bad.json().message).toContain('params.id');
    const theirs = await makeCadence(app, other);
    expect((await owner.get(stepUrl(acme, theirs))).statusCode).toBe(404);
    expect((await owner.get(stepUrl(other, theirs))).statusCode).toBe(403);
    expect((await new Browser(app).get(stepUrl(acme, theirs), { clientId: acme })).statusCode).toBe(401);
  });
});

describe('POST …/cadence/{id}/email_snippet/test', () => {
  it('mails the user the snippet with a prospect’s ad; its tags serve the ad, mark the test, and count nothing', async () => {
    const { cadenceId, target } = await cadenceWithTarget();
    const after = smtp.received.length;
    const res = await owner.post(testUrl(acme, cadenceId), { alt: 'A note from Acme', label: 'Your page' });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({
      sent_to: 'owner@acme.test',
      prospect_name: 'Kendall Ellery',
      opened_at: null,
    });

    const { mail, image, click } = await testMailTo('owner@acme.test', after);
    expect(mail.raw).toContain('Subject: Test of your e-mail ad: Q3 Outbound - Operations Leaders');
    expect(image.startsWith(adUrls(PUBLIC_URL, target.token).image)).toBe(true);
    const body = mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    expect(body).toContain('alt="A note from Acme"');
    expect(body).toContain(`Your page: ${click}`);

    const png = await app.inject({ url: pathOf(image), headers: { 'user-agent': BROWSER_UA } });
    expect(png.statusCode).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect([png.rawPayload.readUInt32BE(16), png.rawPayload.readUInt32BE(20)]).toEqual([1200, 600]);
    const go = await app.inject({ url: pathOf(click), headers: { 'user-agent': BROWSER_UA } });
    expect(go.statusCode).toBe(302);
    const landing = String(go.headers.location);
    expect(landing).toMatch(new RegExp(`^/lp/\\w+\\?t=${target.token}&test=[0-9a-f-]{36}$`));
    const page = await app.inject({ url: landing, headers: { 'user-agent': BROWSER_UA } });
    expect(page.statusCode).toBe(200);
    await app.tracking.settled();
    expect(await counters(target.id)).toMatchObject({ impressions: 0, clicks: 0, views: 0 });

    const step = (await owner.get(stepUrl(acme, cadenceId))).json();
    expect(step.installed_at).toBeNull();
    expect(step.last_test).toMatchObject({ sent_to: 'owner@acme.test', prospect_name: 'Kendall Ellery' });
    expect(step.last_test.opened_at).not.toBeNull();
    expect(step.last_test.clicked_at).not.toBeNull();

    // Without the test's id the same tags count as before (the fix is the id, not the target).
    await app.inject({ url: pathOf(image.replace(/\?test=.*/, '')), headers: { 'user-agent': BROWSER_UA } });
    await app.tracking.settled();
    expect((await counters(target.id)).impressions).toBe(1);
  });

  it('a test id of another target, or no test id at all, is counted as the tag it is', async () => {
    const a = await cadenceWithTarget();
    const b = await cadenceWithTarget();
    const after = smtp.received.length;
    expect((await owner.post(testUrl(acme, a.cadenceId), {})).statusCode).toBe(202);
    const { image } = await testMailTo('owner@acme.test', after);
    const testId = image.split('?test=')[1];
    await app.inject({
      url: `/t/${b.target.token}/ad/email.png?test=${testId}`,
      headers: { 'user-agent': BROWSER_UA },
    });
    await app.inject({
      url: `/t/${b.target.token}/c?test=not-a-test`,
      headers: { 'user-agent': BROWSER_UA },
    });
    await app.tracking.settled();
    expect(await counters(b.target.id)).toMatchObject({ impressions: 1, clicks: 1 });
    expect((await owner.get(stepUrl(acme, a.cadenceId))).json().last_test.opened_at).toBeNull();
  });

  it('422 naming the field; 409 without ads or prospects; 403 without cadence.write or CSRF; 404 for another client', async () => {
    const { cadenceId } = await cadenceWithTarget();
    const long = await owner.post(testUrl(acme, cadenceId), { alt: 'x'.repeat(201) });
    expect(long.statusCode).toBe(422);
    expect(long.json().message).toContain('body.alt');
    const extra = await owner.post(testUrl(acme, cadenceId), { to: 'someone@else.test' });
    expect(extra.statusCode).toBe(422);
    expect(JSON.stringify(extra.json())).toContain('to');
    expect((await owner.post(testUrl(acme, 'x'), {})).json().message).toContain('params.id');

    const off = await cadenceWithTarget({ isSuper: false });
    const offRes = await owner.post(testUrl(acme, off.cadenceId), {});
    expect(offRes.statusCode).toBe(409);
    expect(offRes.json().message).toContain('Ads are off');
    const empty = await makeCadence(app, acme);
    const emptyRes = await owner.post(testUrl(acme, empty), {});
    expect(emptyRes.statusCode).toBe(409);
    expect(emptyRes.json().message).toContain('no prospects');

    const denied = await viewer.post(testUrl(acme, cadenceId), {});
    expect(denied.statusCode).toBe(403);
    expect(denied.json().message).toContain('cadence.write');
    expect((await owner.post(testUrl(acme, cadenceId), {}, { csrf: false })).statusCode).toBe(403);
    const theirs = await makeCadence(app, other);
    expect((await owner.post(testUrl(acme, theirs), {})).statusCode).toBe(404);
  });

  it(`at most 5 an hour per user, exactly, however many are sent at once; 429 with Retry-After`, async () => {
    const { cadenceId } = await cadenceWithTarget();
    const { browser } = await signedIn(app, { [acme]: 'blue_admin' });
    const all = await Promise.all(
      Array.from({ length: 9 }, () => browser.post(testUrl(acme, cadenceId), {})),
    );
    const codes = all.map((r) => r.statusCode).sort();
    expect(codes).toEqual([202, 202, 202, 202, 202, 429, 429, 429, 429]);
    const refused = all.find((r) => r.statusCode === 429)!;
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
    expect(refused.json().message).toMatch(/5 test e-mails in the last hour/);
    // Another user is not held by it.
    expect((await owner.post(testUrl(acme, cadenceId), {})).statusCode).toBe(202);
  });
});

describe('the bulk export of targets with their ad and click URLs', () => {
  it('a cadence: every target with its URLs, formula-safe, streamed as CSV', async () => {
    const cadenceId = await makeCadence(app, acme, { name: 'Q4 / Ops: leaders' });
    const a = await makeTarget(app, acme, cadenceId, { repId });
    const b = await makeTarget(app, acme, cadenceId);
    await app.db
      .update(prospects)
      .set({ firstName: '=HYPERLINK("https://evil.test")', lastName: 'Aaron' })
      .where(eq(prospects.id, b.prospectId));
    const res = await owner.get(`/v1/rest/client/${acme}/cadence/${cadenceId}/targets/export`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(
      'attachment; filename="cadence-q4-ops-leaders-ad-urls.csv"',
    );
    const lines = res.body.trim().split('\r\n');
    expect(lines[0]).toBe(
      'first_name,last_name,email,title,company,sales_rep,day_number,active,ad_image_url,click_url',
    );
    expect(lines).toHaveLength(3);
    // Sorted by last name: Aaron first, with its formula neutralised.
    expect(lines[1]).toContain(`"'=HYPERLINK(""https://evil.test"")",Aaron`);
    const urls = adUrls(PUBLIC_URL, a.token);
    expect(lines[2]).toContain(`Maya Lindgren,1,yes,${urls.image},${urls.click}`);
  });

  it('a cohort: its members, the same columns', async () => {
    const cadenceId = await makeCadence(app, acme, { name: 'Cohort cadence' });
    await app.db.update(cadences).set({ kind: 'cohort' }).where(eq(cadences.id, cadenceId));
    const [cohort] = await app.db
      .insert(cohorts)
      .values({ clientId: acme, name: 'Enterprise accounts', sourceKind: 'filter', cadenceId })
      .returning({ id: cohorts.id });
    const t = await makeTarget(app, acme, cadenceId);
    const res = await owner.get(`/v1/rest/client/${acme}/cohort/${cohort!.id}/targets/export`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-disposition']).toContain('cohort-enterprise-accounts-ad-urls.csv');
    expect(res.body).toContain(adUrls(PUBLIC_URL, t.token).click);
  });

  it('422 naming params.id; 403 without reports.read; 404 for another client’s cadence or cohort', async () => {
    const cadenceId = await makeCadence(app, acme);
    const bad = await owner.get(`/v1/rest/client/${acme}/cohort/nope/targets/export`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().message).toContain('params.id');
    const denied = await viewer.get(`/v1/rest/client/${acme}/cadence/${cadenceId}/targets/export`);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().message).toContain('reports.read');
    const theirs = await makeCadence(app, other);
    expect((await owner.get(`/v1/rest/client/${acme}/cadence/${theirs}/targets/export`)).statusCode).toBe(
      404,
    );
    const [theirCohort] = await app.db
      .insert(cohorts)
      .values({ clientId: other, name: 'Theirs', sourceKind: 'filter', cadenceId: theirs })
      .returning({ id: cohorts.id });
    expect(
      (await owner.get(`/v1/rest/client/${acme}/cohort/${theirCohort!.id}/targets/export`)).statusCode,
    ).toBe(404);
  });
});
