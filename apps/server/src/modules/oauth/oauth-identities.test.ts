import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { oauthIdentities, sessions } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { PASSWORD, makeClient, makeUser } from '../../../test/http.ts';
import { freePort } from '../../../test/free-port.ts';
import { HttpBrowser, atSpaCallback } from '../../../test/http-browser.ts';
import { startOidcProvider } from '../../../test/oidc-provider.ts';
import type { TestOidcAccount } from '../../../test/oidc-provider.ts';

/**
 * Issue 37.2 (nOAuth): Google and Microsoft sign-ins are matched by the provider's stable subject,
 * and linked by e-mail only when the provider verified the address, or by the signed-in user.
 */

const VICTIM_TENANT = '11111111-1111-4111-8111-111111111111';
const ATTACKER_TENANT = '22222222-2222-4222-8222-222222222222';

async function setUp() {
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  // Microsoft: each account carries its tenant (tid) and object id (oid), as Entra's tokens do.
  const msAccounts: Record<string, TestOidcAccount> = {
    victim: {
      email: 'victim@corp.test',
      claims: { tid: VICTIM_TENANT, oid: 'aaaaaaaa-0000-4000-8000-000000000001', xms_edov: true },
    },
    // Another tenant's admin gives one of their users the victim's address (unverified there).
    attacker: {
      email: 'victim@corp.test',
      claims: { tid: ATTACKER_TENANT, oid: 'bbbbbbbb-0000-4000-8000-000000000001' },
    },
    attackerEdovFalse: {
      email: 'victim@corp.test',
      claims: { tid: ATTACKER_TENANT, oid: 'bbbbbbbb-0000-4000-8000-000000000002', xms_edov: false },
    },
    mover: {
      email: 'mover@corp.test',
      claims: { tid: VICTIM_TENANT, oid: 'aaaaaaaa-0000-4000-8000-000000000002', xms_edov: true },
    },
    // A work account whose tenant says nothing about its address: linked by the signed-in user.
    linker: {
      email: 'linker@partner.test',
      claims: { tid: ATTACKER_TENANT, oid: 'cccccccc-0000-4000-8000-1' },
    },
    nobody: { email: 'nobody@corp.test', claims: { tid: ATTACKER_TENANT, oid: 'dddddddd-0000-4000-8000-1' } },
  };
  const microsoft = await startOidcProvider({
    clients: [
      {
        client_id: 'rally-ms',
        client_secret: 'ms-secret',
        redirect_uris: [`${appUrl}/v1/api/auth/microsoft/callback`],
      },
    ],
    accounts: msAccounts,
    conformIdTokenClaims: false,
  });
  const googleAccounts: Record<string, TestOidcAccount> = {
    gina: { email: 'gina@example.com' },
    // Another Google account later given the same (verified) address: a recycled mailbox.
    gina2: { email: 'gina@example.com' },
    unverified: { email: 'gina@example.com', email_verified: false },
  };
  const google = await startOidcProvider({
    clients: [
      {
        client_id: 'rally-google',
        client_secret: 'google-secret',
        redirect_uris: [`${appUrl}/v1/api/auth/google/callback`],
      },
    ],
    accounts: googleAccounts,
    conformIdTokenClaims: false,
  });
  afterAll(() => Promise.all([microsoft.close(), google.close()]));
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
  return { app, appUrl, microsoft, msAccounts, google, googleAccounts };
}

describe('Google and Microsoft sign-in match the stable subject (issue 37.2)', async () => {
  const { app, appUrl, microsoft, msAccounts, google, googleAccounts } = await setUp();
  const acme = await makeClient(app, 'Acme');
  const victim = await makeUser(app, { [acme]: 'purple_owner' }, { email: 'victim@corp.test' });
  const mover = await makeUser(app, { [acme]: 'yellow_sdr' }, { email: 'mover@corp.test' });
  const linker = await makeUser(app, { [acme]: 'yellow_sdr' }, { email: 'linker@corp.test' });
  const gina = await makeUser(app, { [acme]: 'yellow_sdr' }, { email: 'gina@example.com' });

  const signIn = async (provider: 'microsoft' | 'google', account: string, browser = new HttpBrowser()) => {
    (provider === 'microsoft' ? microsoft : google).setNextLogin(account);
    const end = await browser.navigate(`${appUrl}/v1/api/auth/${provider}`, atSpaCallback);
    const self = await browser.get(`${appUrl}/v1/api/user/self`);
    const who = self.status === 200 ? ((await self.json()) as { id: string }).id : null;
    return { end: end.url, who, browser };
  };
  const passwordBrowser = async (email: string) => {
    const browser = new HttpBrowser();
    const res = await browser.post(`${appUrl}/v1/api/auth`, { email, password: PASSWORD });
    expect(res.status).toBe(200);
    return browser;
  };
  /** Starts linking in a signed-in browser and follows it to where the app sends the user. */
  const link = async (browser: HttpBrowser, provider: 'microsoft' | 'google', account: string) => {
    (provider === 'microsoft' ? microsoft : google).setNextLogin(account);
    const res = await browser.post(`${appUrl}/v1/api/auth/${provider}/link`, {});
    expect(res.status).toBe(200);
    const { url } = (await res.json()) as { url: string };
    expect(new URL(url).origin).toBe((provider === 'microsoft' ? microsoft : google).issuer);
    return (await browser.navigate(url, (u) => u.pathname === '/settings/profile')).url;
  };

  it('another tenant asserting the victim’s address does not sign in as the victim (before: a session as the owner)', async () => {
    for (const account of ['attacker', 'attackerEdovFalse']) {
      const { end, who, browser } = await signIn('microsoft', account);
      expect(end.search).toBe('?error=email_unverified');
      expect(who).toBeNull();
      expect(browser.cookie(appUrl, 'rally_auth_token')).toBeUndefined();
    }
    // Nor once the victim has linked their own account.
    expect((await signIn('microsoft', 'victim')).who).toBe(victim.id);
    expect((await signIn('microsoft', 'attacker')).who).toBeNull();
  });

  it('an address the provider did not verify gets the same answer whether or not it has an account', async () => {
    const known = await signIn('microsoft', 'linker'); // linker@partner.test: no account has it
    const unknown = await signIn('microsoft', 'nobody');
    expect(known.end.search).toBe('?error=email_unverified');
    expect(unknown.end.search).toBe(known.end.search);
  });

  it('a linked user returning with a changed address still gets in by subject (before: no_account)', async () => {
    expect((await signIn('microsoft', 'mover')).who).toBe(mover.id);
    msAccounts.mover = {
      email: 'm.over@renamed.test',
      claims: { ...msAccounts.mover!.claims, xms_edov: undefined },
    };
    const again = await signIn('microsoft', 'mover');
    expect(again.end.href).toBe(`${appUrl}/auth/callback`);
    expect(again.who).toBe(mover.id);
    const [row] = await app.db.select().from(oauthIdentities).where(eq(oauthIdentities.userId, mover.id));
    expect(row).toMatchObject({ provider: 'microsoft', email: 'mover@corp.test' });
    expect(row!.subject).toBe(`oid:${VICTIM_TENANT}:aaaaaaaa-0000-4000-8000-000000000002`);
  });

  it('Google: a verified address links by sub; a second Google account with that address is refused', async () => {
    expect((await signIn('google', 'unverified')).end.search).toBe('?error=email_unverified');
    expect((await signIn('google', 'gina')).who).toBe(gina.id);
    googleAccounts.gina = { email: 'gina.renamed@example.com' };
    expect((await signIn('google', 'gina')).who).toBe(gina.id);
    const recycled = await signIn('google', 'gina2');
    expect(recycled.end.search).toBe('?error=identity_mismatch');
    expect(recycled.who).toBeNull();
  });

  it('a signed-in user links a Microsoft account the provider did not vouch for, then signs in with it', async () => {
    expect((await signIn('microsoft', 'linker')).who).toBeNull();
    const browser = await passwordBrowser(linker.email);
    const end = await link(browser, 'microsoft', 'linker');
    expect(end.search).toBe('?linked=microsoft');
    const list = await browser.get(`${appUrl}/v1/api/auth/identities`);
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({
      identities: [{ provider: 'microsoft', email: 'linker@partner.test', linked_at: expect.any(String) }],
    });
    expect((await signIn('microsoft', 'linker')).who).toBe(linker.id);

    // Unlinked: it no longer signs anyone in.
    const del = await browser.call('DELETE', `${appUrl}/v1/api/auth/microsoft/link`);
    expect(del.status).toBe(204);
    expect((await browser.call('DELETE', `${appUrl}/v1/api/auth/microsoft/link`)).status).toBe(404);
    expect((await signIn('microsoft', 'linker')).who).toBeNull();
  });

  it('refuses linking an account linked to someone else, or finished by another user', async () => {
    // The victim's Microsoft account is linked to the victim (first test).
    const other = await passwordBrowser(linker.email);
    expect((await link(other, 'microsoft', 'victim')).search).toBe('?link_error=identity_taken');
    expect((await signIn('microsoft', 'victim')).who).toBe(victim.id);

    // The link is started by one user; the browser's session changes to another before it returns.
    const browser = await passwordBrowser(linker.email);
    microsoft.setNextLogin('nobody');
    const res = await browser.post(`${appUrl}/v1/api/auth/microsoft/link`, {});
    const { url } = (await res.json()) as { url: string };
    expect(
      (await browser.post(`${appUrl}/v1/api/auth`, { email: mover.email, password: PASSWORD })).status,
    ).toBe(200);
    const end = await browser.navigate(url, (u) => u.pathname === '/settings/profile');
    expect(end.url.search).toBe('?link_error=invalid_state');
    const rows = await app.db.select().from(oauthIdentities).where(eq(oauthIdentities.userId, mover.id));
    expect(rows.map((r) => r.email)).toEqual(['mover@corp.test']);
  });

  it('linking needs a session and the CSRF token; a session started by SSO cannot link; the provider is named', async () => {
    const anon = new HttpBrowser();
    expect((await anon.post(`${appUrl}/v1/api/auth/microsoft/link`, {})).status).toBe(401);
    expect((await anon.get(`${appUrl}/v1/api/auth/identities`)).status).toBe(401);

    const browser = await passwordBrowser(linker.email);
    const noCsrf = await fetch(`${appUrl}/v1/api/auth/microsoft/link`, {
      method: 'POST',
      headers: { cookie: `rally_auth_token=${browser.cookie(appUrl, 'rally_auth_token')}` },
    });
    expect(noCsrf.status).toBe(403);

    const bad = await browser.call('DELETE', `${appUrl}/v1/api/auth/facebook/link`);
    expect(bad.status).toBe(422);
    expect(JSON.stringify(await bad.json())).toContain('params.provider');

    // The same session, as if single sign-on of Acme had started it (decision 0014).
    await app.db.update(sessions).set({ scopeClientId: acme }).where(eq(sessions.userId, linker.id));
    app.identity.invalidateUser(linker.id);
    expect((await browser.post(`${appUrl}/v1/api/auth/microsoft/link`, {})).status).toBe(403);
    expect((await browser.call('DELETE', `${appUrl}/v1/api/auth/google/link`)).status).toBe(403);
  });
});
