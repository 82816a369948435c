import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { integrations } from '../../../../db/schema/index.ts';
import { createTestApp, queuesIdle, waitFor } from '../../../../../test/helpers.ts';
import { CRM_SYNC_JOB } from '../../sync.ts';
import { AD_FIELDS_JOB } from '../../../ad-fields/writer.ts';
import type { Browser } from '../../../../../test/http.ts';
import { makeClient, signedIn } from '../../../../../test/http.ts';
import { smallOrg, startFakeSalesforce } from '../../../../../test/fakes/salesforce.ts';
import type { FakeSalesforce } from '../../../../../test/fakes/salesforce.ts';
import { createSecretBox } from '../../../../lib/crypto.ts';
import type { Credentials } from '../../port.ts';
import { myDomainOrigin } from './login-host.ts';

/**
 * Issue 40 item 2: connecting Salesforce where the org or app requires PKCE, and logging in where
 * the org does — production, a sandbox or its My Domain — chosen per connection. Three fakes share
 * one connected app: production (SALESFORCE_AUTH_URL), sandbox (SALESFORCE_SANDBOX_AUTH_URL) and a
 * My Domain, the last standing in for https://acme.my.salesforce.com (`loginOrigins`).
 */
const PUBLIC_URL = 'http://localhost:3997';
const MY_DOMAIN = 'https://acme.my.salesforce.com';
const APP = { clientId: '3MVG9fakeLoginHosts', clientSecret: 'fake-secret-login-hosts' };
let app: FastifyInstance;
let prod: FakeSalesforce;
let sandbox: FakeSalesforce;
let myDomain: FakeSalesforce;
let clientId: string;
let other: string;
let owner: Browser;
let sdr: Browser;

beforeAll(async () => {
  [prod, sandbox, myDomain] = await Promise.all([
    startFakeSalesforce({ app: APP, seed: smallOrg(), requirePkce: true }),
    startFakeSalesforce({ app: APP, seed: smallOrg(), requirePkce: true }),
    startFakeSalesforce({ app: APP, seed: smallOrg() }),
  ]);
  app = await createTestApp({
    env: {
      PUBLIC_URL,
      SALESFORCE_CLIENT_ID: APP.clientId,
      SALESFORCE_CLIENT_SECRET: APP.clientSecret,
      SALESFORCE_AUTH_URL: prod.authUrl,
      SALESFORCE_SANDBOX_AUTH_URL: sandbox.authUrl,
      HUBSPOT_CLIENT_ID: 'hubspot-app',
      HUBSPOT_CLIENT_SECRET: 'hubspot-secret',
    },
    adapters: {
      retry: { baseDelayMs: 1, maxDelayMs: 5, sleep: async () => {} },
      loginOrigins: { [MY_DOMAIN]: myDomain.authUrl },
    },
  });
  clientId = await makeClient(app, 'Acme');
  other = await makeClient(app, 'Other');
  owner = (await signedIn(app, { [clientId]: 'purple_owner', [other]: 'purple_owner' })).browser;
  sdr = (await signedIn(app, { [clientId]: 'yellow_sdr' })).browser;
});
afterAll(async () => {
  await Promise.all([prod?.close(), sandbox?.close(), myDomain?.close()]);
});

const connectionOf = async () =>
  (
    await app.db
      .select()
      .from(integrations)
      .where(and(eq(integrations.clientId, clientId), eq(integrations.source, 'salesforce')))
  )[0];
const credentials = async () =>
  JSON.parse(
    createSecretBox(app.config.appSecret).decrypt((await connectionOf())!.credentialsEnc!),
  ) as Credentials;
const redirect = (query: string, browser = owner, client = clientId) =>
  browser.get(`/v1/integration/crm/salesforce/client/${client}/redirect?return_to=integration${query}`, {
    clientId: client,
  });

/** Our redirect, the consent at `consentAt` (the fake answering for the login host), our callback. */
async function connect(query: string, loginOrigin: string, consentAt: string) {
  const start = await redirect(query);
  expect(start.statusCode).toBe(200);
  const url = new URL(start.json().redirect_url);
  expect(`${url.origin}${url.pathname}`).toBe(`${loginOrigin}/services/oauth2/authorize`);
  const consent = await fetch(`${consentAt}${url.pathname}${url.search}`, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.get('location')!);
  const done = await owner.get(`${back.pathname}${back.search}`, { clientId: null });
  expect(done.statusCode).toBe(302);
  return { url, done: done.headers.location as string };
}

const oauthCalls = (fake: FakeSalesforce) =>
  fake.requests.filter((r) => r.path.startsWith('/services/oauth2/')).map((r) => `${r.method} ${r.path}`);

describe('Salesforce login: PKCE and the login host (issue 40 item 2)', () => {
  it('connects where PKCE is required: an S256 challenge on consent, the verifier on the token call', async () => {
    const { url, done } = await connect('', prod.authUrl, prod.authUrl);
    // Before: no code_challenge, and the org sent the browser back with "missing required code challenge".
    expect(done).toBe(`/settings/integrations/salesforce?client_id=${clientId}&connected=salesforce`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The verifier never goes to the browser: not in the consent URL, not in the state.
    const state = Buffer.from(url.searchParams.get('state')!.split('.')[0]!, 'base64url').toString();
    expect(state).not.toMatch(/verifier|challenge/);
    expect(oauthCalls(prod)).toEqual(['GET /services/oauth2/authorize', 'POST /services/oauth2/token']);
    expect((await connectionOf())?.isActive).toBe(true);
  });

  it('a consent without a challenge comes back refused, and the owner is told why', async () => {
    const start = await redirect('');
    const url = new URL(start.json().redirect_url);
    url.searchParams.delete('code_challenge');
    const refused = await fetch(url, { redirect: 'manual' });
    const back = new URL(refused.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toBe('missing required code challenge');
    const done = await owner.get(`${back.pathname}${back.search}`, { clientId: null });
    const said = new URL(done.headers.location as string, PUBLIC_URL).searchParams.get('connect_error');
    expect(said).toBe('Salesforce did not grant access (invalid_request: missing required code challenge).');
  });

  it('a sandbox logs in at the sandbox host: consent, token exchange, refresh and revocation go there', async () => {
    prod.clearRequests();
    const connectedAt = new Date();
    const { done } = await connect('&login=sandbox', sandbox.authUrl, sandbox.authUrl);
    expect(done).toContain('connected=salesforce');
    expect(oauthCalls(prod)).toEqual([]);
    expect(await credentials()).toMatchObject({ loginUrl: sandbox.authUrl, instanceUrl: sandbox.authUrl });
    // The row is the one production's connection left: wait for this connection's own first sync.
    const syncedSince = (t: Date) =>
      waitFor(async () => {
        const i = await connectionOf();
        return i && !i.isSyncing && i.lastSyncedAt && i.lastSyncedAt >= t ? i : null;
      });
    await syncedSince(connectedAt);
    // A refresh goes to the sandbox's login host too (production would refuse the token).
    sandbox.clearRequests();
    sandbox.expireSessions();
    const syncAt = new Date();
    const synced = await owner.post(
      `/v1/integration/crm/salesforce/client/${clientId}/settings`,
      { sync_now: true },
      { clientId },
    );
    expect(synced.statusCode).toBe(200);
    await syncedSince(syncAt);
    expect(oauthCalls(sandbox)).toContain('POST /services/oauth2/token');
    expect((await connectionOf())?.lastError).toBeNull();
    const gone = await owner.delete(`/v1/integration/crm/salesforce/client/${clientId}/settings`, undefined, {
      clientId,
    });
    expect(gone.statusCode).toBe(204);
    expect(oauthCalls(sandbox)).toContain('POST /services/oauth2/revoke');
    expect(oauthCalls(prod)).toEqual([]);
  });

  it('a My Domain org logs in at its own host: the browser goes to https://<name>.my.salesforce.com, the token call too', async () => {
    // A sync or ad-field job the sandbox connection queued may still be refreshing its token there.
    await queuesIdle(app, [CRM_SYNC_JOB, AD_FIELDS_JOB]);
    prod.clearRequests();
    sandbox.clearRequests();
    const { done } = await connect(
      `&login=my_domain&my_domain=${encodeURIComponent('Acme.my.salesforce.com')}`,
      MY_DOMAIN,
      myDomain.authUrl,
    );
    expect(done).toContain('connected=salesforce');
    expect(oauthCalls(myDomain)).toEqual(['GET /services/oauth2/authorize', 'POST /services/oauth2/token']);
    expect(oauthCalls(prod)).toEqual([]);
    expect(oauthCalls(sandbox)).toEqual([]);
    expect(await credentials()).toMatchObject({ loginUrl: MY_DOMAIN });
  });

  it('a host that is not a My Domain is 422 naming the field; no flow starts', async () => {
    const bad = [
      'evil.example.com',
      'https://acme.my.salesforce.com.evil.example',
      'http://acme.my.salesforce.com',
      'https://acme.my.salesforce.com:8443',
      'https://user@acme.my.salesforce.com',
      'https://acme.my.salesforce.com/services',
      'https://127.0.0.1',
      '',
    ];
    for (const host of bad) {
      const res = await redirect(`&login=my_domain&my_domain=${encodeURIComponent(host)}`);
      expect(res.statusCode, host).toBe(422);
      expect(res.json().errors[0].field, host).toBe('querystring.my_domain');
      expect(res.headers['set-cookie'], host).toBeUndefined();
    }
    const missing = await redirect('&login=my_domain');
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors[0].field).toBe('querystring.my_domain');
    const login = await redirect('&login=staging');
    expect(login.statusCode).toBe(422);
    expect(login.json().errors[0].field).toBe('querystring.login');
    const hubspot = await owner.get(`/v1/integration/crm/hubspot/client/${clientId}/redirect?login=sandbox`, {
      clientId,
    });
    expect(hubspot.statusCode).toBe(422);
    expect(hubspot.json().errors[0].field).toBe('querystring.login');
  });

  it('needs integration.write and the client of the session', async () => {
    expect((await redirect('&login=sandbox', sdr)).statusCode).toBe(403);
    const foreign = await sdr.get(`/v1/integration/crm/salesforce/client/${other}/redirect?login=sandbox`, {
      clientId: other,
    });
    expect(foreign.statusCode).toBe(403);
  });

  it('reads a My Domain as typed: the name alone, the host, or its URL', () => {
    expect(myDomainOrigin('acme')).toBe(MY_DOMAIN);
    expect(myDomainOrigin(' https://ACME.my.salesforce.com/ ')).toBe(MY_DOMAIN);
    expect(myDomainOrigin('acme--uat.sandbox.my.salesforce.com')).toBe(
      'https://acme--uat.sandbox.my.salesforce.com',
    );
    expect(myDomainOrigin('acme.lightning.force.com')).toBeNull();
    expect(myDomainOrigin('-acme.my.salesforce.com')).toBeNull();
  });
});
