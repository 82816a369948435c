import type { APIRequestContext, Page } from '@playwright/test';
import { uuidToBase58 } from '../../packages/shared/src/utils/base58.ts';
import { expect, test, stretch } from './fixtures.ts';
import { expectSignedIn, registerViaApi, unique } from './support.ts';
import { FLAG, VECTORS, expectStrictScripts, importRows, judge, ok, pack, stranger } from './xss-support.ts';
import type { Seen } from './xss-support.ts';
import { shot } from './shots.ts';

/**
 * Issue 20's stored-XSS corpus, second part (the first is xss.spec.ts): client settings (brand,
 * Facebook page, landing button), billing details, single sign-on and sales reps edited by hand
 * (`POST /sc/sdr/{id}`, not only synced), each through its real API call into a fresh account, then
 * every screen and page that shows them in Chromium: the settings screens, the client switcher,
 * billing, the reps screen, cadences, prospects and the drawer, /lp/preview, the public landing
 * pages and the ads a prospect loads. Text fields take the corpus; URL fields (rendered into href,
 * src and CSS) take http(s) URLs built to break out of an attribute or a CSS url(), and every
 * javascript:, data: or other scheme is refused with a 422 naming the field.
 */

/** URLs no href, src or url() may ever hold; every URL field must refuse each with a 422. */
const URL_ATTACKS = [
  `javascript:${FLAG}`,
  `JaVaScRiPt:${FLAG}`,
  ` javascript:${FLAG}`,
  `\tjavascript:${FLAG}`,
  `java\tscript:${FLAG}`,
  `javascript://evil.example/%0A${FLAG}`,
  `&#106;avascript:${FLAG}`,
  'vbscript:msgbox(1)',
  `data:text/html,<script>${FLAG}</script>`,
  'data:text/html;base64,PHNjcmlwdD53aW5kb3cuX194c3M9MTwvc2NyaXB0Pg==',
  'data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+',
  'file:///etc/passwd',
  'blob:https://evil.example/1',
  '//evil.example/x.js',
  '/\\evil.example/x.js',
  'https:evil.example',
  `"><svg onload=${FLAG}>`,
];

/** A valid http(s) URL whose query tries to close the attribute it is put in and add markup. */
const breakerUrl = (host: string, i: number) =>
  `https://${host}.xss.example/${i}?q="><svg/onload=${FLAG}>&r='><img/src=x/onerror=${FLAG}>`;
/** A valid URL that would add a second url() if put into CSS unquoted: the browser would fetch it. */
const CSS_LEAK_HOST = 'css-leak.example';
const cssBreakerUrl = (i: number) =>
  `https://img.xss.example/${i}.png?")/**/,url("https://${CSS_LEAK_HOST}/${i}`;

type Call = (
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  data?: unknown,
  clientId?: string,
) => ReturnType<APIRequestContext['fetch']>;

/** API calls on the page's session with one CSRF token (it is bound to the session). */
async function caller(request: APIRequestContext): Promise<Call> {
  const csrf = (await request.get('/v1/api/auth/csrf')).headers()['x-xsrf-token'] ?? '';
  return (method, url, data, clientId) =>
    request.fetch(url, {
      method,
      data,
      headers: { 'x-xsrf-token': csrf, ...(clientId ? { 'x-client-id': clientId } : {}) },
    });
}

/**
 * Each of URL_ATTACKS in `field` (a dotted path into the body `bodyOf` builds) is a 422 naming
 * `body.{field}`, and nothing is stored; returns how many were tried.
 */
async function refusesSchemes(
  call: Call,
  method: 'POST' | 'PUT',
  url: string,
  clientId: string,
  field: string,
  bodyOf: (value: string) => unknown,
): Promise<number> {
  const replies = await Promise.all(URL_ATTACKS.map((v) => call(method, url, bodyOf(v), clientId)));
  for (const [i, res] of replies.entries()) {
    const text = await res.text();
    expect(res.status(), `${field} = ${URL_ATTACKS[i]}: ${text}`).toBe(422);
    const fields = ((JSON.parse(text) as { errors?: { field: string }[] }).errors ?? []).map((e) => e.field);
    expect(fields, `${field} = ${URL_ATTACKS[i]}`).toContain(`body.${field}`);
  }
  return replies.length;
}

/** Opens `path` inside the app, as a link does (a full load per screen would cost seconds each). */
async function inApp(page: Page, path: string) {
  await page.evaluate((to) => {
    window.history.pushState(null, '', to);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, path);
  await expect(page).toHaveURL((u) => `${u.pathname}${u.search}` === path);
}

/** Waits until an input (or textarea) on the page holds `value`. */
async function inputHolds(page: Page, value: string) {
  await expect
    .poll(
      () =>
        page.evaluate(
          (v) =>
            Array.from(
              document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea'),
            ).some((i) => i.value === v),
          value,
        ),
      { message: `an input holds ${value}`, timeout: stretch(20_000) },
    )
    .toBe(true);
}

/** A signed-in page on a fresh account, with dialogs recorded and requests off our origin answered empty. */
async function freshAccount(page: Page, baseURL: string, name: string) {
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const origin = new URL(baseURL).origin;
  const offOrigin: string[] = [];
  await page.route(
    (url) => url.origin !== origin,
    (route) => {
      offOrigin.push(route.request().url());
      return route.fulfill({ status: 204, body: '' });
    },
  );
  const email = unique(name);
  await registerViaApi(page.request, email, 'a long enough password', {
    first_name: 'Xss',
    last_name: name,
    company_name: `${name} Co`,
  });
  // Made after signing up: the CSRF token belongs to the session, which registering replaced.
  const call = await caller(page.request);
  const self = (await ok(await call('GET', '/v1/api/user/self'), 200)) as {
    clients: { client_id: string }[];
  };
  return {
    call,
    clientId: self.clients[0]!.client_id,
    dialogs,
    offOrigin,
    origin,
  };
}

/** How many of the vectors the chunks carry between them. */
const covered = (chunks: string[]) => VECTORS.filter((v) => chunks.some((c) => c.includes(v))).length;

const by200 = pack(200);
const by100 = pack(100);
const by50 = pack(50);
const at = <T>(list: T[], i: number) => list[i % list.length]!;

/** Clients under the account's own, named with runs of payloads (the client switcher lists them). */
async function makeClients(call: Call, clientId: string, count: number): Promise<string[]> {
  const clients: string[] = [];
  for (let k = 0; k < count; k++) {
    const created = await ok(await call('POST', '/v1/rest/client', { name: at(by100, k) }, clientId));
    clients.push(created.id as string);
  }
  return clients;
}

/** A 422 naming `field` for `body`. */
async function refusedNaming(call: Call, url: string, clientId: string, body: unknown, field: string) {
  const res = await call('PUT', url, body, clientId);
  const text = await res.text();
  expect(res.status(), text).toBe(422);
  expect((JSON.parse(text) as { errors: { field: string }[] }).errors.map((e) => e.field)).toContain(field);
  return 1;
}

test('client (brand) settings: the corpus in every field runs on no settings screen, switcher, preview or landing page', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const started = Date.now();
  const { call, clientId, dialogs, offOrigin, origin } = await freshAccount(page, baseURL!, 'brand');
  // One client per run of 100 characters, so every short field takes every vector.
  const K = by100.length;
  const clients = await makeClients(call, clientId, K);

  // Each client's brand settings: texts take the corpus, URLs the breakers.
  const settingsOf = (k: number) => ({
    facebook_name: at(by200, k),
    landing_button_name: at(by100, k),
    landing_trigger_field: at(by100, k + 1),
    landing_trigger_type: at(by50, k),
    website_url: breakerUrl('www', k),
    facebook_page_url: breakerUrl('facebook', k),
    facebook_profile_photo: breakerUrl('face', k),
    facebook_cover_photo: cssBreakerUrl(k),
    logo_url: breakerUrl('logo', k),
    favicon_url: breakerUrl('icon', k),
  });
  // A landing page per client with a rep of its own (the assignee) in the client's brand.
  const assigneeOf = (k: number) => ({
    first_name: at(by100, k + 2),
    last_name: at(by100, k + 3),
    title: at(by200, k + 1),
    company_name: at(by200, k + 2),
    website: breakerUrl('site', k),
    calendar_url: breakerUrl('calendar', k),
  });
  const landingPages: string[] = [];
  for (const [k, id] of clients.entries()) {
    const saved = await ok(await call('PUT', `/v1/rest/client/${id}/settings`, settingsOf(k), id), 200);
    for (const [field, value] of Object.entries(settingsOf(k))) expect(saved[field], field).toBe(value);
    const lp = await ok(
      await call(
        'POST',
        `/v1/rest/client/${id}/landing_page`,
        {
          name: `Brand page ${k}`,
          landing_page_payload: { hero_html: '<p>Brand page</p>', content_html: '', footer_html: '' },
          sdr_img_url: breakerUrl('rep', k),
          assignee: assigneeOf(k),
        },
        id,
      ),
    );
    landingPages.push(lp.id as string);
  }

  // Refusals: every URL field refuses other schemes, naming the field; so does a colour.
  const first = clients[0]!;
  let refused = 0;
  for (const field of Object.keys(settingsOf(0)).filter((f) => /_url$|_photo$/.test(f))) {
    refused += await refusesSchemes(call, 'PUT', `/v1/rest/client/${first}/settings`, first, field, (v) => ({
      [field]: v,
    }));
  }
  const lpUrl = `/v1/rest/client/${first}/landing_page`;
  for (const field of ['sdr_img_url', 'logo_url', 'favicon_url'])
    refused += await refusesSchemes(call, 'POST', lpUrl, first, field, (v) => ({ name: 'x', [field]: v }));
  refused += await refusesSchemes(call, 'POST', lpUrl, first, 'landing_page_payload.hero_img', (v) => ({
    name: 'x',
    landing_page_payload: { hero_img: v },
  }));
  for (const field of ['website', 'calendar_url'])
    refused += await refusesSchemes(call, 'POST', lpUrl, first, `assignee.${field}`, (v) => ({
      name: 'x',
      assignee: { [field]: v },
    }));
  refused += await refusedNaming(
    call,
    `/v1/rest/client/${first}/settings`,
    first,
    { colors: { background: VECTORS[0] } },
    'body.colors.background',
  );
  console.info(`xss brand: setup in ${Date.now() - started} ms`);

  // The app: the settings screens of every client, and the client switcher.
  const seen: Seen = { screens: 0, checks: 0 };
  const q = (k: number) => `client_id=${clients[k]}`;
  const load = await page.goto(`/client-settings/website?${q(0)}`);
  expectStrictScripts(load?.headers()['content-security-policy'], 'app');
  await expectSignedIn(page, 'Xss brand');
  for (let k = 0; k < K; k++) {
    const website = `/client-settings/website?${q(k)}`;
    await inApp(page, website);
    await inputHolds(page, settingsOf(k).landing_trigger_field);
    await judge(page, dialogs, website, [settingsOf(k).landing_button_name], seen);
  }
  // The Facebook tab of as many clients as there are runs of 200 characters (the page name's size).
  for (let k = 0; k < by200.length; k++) {
    const facebook = `/client-settings/facebook?${q(k)}`;
    await inApp(page, facebook);
    await inputHolds(page, settingsOf(k).facebook_name);
    await judge(
      page,
      dialogs,
      facebook,
      [settingsOf(k).facebook_name, settingsOf(k).landing_button_name],
      seen,
    );
    // The cover photo is one url(): the browser asks for that picture, never for the host the URL
    // names after its quote (before the fix the preview dropped the picture altogether).
    const cover = page.getByLabel('Facebook post preview').locator('[aria-label="Cover photo"]');
    await expect(cover).toHaveCount(1);
    expect(await cover.evaluate((el) => getComputedStyle(el).backgroundImage)).toMatch(/^url\(/);
    await expect
      .poll(() => offOrigin.some((u) => u.startsWith(`https://img.xss.example/${k}.png?`)))
      .toBe(true);
  }
  await page.getByRole('button', { name: /switch client$/ }).click();
  await expect(page.getByRole('menu')).toBeVisible();
  await judge(page, dialogs, 'client switcher', by100, seen);
  await page.keyboard.press('Escape');
  await shot(page, 'xss-facebook-settings');

  // /lp/preview: the landing page layout in each client's brand (its button label, logo, favicon).
  for (let k = 0; k < K; k++) {
    const path = `/lp/preview?${q(k)}`;
    const res = await page.goto(path);
    expect(res?.status(), path).toBe(200);
    expectStrictScripts(res?.headers()['content-security-policy'], path);
    await judge(page, dialogs, path, [settingsOf(k).landing_button_name], seen);
  }

  // The public landing pages: the page's rep and the client's brand, as anyone sees them.
  const visitor = await stranger(browser, baseURL!);
  const visitorOffOrigin: string[] = [];
  visitor.page.on('request', (r) => {
    if (new URL(r.url()).origin !== origin) visitorOffOrigin.push(r.url());
  });
  try {
    for (const [k, id] of landingPages.entries()) {
      const path = `/lp/${uuidToBase58(id)}`;
      const res = await visitor.page.goto(path);
      expect(res?.status(), path).toBe(200);
      expectStrictScripts(res?.headers()['content-security-policy'], path);
      const a = assigneeOf(k);
      await judge(visitor.page, visitor.dialogs, path, [`${a.first_name} ${a.last_name}`, a.title], seen);
    }
    await shot(visitor.page, 'xss-brand-landing-page');
    await visitor.page.waitForTimeout(300);
    expect(visitor.dialogs).toEqual([]);
  } finally {
    await visitor.context.close();
  }
  await page.waitForTimeout(300);
  expect(dialogs).toEqual([]);
  // Nothing was fetched from a host only a payload names.
  const payloadHosts = [CSS_LEAK_HOST, 'evil.example'];
  expect(
    [...offOrigin, ...visitorOffOrigin].filter((u) => payloadHosts.includes(new URL(u).hostname)),
  ).toEqual([]);

  const each = (f: (k: number) => string) => covered(clients.map((_, k) => f(k)));
  const fields = {
    'client names': covered(by100),
    facebook_name: each((k) => settingsOf(k).facebook_name),
    landing_button_name: each((k) => settingsOf(k).landing_button_name),
    landing_trigger_field: each((k) => settingsOf(k).landing_trigger_field),
    landing_trigger_type: each((k) => settingsOf(k).landing_trigger_type),
    'landing page assignee first_name': each((k) => assigneeOf(k).first_name),
    'landing page assignee last_name': each((k) => assigneeOf(k).last_name),
    'landing page assignee title': each((k) => assigneeOf(k).title),
    'landing page assignee company_name': each((k) => assigneeOf(k).company_name),
  };
  console.info(
    `xss brand: ${VECTORS.length} vectors, ${K} clients, ${seen.screens} screens judged, ${seen.checks} literal-text checks, ${refused} URL and coded values refused (422 naming the field), ${Date.now() - started} ms; vectors per field ${JSON.stringify(fields)}`,
  );
});

test('billing details and single sign-on: the corpus in every field runs on no billing screen; other schemes and codes are refused', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const started = Date.now();
  const { call, clientId, dialogs } = await freshAccount(page, baseURL!, 'billing');
  // One client per run of 200 characters, so every long field takes every vector; the short ones
  // take them between them.
  const B = Math.max(by200.length, Math.ceil(by100.length / 4), Math.ceil(by50.length / 2));
  const clients = await makeClients(call, clientId, B);
  const addressOf = (k: number) => ({
    first_name: at(by100, k),
    last_name: at(by100, k + B),
    city: at(by100, k + 2 * B),
    state: at(by100, k + 3 * B),
    company: at(by200, k),
    line1: at(by200, k + 1),
    line2: at(by200, k + 2),
    zip: '<b>1</b>',
    country: 'US',
  });
  const infoOf = (k: number) => ({
    billing_email: `billing${k}@xss.example`,
    company_name: at(by200, k + 3),
    tax_id: at(by50, k),
    po_number: at(by50, k + B),
    time_zone: 'UTC',
  });
  for (const [k, id] of clients.entries()) {
    const address = await ok(
      await call('PUT', `/biller/client/${id}/chargebee/billing_address`, addressOf(k), id),
      200,
    );
    expect(address.billing_address).toMatchObject(addressOf(k));
    const info = await ok(await call('PUT', `/biller/biller/client/${id}/billing_info`, infoOf(k), id), 200);
    expect(info.billing_info).toMatchObject(infoOf(k));
  }
  const first = clients[0]!;
  let refused = 0;
  refused += await refusedNaming(
    call,
    `/biller/client/${first}/chargebee/billing_address`,
    first,
    { ...addressOf(0), country: VECTORS[0] },
    'body.country',
  );
  refused += await refusedNaming(
    call,
    `/biller/biller/client/${first}/billing_info`,
    first,
    { ...infoOf(0), billing_email: `"><svg/onload=${FLAG}>@xss.example` },
    'body.billing_email',
  );

  // Single sign-on: the issuer (fetched by the server, sent to browsers in a redirect) refuses every
  // other scheme; the client id takes the corpus and is stored as typed (no screen shows it).
  const sso = `/v1/rest/client/${clientId}/sso`;
  const issuer = process.env.E2E_SSO_ISSUER!;
  refused += await refusesSchemes(call, 'PUT', sso, clientId, 'issuer', (v) => ({
    issuer: v,
    client_id: 'rally',
    client_secret: 'secret',
    enabled: false,
  }));
  const by500 = pack(500);
  for (const chunk of by500) {
    await ok(
      await call('PUT', sso, { issuer, client_id: chunk, client_secret: 'secret', enabled: false }, clientId),
      200,
    );
    expect((await ok(await call('GET', sso, undefined, clientId), 200)).client_id).toBe(chunk);
  }
  console.info(`xss billing: setup in ${Date.now() - started} ms`);

  // The billing screen of every client: its forms hold the details as typed.
  const seen: Seen = { screens: 0, checks: 0 };
  const load = await page.goto(`/settings/billing?client_id=${first}`);
  expectStrictScripts(load?.headers()['content-security-policy'], 'app');
  await expectSignedIn(page, 'Xss billing');
  for (const [k, id] of clients.entries()) {
    const billing = `/settings/billing?client_id=${id}`;
    await inApp(page, billing);
    for (const value of [...Object.values(addressOf(k)), ...Object.values(infoOf(k))].filter(
      (v) => v !== 'US' && v !== 'UTC',
    ))
      await inputHolds(page, value);
    await judge(page, dialogs, billing, [], seen);
  }
  await shot(page, 'xss-billing', { fullPage: true });
  await page.waitForTimeout(300);
  expect(dialogs).toEqual([]);

  const each = (f: (k: number) => string) => covered(clients.map((_, k) => f(k)));
  const fields = {
    'address first_name': each((k) => addressOf(k).first_name),
    'address last_name': each((k) => addressOf(k).last_name),
    'address city': each((k) => addressOf(k).city),
    'address state': each((k) => addressOf(k).state),
    'address first_name, last_name, city, state together': covered(
      clients.flatMap((_, k) => [
        addressOf(k).first_name,
        addressOf(k).last_name,
        addressOf(k).city,
        addressOf(k).state,
      ]),
    ),
    'address company': each((k) => addressOf(k).company),
    'address line1': each((k) => addressOf(k).line1),
    'address line2': each((k) => addressOf(k).line2),
    'info company_name': each((k) => infoOf(k).company_name),
    'info tax_id': each((k) => infoOf(k).tax_id),
    'info po_number': each((k) => infoOf(k).po_number),
    'info tax_id, po_number together': covered(
      clients.flatMap((_, k) => [infoOf(k).tax_id, infoOf(k).po_number]),
    ),
    'SSO client_id (API only)': covered(by500),
  };
  console.info(
    `xss billing: ${VECTORS.length} vectors, ${B} clients, ${seen.screens} screens judged, ${refused} URL and coded values refused (422 naming the field), ${Date.now() - started} ms; vectors per field ${JSON.stringify(fields)}`,
  );
});

test('sales reps edited by hand: the corpus in names, titles and companies, breakers in calendar and photo links, runs on no screen, landing page or ad', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const started = Date.now();
  const { call, clientId, dialogs, offOrigin, origin } = await freshAccount(page, baseURL!, 'reps');
  const q = `client_id=${clientId}`;
  const R = by100.length;

  // One cadence whose prospects each have a rep of their own, plain as a platform would give them.
  await importRows(
    page.request,
    clientId,
    Array.from({ length: R }, (_, i) => [
      `prospect${i}.${Date.now()}@xss.example`,
      `Pat${i}`,
      'Prospect',
      'Buyer',
      'Buyer Co',
      'https://buyer.example',
      'XSS reps',
      '1',
      `rep${i}@xss.example`,
      `Rep${i}`,
      'Plain',
      'Seller',
    ]),
  );
  const reps = (await ok(await call('GET', '/sc/sdr', undefined, clientId), 200)) as unknown as {
    id: string;
    email: string;
  }[];
  expect(reps).toHaveLength(R);

  // Each rep edited through the app's call: texts take the corpus; odd reps get plain links, even
  // reps links built to break out of an attribute.
  const editOf = (i: number) => ({
    first_name: by100[i]!,
    last_name: at(by100, i + 1),
    title: at(by200, i),
    company_name: at(by200, i + 1),
    calendar_url: i % 2 ? `https://cal.xss.example/rep${i}?a=1&b=2` : breakerUrl('calendar', i),
    photo_url:
      i % 2 ? `${origin}/xss/rep${i}.png?a=1&b=2` : `${origin}/xss/rep${i}.png?q="><svg/onload=${FLAG}>`,
    selected: true,
  });
  const repIndex = new Map<string, number>();
  for (const rep of reps) {
    const i = Number(/^rep(\d+)@/.exec(rep.email)![1]);
    repIndex.set(rep.id, i);
    const edited = await ok(await call('POST', `/sc/sdr/${rep.id}`, editOf(i), clientId), 200);
    expect(edited).toMatchObject(editOf(i));
  }
  let refused = 0;
  for (const field of ['calendar_url', 'photo_url'])
    refused += await refusesSchemes(call, 'POST', `/sc/sdr/${reps[0]!.id}`, clientId, field, (v) => ({
      [field]: v,
    }));

  // A landing page of the client, and each prospect's token (its page shows the prospect's rep).
  const landing = await ok(
    await call(
      'POST',
      `/v1/rest/client/${clientId}/landing_page`,
      {
        name: 'Reps page',
        landing_page_payload: {
          hero_html: '<h1>Hi <span data-id="prospect_first_name">there</span></h1>',
          content_html:
            '<p><span data-id="first_name">r</span> <span data-id="last_name">r</span>, <span data-id="title">t</span> at <span data-id="company_name">c</span>: <span data-id="calendar_url">c</span></p>',
          footer_html: '',
        },
      },
      clientId,
    ),
  );
  const list = (await ok(await call('GET', '/sc/prospects?page_size=100', undefined, clientId), 200)) as {
    items?: { id: string }[];
    data?: { id: string }[];
  };
  const prospects = list.items ?? list.data ?? [];
  expect(prospects).toHaveLength(R);
  const entries = await Promise.all(
    prospects.map(async (p) => {
      const detail = (await ok(await call('GET', `/sc/prospects/${p.id}`, undefined, clientId), 200)) as {
        first_name: string;
        cadences: { ad_tag_url: string; cadence_id: number; assignee_id: string; assignee_name: string }[];
      };
      const entry = detail.cadences[0]!;
      return {
        firstName: detail.first_name,
        token: entry.ad_tag_url.split('/t/')[1]!.split('/')[0]!,
        adTag: entry.ad_tag_url,
        cadenceId: entry.cadence_id,
        rep: repIndex.get(entry.assignee_id)!,
        repName: entry.assignee_name,
      };
    }),
  );
  for (const e of entries) {
    const edit = editOf(e.rep);
    expect(e.repName).toBe(`${edit.first_name} ${edit.last_name}`);
  }

  // The ads a prospect loads and the editor's live preview draw the rep's texts and photo.
  for (const e of entries.slice(0, 2)) {
    const ad = await page.request.get(e.adTag);
    expect(ad.status(), e.adTag).toBe(200);
    expect(ad.headers()['content-type']).toBe('image/png');
  }
  const edit0 = editOf(0);
  const render = await call(
    'POST',
    '/sc/content/render?size=300x250',
    {
      template_id: 2,
      title: by100[0],
      image_text: by100[1],
      assignee: { ...edit0, website: '', photo_url: undefined, selected: undefined },
      sdr_img_url: edit0.photo_url,
    },
    clientId,
  );
  expect(render.status(), await render.text()).toBe(200);
  expect(render.headers()['content-type']).toBe('image/png');
  console.info(`xss reps: setup in ${Date.now() - started} ms`);

  // The app: every screen that shows reps.
  const seen: Seen = { screens: 0, checks: 0 };
  const load = await page.goto(`/client-settings/sales-reps?${q}`);
  expectStrictScripts(load?.headers()['content-security-policy'], 'app');
  await expectSignedIn(page, 'Xss reps');
  const names = Array.from({ length: R }, (_, i) => `${editOf(i).first_name} ${editOf(i).last_name}`);
  const screens: [string, string[]][] = [
    [`/client-settings/sales-reps?${q}`, [...names, ...by200]],
    [`/cadence?${q}`, []],
    [`/cadence/${entries[0]!.cadenceId}?${q}`, []],
    [`/prospects?${q}`, []],
    [`/feed?${q}`, []],
  ];
  for (const [path, texts] of screens) {
    await inApp(page, path);
    await page.waitForLoadState('networkidle');
    await judge(page, dialogs, path, texts, seen);
  }
  // The edit form of a rep holds the texts as typed.
  await inApp(page, `/client-settings/sales-reps?${q}`);
  await page.getByRole('button', { name: `Edit ${names[0]}`, exact: true }).click();
  await inputHolds(page, editOf(0).title);
  await judge(page, dialogs, 'rep edit form', [], seen);
  await page.keyboard.press('Escape');
  await shot(page, 'xss-sales-reps');
  // The prospect's drawer names the rep of each cadence entry.
  await inApp(page, `/prospects?${q}`);
  await page.getByRole('button', { name: `${entries[0]!.firstName} Prospect`, exact: true }).click();
  await expect(page.getByRole('dialog')).toBeVisible();
  await judge(page, dialogs, 'prospect drawer', [entries[0]!.repName], seen);

  // Each prospect's landing page: their rep's name, title, company, photo and calendar link.
  const visitor = await stranger(browser, baseURL!);
  try {
    for (const e of entries) {
      const path = `/lp/${uuidToBase58(landing.id as string)}?t=${e.token}`;
      const res = await visitor.page.goto(path);
      expect(res?.status(), path).toBe(200);
      expectStrictScripts(res?.headers()['content-security-policy'], path);
      const edit = editOf(e.rep);
      await judge(
        visitor.page,
        visitor.dialogs,
        path,
        [e.firstName, e.repName, edit.title, edit.company_name],
        seen,
      );
      // A plain calendar link is the button's href as given; a breaker is not linked at all.
      const hrefs = await visitor.page
        .locator('a.btn')
        .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      expect(new Set(hrefs), path).toEqual(new Set(e.rep % 2 ? [edit.calendar_url] : []));
    }
    await shot(visitor.page, 'xss-rep-landing-page');
    await visitor.page.waitForTimeout(300);
    expect(visitor.dialogs).toEqual([]);
  } finally {
    await visitor.context.close();
  }
  await page.waitForTimeout(300);
  expect(dialogs).toEqual([]);
  expect(offOrigin.filter((u) => new URL(u).hostname === 'evil.example')).toEqual([]);

  const fields = {
    'rep first name': covered(by100),
    'rep last name': covered(by100),
    'rep title': covered(by200),
    'rep company name': covered(by200),
  };
  console.info(
    `xss reps: ${VECTORS.length} vectors, ${R} reps, ${seen.screens} screens judged, ${seen.checks} literal-text checks, ${refused} URL values refused (422 naming the field), ${Date.now() - started} ms; vectors per field ${JSON.stringify(fields)}`,
  );
});
