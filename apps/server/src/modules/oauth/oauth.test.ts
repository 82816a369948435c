import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../lib/crypto.ts';
import { Secret, TOTP } from 'otpauth';
import { users } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, makeUser } from '../../../test/http.ts';
import { freePort } from '../../../test/free-port.ts';
import { HttpBrowser, atSpaCallback } from '../../../test/http-browser.ts';
import { startOidcProvider } from '../../../test/oidc-provider.ts';
import type { TestOidcProvider } from '../../../test/oidc-provider.ts';

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
  // Stands in for Google (e-mail in the ID token).
  const google = await startOidcProvider({
    clients: [
      {
        client_id: 'rally-google',
        client_secret: 'google-secret',
        redirect_uris: [`${appUrl}/v1/api/auth/google/callback`],
      },
    ],
    accounts: {
      ann: { email: 'Ann@Example.com', name: 'Ann' },
      stranger: { email: 'stranger@example.com' },
      unverified: { email: 'ann@example.com', email_verified: false },
      nomail: {},
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
    // A work account whose tenant verified the address's domain (Entra's optional xms_edov claim).
    accounts: { bob: { email: 'bob@example.com', claims: { tid: 't-1', oid: 'o-bob', xms_edov: true } } },
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
