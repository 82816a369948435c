import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { uuidToBase58 } from '@rally/shared';
import { AD_SIZES } from '@rally/shared/schemas/content';
import type { LandingPage } from '@rally/shared/schemas/content';
import { clientSettings, content, landingPages, targets } from '../../db/schema/index.ts';
import {
  BROWSER_UA,
  makeCadence,
  makeContent,
  makeRep,
  makeTarget,
  markLandingDomainChecked,
} from '../../../test/engagement.ts';
import { createTestApp, waitFor } from '../../../test/helpers.ts';
import type { Browser } from '../../../test/http.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import { XSS_CORPUS } from '../../../test/xss-corpus.ts';
import { PUBLIC_PAGE_CSP } from './landing-page.ts';
import { PAGE_CACHE_MS, adImageFor, adInputFor, creativeOf, forgetLandingPage } from './service.ts';

/**
 * The server-rendered pages of issue 8 over real HTTP on loopback: /lp/{base58} (personalised by a
 * target token), /{base58} on a verified landing domain, /lp/preview and
 * /content/preview/{base58}/{resolution}, and the ad image shared with the engagement engine.
 */
const MAIN_HOST = 'app.rally.example';
const LANDING_HOST = 'go.acme.example';

let app: FastifyInstance;
let port: number;
let acme: string;
let globex: string;
let owner: Browser;
let stranger: Browser;

type Reply = { status: number; headers: IncomingHttpHeaders; body: string; bytes: Buffer };

/** A GET over HTTP with a chosen Host header (fetch cannot set one). */
function get(path: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, headers: { host: MAIN_HOST, 'user-agent': BROWSER_UA, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString('utf8'), bytes });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const cookieOf = (b: Browser) => ({ cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ') });

async function createPage(body: Record<string, unknown>): Promise<LandingPage> {
  const res = await owner.post(`/v1/rest/client/${acme}/landing_page`, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const PAGE = {
  name: 'Spring launch page',
  landing_page_payload: {
    hero_html: '<h1>Hi <span data-id="prospect_first_name">First name</span>, robots that ship</h1>',
    content_html:
      '<p>Your rep <span data-id="first_name">Rep</span> from <span data-id="company_name">Co</span> will call <span data-id="prospect_company_name">Company</span>.</p>',
    footer_html: '<p>© Acme Robotics</p>',
    hero_img: 'https://cdn.acme.example/hero.png',
    landing_button_name: 'Talk to sales',
  },
  logo_url: 'https://cdn.acme.example/logo.png',
  favicon_url: 'https://cdn.acme.example/favicon.png',
  sdr_img_url: 'https://cdn.acme.example/jane.png',
  colors: { background: '#0f172a', text: '#000000', accent: '#22d3ee' },
  assignee: {
    first_name: 'Jane',
    last_name: 'Cooper',
    title: 'Account Executive',
    company_name: 'Acme Robotics',
    website: 'https://acme.example',
    calendar_url: 'https://cal.example/jane',
  },
};

beforeAll(async () => {
  app = await createTestApp({ env: { PUBLIC_URL: `https://${MAIN_HOST}` } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
  acme = await makeClient(app, 'Acme');
  globex = await makeClient(app, 'Globex');
  ({ browser: owner } = await signedIn(app, { [acme]: 'purple_owner' }));
  ({ browser: stranger } = await signedIn(app, { [globex]: 'purple_owner' }));
});
afterAll(() => app.close());

describe('GET /lp/{base58} (SPEC.md §2 "Landing page by base58 id, empty layout")', () => {
  it('renders the page as a complete HTML document under a CSP with no script source', async () => {
    const page = await createPage(PAGE);
    const res = await get(page.public_path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(PUBLIC_PAGE_CSP);
    expect(PUBLIC_PAGE_CSP).toContain("default-src 'none'");
    expect(PUBLIC_PAGE_CSP).not.toContain('script-src');
    const html = res.body;
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('<link rel="icon" href="https://cdn.acme.example/favicon.png">');
    expect(html).toContain('<img class="logo" src="https://cdn.acme.example/logo.png"');
    expect(html).toContain('<img src="https://cdn.acme.example/hero.png" alt="">');
    expect(html).toContain('<p>© Acme Robotics</p>');
    // Without a target, rep tags take the page's assignee and prospect tags are emptied (SPEC.md §5).
    // Tags stored without a fallback show each tag's default, never nothing (issue 42).
    expect(html).toContain('<h1>Hi there, robots that ship</h1>');
    expect(html).toContain('<p>Your rep Jane from Acme Robotics will call your company.</p>');
    // The rep card and the button to the rep's calendar, labelled with landing_button_name.
    expect(html).toContain('<img class="avatar" src="https://cdn.acme.example/jane.png" alt="Jane Cooper"');
    expect(html).toContain('<p class="rep-name">Jane Cooper</p>');
    expect(html).toContain('<p class="rep-role">Account Executive · Acme Robotics</p>');
    // No text is faded: opacity would take the readable ink under WCAG AA contrast (issue 21, ADR 0011).
    expect(html).not.toMatch(/\.(rep-role|site-footer)\{[^}]*opacity/);
    expect(html).toMatch(
      /<a class="btn btn-block"[^>]*href="https:\/\/cal\.example\/jane"[^>]*>Talk to sales<svg/,
    );
    // Colours: the dark background takes white text although black was chosen (SPEC.md §9).
    expect(html).toContain('body{margin:0;background:#0f172a;color:#ffffff;');
  });

  it('?t={token} personalises it for that target (its rep and prospect) and counts a view', async () => {
    const page = await createPage(PAGE);
    const repId = await makeRep(app, acme, { calendarUrl: 'https://cal.example/maya' });
    const cadenceId = await makeCadence(app, acme);
    const target = await makeTarget(app, acme, cadenceId, { repId });
    const res = await get(`${page.public_path}?t=${target.token}`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    const html = res.body;
    expect(html).toContain('<h1>Hi Kendall, robots that ship</h1>');
    expect(html).toContain('<p>Your rep Maya from Acme Robotics will call Brightline Freight.</p>');
    expect(html).toContain('<p class="rep-name">Maya Lindgren</p>');
    expect(html).toContain('<p class="rep-role">Senior SDR · Acme Robotics</p>');
    expect(html).toContain('href="https://cal.example/maya"');
    expect(html).not.toContain('Jane');
    // The rep has no photo: initials, never the page assignee's photo.
    expect(html).toContain('<div class="avatar avatar-initials" aria-hidden="true">ML</div>');
    expect(html).toContain('<meta name="robots" content="noindex, nofollow">');

    const views = async () =>
      (await app.db.select({ views: targets.views }).from(targets).where(eq(targets.id, target.id)))[0]!
        .views;
    expect(await waitFor(async () => (await views()) === 1)).toBe(true);
    // A crawler or a HEAD probe gets the page without a view counted.
    expect(
      (await get(`${page.public_path}?t=${target.token}`, { 'user-agent': 'Googlebot/2.1' })).status,
    ).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(await views()).toBe(1);
  });

  it("a token of another client's target, or an unknown one, is ignored: no personalisation, no view", async () => {
    const page = await createPage(PAGE);
    const repId = await makeRep(app, globex);
    const target = await makeTarget(app, globex, await makeCadence(app, globex), { repId });
    for (const token of [target.token, 'no-such-token']) {
      const res = await get(`${page.public_path}?t=${token}`);
      expect(res.status).toBe(200);
      expect(res.body).toContain('<p class="rep-name">Jane Cooper</p>');
      expect(res.body).not.toContain('Kendall');
    }
    await new Promise((r) => setTimeout(r, 300));
    const [row] = await app.db
      .select({ views: targets.views })
      .from(targets)
      .where(eq(targets.id, target.id));
    expect(row!.views).toBe(0);
  });

  it('answers a repeated request with 304 by ETag; an edit shows within PAGE_CACHE_MS with a new ETag', async () => {
    const page = await createPage(PAGE);
    const first = await get(page.public_path);
    const etag = first.headers.etag ?? '';
    expect(etag).toMatch(/^"[\w-]{32}"$/);
    expect(first.headers['cache-control']).toBe('public, no-cache');
    const again = await get(page.public_path, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    const edited = await owner.patch(`/v1/rest/client/${acme}/landing_page/${page.id}`, {
      colors: { accent: '#ff0000' },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    const started = Date.now();
    const changed = await waitFor(async () => {
      const res = await get(page.public_path, { 'if-none-match': etag });
      return res.status === 200 ? res : null;
    }, 5_000);
    expect(Date.now() - started).toBeLessThan(PAGE_CACHE_MS + 1_000);
    expect(changed.headers.etag).not.toBe(etag);
    expect(changed.body).toContain('border-top:4px solid #ff0000');
    // forgetLandingPage makes an edit show at once on this instance.
    await owner.patch(`/v1/rest/client/${acme}/landing_page/${page.id}`, { colors: { accent: '#00ff00' } });
    forgetLandingPage(app, page.id);
    expect((await get(page.public_path)).body).toContain('border-top:4px solid #00ff00');
  });

  it('unknown, malformed or archived ids are a plain 404 page (also under the CSP)', async () => {
    const archived = await createPage({ ...PAGE, is_archived: true });
    for (const path of [
      archived.public_path,
      `/lp/${uuidToBase58('0f8fad5b-d9cb-469f-a165-70867728950e')}`,
      '/lp/0OIl',
      '/lp/3mJr7AoUXx2Wqd',
      `/lp/${'z'.repeat(40)}`,
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers['content-security-policy']).toBe(PUBLIC_PAGE_CSP);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toContain('<h1>Page not found</h1>');
    }
  });

  it('stored markup that bypassed the API is sanitised again: no script, handler or javascript: URL reaches the page', async () => {
    const corpus = XSS_CORPUS.join('\n');
    const [row] = await app.db
      .insert(landingPages)
      .values({
        clientId: acme,
        name: 'Written straight to the database',
        landingPagePayload: {
          hero_html: corpus,
          content_html: corpus,
          footer_html: corpus,
          hero_img: 'javascript:alert(1)',
          landing_button_name: '<img src=x onerror=alert(1)>',
        },
        sdrImgUrl: 'javascript:alert(1)',
        logoUrl: '" onerror="alert(1)',
        faviconUrl: 'data:text/html,<script>alert(1)</script>',
        colors: { background: '#ffffff', text: '#000000', accent: '#000000' },
        assignee: {
          first_name: '<script>alert(1)</script>',
          last_name: '',
          title: '',
          company_name: '',
          website: '',
          calendar_url: 'javascript:alert(1)',
        },
      })
      .returning();
    const res = await get(`/lp/${uuidToBase58(row!.id)}`);
    expect(res.status).toBe(200);
    const html = res.body;
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    expect(html).not.toMatch(/javascript:/i);
    expect(html).not.toMatch(
      /<(iframe|object|embed|base|meta http-equiv|link rel=stylesheet|form|input|svg onload|math)/i,
    );
    expect(html).not.toMatch(/expression\(/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('GET /{base58} on a custom landing domain (SPEC.md §2 "On a custom landing domain it is also exposed at /{base58}")', () => {
  let page: LandingPage;
  beforeAll(async () => {
    page = await createPage(PAGE);
    await markLandingDomainChecked(app, acme);
    await app.db
      .insert(clientSettings)
      .values({
        clientId: acme,
        colors: { background: '#ffffff', text: '#000000', accent: '#000000' },
        landingPageDomain: LANDING_HOST,
        landingPageDomainVerifiedAt: new Date(),
      })
      .onConflictDoUpdate({
        target: clientSettings.clientId,
        set: { landingPageDomain: LANDING_HOST, landingPageDomainVerifiedAt: new Date() },
      });
  });

  it('serves the page when the Host is the verified domain (any case, with a port)', async () => {
    const path = `/${uuidToBase58(page.id)}`;
    for (const host of [LANDING_HOST, 'GO.Acme.Example:443']) {
      const res = await get(path, { host });
      expect(res.status, host).toBe(200);
      expect(res.headers['content-security-policy']).toBe(PUBLIC_PAGE_CSP);
      expect(res.body).toContain('<p class="rep-name">Jane Cooper</p>');
    }
  });

  it("another client's page on that domain is a 404 page; the main host never serves /{base58}", async () => {
    const theirs = await stranger.post(`/v1/rest/client/${globex}/landing_page`, { name: 'Theirs' });
    expect(theirs.statusCode).toBe(201);
    const foreign = await get(`/${uuidToBase58(theirs.json().id)}`, { host: LANDING_HOST });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toContain('<h1>Page not found</h1>');
    // On the app's own host the path is not a page of ours: the app answers (its 404 shell).
    const main = await get(`/${uuidToBase58(page.id)}`);
    expect(main.status).toBe(404);
    expect(main.body).toContain('<div id="root"></div>');
  });

  it('an unverified or unknown domain does not serve it', async () => {
    await app.db.insert(clientSettings).values({
      clientId: globex,
      colors: { background: '#ffffff', text: '#000000', accent: '#000000' },
      landingPageDomain: 'go.globex.example',
    });
    for (const host of ['go.globex.example', 'unknown.example', '127.0.0.1']) {
      const res = await get(`/${uuidToBase58(page.id)}`, { host });
      expect(res.status, host).toBe(404);
      expect(res.body, host).toContain('<div id="root"></div>');
    }
  });

  it("the app's own routes are untouched on every host", async () => {
    for (const host of [MAIN_HOST, LANDING_HOST]) {
      const feed = await get('/feed', { host });
      expect(feed.status, host).toBe(200);
      expect(feed.body).toContain('<div id="root"></div>');
      expect((await get('/healthz', { host })).body).toBe('{"status":"ok"}');
      expect((await get('/login', { host })).status).toBe(200);
    }
  });
});

describe('GET /content/preview/{base58}/{resolution} (SPEC.md §2 "Content preview, empty layout")', () => {
  let contentId: string;
  let short: string;
  beforeAll(async () => {
    contentId = await makeContent(app, acme, { title: 'Spring &amp; summer' });
    short = uuidToBase58(contentId);
  });

  it('shows a member the ad at that size as a page embedding the PNG', async () => {
    const res = await get(`/content/preview/${short}/1200x628`, cookieOf(owner));
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toBe(PUBLIC_PAGE_CSP);
    expect(res.body).toContain('<title>Rally - Content preview</title>');
    expect(res.body).toContain(`<img src="/content/preview/${short}/1200x628.png" width="1200" height="628"`);
    expect(res.body).toContain('<span class="name">Spring &amp; summer</span>');
    for (const size of AD_SIZES) expect(res.body).toContain(`href="/content/preview/${short}/${size}"`);
    // Empty layout: no header or footer elements.
    expect(res.body).not.toMatch(/<header|<footer/);
  });

  it('the e-mail rendition (decision 0020): shown at 600 × 300, its PNG 1200 × 600 pixels', async () => {
    const page = await get(`/content/preview/${short}/email`, cookieOf(owner));
    expect(page.status).toBe(200);
    expect(page.body).toContain(`<img src="/content/preview/${short}/email.png" width="600" height="300"`);
    expect(page.body).toContain('600 × 300 in an e-mail (1200 × 600 px)');
    expect(page.body).toContain(`href="/content/preview/${short}/email" aria-current="page">E-mail</a>`);
    const res = await get(`/content/preview/${short}/email.png`, cookieOf(owner));
    expect(res.status).toBe(200);
    expect([res.bytes.readUInt32BE(16), res.bytes.readUInt32BE(20)]).toEqual([1200, 600]);
  });

  it('.png is the PNG of exactly that size, the same bytes adImageFor gives the engine, rendered once', async () => {
    const renderer = creativeOf(app).renderer;
    // memory:// data folders share one disk cache in the temp dir, so a PNG may come from disk.
    const produced = () => renderer.stats.renders + renderer.stats.diskHits;
    for (const size of AD_SIZES) {
      const before = produced();
      const hits = renderer.stats.memoryHits;
      const res = await get(`/content/preview/${short}/${size}.png`, cookieOf(owner));
      expect(res.status, size).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      const [width, height] = size.split('x').map(Number);
      expect([res.bytes.readUInt32BE(16), res.bytes.readUInt32BE(20)]).toEqual([width, height]);
      const ad = await adImageFor(app, { contentId, size });
      expect(ad?.png.equals(res.bytes)).toBe(true);
      expect(produced()).toBe(before + 1);
      expect(renderer.stats.memoryHits, `${size} ${JSON.stringify(renderer.stats)}`).toBe(hits + 1);
      const again = await get(`/content/preview/${short}/${size}.png`, {
        ...cookieOf(owner),
        'if-none-match': res.headers.etag ?? '',
      });
      expect(again.status).toBe(304);
    }
  });

  it('a changed ad is a new image (new ETag), and a target gets its rep and prospect', async () => {
    const first = await get(`/content/preview/${short}/300x250.png`, cookieOf(owner));
    await app.db
      .update(content)
      .set({
        imageText:
          'Hi &lt;span data-id="prospect_first_name"&gt;x&lt;/span&gt;, meet &lt;span data-id="first_name"&gt;y&lt;/span&gt;',
      })
      .where(eq(content.id, contentId));
    const second = await get(`/content/preview/${short}/300x250.png`, cookieOf(owner));
    expect(second.headers.etag).not.toBe(first.headers.etag);
    expect(second.bytes.equals(first.bytes)).toBe(false);

    const [row] = await app.db.select().from(content).where(eq(content.id, contentId));
    const brand = await creativeOf(app).brand(acme);
    const target = {
      rep: {
        firstName: 'Maya',
        lastName: 'Lindgren',
        title: 'Senior SDR',
        companyName: 'Acme',
        calendarUrl: '',
        photoUrl: null,
      },
      prospect: { firstName: 'Kendall', lastName: 'Ellery', companyName: 'Brightline Freight' },
    };
    expect(adInputFor(row!, '300x250', brand).imageText).toBe('Hi there, meet our team');
    const input = adInputFor(row!, '300x250', brand, target);
    expect(input.imageText).toBe('Hi Kendall, meet Maya');
    expect(input.assignee).toMatchObject({ first_name: 'Maya', last_name: 'Lindgren', title: 'Senior SDR' });
    const personal = await adImageFor(app, { content: row!, size: '300x250', target });
    expect(personal?.png.equals(second.bytes)).toBe(false);
  });

  it('is for members only: another client gets the 404 page, a visitor without a session the app (which asks to sign in)', async () => {
    const foreign = await get(`/content/preview/${short}/1200x628`, cookieOf(stranger));
    expect(foreign.status).toBe(404);
    expect(foreign.body).toContain('<title>Rally - Content preview</title>');
    expect((await get(`/content/preview/${short}/1200x628.png`, cookieOf(stranger))).status).toBe(404);
    const anonymous = await get(`/content/preview/${short}/1200x628`);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toContain('<div id="root"></div>');
    expect((await get(`/content/preview/${short}/1200x628.png`)).status).toBe(401);
    for (const path of [
      `/content/preview/${short}/640x480`,
      `/content/preview/${short}/640x480.png`,
      '/content/preview/nope/300x250',
    ]) {
      expect((await get(path, cookieOf(owner))).status, path).toBe(404);
    }
  });
});

describe('GET /lp/preview (SPEC.md §2 "/lp/preview | Empty layout")', () => {
  it('shows a member the layout with placeholder content, in the brand of a client of theirs', async () => {
    await app.db
      .update(clientSettings)
      .set({ logoUrl: 'https://cdn.acme.example/brand-logo.png', landingButtonName: 'Say hello' })
      .where(eq(clientSettings.clientId, acme));
    const res = await get(`/lp/preview?client_id=${acme}`, cookieOf(owner));
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toBe(PUBLIC_PAGE_CSP);
    expect(res.body).toContain('<title>Rally - Landing page preview</title>');
    expect(res.body).toContain('A headline that speaks to your prospect');
    expect(res.body).toContain('src="https://cdn.acme.example/brand-logo.png"');
    expect(res.body).toContain('>Say hello<svg');
    expect(res.body).not.toMatch(/<header|<footer|<script/);
    // Not a member of Acme: the neutral placeholder.
    const theirs = await get(`/lp/preview?client_id=${acme}`, cookieOf(stranger));
    expect(theirs.body).not.toContain('brand-logo.png');
  });

  it('without a session the app answers (its guard sends the visitor to sign in)', async () => {
    const res = await get('/lp/preview');
    expect(res.status).toBe(200);
    expect(res.body).toContain('<div id="root"></div>');
  });
});

describe('Content-Security-Policy (issue 20: strict on every page, never unsafe-eval)', () => {
  /** The policy's directives, name → sources. */
  const directives = (csp: string | string[] | undefined) =>
    new Map(
      String(csp)
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .filter((d) => d[0])
        .map(([name, ...sources]) => [name!.toLowerCase(), sources]),
    );
  const SCRIPT_DIRECTIVES = ['script-src', 'script-src-elem', 'script-src-attr'];

  it('a public page, a preview and the 404 page allow no script at all (default-src none, no script source)', async () => {
    const page = await createPage(PAGE);
    const contentId = await makeContent(app, acme, { title: 'Policy' });
    const pages: [string, Record<string, string>][] = [
      [page.public_path, {}],
      [`/lp/${uuidToBase58('0f8fad5b-d9cb-469f-a165-70867728950e')}`, {}],
      [`/lp/preview?client_id=${acme}`, cookieOf(owner)],
      [`/content/preview/${uuidToBase58(contentId)}/300x250`, cookieOf(owner)],
    ];
    for (const [path, headers] of pages) {
      const res = await get(path, headers);
      expect(res.headers['content-type'], path).toBe('text/html; charset=utf-8');
      const csp = String(res.headers['content-security-policy']);
      expect(csp, path).not.toContain("'unsafe-eval'");
      const policy = directives(csp);
      expect(policy.get('default-src'), path).toEqual(["'none'"]);
      for (const name of SCRIPT_DIRECTIVES) expect(policy.has(name), `${path}: ${name}`).toBe(false);
      expect(policy.get('base-uri'), path).toEqual(["'none'"]);
      expect(policy.get('form-action'), path).toEqual(["'none'"]);
    }
  });

  it("the app's pages run only the app's own files: no eval, no inline script or handler", async () => {
    for (const path of ['/login', '/feed', '/embed/reports']) {
      const res = await get(path);
      const csp = String(res.headers['content-security-policy']);
      expect(csp, path).not.toContain("'unsafe-eval'");
      const policy = directives(csp);
      expect(policy.get('script-src'), path).toContain("'self'");
      for (const name of SCRIPT_DIRECTIVES) {
        for (const source of policy.get(name) ?? []) {
          // 'self', https origins of the card provider and tag manager, or 'none'.
          expect(source, `${path}: ${name}`).toMatch(/^('self'|'none'|https:\/\/[a-z0-9.-]+)$/);
        }
      }
      expect(policy.get('script-src-attr'), path).toEqual(["'none'"]);
      expect(policy.get('object-src'), path).toEqual(["'none'"]);
    }
  });
});
