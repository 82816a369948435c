import { uuidToBase58 } from '../../packages/shared/src/utils/base58.ts';
import { expect, test, stretch } from './fixtures.ts';
import { api, expectSignedIn, registerViaApi, unique } from './support.ts';
import {
  FLAG,
  VECTORS,
  expectStrictScripts,
  importRows,
  injected,
  judge,
  ok,
  pack,
  stranger,
} from './xss-support.ts';
import type { Seen } from './xss-support.ts';
import { shot } from './shots.ts';

/**
 * Issue 20, "a stored-XSS corpus through every field that is rendered to someone else": the corpus
 * (apps/server/test/xss-corpus.ts, its alert(1) turned into a flag so a silent run is caught too,
 * plus attribute- and URL-context breakers) goes in through the real API — account and client
 * names, a file import's prospects, titles, companies, cadences and sales reps, content, a landing
 * page, a cohort, its journey and campaign, webhook endpoints — into a fresh account of its own (no
 * other suite sees it). Then every screen that shows them is opened in Chromium with one signed-in
 * page, and the public pages a prospect sees with a fresh browser: no dialog, no flag, no element
 * or attribute of a payload in the DOM, and the payload shown as literal text where it belongs.
 */

test('a stored-XSS corpus in every rendered field runs nowhere: app screens and public pages in Chromium', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const started = Date.now();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  // No picture leaves the machine (payloads point at x, evil.example and the like).
  const origin = new URL(baseURL!).origin;
  await page.route(
    (url) => url.origin !== origin,
    (route) => route.fulfill({ status: 204, body: '' }),
  );

  const by200 = pack(200);
  // Title and image text: room for the fallback the tag vector gets (withFallbacks, 17 characters).
  const by180 = pack(180);
  const by100 = pack(100);
  const by60 = pack(60);

  // The account: its user's and client's names carry payloads (shown in the header and on /clients).
  const email = unique('xss');
  const password = 'a long enough password';
  await registerViaApi(page.request, email, password, {
    first_name: by100[0],
    last_name: by100[1],
    company_name: by100[2],
  });
  const self = (await ok(await api(page.request, 'GET', '/v1/api/user/self'), 200)) as {
    clients: { client_id: string }[];
  };
  const clientId = self.clients[0]!.client_id;
  const q = `client_id=${clientId}`;
  const call = (method: 'POST' | 'PUT' | 'PATCH' | 'GET', url: string, data?: unknown) =>
    api(page.request, method, url, data, clientId);
  // Clients under the account's own, named with the rest of the payloads.
  for (const name of by100.slice(3)) await ok(await call('POST', '/v1/rest/client', { name }));

  // A file import: each run of payloads is a prospect's names, title and company, a cadence's name
  // and a sales rep's names and title.
  const rows = Math.max(by200.length, by100.length);
  await importRows(
    page.request,
    clientId,
    Array.from({ length: rows }, (_, i) => {
      const chunk = by200[i % by200.length]!;
      const short = by100[i % by100.length]!;
      return [
        `p${i}.${Date.now()}@xss.example`,
        short,
        by100[(i + 1) % by100.length]!,
        chunk,
        chunk,
        'https://xss.example',
        chunk,
        '1',
        `rep${i}@xss.example`,
        short,
        by100[(i + 2) % by100.length]!,
        chunk,
      ];
    }),
  );

  // Content, a landing page (rich text with the prospect's tags), a cohort with journey and campaign.
  const landing = await ok(
    await call('POST', `/v1/rest/client/${clientId}/landing_page`, {
      name: by200[0],
      landing_page_payload: {
        hero_html: `<h1>Hello <span data-id="prospect_first_name">there</span> <span data-id="prospect_title">x</span></h1>${VECTORS.join('\n')}`,
        content_html: `<p><span data-id="prospect_company_name">co</span> <span data-id="first_name">rep</span> <span data-id="title">t</span></p>${VECTORS.join('\n')}`,
        footer_html: VECTORS.join('\n'),
        hero_img: `https://cdn.example/h.png?"><script>${FLAG}</script>`,
        landing_button_name: by100[3],
      },
    }),
  );
  const landingId = landing.id as string;
  for (const name of by200.slice(1))
    await ok(
      await call('POST', `/v1/rest/client/${clientId}/landing_page`, {
        name,
        landing_page_payload: { hero_html: '<p>x</p>', content_html: '', footer_html: '' },
      }),
    );
  const contents: string[] = [];
  for (const [i, chunk] of by200.entries()) {
    const item = await ok(
      await call('POST', '/v1/rest/content', {
        name: chunk,
        title: withFallbacks(by180[(i + 1) % by180.length]!),
        image_text: withFallbacks(by180[i % by180.length]!),
        template_id: (i % 4) + 1,
        landing_page_id: landingId,
      }),
    );
    contents.push(item.id as string);
  }
  const by120 = pack(120);
  const cohortIds: string[] = [];
  for (const name of by120.filter((_, i) => i !== 1)) {
    const cohort = await ok(
      await call('POST', '/v1/rest/cohort', { name, source_kind: 'filter', filters: {} }),
    );
    cohortIds.push(cohort.id as string);
  }
  const cohortId = cohortIds[0]!;
  await ok(
    await call('POST', `/v1/rest/client/${clientId}/journey`, {
      cohort_id: cohortId,
      name: by120[1],
      stages: by60.slice(0, 10).map((name, i) => ({ name, content_ids: i === 0 ? [contents[0]] : [] })),
    }),
  );
  const today = new Date().toISOString().slice(0, 10);
  const later = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
  const campaignIds: string[] = [];
  for (const name of by120) {
    const campaign = await ok(
      await call('POST', '/v1/rest/campaign', {
        cohort_id: cohortId,
        name,
        starts_on: today,
        ends_on: later,
        content_id: contents[0],
      }),
    );
    campaignIds.push(campaign.id as string);
  }
  for (const chunk of by200) {
    await ok(
      await call('POST', `/v1/hookly/client/${clientId}/settings`, {
        url: 'https://hooks.xss.example/in',
        events: ['click'],
        description: chunk,
        enabled: false,
      }),
    );
  }

  // A prospect of the import, with the token of its cadence entry.
  const list = (await ok(await call('GET', '/sc/prospects?page_size=100'), 200)) as {
    items?: { id: string }[];
    data?: { id: string }[];
  };
  const prospects = list.items ?? list.data ?? [];
  expect(prospects.length).toBe(rows);
  const prospect = (await ok(await call('GET', `/sc/prospects/${prospects[0]!.id}`), 200)) as {
    first_name: string;
    cadences: { ad_tag_url: string; cadence_id: number; cadence_name: string }[];
  };
  const adTag = prospect.cadences[0]!.ad_tag_url;
  const token = adTag.split('/t/')[1]!.split('/')[0]!;
  const cadenceId = prospect.cadences[0]!.cadence_id;
  console.info(`xss: setup in ${Date.now() - started} ms`);

  // The app, signed in: every screen that shows the payloads.
  const seen: Seen = { screens: 0, checks: 0 };
  const first = await page.goto(`/feed?${q}`);
  expectStrictScripts(first?.headers()['content-security-policy'], 'app');
  await expectSignedIn(page, by100[0]!.slice(0, 20));
  // The judge's own test: it finds the payloads that are markup, parsed on a blank page of their own
  // (not in the app, whose CSP would report each handler as it is parsed).
  const blank = await browser.newPage();
  const caught = [];
  for (const v of VECTORS) if ((await injected(blank, v)).length) caught.push(v);
  await blank.close();
  expect(caught.length).toBeGreaterThanOrEqual(39);
  // A field holding `name` as its value (the editors show names in inputs, not as text).
  const inputHolds = (name: string) => async () =>
    expect
      .poll(
        () =>
          page.evaluate(
            (n) => Array.from(document.querySelectorAll('input')).some((i) => i.value === n),
            name,
          ),
        { message: `an input holds ${name}`, timeout: stretch(30_000) },
      )
      .toBe(true);
  const screens: [string, string[], (() => Promise<void>)?][] = [
    [`/feed?${q}`, [by100[0]!]],
    [`/clients?${q}`, by100.slice(2, 6)],
    [`/prospects?${q}`, by200.slice(0, 3)],
    [`/cadence?${q}`, by200],
    [`/cadence/${cadenceId}?${q}`, [prospect.cadences[0]!.cadence_name]],
    [`/client-settings/sales-reps?${q}`, by200.slice(0, 3)],
    [`/content?${q}`, by200.slice(0, 3)],
    [`/landing-pages?${q}`, by200.slice(0, 3)],
    // The editor loads the stored (sanitised) HTML into its rich-text fields.
    [`/landing-pages/${landingId}?${q}`, ['Hello'], inputHolds(by200[0]!)],
    // The list shows the newest first, a page at a time.
    [`/cohorts?${q}`, by120.slice(-3)],
    [`/cohorts/${cohortId}?${q}`, [by120[0]!]],
    [`/cohorts/${cohortId}/journey?${q}`, [], inputHolds(by60[1]!)],
    [`/cohorts/${cohortId}/journey/view?${q}`, [by60[0]!]],
    [`/campaigns/${campaignIds[2]!}?${q}`, [by120[2]!]],
    [`/settings/integrations/webhooks?${q}`, by200.slice(0, 3)],
    [`/settings/users?${q}`, [by100[0]!]],
  ];
  for (const [path, texts, ready] of screens) {
    // In-app navigation (as a link does): a full load of the app per screen would cost seconds each.
    await page.evaluate((to) => {
      window.history.pushState(null, '', to);
      window.dispatchEvent(new PopStateEvent('popstate'));
    }, path);
    await expect(page).toHaveURL((u) => `${u.pathname}${u.search}` === path);
    await ready?.();
    await judge(page, dialogs, path, texts, seen);
  }
  // The prospect's drawer: names, title, company, rep and cadence of the entry.
  await page.evaluate((to) => {
    window.history.pushState(null, '', to);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, `/prospects?${q}`);
  await page.getByRole('button', { name: prospect.first_name }).first().click();
  const drawer = page.getByRole('dialog');
  await expect(drawer).toBeVisible();
  await judge(page, dialogs, 'prospect drawer', [prospect.first_name], seen);
  await shot(page, 'xss-prospect-drawer');

  // The content preview (signed in) and the ad image a prospect loads.
  const preview = await page.goto(`/content/preview/${uuidToBase58(contents[0]!)}/300x250`);
  expectStrictScripts(preview?.headers()['content-security-policy'], 'content preview');
  await judge(page, dialogs, 'content preview', [by200[0]!], seen);

  // The public pages, as the prospect and as anyone.
  const visitor = await stranger(browser, baseURL!);
  try {
    const ad = await visitor.page.request.get(adTag);
    expect(ad.status()).toBe(200);
    expect(ad.headers()['content-type']).toBe('image/png');
    for (const path of [`/lp/${uuidToBase58(landingId)}?t=${token}`, `/lp/${uuidToBase58(landingId)}`]) {
      const res = await visitor.page.goto(path);
      expect(res?.status(), path).toBe(200);
      expectStrictScripts(res?.headers()['content-security-policy'], path);
      await visitor.page.waitForLoadState('load');
      // The personalised page shows the prospect's and the rep's payload-laden names as text.
      await judge(
        visitor.page,
        visitor.dialogs,
        path,
        path.includes('?t=') ? [prospect.first_name] : [],
        seen,
      );
      if (path.includes('?t=')) await shot(visitor.page, 'xss-landing-page');
      await visitor.page.waitForTimeout(300);
      expect(visitor.dialogs).toEqual([]);
    }
  } finally {
    await visitor.context.close();
  }
  await page.waitForTimeout(300);
  expect(dialogs).toEqual([]);
  const covered = (chunks: string[]) => VECTORS.filter((v) => chunks.some((c) => c.includes(v))).length;
  const fields = {
    'user first/last name': covered(by100.slice(0, 2)),
    'client names': covered(by100.slice(2)),
    'prospect first/last name, rep first name': covered(by100),
    'prospect title and company, cadence name, rep title, content name/title/text, webhook description':
      covered(by200),
    'landing page HTML fields (3)': VECTORS.length,
    'landing page names': covered(by200),
    'cohort names': covered(by120.filter((_, i) => i !== 1)),
    'journey name': covered(by120.slice(1, 2)),
    'campaign names': covered(by120),
    'journey stage names': covered(by60.slice(0, 10)),
  };
  console.info(
    `xss: ${VECTORS.length} vectors, ${seen.screens} screens judged, ${seen.checks} literal-text checks, ${Date.now() - started} ms; vectors per field ${JSON.stringify(fields)}`,
  );
});

/**
 * An ad's title and image text refuse a personalisation tag without a fallback (issue 42 item 1):
 * the corpus's tag vector gets one, keeping its event-handler attribute.
 */
function withFallbacks(text: string): string {
  return text.replace(
    /<span data-id="([^"]*)"(?![^>]*data-fallback)/g,
    '<span data-id="$1" data-fallback="x"',
  );
}
