import { and, eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { auditLog, sessions } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser, makeUser } from '../../../test/http.ts';
import { freePort } from '../../../test/free-port.ts';
import { startFakeDns } from '../../../test/fakes/dns.ts';
import { samlFlow, sessionCookie } from '../../../test/saml-flow.ts';
import { makeKeyPair, startSamlIdp } from '../../../test/saml-idp.ts';

/**
 * Issue 44, single logout: signing out of a SAML session sends a signed LogoutRequest to the
 * identity provider's SingleLogoutService; the provider's own LogoutRequest (signature checked)
 * ends that member's SAML sessions of that client and is answered by a signed LogoutResponse.
 * samlify is the IdP on loopback; it checks our signatures (SAML bindings §3.4.4.1) and signs its own.
 */

const dns = await startFakeDns({});
const idp = await startSamlIdp();
const port = await freePort();
const appUrl = `http://127.0.0.1:${port}`;
const app = await createTestApp({ env: { PUBLIC_URL: appUrl, DNS_SERVERS: dns.server } });
await app.listen({ port, host: '127.0.0.1' });
afterAll(async () => {
  await app.close();
  await Promise.all([idp.close(), dns.close()]);
});
const { samlClient, signIn, postForm } = samlFlow(app, appUrl, dns);

/** A member signed in by SAML: a browser holding that session. */
async function samlMember(clientId: string, domain: string, local: string) {
  const user = await makeUser(app, { [clientId]: 'yellow_sdr' }, { email: `${local}@${domain}` });
  const res = await signIn(idp, clientId, {
    nameId: `sub-${local}`,
    attributes: { email: `${local}@${domain}` },
  });
  expect(res.location).toBe('/auth/callback');
  const browser = new Browser(app);
  browser.cookies.set('rally_auth_token', sessionCookie(res.cookies)!.split('=')[1]!);
  return { user, browser };
}
const samlSessions = (userId: string, clientId: string) =>
  app.db
    .select()
    .from(sessions)
    .where(and(eq(sessions.userId, userId), eq(sessions.scopeClientId, clientId)));

describe('SP-initiated single logout', () => {
  it('signing out of a SAML session ends it and sends the browser to the IdP with a signed LogoutRequest; the IdP’s answer lands on the sign-in page', async () => {
    const a = await samlClient(idp);
    expect(a.settings.slo_url).toBe(idp.sloUrl);
    const { user, browser } = await samlMember(a.clientId, a.domain, 'ann');
    const out = await browser.post('/v1/api/logout', {});
    expect(out.statusCode, out.body).toBe(200);
    const to = out.json().logout_url as string;
    expect(to.startsWith(`${idp.sloUrl}?SAMLRequest=`)).toBe(true);
    expect(await samlSessions(user.id, a.clientId)).toEqual([]);
    const page = await fetch(to);
    expect(page.status).toBe(200);
    expect(idp.lastLogout).toMatchObject({ verified: true, nameId: 'sub-ann' });
    const response = /name="SAMLResponse" value="([^"]+)"/.exec(await page.text())![1]!;
    const back = await postForm(`${a.base}/slo`, { SAMLResponse: response });
    expect(back).toMatchObject({ status: 303, location: '/login' });
  });

  it('a session not started by SAML, or a client whose IdP has no single logout, signs out as before (204)', async () => {
    const a = await samlClient(idp, {
      metadata_xml: null,
      idp_entity_id: idp.entityId,
      sso_url: idp.ssoUrl,
      certificates: [idp.keyPair.cert],
    });
    expect(a.settings.slo_url).toBeNull();
    const { browser } = await samlMember(a.clientId, a.domain, 'bo');
    expect((await browser.post('/v1/api/logout', {})).statusCode).toBe(204);
    expect((await a.owner.post('/v1/api/logout', {})).statusCode).toBe(204);
  });
});

describe('IdP-initiated single logout', () => {
  it('a signed LogoutRequest ends the member’s SAML sessions of that client only, is audited and answered with a signed LogoutResponse', async () => {
    const a = await samlClient(idp);
    const b = await samlClient(idp);
    const { user } = await samlMember(a.clientId, a.domain, 'cy');
    await samlMember(a.clientId, a.domain, 'cy2');
    // A second SAML session of the same member.
    const again = await signIn(idp, a.clientId, {
      nameId: 'sub-cy',
      attributes: { email: `cy@${a.domain}` },
    });
    expect(again.location).toBe('/auth/callback');
    expect(await samlSessions(user.id, a.clientId)).toHaveLength(2);
    // The same person's session at another client (same IdP) is not this client's to end.
    await app.db.insert(sessions).values({
      tokenHash: `x-${user.id}`,
      userId: user.id,
      expiresAt: new Date(Date.now() + 3_600_000),
      scopeClientId: b.clientId,
    });

    const metadata = await (await fetch(`${a.base}/metadata`)).text();
    const res = await postForm(`${a.base}/slo`, {
      SAMLRequest: idp.logoutRequest(metadata, 'sub-cy'),
      RelayState: 'r1',
    });
    expect(res.status, res.text).toBe(302);
    const answer = new URL(res.location!);
    expect(`${answer.origin}${answer.pathname}`).toBe(idp.sloUrl);
    expect(answer.searchParams.get('RelayState')).toBe('r1');
    expect(answer.searchParams.get('SigAlg')).toBe('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    expect(answer.searchParams.get('Signature')).toBeTruthy();
    expect(await samlSessions(user.id, a.clientId)).toEqual([]);
    expect(await samlSessions(user.id, b.clientId)).toHaveLength(1);
    const [entry] = await app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.clientId, a.clientId), eq(auditLog.action, 'sso.single_logout')));
    expect(entry).toMatchObject({ targetId: user.id });
  });

  it('refuses (400) a LogoutRequest signed by another key or unsigned by redirect; 422 naming the field; 404 without SAML', async () => {
    const a = await samlClient(idp);
    const { user } = await samlMember(a.clientId, a.domain, 'di');
    const metadata = await (await fetch(`${a.base}/metadata`)).text();
    const forged = await postForm(`${a.base}/slo`, {
      SAMLRequest: idp.logoutRequest(metadata, 'sub-di', makeKeyPair('Mallory')),
    });
    expect(forged.status).toBe(400);
    // By redirect without SigAlg/Signature: node-saml would take it; a LogoutRequest must be signed.
    const unsigned = await fetch(
      `${a.base}/slo?SAMLRequest=${encodeURIComponent('fZBBa8MwDIX/itE9TpN2G5g4pSMMCtslXXvYZXiOUgccK7Ocbv9+adO17NKTBHrve09XrH96J44Y2JLXkMkFCPSGGusPGna7p+QB1mXBpnfZoDZjbP0WP0fkKCanZzWfNIzBKzJsWXnTI6to1Hbz8qxyuVBDoEiGHIgNM4Y4ZVXkeewxbDEcrcHd9llDG+OgDAw4fJ3yMVuEz0pv2p0Ei3bOFSapIAT0uKDHlpChJ0wH1a5SC6KkU7b03VB5/Rnkm7QfWtj0vFVSDfYrNnQ9eLJlzwK63BWL7gXwJ9QsIP3H2wOR5jXpn+jSL5XAA')}`,
      { redirect: 'manual' },
    );
    expect(unsigned.status).toBe(400);
    expect(await samlSessions(user.id, a.clientId)).toHaveLength(1);

    const missing = await postForm(`${a.base}/slo`, { RelayState: 'x' });
    expect(missing.status).toBe(422);
    expect(missing.text).toContain('body.SAMLRequest');
    const badId = await postForm(`${appUrl}/v1/api/auth/saml/nope/slo`, { SAMLRequest: 'x' });
    expect(badId.status).toBe(422);
    expect(badId.text).toContain('params.clientId');
    const none = await samlClient(idp, { enabled: false });
    expect((await postForm(`${none.base}/slo`, { SAMLRequest: 'x' })).status).toBe(404);
  });

  it('a LogoutRequest for one client’s member posted at another client ends nothing there (foreign tenant)', async () => {
    const a = await samlClient(idp);
    const b = await samlClient(idp);
    const { user } = await samlMember(a.clientId, a.domain, 'ed');
    const metadataB = await (await fetch(`${b.base}/metadata`)).text();
    const res = await postForm(`${b.base}/slo`, { SAMLRequest: idp.logoutRequest(metadataB, 'sub-ed') });
    expect(res.status).toBe(302);
    expect(await samlSessions(user.id, a.clientId)).toHaveLength(1);
  });
});
