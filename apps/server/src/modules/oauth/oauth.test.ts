import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../lib/crypto.ts';
import { Secret, TOTP } from 'otpauth';
import { ssoConfigs, users } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser, makeClient, makeUser, signedIn } from '../../../test/http.ts';
import { startOidcProvider } from '../../../test/oidc-provider.ts';
import type { TestOidcProvider } from '../../../test/oidc-provider.ts';

/** A free loopback port: the app's PUBLIC_URL (and so its redirect URIs) must be known before it starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

type StoredCookie = { value: string; path: string };

/**
 * A browser over real HTTP: follows redirects one by one and keeps cookies per origin and path, so a
 * test walks app → provider → login → app exactly as a user's browser would.
 */
class HttpBrowser {
  private readonly jar = new Map<string, Map<string, StoredCookie>>();

  cookie(origin: string, name: string): string | undefined {
    return this.jar.get(origin)?.get(name)?.value;
  }

  async get(url: string | URL): Promise<Response> {
    const u = new URL(url);
    const cookies = [...(this.jar.get(u.origin) ?? new Map<string, StoredCookie>())]
      .filter(([, c]) => c.path === '/' || u.pathname === c.path || u.pathname.startsWith(`${c.path}/`))
      .map(([name, c]) => `${name}=${c.value}`);
    const res = await fetch(u, {
      redirect: 'manual',
      headers: cookies.length ? { cookie: cookies.join('; ') } : {},
    });
    for (const line of res.headers.getSetCookie()) this.store(u.origin, line);
    return res;
  }

  /** A write as the app's script makes it: a CSRF token first, then the JSON body with that token. */
  async post(url: string | URL, body: unknown): Promise<Response> {
    const u = new URL(url);
    const csrf = (await this.get(`${u.origin}/v1/api/auth/csrf`)).headers.get('x-xsrf-token') ?? '';
    const cookies = [...(this.jar.get(u.origin) ?? new Map<string, StoredCookie>())]
      .filter(([, c]) => c.path === '/' || u.pathname === c.path || u.pathname.startsWith(`${c.path}/`))
      .map(([name, c]) => `${name}=${c.value}`);
    const res = await fetch(u, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/json', 'x-xsrf-token': csrf, cookie: cookies.join('; ') },
      body: JSON.stringify(body),
    });
    for (const line of res.headers.getSetCookie()) this.store(u.origin, line);
    return res;
  }

  /** Follows redirects from `url` until `stop` says so or a page answers; returns where it ended. */
  async navigate(
    url: string | URL,
    stop: (u: URL) => boolean = () => false,
  ): Promise<{ url: URL; res?: Response }> {
    let at = new URL(url);
    for (let hop = 0; hop < 20; hop++) {
      if (stop(at)) return { url: at };
      const res = await this.get(at);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { url: at, res };
      at = new URL(location, at);
    }
    throw new Error('too many redirects');
  }

  private store(origin: string, line: string) {
    const [pair = '', ...attributes] = line.split(';').map((s) => s.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const attr = (key: string) =>
      attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
    const maxAge = attr('max-age');
    const expires = attr('expires');
    const gone =
      value === '' ||
      (maxAge !== undefined && Number(maxAge) <= 0) ||
      (expires !== undefined && Date.parse(expires) < Date.now());
    const cookies = this.jar.get(origin) ?? new Map<string, StoredCookie>();
    this.jar.set(origin, cookies);
    if (gone) cookies.delete(name);
    else cookies.set(name, { value, path: attr('path') ?? '/' });
  }
}

const atSpaCallback = (u: URL) => u.pathname === '/auth/callback';

const TOTP_SECRET = new Secret({ size: 20 }).base32;
const totpNow = () =>
  new TOTP({ secret: Secret.fromBase32(TOTP_SECRET), digits: 6, period: 30, algorithm: 'SHA1' }).generate();

/** Turns TOTP on for a user, as enrolment would (the secret encrypted under APP_SECRET). */
async function withTotp(app: Awaited<ReturnType<typeof createTestApp>>, userId: string) {
  const box = createSecretBox(app.config.appSecret);
  await app.db
    .update(users)
    .set({ mfaSecretEnc: box.encrypt(TOTP_SECRET) })
    .where(eq(users.id, userId));
  app.identity.invalidateUser(userId);
}

async function setUp() {
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  // Stands in for Google (e-mail in the ID token) and for an organisation's identity provider.
  const google = await startOidcProvider({
    clients: [
      {
        client_id: 'rally-google',
        client_secret: 'google-secret',
        redirect_uris: [`${appUrl}/v1/api/auth/google/callback`],
      },
      {
        client_id: 'acme-sso',
        client_secret: 'acme-sso-secret',
        redirect_uris: [`${appUrl}/v1/api/auth/sso/callback`],
      },
    ],
    accounts: {
      ann: { email: 'Ann@Example.com', name: 'Ann' },
      stranger: { email: 'stranger@example.com' },
      unverified: { email: 'ann@example.com', email_verified: false },
      nomail: {},
      sso: { email: 'sso.user@acme.test' },
      totp: { email: 'totp.user@example.com' },
    },
    conformIdTokenClaims: false,
  });
  // Stands in for Microsoft; this one serves the e-mail only from userinfo.
  const microsoft = await startOidcProvider({
    clients: [
      {
        client_id: 'rally-ms',
        client_secret: 'ms-secret',
        redirect_uris: [`${appUrl}/v1/api/auth/microsoft/callback`],
      },
    ],
    accounts: { bob: { email: 'bob@example.com' } },
  });
  afterAll(() => Promise.all([google.close(), microsoft.close()]));
  const app = await createTestApp({
    env: {
      PUBLIC_URL: appUrl,
      GOOGLE_CLIENT_ID: 'rally-google',
      GOOGLE_CLIENT_SECRET: 'google-secret',
      GOOGLE_ISSUER: google.issuer,
      MICROSOFT_CLIENT_ID: 'rally-ms',
      MICROSOFT_CLIENT_SECRET: 'ms-secret',
      MICROSOFT_ISSUER: microsoft.issuer,
    },
  });
  await app.listen({ port, host: '127.0.0.1' });
  return { app, appUrl, google, microsoft };
}

/** Runs a provider sign-in to its end and returns where the app sent the browser. */
async function signInWith(appUrl: string, provider: string, idp: TestOidcProvider, account: string | null) {
  idp.setNextLogin(account);
  const browser = new HttpBrowser();
  const end = await browser.navigate(`${appUrl}/v1/api/auth/${provider}`, atSpaCallback);
  return { browser, end: end.url };
}

describe('sign-in with Google and Microsoft', async () => {
  const { app, appUrl, google, microsoft } = await setUp();
  const acme = await makeClient(app, 'Acme');
  const ann = await makeUser(app, { [acme]: 'yellow_sdr' }, { email: 'ann@example.com' });
  await makeUser(app, { [acme]: 'grey_viewer' }, { email: 'bob@example.com' });

  it('redirects to the provider with code + PKCE (S256), state, nonce and a sealed 10-minute cookie', async () => {
    const res = await new HttpBrowser().get(`${appUrl}/v1/api/auth/google`);
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location')!);
    expect(to.origin).toBe(google.issuer);
    const q = Object.fromEntries(to.searchParams);
    expect(q).toMatchObject({
      client_id: 'rally-google',
      response_type: 'code',
      scope: 'openid email profile',
      redirect_uri: `${appUrl}/v1/api/auth/google/callback`,
      code_challenge_method: 'S256',
    });
    expect(q.code_challenge).toMatch(/^[\w-]{43}$/);
    expect(q.state).toBeTruthy();
    expect(q.nonce).toBeTruthy();
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('rally_oauth='))!;
    expect(cookie).toMatch(/Max-Age=600/);
    expect(cookie).toMatch(/Path=\/v1\/api\/auth/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    // Sealed: neither the state nor the PKCE verifier can be read from it.
    expect(cookie).not.toContain(q.state);
  });

  it('signs an existing user in with Google: session cookie, then self answers', async () => {
    const { browser, end } = await signInWith(appUrl, 'google', google, 'ann');
    expect(end.href).toBe(`${appUrl}/auth/callback`);
    expect(browser.cookie(appUrl, 'rally_auth_token')).toBeTruthy();
    expect(browser.cookie(appUrl, 'rally_oauth')).toBeUndefined();
    const self = await browser.get(`${appUrl}/v1/api/user/self`);
    expect(self.status).toBe(200);
    expect(await self.json()).toMatchObject({ id: ann.id, email: 'ann@example.com' });
  });

  it('signs in with Microsoft (e-mail read from userinfo)', async () => {
    const { browser, end } = await signInWith(appUrl, 'microsoft', microsoft, 'bob');
    expect(end.href).toBe(`${appUrl}/auth/callback`);
    const self = await browser.get(`${appUrl}/v1/api/user/self`);
    expect(await self.json()).toMatchObject({ email: 'bob@example.com' });
  });

  it('asks a user with TOTP on for the code after Google: no session until the code is given', async () => {
    const carol = await makeUser(app, { [acme]: 'yellow_sdr' }, { email: 'totp.user@example.com' });
    await withTotp(app, carol.id);
    const { browser, end } = await signInWith(appUrl, 'google', google, 'totp');
    expect(end.href).toBe(`${appUrl}/auth/callback?mfa=1`);
    expect(browser.cookie(appUrl, 'rally_auth_token')).toBeUndefined();
    expect(browser.cookie(appUrl, 'rally_mfa')).toBeTruthy();
    expect((await browser.get(`${appUrl}/v1/api/user/self`)).status).toBe(401);
    expect((await browser.post(`${appUrl}/v1/api/auth/mfa`, { code: '000000' })).status).toBe(400);
    expect(browser.cookie(appUrl, 'rally_auth_token')).toBeUndefined();
    const ok = await browser.post(`${appUrl}/v1/api/auth/mfa`, { code: totpNow() });
    expect(ok.status).toBe(200);
    const self = await browser.get(`${appUrl}/v1/api/user/self`);
    expect(self.status).toBe(200);
    expect(await self.json()).toMatchObject({ id: carol.id, mfa_enabled: true });
  });

  it('sends an unknown e-mail address back with error=no_account and no session', async () => {
    const { browser, end } = await signInWith(appUrl, 'google', google, 'stranger');
    expect(end.href).toBe(`${appUrl}/auth/callback?error=no_account`);
    expect(browser.cookie(appUrl, 'rally_auth_token')).toBeUndefined();
  });

  it('refuses an unverified or missing e-mail address', async () => {
    expect((await signInWith(appUrl, 'google', google, 'unverified')).end.search).toBe(
      '?error=email_unverified',
    );
    expect((await signInWith(appUrl, 'google', google, 'nomail')).end.search).toBe('?error=no_email');
  });

  it('reports a cancelled sign-in as access_denied', async () => {
    const { end } = await signInWith(appUrl, 'google', google, null);
    expect(end.href).toBe(`${appUrl}/auth/callback?error=access_denied`);
  });

  it('refuses a tampered state, a callback without its cookie, and a cookie of another provider', async () => {
    google.setNextLogin('ann');
    const atCallback = (u: URL) => u.pathname === '/v1/api/auth/google/callback';

    const tampered = new HttpBrowser();
    const { url } = await tampered.navigate(`${appUrl}/v1/api/auth/google`, atCallback);
    expect(url.searchParams.get('code')).toBeTruthy();
    url.searchParams.set('state', `${url.searchParams.get('state')}x`);
    const end = await tampered.navigate(url, atSpaCallback);
    expect(end.url.href).toBe(`${appUrl}/auth/callback?error=invalid_state`);
    expect(tampered.cookie(appUrl, 'rally_auth_token')).toBeUndefined();

    // The code reaches a browser that did not start the sign-in (login CSRF).
    const started = await new HttpBrowser().navigate(`${appUrl}/v1/api/auth/google`, atCallback);
    const other = new HttpBrowser();
    expect((await other.navigate(started.url, atSpaCallback)).url.search).toBe('?error=invalid_state');
    expect(other.cookie(appUrl, 'rally_auth_token')).toBeUndefined();

    // A Google flow cookie presented at the Microsoft callback.
    const mixed = new HttpBrowser();
    const g = await mixed.navigate(`${appUrl}/v1/api/auth/google`, atCallback);
    const wrong = new URL(`${appUrl}/v1/api/auth/microsoft/callback${g.url.search}`);
    expect((await mixed.navigate(wrong, atSpaCallback)).url.search).toBe('?error=invalid_state');
  });

  it('turns a provider error or a failed code exchange into error=provider_error, never a 500', async () => {
    google.setNextLogin('ann');
    const browser = new HttpBrowser();
    const { url } = await browser.navigate(`${appUrl}/v1/api/auth/google`, (u) =>
      u.pathname.endsWith('/callback'),
    );
    url.searchParams.set('code', 'not-a-real-code');
    expect((await browser.navigate(url, atSpaCallback)).url.search).toBe('?error=provider_error');
  });
});

describe('providers that are not configured', async () => {
  const app = await createTestApp();

  it('answers their start routes with 404', async () => {
    const google = await app.inject('/v1/api/auth/google');
    expect(google.statusCode).toBe(404);
    expect(google.json()).toEqual({ message: 'Google sign-in is not configured' });
    const microsoft = await app.inject('/v1/api/auth/microsoft');
    expect(microsoft.statusCode).toBe(404);
    expect(microsoft.json()).toEqual({ message: 'Microsoft sign-in is not configured' });
  });

  it('sends a stray callback back to the app with an error', async () => {
    const res = await app.inject('/v1/api/auth/google/callback?code=x&state=y');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/auth/callback?error=invalid_state');
  });
});

describe('single sign-on by username', async () => {
  const { app, appUrl, google } = await setUp();
  const acme = await makeClient(app, 'Acme');
  const other = await makeClient(app, 'Other');
  const { browser: owner } = await signedIn(app, { [acme]: 'purple_owner' });
  const ssoUser = await makeUser(
    app,
    { [other]: 'yellow_sdr', [acme]: 'yellow_sdr' },
    { email: 'sso.user@acme.test' },
  );
  const plain = await makeUser(app, { [other]: 'yellow_sdr' });
  const saved = await owner.put(`/v1/rest/client/${acme}/sso`, {
    issuer: google.issuer,
    client_id: 'acme-sso',
    client_secret: 'acme-sso-secret',
    enabled: true,
  });
  expect(saved.statusCode).toBe(200);

  it('finds the SSO settings of one of the user’s clients and signs them in through that provider', async () => {
    google.setNextLogin('sso');
    const browser = new HttpBrowser();
    const start = await browser.get(
      `${appUrl}/v1/api/auth/sso?username=${encodeURIComponent('SSO.User@acme.test')}`,
    );
    expect(start.status).toBe(302);
    const to = new URL(start.headers.get('location')!);
    expect(to.origin).toBe(google.issuer);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      client_id: 'acme-sso',
      redirect_uri: `${appUrl}/v1/api/auth/sso/callback`,
      code_challenge_method: 'S256',
      login_hint: 'sso.user@acme.test',
    });
    const end = await browser.navigate(to, atSpaCallback);
    expect(end.url.href).toBe(`${appUrl}/auth/callback`);
    const self = await browser.get(`${appUrl}/v1/api/user/self`);
    expect(await self.json()).toMatchObject({ id: ssoUser.id });
  });

  it('trusts the organisation’s identity provider for a user with TOTP on: no second code after SSO', async () => {
    await withTotp(app, ssoUser.id);
    google.setNextLogin('sso');
    const browser = new HttpBrowser();
    const end = await browser.navigate(
      `${appUrl}/v1/api/auth/sso?username=${encodeURIComponent(ssoUser.email)}`,
      atSpaCallback,
    );
    expect(end.url.href).toBe(`${appUrl}/auth/callback`);
    expect(browser.cookie(appUrl, 'rally_mfa')).toBeUndefined();
    const self = await browser.get(`${appUrl}/v1/api/user/self`);
    expect(self.status).toBe(200);
    expect(await self.json()).toMatchObject({ id: ssoUser.id, mfa_enabled: true });
  });

  it('refuses an identity provider account with another e-mail address', async () => {
    google.setNextLogin('stranger');
    const browser = new HttpBrowser();
    const end = await browser.navigate(
      `${appUrl}/v1/api/auth/sso?username=sso.user@acme.test`,
      atSpaCallback,
    );
    expect(end.url.search).toBe('?error=email_mismatch');
    expect(browser.cookie(appUrl, 'rally_auth_token')).toBeUndefined();
  });

  it('answers 404 for a user without SSO and for an unknown user, alike', async () => {
    for (const username of [plain.email, 'nobody@example.com']) {
      const res = await app.inject(`/v1/api/auth/sso?username=${encodeURIComponent(username)}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ message: 'Single sign-on is not set up for this account.' });
    }
  });

  it('answers 422 naming querystring.username when it is missing', async () => {
    const res = await app.inject('/v1/api/auth/sso');
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ errors: [{ field: 'querystring.username' }] });
    expect(res.json().message).toMatch(/^querystring\.username: /);
  });

  it('stops offering SSO once the owner disables it', async () => {
    const off = await owner.put(`/v1/rest/client/${acme}/sso`, {
      issuer: google.issuer,
      client_id: 'acme-sso',
      enabled: false,
    });
    expect(off.statusCode).toBe(200);
    const res = await app.inject('/v1/api/auth/sso?username=sso.user@acme.test');
    expect(res.statusCode).toBe(404);
    await owner.put(`/v1/rest/client/${acme}/sso`, {
      issuer: google.issuer,
      client_id: 'acme-sso',
      enabled: true,
    });
  });
});

describe('SSO settings (GET/PUT /v1/rest/client/:clientId/sso)', async () => {
  const app = await createTestApp();
  const idp = await startOidcProvider({ clients: [], accounts: {} });
  afterAll(() => idp.close());
  const acme = await makeClient(app, 'Acme');
  const other = await makeClient(app, 'Other');
  const { browser: owner } = await signedIn(app, { [acme]: 'purple_owner' });
  const url = `/v1/rest/client/${acme}/sso`;
  const body = {
    issuer: idp.issuer,
    client_id: 'acme-rally',
    client_secret: 'top-secret-value',
    enabled: true,
  };

  it('answers 404 until settings are saved, and needs a secret the first time', async () => {
    const none = await owner.get(url);
    expect(none.statusCode).toBe(404);
    expect(none.json()).toEqual({ message: 'Single sign-on is not set up.' });
    const noSecret = await owner.put(url, { ...body, client_secret: undefined });
    expect(noSecret.statusCode).toBe(422);
    expect(noSecret.json()).toMatchObject({ errors: [{ field: 'body.client_secret' }] });
  });

  it('lets an owner save and read them; the secret is stored encrypted and never sent back', async () => {
    const put = await owner.put(url, body);
    expect(put.statusCode).toBe(200);
    const expected = { issuer: idp.issuer, client_id: 'acme-rally', enabled: true, has_secret: true };
    expect(put.json()).toEqual(expected);
    const get = await owner.get(url);
    expect(get.statusCode).toBe(200);
    expect(get.json()).toEqual(expected);
    expect(get.body).not.toContain('top-secret-value');

    const [row] = await app.db.select().from(ssoConfigs).where(eq(ssoConfigs.clientId, acme));
    expect(row!.clientSecretEnc).not.toContain('top-secret-value');
    expect(createSecretBox(app.config.appSecret).decrypt(row!.clientSecretEnc)).toBe('top-secret-value');

    // Without a new secret the stored one is kept, unless the client id changes.
    const keep = await owner.put(url, { ...body, client_secret: undefined, enabled: false });
    expect(keep.json()).toEqual({ ...expected, enabled: false });
    const [kept] = await app.db.select().from(ssoConfigs).where(eq(ssoConfigs.clientId, acme));
    expect(createSecretBox(app.config.appSecret).decrypt(kept!.clientSecretEnc)).toBe('top-secret-value');
    const changed = await owner.put(url, { ...body, client_id: 'another', client_secret: undefined });
    expect(changed.statusCode).toBe(422);
    expect(changed.json()).toMatchObject({ errors: [{ field: 'body.client_secret' }] });
  });

  it('answers 422 naming body.issuer for an issuer that is not an https URL or does not answer', async () => {
    for (const issuer of [
      'not a url',
      'http://idp.example.com',
      'https://idp.example.com/?tenant=1',
      'http://127.0.0.1:1',
    ]) {
      const res = await owner.put(url, { ...body, issuer });
      expect(res.statusCode, issuer).toBe(422);
      expect(res.json().errors[0].field, issuer).toBe('body.issuer');
    }
  });

  it('is refused to a manager (403), for a client one is not a member of (403), without a session (401) or CSRF token (403)', async () => {
    const { browser: manager } = await signedIn(app, { [acme]: 'green_manager' });
    expect((await manager.get(url)).statusCode).toBe(403);
    expect((await manager.put(url, body)).statusCode).toBe(403);

    const foreign = await owner.get(`/v1/rest/client/${other}/sso`, { clientId: other });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().message).toMatch(/not a member/);

    const anonymous = new Browser(app);
    expect((await anonymous.get(url, { clientId: acme })).statusCode).toBe(401);
    expect((await anonymous.put(url, body, { clientId: acme })).statusCode).toBe(401);

    const noCsrf = await owner.put(url, body, { csrf: false });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json().message).toMatch(/x-xsrf-token/);
  });
});
