import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { count, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrations, samlConfigs, ssoConfigs } from '../db/schema/index.ts';
import { createTestApp } from '../../test/helpers.ts';
import type { Browser } from '../../test/http.ts';
import { makeClient, signedIn } from '../../test/http.ts';

/**
 * Issue 20 item 3 at the routes: with ALLOW_PRIVATE_FETCH off (the production default), a URL a
 * user gives that points inside (an ad picture, an SSO issuer, a Marketo base URL) is answered at
 * once with a 422 naming the field: never fetched, never stored, never a 10 s hang or a 500.
 */
let app: FastifyInstance;
let acme: string;
let owner: Browser;
let silent: http.Server;
let port: number;
let hits = 0;

beforeAll(async () => {
  // A loopback server that never answers: were it reached, the request would hang.
  silent = http.createServer(() => {
    hits++;
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  port = (silent.address() as AddressInfo).port;
  app = await createTestApp({ env: { ALLOW_PRIVATE_FETCH: 'false' } });
  acme = await makeClient(app, 'Acme');
  ({ browser: owner } = await signedIn(app, { [acme]: 'purple_owner' }));
});
afterAll(async () => {
  silent.closeAllConnections();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
});

const loopbackForms = () => [
  `http://127.0.0.1:${port}`,
  `http://localhost:${port}`,
  `http://[::1]:${port}`,
  `http://[::ffff:127.0.0.1]:${port}`,
  `http://[::ffff:7f00:1]:${port}`,
  `http://[::127.0.0.1]:${port}`,
  `http://[64:ff9b::7f00:1]:${port}`,
  `http://2130706433:${port}`,
  `http://0x7f.1:${port}`,
  `http://127.1:${port}`,
  `http://0.0.0.0:${port}`,
  'http://169.254.169.254',
  'http://[fd00:ec2::254]',
];

describe('server-side fetches of user-given URLs with ALLOW_PRIVATE_FETCH off', () => {
  it('PUT /v1/rest/client/{id}/saml: an internal metadata URL is 422 body.metadata_url, not fetched or stored', async () => {
    for (const url of loopbackForms()) {
      const res = await owner.put(`/v1/rest/client/${acme}/saml`, {
        enabled: true,
        metadata_url: url,
        name_id_format: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
        jit_enabled: false,
        jit_role: 'grey_viewer',
        idp_initiated: false,
      });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(422);
      expect(res.json().errors[0].field, url).toBe('body.metadata_url');
    }
    expect(hits).toBe(0);
    expect(await app.db.select().from(samlConfigs).where(eq(samlConfigs.clientId, acme))).toEqual([]);
  });

  it('PUT /v1/rest/client/{id}/sso: an internal issuer is 422 body.issuer at once, not fetched or stored', async () => {
    for (const issuer of loopbackForms()) {
      const started = Date.now();
      const res = await owner.put(`/v1/rest/client/${acme}/sso`, {
        issuer,
        client_id: 'acme-sso',
        client_secret: 'acme-sso-secret',
        enabled: true,
      });
      expect(res.statusCode, `${issuer}: ${res.body}`).toBe(422);
      expect(res.json().errors[0], issuer).toMatchObject({
        field: 'body.issuer',
        // Refused by the guard, or already by the schema (plain http only for loopback hosts).
        message: expect.stringMatching(/public internet address|must start with https/),
      });
      expect(Date.now() - started, issuer).toBeLessThan(2000);
    }
    expect(hits).toBe(0);
    const [stored] = await app.db
      .select({ n: count() })
      .from(ssoConfigs)
      .where(eq(ssoConfigs.clientId, acme));
    expect(stored!.n).toBe(0);
  });

  it('POST /sc/content/render: an internal picture URL is 422 body.sdr_img_url, not fetched', async () => {
    for (const base of loopbackForms()) {
      const res = await owner.post('/sc/content/render?size=300x250', {
        template_id: 1,
        title: 'Robots that ship',
        image_text: 'Pick twice as fast',
        colors: { background: '#111827', text: '#ffffff', accent: '#f97316' },
        sdr_img_url: `${base}/photo.png`,
      });
      expect(res.statusCode, `${base}: ${res.body}`).toBe(422);
      expect(res.json().errors[0].field).toBe('body.sdr_img_url');
    }
    expect(hits).toBe(0);
  });

  it('Marketo: the REST base URL must be https://<Munchkin ID>.mktorest.com (422 body.rest_base_url), nothing stored', async () => {
    for (const rest of [
      `http://127.0.0.1:${port}/rest`,
      `https://localhost:${port}/rest`,
      'https://169.254.169.254/rest',
      'https://evil.example.com/rest',
      'http://123-ABC-456.mktorest.com/rest',
      'https://123-ABC-456.mktorest.com:8443/rest',
      'https://123-abc-456.mktorest.com.evil.example/rest',
    ]) {
      const res = await owner.post(`/v1/integration/crm/marketo/client/${acme}/connection`, {
        client_id: 'id',
        client_secret: 'secret',
        rest_base_url: rest,
      });
      expect(res.statusCode, `${rest}: ${res.body}`).toBe(422);
      expect(res.json().errors[0].field).toBe('body.rest_base_url');
    }
    expect(hits).toBe(0);
    const [stored] = await app.db
      .select({ n: count() })
      .from(integrations)
      .where(eq(integrations.clientId, acme));
    expect(stored!.n).toBe(0);
  });

  it('a silent issuer (private addresses allowed, as in development) is a 422 after 5 s, not a 10 s hang', async () => {
    const dev = await createTestApp({ env: { ALLOW_PRIVATE_FETCH: 'true' } });
    const client = await makeClient(dev, 'Dev');
    const { browser } = await signedIn(dev, { [client]: 'purple_owner' });
    const started = Date.now();
    const res = await browser.put(`/v1/rest/client/${client}/sso`, {
      issuer: `http://127.0.0.1:${port}`,
      client_id: 'dev-sso',
      client_secret: 'dev-sso-secret',
      enabled: true,
    });
    const took = Date.now() - started;
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors[0].field).toBe('body.issuer');
    expect(took).toBeGreaterThanOrEqual(4500);
    expect(took).toBeLessThan(8000);
  }, 30_000);
});
