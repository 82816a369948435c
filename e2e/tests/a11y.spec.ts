import { createHash } from 'node:crypto';
import AxeBuilder from '@axe-core/playwright';
import type { Page, Request, Route } from '@playwright/test';
import { APP_ROUTES, matchAppRoute } from '../../packages/shared/src/routes.ts';
import { uuidToBase58 } from '../../packages/shared/src/utils/base58.ts';
import { expect, test } from './fixtures.ts';
import { CLIENTS, api, registerViaApi, signInAs, unique } from './support.ts';

/**
 * Issue 21: every screen passes axe's WCAG 2.0/2.1 A and AA rules, on the desktop and at 375 px,
 * signed in as the demo owner with the demo data, and the public pages logged out.
 */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** Northwind's seeded landing page and one of its ads (apps/server/src/modules/content/demo.ts). */
const DEMO_PAGE = `/lp/${uuidToBase58('6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100101')}`;
/** Acme's seeded landing page: white text on #111827, buttons on its orange primary #f97316. */
const ACME_PAGE = `/lp/${uuidToBase58('6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100201')}`;
const DEMO_AD_PREVIEW = `/content/preview/${uuidToBase58('6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100102')}/300x250`;

/** A demo cohort's fixed id (apps/server/src/modules/cohorts/demo.ts demoCohortId). */
const demoCohortId = (clientId: string, n: 0 | 1) => {
  const h = createHash('sha256').update(`rally-demo-cohort:${clientId}:${n}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** The demo campaign's fixed id (apps/server/src/modules/campaigns/demo.ts demoCampaignId). */
const demoCampaignId = (clientId: string) => {
  const h = createHash('sha256').update(`rally-demo-campaign:${clientId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

const LOGGED_OUT = [
  '/login',
  '/register',
  '/signup',
  '/reset-password',
  '/change-password',
  // A sign-in callback without its code: the page that says the sign-in did not finish.
  '/auth/callback',
  '/legal/cookies',
  '/legal/terms',
  '/legal/privacy',
  '/no-such-page',
  DEMO_PAGE,
  ACME_PAGE,
  // An embedded report link without its token: the "Invalid link" page (e2e/tests/embedded-reports.spec.ts
  // checks a working link's report).
  '/embed/reports',
];
const SIGNED_IN = [
  // '/', '/settings' and '/client-settings' open their first child screen.
  '/',
  '/settings',
  '/client-settings',
  '/feed',
  `/feed?client_id=${CLIENTS.acme}`,
  `/prospects?client_id=${CLIENTS.acme}`,
  `/cadence?client_id=${CLIENTS.acme}`,
  `/cadence/{cadence}?client_id=${CLIENTS.acme}`,
  `/revenue?client_id=${CLIENTS.acme}`,
  `/reports?client_id=${CLIENTS.acme}`,
  `/reports?client_id=${CLIENTS.acme}&tab=content`,
  `/reports?client_id=${CLIENTS.acme}&tab=signals`,
  `/reports?client_id=${CLIENTS.acme}&tab=priority`,
  `/cohorts?client_id=${CLIENTS.acme}`,
  `/cohorts/new?client_id=${CLIENTS.acme}`,
  `/cohorts/${demoCohortId(CLIENTS.acme, 0)}?client_id=${CLIENTS.acme}`,
  // Journeys (issue 18): the demo journey's builder and view (on the first demo cohort).
  `/cohorts/${demoCohortId(CLIENTS.acme, 0)}/journey?client_id=${CLIENTS.acme}`,
  `/cohorts/${demoCohortId(CLIENTS.acme, 0)}/journey/view?client_id=${CLIENTS.acme}`,
  `/cohorts/${demoCohortId(CLIENTS.acme, 0)}/campaigns/new?client_id=${CLIENTS.acme}`,
  `/campaigns/${demoCampaignId(CLIENTS.acme)}?client_id=${CLIENTS.acme}`,
  '/content',
  `/content/6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100102?client_id=${CLIENTS.agency}`,
  '/landing-pages',
  `/landing-pages/6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100101?client_id=${CLIENTS.agency}`,
  '/clients',
  '/onboarding',
  '/settings/profile',
  '/settings/connections',
  `/settings/integrations/salesforce?client_id=${CLIENTS.acme}`,
  `/settings/integrations/marketo?client_id=${CLIENTS.acme}`,
  `/settings/integrations/webhooks?client_id=${CLIENTS.acme}`,
  '/settings/users',
  '/settings/users/pending',
  '/settings/billing',
  `/settings/billing/invoices/{invoice}?client_id=${CLIENTS.acme}`,
  '/settings/domain',
  `/client-settings/website?client_id=${CLIENTS.agency}`,
  '/client-settings/facebook',
  '/client-settings/sales-reps',
  `/client-settings/notifications?client_id=${CLIENTS.acme}`,
  // The brand preview in Acme's colours: text on its orange button (docs/decisions/0011).
  `/client-settings/website?client_id=${CLIENTS.acme}`,
  // The landing page layout in the client's brand (the editor's preview).
  `/lp/preview?client_id=${CLIENTS.acme}`,
  DEMO_AD_PREVIEW,
];

/** Pages the server renders itself (not the app's screens): always loaded in full. */
const SERVER_PAGE = /^\/(content\/preview|lp|embed)\//;

/**
 * Opens `path` the way a user's click would: inside the app (React Router follows `popstate`) once
 * the app is loaded, so each screen does not pay for a reload of the app and its shell calls (the
 * walks below open 36 screens at two widths). Then waits until no request has been open for
 * 500 ms, as `networkidle` does for a full load (a redirect by the app's route gate included); the
 * live feed's event stream does not count.
 */
async function visit(page: Page, path: string) {
  const here = page.url().startsWith('http') ? new URL(page.url()).pathname : null;
  if (here === null || SERVER_PAGE.test(here) || SERVER_PAGE.test(path)) {
    await page.goto(path);
    await page.waitForLoadState('networkidle');
    return;
  }
  const open = new Set<Request>();
  let last = Date.now();
  const start = (r: Request) => {
    if (r.resourceType() !== 'eventsource') open.add(r);
    last = Date.now();
  };
  const end = (r: Request) => {
    open.delete(r);
    last = Date.now();
  };
  page.on('request', start);
  page.on('requestfinished', end);
  page.on('requestfailed', end);
  try {
    await page.evaluate((to) => {
      window.history.pushState(null, '', to);
      window.dispatchEvent(new PopStateEvent('popstate'));
    }, path);
    await expect
      .poll(() => (open.size === 0 && Date.now() - last >= 500 ? 'quiet' : [...open].map((r) => r.url())), {
        timeout: 30_000,
        intervals: [100],
        message: `${path}: requests still open`,
      })
      .toBe('quiet');
  } finally {
    page.off('request', start);
    page.off('requestfinished', end);
    page.off('requestfailed', end);
  }
}

/** Fills `{cadence}` and `{invoice}` with one of Acme's demo cadences and invoices, read through the API. */
async function withIds(page: Page, paths: string[]) {
  if (!paths.some((p) => p.includes('{'))) return paths;
  const cadences = (await (
    await api(page.request, 'GET', '/sc/cadence', undefined, CLIENTS.acme)
  ).json()) as {
    id: string;
  }[];
  const invoices = (
    (await (
      await api(page.request, 'GET', `/biller/client/${CLIENTS.acme}/invoices`, undefined, CLIENTS.acme)
    ).json()) as { invoices: { id: string }[] }
  ).invoices;
  expect(cadences.length, 'a demo cadence').toBeGreaterThan(0);
  expect(invoices.length, 'a demo invoice').toBeGreaterThan(0);
  return paths.map((p) => p.replace('{cadence}', cadences[0]!.id).replace('{invoice}', invoices[0]!.id));
}

test('the walks below cover every route of the shared route table', () => {
  const covered = new Set(
    [...LOGGED_OUT, ...SIGNED_IN].map(
      (p) => matchAppRoute(new URL(p.replace(/[{}]/g, ''), 'http://x').pathname)?.route.id,
    ),
  );
  expect(APP_ROUTES.map((r) => r.id).filter((id) => !covered.has(id))).toEqual([]);
});

/** Each violated rule with the first elements that break it, so a failure says where to look. */
async function violationsOn(page: Page, paths: string[]) {
  const found: Record<string, string[]> = {};
  for (const path of paths) {
    await visit(page, path);
    const result = await new AxeBuilder({ page }).withTags(TAGS).analyze();
    const lines = result.violations.flatMap((v) =>
      v.nodes.slice(0, 3).map((n) => `${v.id} (${v.nodes.length}): ${n.target.join(' ')}`),
    );
    if (lines.length) found[path] = lines;
  }
  return found;
}

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['375 px', { width: 375, height: 740 }],
] as const) {
  test.describe(`axe: WCAG 2.1 A and AA, ${label} (issue 21)`, () => {
    test.use({ viewport });

    test('logged-out and public pages have no violation', async ({ page }) => {
      // Nine pages, each loaded and analysed: more than the default 30 s on a busy machine.
      test.setTimeout(120_000);
      expect(await violationsOn(page, LOGGED_OUT)).toEqual({});
    });

    // The screens in three parts, so the suite's workers share them and no part runs long.
    const PART = Math.ceil(SIGNED_IN.length / 3);
    for (let part = 0; part < 3; part++) {
      test(`every screen of the demo owner has no violation (part ${part + 1} of 3)`, async ({ page }) => {
        test.setTimeout(180_000);
        await signInAs(page);
        const paths = await withIds(page, SIGNED_IN.slice(part * PART, (part + 1) * PART));
        expect(await violationsOn(page, paths)).toEqual({});
      });
    }
  });
}

/** The screens whose own data calls are held (loading) or refused (error) below. */
const STATE_SCREENS = [
  `/feed?client_id=${CLIENTS.acme}`,
  `/prospects?client_id=${CLIENTS.acme}`,
  `/revenue?client_id=${CLIENTS.acme}`,
  `/reports?client_id=${CLIENTS.acme}`,
  `/cohorts?client_id=${CLIENTS.acme}`,
  `/settings/users?client_id=${CLIENTS.acme}`,
];
/** What the app's shell itself asks for (the user, clients, integrations, config): left alone. */
const SHELL_CALL = /^\/(latest-build|v1\/api\/|v1\/rest\/client(\/[^/]+\/integrations)?$)/;
const isScreenData = (r: Request) =>
  ['fetch', 'xhr', 'eventsource'].includes(r.resourceType()) && !SHELL_CALL.test(new URL(r.url()).pathname);

test.describe('axe: loading and error states, desktop (issue 21)', () => {
  test.use({ viewport: { width: 1280, height: 800 }, allowServerErrors: true });

  test('each screen while its data loads, and when its data fails, has no violation', async ({ page }) => {
    test.setTimeout(300_000);
    await signInAs(page);
    const found: Record<string, string[]> = {};
    const axe = async (key: string) => {
      const result = await new AxeBuilder({ page }).withTags(TAGS).analyze();
      const lines = result.violations.flatMap((v) =>
        v.nodes.slice(0, 3).map((n) => `${v.id} (${v.nodes.length}): ${n.target.join(' ')}`),
      );
      if (lines.length) found[key] = lines;
    };
    for (const path of STATE_SCREENS) {
      // Loading: the screen's calls get no answer while axe looks at its placeholders.
      const held: Route[] = [];
      const hold = (route: Route) => void held.push(route);
      await page.route('**/*', async (route) => {
        if (isScreenData(route.request())) hold(route);
        else await route.fallback();
      });
      await page.goto(path);
      // The shell answers first (a busy machine takes its time), then the screen's calls wait.
      await expect.poll(() => held.length, { timeout: 30_000 }).toBeGreaterThan(0);
      await expect(page.getByRole('status').first()).toBeVisible();
      await axe(`${path} (loading)`);
      await page.unrouteAll({ behavior: 'ignoreErrors' });

      // Error: the same calls answer 500, as a server in trouble would.
      await page.route('**/*', async (route) => {
        if (isScreenData(route.request()))
          await route.fulfill({ status: 500, json: { message: 'Internal Server Error' } });
        else await route.fallback();
      });
      await page.goto(path);
      // The held calls belonged to the page just left; they end without anyone waiting for them.
      await Promise.all(held.map((r) => r.abort().catch(() => undefined)));
      // The app asks three more times, with backoff, before it shows the error.
      await expect(page.getByText(/Could not load/).first()).toBeVisible({ timeout: 30_000 });
      await axe(`${path} (error)`);
      if (path === STATE_SCREENS[1])
        await page.screenshot({ path: test.info().outputPath('prospects-error.png'), fullPage: true });
      await page.unrouteAll({ behavior: 'ignoreErrors' });
    }
    expect(found).toEqual({});
  });
});

/** A new account's screens, before anything is in them (its file source connected, no rows). */
const EMPTY_SCREENS = [
  '/feed',
  '/prospects',
  '/cadence',
  '/revenue',
  '/reports',
  '/reports?tab=content',
  '/cohorts',
  '/content',
  '/landing-pages',
  '/clients',
  '/settings/users',
  '/settings/connections',
  '/settings/integrations/webhooks',
  '/settings/billing',
  '/client-settings/sales-reps',
  '/client-settings/notifications',
];

test.describe('axe: empty states, desktop (issue 21)', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test("a new account's screens, with nothing in them yet, have no violation", async ({ page }) => {
    test.setTimeout(180_000);
    await registerViaApi(page.request, unique('a11y-empty'));
    const self = (await (await page.request.get('/v1/api/user/self')).json()) as {
      clients: { client_id: string }[];
    };
    const clientId = self.clients[0]!.client_id;
    // Uploading a file connects the client's file source (the screens behind "has an integration"
    // open); the import is never started, so no prospect, cadence or event exists.
    const csrf = (await page.request.get('/v1/api/auth/csrf')).headers()['x-xsrf-token'] ?? '';
    const up = await page.request.post(`/v1/integration/crm/fileforce/client/${clientId}/imports`, {
      headers: { 'x-xsrf-token': csrf, 'x-client-id': clientId },
      multipart: {
        kind: 'targets',
        file: { name: 'empty.csv', mimeType: 'text/csv', buffer: Buffer.from('Email,First Name\n') },
      },
    });
    expect(up.status(), await up.text()).toBe(201);

    await page.goto(`/feed?client_id=${clientId}`);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    const found: Record<string, string[]> = {};
    for (const path of EMPTY_SCREENS) {
      const screen = `${path}${path.includes('?') ? '&' : '?'}client_id=${clientId}`;
      Object.assign(found, await violationsOn(page, [screen]));
      // The screen says it is empty, not that it failed.
      if (await page.getByText(/Could not load/).count())
        found[screen] = [...(found[screen] ?? []), 'an error state'];
    }
    expect(found).toEqual({});
  });
});
