import { and, eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import type { SamlSettingsBody } from '@rally/shared/schemas/saml';
import { memberships, samlAssertions, sessions, ssoIdentities, users } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser, makeClient, makeUser, signedIn } from '../../../test/http.ts';
import { freePort } from '../../../test/free-port.ts';
import { startFakeDns } from '../../../test/fakes/dns.ts';
import { makeKeyPair, startSamlIdp } from '../../../test/saml-idp.ts';
import type { NextLogin } from '../../../test/saml-idp.ts';

/**
 * Issue 44: "SAML 2.0 single sign-on beside OIDC, per client, on its verified domains: SP-initiated,
 * signed assertions required, … certificate rotation, NameID and attribute mapping, just-in-time
 * membership with a chosen default role (off by default); IdP-initiated off unless the owner turns
 * it on." Against samlify as the identity provider on loopback, over real HTTP.
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

const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';
let n = 0;

/** A client whose owner verified `<name>.test` and set SAML up with the IdP's metadata. */
async function samlClient(settings: Partial<SamlSettingsBody> = {}) {
  const domain = `saml${++n}-${Date.now().toString(36)}.test`;
  const clientId = await makeClient(app, `Saml Co ${n}`);
  const { browser: owner } = await signedIn(
    app,
    { [clientId]: 'purple_owner' },
    { email: `owner@${domain}` },
  );
  const list = await owner.get(`/v1/rest/client/${clientId}/domains`);
  dns.records[`_rally.${domain}`] = { txt: [list.json().txt_value] };
  const added = await owner.post(`/v1/rest/client/${clientId}/domains`, { domain });
  const checked = await owner.post(`/v1/rest/client/${clientId}/domains/${added.json().id}/verify`, {});
  expect(checked.json()).toMatchObject({ verified: true });
  const put = await owner.put(`/v1/rest/client/${clientId}/saml`, {
    enabled: true,
    metadata_xml: idp.metadata,
    name_id_format: PERSISTENT,
    email_attribute: 'email',
    first_name_attribute: 'firstName',
    last_name_attribute: 'lastName',
    jit_enabled: false,
    jit_role: 'grey_viewer',
    idp_initiated: false,
    ...settings,
  } satisfies SamlSettingsBody);
  expect(put.statusCode, put.body).toBe(200);
  return { clientId, domain, owner, acs: `${appUrl}/v1/api/auth/saml/${clientId}/acs` };
}

/** Posts the response to the ACS as the IdP's auto-posting form would. */
async function post(acs: string, SAMLResponse: string, RelayState?: string) {
  const res = await fetch(acs, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
    body: new URLSearchParams({ SAMLResponse, ...(RelayState ? { RelayState } : {}) }),
  });
  return { status: res.status, location: res.headers.get('location'), cookies: res.headers.getSetCookie() };
}

/** SP-initiated: the app redirects to the IdP, the IdP answers with its form, the browser posts it. */
async function signIn(clientId: string, next: NextLogin) {
  idp.setNextLogin(next);
  const start = await fetch(`${appUrl}/v1/api/auth/saml/${clientId}/login`, { redirect: 'manual' });
  expect(start.status).toBe(302);
  const to = start.headers.get('location')!;
  expect(to.startsWith(idp.ssoUrl)).toBe(true);
  const form = await (await fetch(to)).text();
  const field = (name: string) =>
    new RegExp(`name="${name}" value="([^"]*)"`).exec(form)?.[1]?.replace(/&amp;/g, '&') ?? '';
  const saml = field('SAMLResponse');
  const relay = field('RelayState');
  const end = await post(`${appUrl}/v1/api/auth/saml/${clientId}/acs`, saml, relay);
  return { ...end, saml, relay };
}
const signedInAs = (cookies: string[]) => cookies.some((c) => c.startsWith('rally_auth_token='));
const failed = (reason: string) => `/auth/callback?error=${reason}`;

describe('SAML sign-in', () => {
  it('signs a member in by a signed assertion; the session acts in that client only and the NameID is linked', async () => {
    const { clientId, domain } = await samlClient();
    const other = await makeClient(app);
    const member = await makeUser(
      app,
      { [clientId]: 'yellow_sdr', [other]: 'purple_owner' },
      { email: `ann@${domain}` },
    );
    const res = await signIn(clientId, { nameId: 'okta-00u1', attributes: { email: `Ann@${domain}` } });
    expect(res).toMatchObject({ status: 303, location: '/auth/callback' });
    expect(signedInAs(res.cookies)).toBe(true);
    const [session] = await app.db.select().from(sessions).where(eq(sessions.userId, member.id));
    expect(session?.scopeClientId).toBe(clientId);
    const [link] = await app.db.select().from(ssoIdentities).where(eq(ssoIdentities.userId, member.id));
    expect(link).toMatchObject({ clientId, issuer: idp.entityId, subject: 'okta-00u1' });

    // Decision 0015: once linked, another subject with the same address is refused.
    const other2 = await signIn(clientId, {
      nameId: 'okta-someone-else',
      attributes: { email: `ann@${domain}` },
    });
    expect(other2.location).toBe(failed('identity_mismatch'));
  });

  it('refuses an unsigned assertion (in a signed response, or nothing signed)', async () => {
    const { clientId, domain } = await samlClient();
    await makeUser(app, { [clientId]: 'yellow_sdr' }, { email: `bo@${domain}` });
    for (const sign of ['response', 'none'] as const) {
      const res = await signIn(clientId, { nameId: 'bo', attributes: { email: `bo@${domain}` }, sign });
      // 'response': one signature, on the envelope (after its Issuer), none inside the assertion.
      const xml = Buffer.from(res.saml, 'base64').toString();
      expect(xml.match(/<ds:Signature\s/g)?.length ?? 0, sign).toBe(sign === 'response' ? 1 : 0);
      expect(res.location, sign).toBe(failed('assertion_invalid'));
      expect(signedInAs(res.cookies)).toBe(false);
    }
  });

  it('refuses a wrong audience, an expired assertion and a signature by another certificate', async () => {
    const { clientId, domain } = await samlClient();
    await makeUser(app, { [clientId]: 'yellow_sdr' }, { email: `cy@${domain}` });
    const who = { nameId: 'cy', attributes: { email: `cy@${domain}` } };
    const cases: [string, NextLogin][] = [
      ['audience', { ...who, audience: `${appUrl}/v1/api/auth/saml/${await makeClient(app)}/metadata` }],
      ['expired', { ...who, validForMinutes: -10 }],
      ['certificate', { ...who, keyPair: makeKeyPair('Mallory') }],
    ];
    for (const [name, next] of cases) {
      const res = await signIn(clientId, next);
      expect(res.location, name).toBe(failed('assertion_invalid'));
    }
    // The same person, properly signed, gets in: it was the response that was wrong.
    expect((await signIn(clientId, who)).location).toBe('/auth/callback');
  });

  it('refuses a replayed assertion, and remembers it in the database until it expires', async () => {
    const { clientId, domain, acs } = await samlClient();
    await makeUser(app, { [clientId]: 'yellow_sdr' }, { email: `di@${domain}` });
    const first = await signIn(clientId, { nameId: 'di', attributes: { email: `di@${domain}` } });
    expect(first.location).toBe('/auth/callback');
    const again = await post(acs, first.saml, first.relay);
    expect(again.location).toBe(failed('assertion_replayed'));
    expect(signedInAs(again.cookies)).toBe(false);
    const xml = Buffer.from(first.saml, 'base64').toString();
    const assertionId = /<saml:Assertion[^>]* ID="([^"]+)"/.exec(xml)![1]!;
    const [row] = await app.db
      .select()
      .from(samlAssertions)
      .where(and(eq(samlAssertions.issuer, idp.entityId), eq(samlAssertions.assertionId, assertionId)));
    expect(row!.expiresAt.getTime()).toBeGreaterThan(Date.now());
  });

  it('accepts either certificate during a rotation', async () => {
    const next = makeKeyPair('Next IdP key');
    const { clientId, domain } = await samlClient({
      metadata_xml: null,
      idp_entity_id: idp.entityId,
      sso_url: idp.ssoUrl,
      certificates: [idp.keyPair.cert, next.cert],
    });
    await makeUser(app, { [clientId]: 'yellow_sdr' }, { email: `ed@${domain}` });
    const who = { nameId: 'ed', attributes: { email: `ed@${domain}` } };
    expect((await signIn(clientId, who)).location).toBe('/auth/callback');
    expect((await signIn(clientId, { ...who, keyPair: next })).location).toBe('/auth/callback');
  });

  it('speaks only for addresses on the verified domains (issue 37.1)', async () => {
    const { clientId } = await samlClient({ jit_enabled: true });
    await makeUser(app, { [clientId]: 'yellow_sdr' }, { email: 'victim@elsewhere.test' });
    const res = await signIn(clientId, { nameId: 'v', attributes: { email: 'victim@elsewhere.test' } });
    expect(res.location).toBe(failed('domain_unverified'));
    expect(signedInAs(res.cookies)).toBe(false);
  });

  it('with just-in-time membership off refuses an unknown person; on, gives the default role and the names', async () => {
    const off = await samlClient();
    const who = (domain: string) => ({
      nameId: 'new-1',
      attributes: { email: `new@${domain}`, firstName: 'Nia', lastName: 'Newton' },
    });
    expect((await signIn(off.clientId, who(off.domain))).location).toBe(failed('no_account'));
    expect(
      await app.db
        .select()
        .from(users)
        .where(eq(users.email, `new@${off.domain}`)),
    ).toEqual([]);

    const on = await samlClient({ jit_enabled: true, jit_role: 'green_manager' });
    const res = await signIn(on.clientId, who(on.domain));
    expect(res.location).toBe('/auth/callback');
    const [user] = await app.db
      .select()
      .from(users)
      .where(eq(users.email, `new@${on.domain}`));
    expect(user).toMatchObject({ firstName: 'Nia', lastName: 'Newton', passwordHash: null });
    const [m] = await app.db
      .select()
      .from(memberships)
      .where(and(eq(memberships.userId, user!.id), eq(memberships.clientId, on.clientId)));
    expect(m?.role).toBe('green_manager');
  });

  it('refuses an IdP-initiated response unless the owner turned it on', async () => {
    const { clientId, domain, acs, owner } = await samlClient();
    await makeUser(app, { [clientId]: 'yellow_sdr' }, { email: `fay@${domain}` });
    const metadata = await (await fetch(`${appUrl}/v1/api/auth/saml/${clientId}/metadata`)).text();
    const who = { nameId: 'fay', attributes: { email: `fay@${domain}` } };
    const refused = await post(acs, await idp.respond(metadata, '', who));
    expect(refused.location).toBe(failed('idp_initiated_off'));

    const current = (await owner.get(`/v1/rest/client/${clientId}/saml`)).json();
    const on = await owner.put(`/v1/rest/client/${clientId}/saml`, {
      enabled: true,
      metadata_xml: idp.metadata,
      name_id_format: current.name_id_format,
      email_attribute: 'email',
      jit_enabled: false,
      jit_role: 'grey_viewer',
      idp_initiated: true,
    });
    expect(on.json().idp_initiated).toBe(true);
    const accepted = await post(acs, await idp.respond(metadata, '', who));
    expect(accepted.location).toBe('/auth/callback');
    expect(signedInAs(accepted.cookies)).toBe(true);
  });

  it('takes the address from an e-mail NameID when no attribute is named', async () => {
    const { clientId, domain } = await samlClient({
      email_attribute: null,
      name_id_format: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    });
    await makeUser(app, { [clientId]: 'yellow_sdr' }, { email: `gus@${domain}` });
    const res = await signIn(clientId, {
      nameId: `gus@${domain}`,
      nameIdFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    });
    expect(res.location).toBe('/auth/callback');
  });
});

describe('SAML sign-in routes refuse bad input', () => {
  it('metadata: the SP metadata names the ACS; 404 without settings; 422 naming params.clientId', async () => {
    const { clientId } = await samlClient();
    const res = await fetch(`${appUrl}/v1/api/auth/saml/${clientId}/metadata`);
    expect(res.status).toBe(200);
    const xml = await res.text();
    expect(xml).toContain(`Location="${appUrl}/v1/api/auth/saml/${clientId}/acs"`);
    expect(xml).toContain('WantAssertionsSigned="true"');
    expect((await fetch(`${appUrl}/v1/api/auth/saml/${await makeClient(app)}/metadata`)).status).toBe(404);
    const bad = await fetch(`${appUrl}/v1/api/auth/saml/nope/metadata`);
    expect(bad.status).toBe(422);
    expect(JSON.stringify(await bad.json())).toContain('params.clientId');
  });

  it('login: a client without SAML is sent back alike (sso_unavailable); 422 naming params.clientId', async () => {
    const none = await fetch(`${appUrl}/v1/api/auth/saml/${await makeClient(app)}/login`, {
      redirect: 'manual',
    });
    expect(none.headers.get('location')).toBe('/auth/callback?error=sso_unavailable');
    const bad = await fetch(`${appUrl}/v1/api/auth/saml/x/login`, { redirect: 'manual' });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(await bad.json())).toContain('params.clientId');
  });

  it('acs: 422 naming body.SAMLResponse; a response for one client is refused at another (foreign tenant)', async () => {
    const a = await samlClient();
    const b = await samlClient();
    const missing = await fetch(a.acs, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'RelayState=x',
    });
    expect(missing.status).toBe(422);
    expect(JSON.stringify(await missing.json())).toContain('body.SAMLResponse');
    await makeUser(
      app,
      { [a.clientId]: 'yellow_sdr', [b.clientId]: 'yellow_sdr' },
      { email: `hal@${a.domain}` },
    );
    const metadata = await (await fetch(`${appUrl}/v1/api/auth/saml/${a.clientId}/metadata`)).text();
    const forA = await idp.respond(metadata, '', { nameId: 'hal', attributes: { email: `hal@${a.domain}` } });
    // b's audience is its own entity ID, and b did not ask: refused either way.
    const atB = await post(b.acs, forA);
    expect(atB.location).toBe(failed('idp_initiated_off'));
    void Browser;
  });
});
