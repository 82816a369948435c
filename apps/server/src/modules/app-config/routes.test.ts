import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config/env.ts';
import { createTestApp } from '../../../test/helpers.ts';

type Received = { method: string; url: string; headers: IncomingHttpHeaders; body: string };

/** A stand-in for the analytics provider on loopback: keeps each request, answers like a capture. */
async function startFakeUpstream(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 1, upstream: true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received };
}

describe('GET /v1/api/config', () => {
  it('reports every add-on as off by default, and the CSP allows no third-party script', async () => {
    const app = await createTestApp();
    const res = await app.inject('/v1/api/config');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      analytics: null,
      gtm_id: null,
      stripe_publishable_key: null,
      sign_in: { google: false, microsoft: false },
      connect: {
        salesloft: false,
        outreach: false,
        salesforce: false,
        hubspot: false,
        meta: false,
        linkedin: false,
        google_ads: false,
      },
    });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('googletagmanager');
    expect(csp).not.toContain('js.stripe.com');
    expect((await app.inject({ method: 'POST', url: '/ingest/ph/e/', payload: {} })).statusCode).toBe(404);
  });

  it('reports the configured keys, with analytics on the same-origin proxy path', async () => {
    const app = await createTestApp({
      env: { POSTHOG_KEY: 'phc_test', GTM_ID: 'GTM-ABC123', STRIPE_PUBLISHABLE_KEY: 'pk_test_123' },
    });
    const res = await app.inject('/v1/api/config');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      analytics: { key: 'phc_test', api_host: '/ingest/ph' },
      gtm_id: 'GTM-ABC123',
      stripe_publishable_key: 'pk_test_123',
      sign_in: { google: false, microsoft: false },
      connect: {
        salesloft: false,
        outreach: false,
        salesforce: false,
        hubspot: false,
        meta: false,
        linkedin: false,
        google_ads: false,
      },
    });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'self' https:\/\/www\.googletagmanager\.com https:\/\/js\.stripe\.com/);
    expect(csp).toMatch(/frame-src 'self' https:\/\/js\.stripe\.com/);
  });
});

describe('what this installation offers (issue 42 item 3)', () => {
  it('says which sign-in providers and vendor connections are set up, as booleans only', async () => {
    const app = await createTestApp({
      env: {
        GOOGLE_CLIENT_ID: 'google-id',
        GOOGLE_CLIENT_SECRET: 'google-secret',
        GOOGLE_ISSUER: 'https://accounts.google.com',
        HUBSPOT_CLIENT_ID: 'hub-id',
        HUBSPOT_CLIENT_SECRET: 'hub-secret',
        LINKEDIN_CLIENT_ID: 'li-id',
        LINKEDIN_CLIENT_SECRET: 'li-secret',
        GOOGLE_ADS_CLIENT_ID: 'gads-id',
        GOOGLE_ADS_CLIENT_SECRET: 'gads-secret',
        GOOGLE_ADS_DEVELOPER_TOKEN: 'gads-token',
      },
    });
    const res = await app.inject('/v1/api/config');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.sign_in).toEqual({ google: true, microsoft: false });
    expect(body.connect).toEqual({
      salesloft: false,
      outreach: false,
      salesforce: false,
      hubspot: true,
      meta: false,
      linkedin: true,
      google_ads: true,
    });
    expect(res.body).not.toContain('secret');
    expect(res.body).not.toContain('hub-id');
    expect(res.body).not.toContain('li-id');
    expect(res.body).not.toContain('gads-');
  });
});

describe('add-on configuration', () => {
  it('rejects a malformed GTM_ID, naming the variable', () => {
    for (const GTM_ID of ['GTM-abc', 'GT-123', 'GTM-']) {
      expect(() => loadConfig({ GTM_ID, DATA_DIR: 'memory://' })).toThrow(ConfigError);
      expect(() => loadConfig({ GTM_ID, DATA_DIR: 'memory://' })).toThrow(
        /GTM_ID: must be GTM- followed by uppercase letters and digits/,
      );
    }
  });

  it('rejects a Stripe key that is not publishable and a POSTHOG_HOST that is not a URL', () => {
    expect(() => loadConfig({ STRIPE_PUBLISHABLE_KEY: 'sk_live_x', DATA_DIR: 'memory://' })).toThrow(
      /STRIPE_PUBLISHABLE_KEY: must start with pk_/,
    );
    expect(() => loadConfig({ POSTHOG_HOST: 'not a url', DATA_DIR: 'memory://' })).toThrow(/POSTHOG_HOST/);
  });
});

describe('analytics proxy /ingest/ph', () => {
  it('forwards a POST body to POSTHOG_HOST without our cookies and returns its reply', async () => {
    const upstream = await startFakeUpstream();
    const app = await createTestApp({ env: { POSTHOG_KEY: 'phc_test', POSTHOG_HOST: upstream.url } });
    const payload = JSON.stringify({ api_key: 'phc_test', event: '$pageview', properties: { x: 1 } });
    const res = await app.inject({
      method: 'POST',
      url: '/ingest/ph/e/?ver=1',
      headers: { 'content-type': 'application/json', cookie: 'rally_auth_token=secret' },
      payload,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 1, upstream: true });
    expect(upstream.received).toHaveLength(1);
    const [got] = upstream.received;
    expect(got!.method).toBe('POST');
    expect(got!.url).toBe('/e/?ver=1');
    expect(got!.body).toBe(payload);
    expect(got!.headers.cookie).toBeUndefined();
    expect(got!.headers.host).toBe(new URL(upstream.url).host);
  });
});
