import { test as plainTest } from '@playwright/test';
import type { APIRequestContext, Browser, Page } from '@playwright/test';
import { XSS_CORPUS } from '../../apps/server/test/xss-corpus.ts';
import { sampleLogoPng, samplePortraitPng } from '../../apps/server/src/modules/creative/sample-images.ts';
import { uuidToBase58 } from '../../packages/shared/src/utils/base58.ts';
import { expect, test } from './fixtures.ts';
import { CLIENTS, api, signInAs } from './support.ts';
import { shot } from './shots.ts';

/**
 * Issue 8, the server-rendered pages in Chromium: "/lp/{base58} | Landing page by base58 id, empty
 * layout" and "/content/preview/{base58}/{resolution} | Content preview" (SPEC.md §2). A stored-XSS
 * corpus (script tags, event handlers, javascript: URLs, SVG payloads, CSS expressions) goes in
 * through every HTML and text field of the API, and nothing of it runs on the public page.
 */

/** Northwind's seeded landing page (apps/server/src/modules/content/demo.ts). */
const DEMO_PAGE = `/lp/${uuidToBase58('6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100101')}`;

// Payloads that would leave a mark instead of a dialog, so a silent execution is caught too.
const FLAG_PAYLOADS = [
  '<img src=x onerror="window.__xss=1">',
  '<svg onload="window.__xss=1"></svg>',
  '<svg><script>window.__xss=1</script></svg>',
  '<a class="js-link" href="javascript:window.__xss=1">go</a>',
  '<a class="js-link" href="  JaVaScRiPt:window.__xss=1">go too</a>',
  '<p style="background:url(javascript:window.__xss=1)">css url</p>',
  '<p style="width:expression(window.__xss=1)">css expression</p>',
  '<iframe srcdoc="<script>parent.__xss=1</script>"></iframe>',
  '<math><mtext><table><mglyph><style><img src=x onerror="window.__xss=1">',
  '<object data="data:text/html,<script>parent.__xss=1</script>"></object>',
];
const CORPUS = [...XSS_CORPUS, ...FLAG_PAYLOADS].join('\n');
const TEXT_PAYLOAD = '<img src=x onerror=alert(1)><script>window.__xss=1</script>';

/** Uploads a PNG for Northwind with the page's session (multipart, as the editor does). */
async function upload(request: APIRequestContext, kind: string, bytes: Buffer): Promise<string> {
  const csrf = (await request.get('/v1/api/auth/csrf')).headers()['x-xsrf-token'] ?? '';
  const res = await request.post(`/v1/rest/client/${CLIENTS.agency}/uploads`, {
    headers: { 'x-xsrf-token': csrf, 'x-client-id': CLIENTS.agency },
    multipart: { kind, file: { name: `${kind}.png`, mimeType: 'image/png', buffer: bytes } },
  });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { url: string }).url;
}

/**
 * A fresh browser with no session, where any request off our origin gets a 1x1 PNG (no network in
 * tests, and no request may fail loudly), every dialog is recorded, and the page is judged after
 * load plus a moment for late handlers.
 */
async function visitAsStranger(browser: Browser, baseURL: string, path: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const origin = new URL(baseURL).origin;
  await context.route(
    (url) => url.origin !== origin,
    (route) =>
      route.fulfill({
        contentType: 'image/png',
        body: Buffer.from(
          'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
          'base64',
        ),
      }),
  );
  const response = await page.goto(path);
  await page.waitForLoadState('load');
  return { context, page, dialogs, response };
}

async function expectNothingRan(page: Page, dialogs: string[]) {
  // Links whose href did not survive (or never was http) are clicked: a javascript: URL would run.
  for (const link of await page.locator('a:not([href^="http"]):not([href^="mailto"])').all()) {
    await link.click({ force: true, noWaitAfter: true }).catch(() => undefined);
  }
  await page.waitForTimeout(500);
  expect(dialogs).toEqual([]);
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  const dangerous = await page.evaluate(() => {
    const found: string[] = [];
    for (const el of Array.from(document.querySelectorAll('*'))) {
      const tag = el.tagName.toLowerCase();
      if (['script', 'iframe', 'object', 'embed', 'base', 'form', 'math'].includes(tag)) found.push(tag);
      for (const attr of Array.from(el.attributes)) {
        const value = attr.value.replace(/\s/g, '').toLowerCase();
        if (attr.name.startsWith('on')) found.push(`${tag}[${attr.name}]`);
        if (/^(javascript|vbscript|data:text)/.test(value)) found.push(`${tag}[${attr.name}=${value}]`);
        if (attr.name === 'style' && /url\(|expression/.test(value)) found.push(`${tag}[style=${value}]`);
      }
    }
    return found;
  });
  expect(dangerous).toEqual([]);
}

test.describe('public pages (issue 8)', () => {
  test('a stored-XSS corpus in every field of a landing page: nothing runs on its public page in Chromium', async ({
    page,
    browser,
    baseURL,
  }) => {
    await signInAs(page);
    const res = await api(
      page.request,
      'POST',
      `/v1/rest/client/${CLIENTS.agency}/landing_page`,
      {
        name: TEXT_PAYLOAD,
        landing_page_payload: {
          hero_html: CORPUS,
          content_html: CORPUS,
          footer_html: CORPUS,
          hero_img: 'https://cdn.example/hero.png?"><script>window.__xss=1</script>',
          landing_button_name: TEXT_PAYLOAD,
        },
        assignee: {
          first_name: TEXT_PAYLOAD,
          last_name: '"><svg onload=alert(1)>',
          title: "'><img src=x onerror=alert(1)>",
          company_name: '</style><script>alert(1)</script>',
          website: 'https://acme.example',
          calendar_url: 'https://cal.example/x?"onmouseover="alert(1)',
        },
      },
      CLIENTS.agency,
    );
    expect(res.status(), await res.text()).toBe(201);
    const { public_path: publicPath } = (await res.json()) as { public_path: string };

    const visit = await visitAsStranger(browser, baseURL!, publicPath);
    expect(visit.response?.status()).toBe(200);
    expect(visit.response?.headers()['content-security-policy']).toBe(
      "default-src 'none'; img-src 'self' https: data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'",
    );
    // Text fields come out as text.
    await expect(visit.page.locator('.rep-name')).toHaveText(`${TEXT_PAYLOAD} "><svg onload=alert(1)>`);
    await expectNothingRan(visit.page, visit.dialogs);
    await visit.context.close();
  });

  test('ad texts and a name full of markup: the content preview shows them as text and runs nothing', async ({
    page,
  }) => {
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await signInAs(page);
    const res = await api(
      page.request,
      'POST',
      '/v1/rest/content',
      {
        name: TEXT_PAYLOAD,
        title: TEXT_PAYLOAD,
        image_text: XSS_CORPUS.slice(0, 6).join(' '),
        template_id: 3,
      },
      CLIENTS.agency,
    );
    expect(res.status(), await res.text()).toBe(201);
    const item = (await res.json()) as { preview_paths: Record<string, string> };
    const response = await page.goto(item.preview_paths['300x250']!);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    await expect(page).toHaveTitle('Rally - Content preview');
    await expect(page.locator('.name')).toHaveText(TEXT_PAYLOAD);
    const image = page.getByRole('img', { name: 'Ad at 300x250' });
    await expect(image).toBeVisible();
    expect(await image.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([
      300, 250,
    ]);
    await expectNothingRan(page, dialogs);
  });

  test('each template at 1200x628 and 300x250, and a landing page, look right (screenshots)', async ({
    page,
    browser,
    baseURL,
  }) => {
    test.setTimeout(120_000);
    await signInAs(page);
    const photo = await upload(page.request, 'photo', samplePortraitPng(512, 200));
    const logo = await upload(page.request, 'logo', sampleLogoPng(400, '#0b3d91'));
    const palettes = [
      { background: '#ffffff', text: '#0f172a', accent: '#4f46e5', primary: '#f59e0b' },
      { background: '#ffffff', text: '#111827', accent: '#0b3d91', primary: '#ffb400' },
      { background: '#ffffff', text: '#111827', accent: '#0f766e', primary: '#fbbf24' },
      { background: '#ffffff', text: '#1f2937', accent: '#be123c' },
    ];
    for (const templateId of [1, 2, 3, 4]) {
      const res = await api(
        page.request,
        'POST',
        '/v1/rest/content',
        {
          name: `Template ${templateId} screenshot`,
          template_id: templateId,
          title: 'For revenue teams',
          image_text: 'Cut your SDR ramp time in half this quarter',
          sdr_img_url: photo,
          colors: palettes[templateId - 1],
          assignee: {
            first_name: 'Jane',
            last_name: 'Cooper',
            title: 'Senior Account Executive',
            company_name: 'Northwind Agency',
            website: 'https://northwind.example',
            calendar_url: 'https://cal.example/jane',
          },
        },
        CLIENTS.agency,
      );
      expect(res.status(), await res.text()).toBe(201);
      const item = (await res.json()) as { preview_paths: Record<string, string> };
      for (const size of ['1200x628', '300x250']) {
        await page.goto(item.preview_paths[size]!);
        const image = page.getByRole('img', { name: `Ad at ${size}` });
        await expect(image).toBeVisible();
        const [w, h] = size.split('x').map(Number);
        expect(
          await image.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]),
        ).toEqual([w, h]);
        await shot(image, `ad-template-${templateId}-${size}`);
      }
    }

    const created = await api(
      page.request,
      'POST',
      `/v1/rest/client/${CLIENTS.agency}/landing_page`,
      {
        name: 'Growth audit (screenshot)',
        landing_page_payload: {
          hero_html:
            '<h1>Your growth audit, <span data-id="prospect_first_name">there</span></h1><p>Three quick wins for your pipeline, found by <span data-id="first_name">our strategists</span> in twenty minutes.</p>',
          content_html:
            '<h2>What you get</h2><ul><li>A review of your funnel, stage by stage</li><li>Benchmarks from 40 B2B teams like yours</li><li>A 90-day plan you can run without us</li></ul><blockquote>Our pipeline grew 38% in one quarter.</blockquote><p>No slides. Twenty minutes, one call.</p>',
          footer_html: '<p>Northwind Agency · <a href="https://northwind.example/privacy">Privacy</a></p>',
          hero_img: photo,
          landing_button_name: 'Book my audit',
        },
        logo_url: logo,
        sdr_img_url: photo,
        colors: { background: '#ffffff', text: '#0f172a', accent: '#0b3d91', primary: '#ffb400' },
        assignee: {
          first_name: 'Jane',
          last_name: 'Cooper',
          title: 'Growth Strategist',
          company_name: 'Northwind Agency',
          website: 'https://northwind.example',
          calendar_url: 'https://cal.example/jane',
        },
      },
      CLIENTS.agency,
    );
    expect(created.status(), await created.text()).toBe(201);
    const { public_path: publicPath } = (await created.json()) as { public_path: string };
    const visit = await visitAsStranger(browser, baseURL!, publicPath);
    // The hero's tag has no fallback and the stranger no name: the default word (issue 42 item 1).
    await expect(visit.page.getByRole('heading', { level: 1 })).toHaveText('Your growth audit, there');
    await expect(visit.page.getByRole('link', { name: 'Book my audit' }).first()).toHaveAttribute(
      'href',
      'https://cal.example/jane',
    );
    await expect(visit.page.getByRole('img', { name: 'Jane Cooper' })).toBeVisible();
    await visit.page.setViewportSize({ width: 1280, height: 900 });
    await shot(visit.page, 'landing-page-desktop', { fullPage: true });
    await visit.page.setViewportSize({ width: 390, height: 844 });
    await shot(visit.page, 'landing-page-phone', { fullPage: true });
    await visit.context.close();

    // The demo's seeded page, as a prospect would see it (no token: its tags read their fallback).
    const demo = await visitAsStranger(browser, baseURL!, DEMO_PAGE);
    expect(demo.response?.status()).toBe(200);
    await expect(demo.page.getByRole('heading', { level: 1 })).toHaveText('Your growth audit, there');
    await shot(demo.page, 'landing-page-demo', { fullPage: true });
    await demo.context.close();
  });
});

// A deliberate CSP violation logs a console error, which the shared fixture would count as an app
// error; this test checks that the browser itself refuses script on the page, whatever the markup.
plainTest(
  'the public page refuses any script, even one added after load (CSP with no script source)',
  async ({ browser, baseURL }) => {
    const visit = await visitAsStranger(browser, baseURL!, DEMO_PAGE);
    expect(visit.response?.status()).toBe(200);
    const page = visit.page;
    await page.addScriptTag({ content: 'window.__probe = "inline script"' }).catch(() => undefined);
    await page.evaluate(() => {
      // Handlers and javascript: URLs written into the live page are compiled under the page's CSP.
      document.body.setAttribute('onclick', 'window.__probe = "handler"');
      document.body.click();
      const a = document.createElement('a');
      a.href = 'javascript:window.__probe = "url"';
      document.body.append(a);
      a.click();
    });
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as unknown as { __probe?: string }).__probe)).toBeUndefined();
    await visit.context.close();
  },
);
