import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import AxeBuilder from '@axe-core/playwright';
import type { Page, Request, Route } from '@playwright/test';
import { APP_ROUTES, matchAppRoute } from '../../packages/shared/src/routes.ts';
import { uuidToBase58 } from '../../packages/shared/src/utils/base58.ts';
import { expect, test, stretch } from './fixtures.ts';
import { CLIENTS, api, registerViaApi, signInAs, signInTo, unique } from './support.ts';

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
  // A network campaign (decision 0026): the demo has no connected network yet, so its not-found state.
  `/network-campaigns/00000000-0000-4000-8000-000000000000?client_id=${CLIENTS.acme}`,
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
  `/settings/ad-networks?client_id=${CLIENTS.acme}`,
  `/settings/audit-log?client_id=${CLIENTS.acme}`,
  `/settings/suppressions?client_id=${CLIENTS.acme}`,
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
 * Runs `action`, then waits until no request has been open for 500 ms, as `networkidle` does for a
 * full load (a redirect by the app's route gate included); the live feed's event stream does not count.
 */
async function quietAfter(page: Page, label: string, action: () => Promise<unknown>) {
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
    await action();
    await expect
      .poll(() => (open.size === 0 && Date.now() - last >= 500 ? 'quiet' : [...open].map((r) => r.url())), {
        timeout: stretch(30_000),
        intervals: [100],
        message: `${label}: requests still open`,
      })
      .toBe('quiet');
  } finally {
    page.off('request', start);
    page.off('requestfinished', end);
    page.off('requestfailed', end);
  }
}

/**
 * Opens `path` the way a user's click would: inside the app (React Router follows `popstate`) once
 * the app is loaded, so each screen does not pay for a reload of the app and its shell calls (the
 * walks below open 36 screens). Then waits until the network is quiet (`quietAfter`).
 */
async function visit(page: Page, path: string) {
  const here = page.url().startsWith('http') ? new URL(page.url()).pathname : null;
  if (here === null || SERVER_PAGE.test(here) || SERVER_PAGE.test(path)) {
    await page.goto(path);
    await page.waitForLoadState('networkidle');
    return;
  }
  await quietAfter(page, path, () =>
    page.evaluate((to) => {
      window.history.pushState(null, '', to);
      window.dispatchEvent(new PopStateEvent('popstate'));
    }, path),
  );
}

/** Waits for CSS transitions (a toast sliding in) to end; a spinner's endless animation does not count. */
async function settled(page: Page) {
  await page.waitForFunction(
    () =>
      document
        .getAnimations()
        .every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity),
    undefined,
    { polling: 50, timeout: stretch(10_000) },
  );
}

/** The two widths every screen is checked at (issue 21): the desktop's and a phone's 375 px. */
const WIDTHS = {
  desktop: { width: 1280, height: 800 },
  '375 px': { width: 375, height: 740 },
} as const;
type Width = keyof typeof WIDTHS;
const widthOf = (page: Page): Width => (page.viewportSize()?.width === 375 ? '375 px' : 'desktop');
const otherWidth = (w: Width): Width => (w === 'desktop' ? '375 px' : 'desktop');

/**
 * Turns the page to the other width, as a person turning a phone or narrowing a window would, and waits
 * until the screen has caught up: media-query listeners re-rendered (two frames) and transitions ended;
 * with `quiet`, anything the new layout asked for answered too. The walks analyse each screen at the
 * width it was opened at and then at the other, so they open each screen once, not once per width
 * (that cost the end-to-end run, the longest lane of `npm test`, a navigation and a data load per
 * screen), and the signed-in walk opens the next screen at the width this one ended at: about half
 * its screens are opened at each width.
 */
async function turn(page: Page, label: string, quiet = true): Promise<Width> {
  const to = otherWidth(widthOf(page));
  const resize = async () => {
    await page.setViewportSize(WIDTHS[to]);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  };
  if (quiet) await quietAfter(page, `${label} at ${to}`, resize);
  else await resize();
  await settled(page);
  return to;
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

/** axe-core itself, put in the page once (see `axeLines`). */
const AXE_SOURCE = readFileSync(
  createRequire(createRequire(import.meta.url).resolve('@axe-core/playwright')).resolve(
    'axe-core/axe.min.js',
  ),
  'utf8',
);

/**
 * The page's violations, each rule with the first elements that break it, so a failure says where to
 * look. AxeBuilder injects all of axe-core (half a megabyte) into the page again on every analysis,
 * which took 1 to 3 s of the 1.2 to 3.5 s an analysis took on a busy machine; a page without frames
 * keeps the copy it was given once (it stays across in-app navigation), and the same rules run on the
 * whole document. A page with frames (ad previews, the landing page editor) goes through AxeBuilder,
 * which analyses each frame too.
 */
async function axeLines(page: Page) {
  let violations: { id: string; targets: string[] }[];
  if (page.frames().length > 1) {
    const result = await new AxeBuilder({ page }).withTags(TAGS).analyze();
    violations = result.violations.map((v) => ({
      id: v.id,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  } else {
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
    violations = await page.evaluate(async (tags) => {
      type Axe = {
        run: (
          context: Document,
          options: object,
        ) => Promise<{ violations: { id: string; nodes: { target: unknown[] }[] }[] }>;
      };
      const axe = (window as unknown as { axe: Axe }).axe;
      const result = await axe.run(document, {
        runOnly: { type: 'tag', values: tags },
        resultTypes: ['violations'],
      });
      return result.violations.map((v) => ({ id: v.id, targets: v.nodes.map((n) => n.target.join(' ')) }));
    }, TAGS);
  }
  const lines = violations.flatMap((v) =>
    v.targets.slice(0, 3).map((t) => `${v.id} (${v.targets.length}): ${t}`),
  );
  // WCAG 1.4.10 (Reflow, AA), which axe does not check: nothing makes the page scroll sideways, at
  // 375 px as on the desktop (a wide table scrolls inside its own box).
  const wider = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (wider > 0) lines.push(`reflow: the page is ${wider} px wider than the screen`);
  return lines;
}

/** Opens each of `paths` and keeps the violations found on it at both widths (`turn`), by path and width. */
async function violationsOn(page: Page, paths: string[]) {
  const found: Record<string, string[]> = {};
  for (const path of paths) {
    await visit(page, path);
    const opened = await axeLines(page);
    if (opened.length) found[`${path} (${widthOf(page)})`] = opened;
    const turned = await turn(page, path);
    const lines = await axeLines(page);
    if (lines.length) found[`${path} (${turned})`] = lines;
  }
  return found;
}

test.describe('axe: WCAG 2.1 A and AA, desktop and 375 px (issue 21)', () => {
  test.use({ viewport: WIDTHS.desktop });

  test('logged-out and public pages have no violation', async ({ page }) => {
    // Thirteen pages, each loaded and analysed at both widths: more than the default 30 s on a busy machine.
    test.setTimeout(180_000);
    expect(await violationsOn(page, LOGGED_OUT)).toEqual({});
  });

  // The screens in six parts, so the suite's workers share them and no part runs long (three parts of
  // about a dozen screens each, at one width, ran past 180 s on a CI machine at load 20).
  const PARTS = 6;
  const PART = Math.ceil(SIGNED_IN.length / PARTS);
  for (let part = 0; part < PARTS; part++) {
    test(`every screen of the demo owner has no violation (part ${part + 1} of ${PARTS})`, async ({
      page,
    }) => {
      test.setTimeout(240_000);
      await signInAs(page);
      const paths = await withIds(page, SIGNED_IN.slice(part * PART, (part + 1) * PART));
      expect(await violationsOn(page, paths)).toEqual({});
    });
  }
});

/**
 * Every screen that asks for data of its own, with what it shows while that data loads and when it
 * fails (default: a `status` placeholder, and an alert saying "Could not load …").
 */
type StateScreen = { path: string; loading?: RegExp; error?: RegExp };
const A = `client_id=${CLIENTS.acme}`;
const STATE_SCREENS: StateScreen[] = [
  { path: `/feed?${A}` },
  { path: `/prospects?${A}` },
  { path: `/cadence?${A}` },
  { path: `/cadence/{cadence}?${A}` },
  { path: `/revenue?${A}` },
  { path: `/reports?${A}` },
  { path: `/reports?${A}&tab=content` },
  { path: `/reports?${A}&tab=signals` },
  { path: `/reports?${A}&tab=priority` },
  { path: `/cohorts?${A}` },
  // A form: its audience estimate is what loads, and what fails.
  { path: `/cohorts/new?${A}`, loading: /^Estimating…$/, error: /^Could not estimate the audience\.$/ },
  { path: `/cohorts/${demoCohortId(CLIENTS.acme, 0)}?${A}` },
  { path: `/cohorts/${demoCohortId(CLIENTS.acme, 0)}/journey?${A}` },
  { path: `/cohorts/${demoCohortId(CLIENTS.acme, 0)}/journey/view?${A}` },
  { path: `/cohorts/${demoCohortId(CLIENTS.acme, 0)}/campaigns/new?${A}` },
  { path: `/campaigns/${demoCampaignId(CLIENTS.acme)}?${A}` },
  { path: '/content' },
  { path: `/content/6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100102?client_id=${CLIENTS.agency}` },
  { path: '/landing-pages' },
  { path: `/landing-pages/6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100101?client_id=${CLIENTS.agency}` },
  { path: `/settings/integrations/salesforce?${A}` },
  { path: `/settings/integrations/marketo?${A}` },
  { path: `/settings/integrations/webhooks?${A}` },
  { path: `/settings/users?${A}` },
  { path: '/settings/users/pending' },
  { path: '/settings/billing' },
  { path: `/settings/billing/invoices/{invoice}?${A}` },
  { path: '/settings/domain' },
  { path: `/settings/ad-networks?${A}` },
  { path: `/settings/audit-log?${A}` },
  { path: `/settings/suppressions?${A}` },
  // A network campaign (issue 39): its own call loads and fails like any screen's, whatever the id.
  { path: `/network-campaigns/00000000-0000-4000-8000-000000000000?${A}` },
  { path: `/client-settings/website?${A}` },
  { path: '/client-settings/facebook' },
  { path: '/client-settings/sales-reps' },
  { path: `/client-settings/notifications?${A}` },
];
/** The signed-in routes left out above, and why: they have no loading or error state of their own. */
const NO_DATA_OF_THEIR_OWN: Record<string, string> = {
  root: 'a redirect',
  settings: 'a redirect',
  'client-settings': 'a redirect',
  clients: "the shell's client list",
  onboarding: "the shell's integrations",
  'settings-profile': "the shell's user",
  'settings-connections': "the shell's integrations",
  'lp-preview': 'a page the server renders',
  'content-preview': 'a page the server renders',
};

test('the loading and error walks cover every signed-in screen with data of its own', () => {
  const covered = new Set(
    STATE_SCREENS.map(
      (s) => matchAppRoute(new URL(s.path.replace(/[{}]/g, ''), 'http://x').pathname)?.route.id,
    ),
  );
  const signedIn = APP_ROUTES.filter((r) => !('exempt' in r) && !('standalone' in r)).map((r) => r.id);
  expect(signedIn.filter((id) => !covered.has(id) && !(id in NO_DATA_OF_THEIR_OWN))).toEqual([]);
});

/**
 * What the app's shell asks for (the build, the user, the client list, a client's integrations,
 * sign-in and CSRF): answered, so the app stays signed in around the screen under test.
 */
const SHELL_CALL =
  /^\/(latest-build|v1\/api\/user\/self|v1\/api\/auth(\/.*)?|v1\/rest\/client(\/[^/]+\/integrations)?)$/;
/**
 * The screen's refusal: a 403 with a message, which the app neither retries (it retries 5xx with
 * backoff) nor takes for a sign-out (401).
 */
const REFUSAL = { status: 403, json: { message: 'Refused for the accessibility check' } };

test.describe('axe: loading and error states, desktop and 375 px (issue 21)', () => {
  test.use({ viewport: WIDTHS.desktop });

  // In two parts, so the suite's two workers share the walk.
  const PART = Math.ceil(STATE_SCREENS.length / 2);
  for (let part = 0; part < 2; part++) {
    test(`each screen while its data loads, then when it is refused, has no violation (part ${part + 1} of 2)`, async ({
      page,
    }) => {
      test.setTimeout(180_000);
      // The screen's own calls are held (loading), then refused (error); the shell's are answered.
      let mode: 'hold' | 'refuse' = 'hold';
      const held: Route[] = [];
      let asked = 0;
      await page.route('**/*', async (route) => {
        const r = route.request();
        if (
          !['fetch', 'xhr', 'eventsource'].includes(r.resourceType()) ||
          SHELL_CALL.test(new URL(r.url()).pathname)
        )
          return route.fallback();
        asked++;
        if (mode === 'hold') held.push(route);
        else await route.fulfill(REFUSAL);
      });
      // A screen whose data is the shell's: nothing of the walk's is asked for, or cached, on the way in.
      await signInTo(page, '/settings/profile');
      const screens = STATE_SCREENS.slice(part * PART, (part + 1) * PART);
      const paths = await withIds(
        page,
        screens.map((s) => s.path),
      );
      const found: Record<string, string[]> = {};
      for (const [i, screen] of screens.entries()) {
        const path = paths[i]!;
        // Opened in the app, as a click would; nothing the screen asks for is answered yet. A query
        // another screen refused is asked again, so no screen starts from a cached answer.
        mode = 'hold';
        asked = 0;
        await page.evaluate((to) => {
          window.history.pushState(null, '', to);
          window.dispatchEvent(new PopStateEvent('popstate'));
        }, path);
        await expect.poll(() => asked, { message: `${path}: asks for its data` }).toBeGreaterThan(0);
        // The page, not its main landmark: the printable invoice has no app layout around it.
        await expect(
          screen.loading
            ? page.getByText(screen.loading)
            : page.getByRole('status').filter({ visible: true }).first(),
          `${path}: shows it is loading`,
        ).toBeVisible();
        await settled(page);
        const opened = widthOf(page);
        const loading = await axeLines(page);
        if (loading.length) found[`${path} (loading, ${opened})`] = loading;
        // The other width while the data is still held: a turn waits for no answer here.
        const turned = await turn(page, path, false);
        const loadingTurned = await axeLines(page);
        if (loadingTurned.length) found[`${path} (loading, ${turned})`] = loadingTurned;

        mode = 'refuse';
        await Promise.all(held.splice(0).map((r) => r.fulfill(REFUSAL).catch(() => undefined)));
        await expect(
          page.getByText(screen.error ?? /^Could not load/).first(),
          `${path}: says its data could not be loaded`,
        ).toBeVisible();
        await settled(page);
        const error = await axeLines(page);
        if (error.length) found[`${path} (error, ${turned})`] = error;
        await turn(page, path, false);
        const errorBack = await axeLines(page);
        if (errorBack.length) found[`${path} (error, ${opened})`] = errorBack;
      }
      expect(found).toEqual({});
    });
  }
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

test.describe('axe: empty states, desktop and 375 px (issue 21)', () => {
  test.use({ viewport: WIDTHS.desktop });

  test("a new account's screens, with nothing in them yet, have no violation", async ({ page }) => {
    // Sixteen screens at both widths, and a new account first.
    test.setTimeout(240_000);
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
