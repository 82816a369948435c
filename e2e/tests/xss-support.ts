import type { APIRequestContext, Browser, Page } from '@playwright/test';
import { XSS_CORPUS } from '../../apps/server/test/xss-corpus.ts';
import { expect, stretch } from './fixtures.ts';
import { api } from './support.ts';

/**
 * The stored-XSS corpus of issue 20 and how a screen is judged, shared by xss.spec.ts (names,
 * imports, content, landing pages, cohorts, journeys, campaigns, webhooks) and xss-settings.spec.ts
 * (client settings, billing details, SSO and hand-edited sales reps).
 */

/** The corpus's alert(1) becomes this flag, so a payload that runs silently is caught too. */
export const FLAG = 'window.__xss=1';
/** The corpus plus attribute- and URL-context breakers. */
export const VECTORS: string[] = [
  ...XSS_CORPUS.map((v) => v.replace(/alert\(1\)|msgbox\(1\)/g, FLAG)),
  `"><img src=x onerror=${FLAG}>`,
  `'><svg onload=${FLAG}>`,
  `javascript:${FLAG}`,
];

/** The vectors in runs of at most `max` characters (those longer than `max` left out). */
export function pack(max: number): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const v of VECTORS.filter((x) => x.length <= max)) {
    const next = current ? `${current} ${v}` : v;
    if (next.length <= max || !current) current = next;
    else {
      chunks.push(current);
      current = v;
    }
  }
  if (current) chunks.push(current);
  for (const c of chunks) expect(c.length, c).toBeLessThanOrEqual(max);
  return chunks;
}

export const csvCell = (v: string) => `"${v.replace(/"/g, '""')}"`;

export type Seen = { screens: number; checks: number };

/**
 * What on the page could be a payload at work: handlers, script, frames, dangerous URLs, styles.
 * With `probe`, what the same check finds in that HTML parsed on its own (the check's own test).
 */
export async function injected(page: Page, probe?: string): Promise<string[]> {
  return page.evaluate((html) => {
    const found: string[] = [];
    const payload = /__xss|evil\.example|xss\.htc|x\.xml|expression\(/i;
    const doc = html === null ? document : new DOMParser().parseFromString(html, 'text/html');
    for (const el of Array.from(doc.querySelectorAll('*'))) {
      const tag = el.tagName.toLowerCase();
      if (['iframe', 'object', 'embed', 'base', 'meta', 'link', 'style', 'script'].includes(tag)) {
        const text = `${el.outerHTML}`;
        if (payload.test(text) || (tag === 'meta' && /refresh/i.test(el.getAttribute('http-equiv') ?? '')))
          found.push(text.slice(0, 120));
        if (tag === 'iframe' && el.hasAttribute('srcdoc')) found.push('iframe[srcdoc]');
        if (tag === 'base') found.push(text.slice(0, 120));
      }
      if (tag === 'img' && el.getAttribute('src') === 'x') found.push('img[src=x]');
      for (const attr of Array.from(el.attributes)) {
        // Browsers ignore whitespace and control characters inside a scheme.
        // eslint-disable-next-line no-control-regex
        const value = attr.value.replace(/[\s\u0000-\u001f]/g, '').toLowerCase();
        if (attr.name.startsWith('on')) found.push(`${tag}[${attr.name}=${attr.value.slice(0, 60)}]`);
        if (
          ['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'srcdoc', 'background'].includes(
            attr.name,
          ) &&
          /^(javascript|vbscript|data:text)/.test(value)
        )
          found.push(`${tag}[${attr.name}=${value.slice(0, 60)}]`);
        if (attr.name === 'style' && payload.test(attr.value)) found.push(`${tag}[style=${attr.value}]`);
      }
    }
    return found;
  }, probe ?? null);
}

/** Judges the page now on screen: nothing ran, nothing was injected, `texts` are shown as text. */
export async function judge(page: Page, dialogs: string[], label: string, texts: string[], seen: Seen) {
  for (const t of texts) await expect(page.locator('body'), `${label}: shows ${t}`).toContainText(t);
  // Links a payload could have made are clicked: a javascript: URL would run (none may exist).
  for (const link of await page.locator('a[href^="javascript" i], a[href^=" javascript" i]').all())
    await link.click({ force: true, noWaitAfter: true }).catch(() => undefined);
  expect(dialogs, `${label}: dialogs`).toEqual([]);
  expect(await page.evaluate(() => (window as { __xss?: unknown }).__xss), `${label}: flag`).toBeUndefined();
  expect(await injected(page), `${label}: injected markup`).toEqual([]);
  seen.screens++;
  seen.checks += texts.length;
}

/** Script sources allowed by a CSP header: none may be 'unsafe-inline' or 'unsafe-eval'. */
export function expectStrictScripts(csp: string | undefined, label: string) {
  expect(csp, `${label}: CSP`).toBeTruthy();
  const directives = new Map(
    csp!
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name!.toLowerCase(), values]),
  );
  expect(csp, `${label}: CSP`).not.toContain("'unsafe-eval'");
  for (const name of ['script-src', 'script-src-elem', 'script-src-attr', 'default-src']) {
    expect(directives.get(name) ?? [], `${label}: ${name}`).not.toContain("'unsafe-inline'");
  }
  // Without script-src, default-src governs scripts: it must be there then.
  expect(directives.has('script-src') || directives.has('default-src'), `${label}: script source`).toBe(true);
}

export async function ok(res: Awaited<ReturnType<typeof api>>, status = 201) {
  expect(res.status(), await res.text()).toBe(status);
  return res.json() as Promise<Record<string, unknown>>;
}

/** One file import of targets (prospects, cadences, reps), waited for. */
export async function importRows(request: APIRequestContext, clientId: string, rows: string[][]) {
  const header =
    'Email,First Name,Last Name,Title,Company,Website,Cadence,Day,Rep Email,Rep First Name,Rep Last Name,Rep Title';
  const csv = [header, ...rows.map((r) => r.map(csvCell).join(','))].join('\n');
  const csrf = (await request.get('/v1/api/auth/csrf')).headers()['x-xsrf-token'] ?? '';
  const headers = { 'x-xsrf-token': csrf, 'x-client-id': clientId };
  const imports = `/v1/integration/crm/fileforce/client/${clientId}/imports`;
  const up = await request.post(imports, {
    headers,
    multipart: { kind: 'targets', file: { name: 'xss.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) } },
  });
  const { id } = (await ok(up as never)) as { id: string };
  const start = await request.post(`${imports}/${id}/start`, { headers });
  expect(start.status(), await start.text()).toBe(202);
  await expect
    .poll(
      async () => {
        const res = await api(request, 'GET', `${imports}/${id}`, undefined, clientId);
        const body = (await res.json()) as { status: string; errors?: unknown };
        return body.status === 'done' ? 'done' : `${body.status} ${JSON.stringify(body.errors ?? '')}`;
      },
      { timeout: stretch(30_000) },
    )
    .toBe('done');
}

/** A browser with no session for the prospect; nothing off our origin is fetched. */
export async function stranger(browser: Browser, baseURL: string) {
  const context = await browser.newContext({
    baseURL,
    // An ordinary desktop Chrome: a headless user agent counts as a bot.
    userAgent:
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  });
  const origin = new URL(baseURL).origin;
  await context.route(
    (url) => url.origin !== origin,
    (route) => route.fulfill({ status: 204, body: '' }),
  );
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return { context, page, dialogs };
}
