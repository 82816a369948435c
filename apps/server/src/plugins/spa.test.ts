import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../test/helpers.ts';

describe('serving the single-page app', async () => {
  const app = await createTestApp();

  it.each([
    '/',
    '/login',
    '/feed',
    '/cadence/42',
    '/settings/integrations/hubspot/fields',
    // Server-rendered for a signed-in member; without a session the app answers (and asks to sign in).
    '/lp/preview',
    '/content/preview/3mJr7AoUXx2Wqd/1080x1080',
    '/legal/terms',
  ])('answers the known route %s with the app shell and 200', async (url) => {
    const res = await app.inject(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain('<div id="root"></div>');
  });

  it('"Route not found | Page \'Page not found\', status 404": unknown paths get the shell with 404', async () => {
    for (const url of ['/no-such-page', '/cadence/1/2', '/settings/nope']) {
      const res = await app.inject(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body).toContain('<div id="root"></div>');
    }
  });

  it('caches hashed assets for a year and never caches latest-build', async () => {
    const asset = await app.inject('/assets/index-abc123.js');
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const build = await app.inject('/latest-build');
    expect(build.statusCode).toBe(200);
    expect(build.headers['cache-control']).toBe('no-cache');
    expect(build.body.trim()).toBe('build-1');
  });

  it("sends the build's precompressed copy of an asset to a client that accepts its encoding", async () => {
    const plain = await app.inject('/assets/index-abc123.js');
    const br = await app.inject({
      url: '/assets/index-abc123.js',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
    const gz = await app.inject({ url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
  });

  it('a missing file is a plain 404, not the app shell', async () => {
    const res = await app.inject('/assets/index-stale999.js');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ message: 'Not found: GET /assets/index-stale999.js' });
  });

  it('unknown API paths are JSON 404s under each base', async () => {
    for (const url of ['/v1/nope', '/sc/nope', '/biller/nope']) {
      const res = await app.inject(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ message: `Not found: GET ${url}` });
    }
    const post = await app.inject({ method: 'POST', url: '/feed' });
    expect(post.statusCode).toBe(404);
    expect(post.json()).toEqual({ message: 'Not found: POST /feed' });
  });

  it('lets other sites frame an embedded report link only; every other page stays unframeable', async () => {
    const embed = await app.inject('/embed/reports');
    expect(embed.statusCode).toBe(200);
    expect(embed.headers['x-frame-options']).toBeUndefined();
    const csp = String(embed.headers['content-security-policy']);
    expect(csp).toContain('frame-ancestors *');
    expect(csp).not.toContain("frame-ancestors 'self'");
    expect(csp).toContain("default-src 'self'");
    for (const url of ['/reports', '/login', '/embed/reports/extra', '/no-such-page']) {
      const res = await app.inject(url);
      expect(res.headers['x-frame-options'], url).toBe('SAMEORIGIN');
      expect(String(res.headers['content-security-policy']), url).toContain("frame-ancestors 'self'");
    }
    // The API the page calls is not a page: it is never framed either.
    const api = await app.inject('/v1/rest/reports/embedded');
    expect(api.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  it('sends security headers', async () => {
    const res = await app.inject('/login');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('when the web app is not built', () => {
  it('serves a notice that says how to build it', async () => {
    const app = await createTestApp({ env: { WEB_DIST: '/nonexistent/rally-dist' } });
    const res = await app.inject('/login');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('npm run build');
  });
});
