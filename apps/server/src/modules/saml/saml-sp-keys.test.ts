import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { samlConfigs } from '../../db/schema/index.ts';
import { createSecretBox } from '../../lib/crypto.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeUser } from '../../../test/http.ts';
import { freePort } from '../../../test/free-port.ts';
import { startFakeDns } from '../../../test/fakes/dns.ts';
import { failed, samlFlow, sessionCookie } from '../../../test/saml-flow.ts';
import { makeKeyPair, startSamlIdp, verifyRedirectSignature } from '../../../test/saml-idp.ts';

/**
 * Issue 44, what Okta and Entra customers expect beyond signed assertions: Rally's own SP key per
 * client (sealed at rest) published for signing and encryption, signed AuthnRequests when asked for
 * by the owner or by the IdP's metadata (WantAuthnRequestsSigned), and encrypted assertions,
 * optionally required. Against samlify as the IdP on loopback: it checks the request signature as
 * SAML bindings §3.4.4.1 says and encrypts with xml-encryption; nothing is mocked.
 */

const dns = await startFakeDns({});
const idp = await startSamlIdp();
const strictIdp = await startSamlIdp({ wantSignedRequests: true });
const port = await freePort();
const appUrl = `http://127.0.0.1:${port}`;
const app = await createTestApp({ env: { PUBLIC_URL: appUrl, DNS_SERVERS: dns.server } });
await app.listen({ port, host: '127.0.0.1' });
afterAll(async () => {
  await app.close();
  await Promise.all([idp.close(), strictIdp.close(), dns.close()]);
});
const { samlClient, signIn } = samlFlow(app, appUrl, dns);
const b64 = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '');
const certIn = (metadata: string, use: string) =>
  b64(new RegExp(`use="${use}">[\\s\\S]*?<ds:X509Certificate>([^<]+)<`).exec(metadata)?.[1] ?? '');

describe('Rally’s SP key and signed AuthnRequests', () => {
  it('publishes one sealed per-client certificate for signing and encryption, kept across saves', async () => {
    const a = await samlClient(idp);
    const metadata = await (await fetch(`${a.base}/metadata`)).text();
    const cert = b64(a.settings.sp_certificate);
    expect(certIn(metadata, 'signing')).toBe(cert);
    expect(certIn(metadata, 'encryption')).toBe(cert);
    expect(metadata).toContain(
      `<SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${a.base}/slo"/>`,
    );
    expect(metadata).toContain('AuthnRequestsSigned="false"');
    const [row] = await app.db.select().from(samlConfigs).where(eq(samlConfigs.clientId, a.clientId));
    // At rest the key is sealed (AES-GCM under APP_SECRET), and it opens to the certificate's key.
    expect(row!.spPrivateKeyEnc).toMatch(/^v1\./);
    expect(row!.spPrivateKeyEnc).not.toContain('PRIVATE KEY');
    const { keyMatches } = await import('./sp-key.ts');
    expect(
      keyMatches(createSecretBox(app.config.appSecret).decrypt(row!.spPrivateKeyEnc!), row!.spCertificate!),
    ).toBe(true);
    const again = await a.owner.put(`/v1/rest/client/${a.clientId}/saml`, { ...a.body, sign_requests: true });
    expect(again.json().sp_certificate).toBe(a.settings.sp_certificate);
    expect(again.json().sp_certificate_fingerprint).toBe(a.settings.sp_certificate_fingerprint);
    expect(await (await fetch(`${a.base}/metadata`)).text()).toContain('AuthnRequestsSigned="true"');
    // Another client has its own key.
    const b = await samlClient(idp);
    expect(b.settings.sp_certificate).not.toBe(a.settings.sp_certificate);
  });

  it('makes the key at first use for a row saved before migration 0066', async () => {
    const a = await samlClient(idp);
    await app.db
      .update(samlConfigs)
      .set({ spPrivateKeyEnc: null, spCertificate: null })
      .where(eq(samlConfigs.clientId, a.clientId));
    const metadata = await (await fetch(`${a.base}/metadata`)).text();
    const [row] = await app.db.select().from(samlConfigs).where(eq(samlConfigs.clientId, a.clientId));
    expect(row!.spCertificate).toBeTruthy();
    expect(certIn(metadata, 'signing')).toBe(b64(row!.spCertificate!));
  });

  it('leaves AuthnRequests unsigned by default and signs them (RSA-SHA256) when the owner turns it on', async () => {
    const a = await samlClient(idp);
    await makeUser(app, { [a.clientId]: 'yellow_sdr' }, { email: `ann@${a.domain}` });
    const who = { nameId: 'ann', attributes: { email: `ann@${a.domain}` } };
    expect((await signIn(idp, a.clientId, who)).location).toBe('/auth/callback');
    expect(idp.lastRequest).toEqual({ signed: false, sigAlg: null, verified: false });
    await a.owner.put(`/v1/rest/client/${a.clientId}/saml`, { ...a.body, sign_requests: true });
    expect((await signIn(idp, a.clientId, who)).location).toBe('/auth/callback');
    expect(idp.lastRequest).toEqual({
      signed: true,
      sigAlg: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      verified: true,
    });
  });

  it('signs when the IdP metadata says WantAuthnRequestsSigned; such an IdP refuses an unsigned or altered request', async () => {
    const a = await samlClient(strictIdp);
    expect(a.settings).toMatchObject({ idp_wants_signed_requests: true, sign_requests: false });
    await makeUser(app, { [a.clientId]: 'yellow_sdr' }, { email: `bo@${a.domain}` });
    const res = await signIn(strictIdp, a.clientId, {
      nameId: 'bo',
      attributes: { email: `bo@${a.domain}` },
    });
    expect(res.location).toBe('/auth/callback');
    expect(strictIdp.lastRequest?.verified).toBe(true);

    // The IdP's check is real: the same request with its RelayState changed no longer verifies,
    // and neither does one signed by another key.
    const start = await fetch(`${a.base}/login`, { redirect: 'manual' });
    const query = start.headers.get('location')!.split('?')[1]!;
    const metadata = await (await fetch(`${a.base}/metadata`)).text();
    expect(verifyRedirectSignature(query, metadata).verified).toBe(true);
    expect(
      verifyRedirectSignature(query.replace(/RelayState=[^&]{4}/, 'RelayState=AAAA'), metadata).verified,
    ).toBe(false);
    const other = makeKeyPair('Not Rally');
    expect(
      verifyRedirectSignature(
        query,
        metadata.replace(/(use="signing">[\s\S]*?<ds:X509Certificate>)[^<]+/, `$1${b64(other.cert)}`),
      ).verified,
    ).toBe(false);

    // Saved by hand (no metadata asking), requests are unsigned, and this IdP refuses them.
    const byHand = await a.owner.put(`/v1/rest/client/${a.clientId}/saml`, {
      ...a.body,
      metadata_xml: null,
      idp_entity_id: strictIdp.entityId,
      sso_url: strictIdp.ssoUrl,
      certificates: [strictIdp.keyPair.cert],
    });
    expect(byHand.json().idp_wants_signed_requests).toBe(false);
    const refused = await signIn(strictIdp, a.clientId, {
      nameId: 'bo',
      attributes: { email: `bo@${a.domain}` },
    });
    expect(refused).toMatchObject({ status: 400, idpRefused: 'The AuthnRequest must be signed.' });
  });
});

describe('Encrypted assertions', () => {
  it('accepts an assertion encrypted to the client’s certificate, and checks its signature after decrypting', async () => {
    const a = await samlClient(idp);
    await makeUser(app, { [a.clientId]: 'yellow_sdr' }, { email: `cy@${a.domain}` });
    const who = { nameId: 'cy', attributes: { email: `cy@${a.domain}` }, encrypt: true };
    const res = await signIn(idp, a.clientId, who);
    const xml = Buffer.from(res.saml, 'base64').toString();
    expect(xml).toMatch(/<saml:EncryptedAssertion[\s\S]*<xenc:EncryptedData/);
    expect(xml).not.toMatch(/<saml:Assertion[\s>]/);
    expect(res.location).toBe('/auth/callback');
    expect(sessionCookie(res.cookies)).toBeTruthy();
    // Encrypted, but signed by a key the client does not trust: refused.
    const forged = await signIn(idp, a.clientId, { ...who, keyPair: makeKeyPair('Mallory') });
    expect(forged.location).toBe(failed('assertion_invalid'));
  });

  it('refuses an assertion encrypted to another client’s certificate (foreign tenant)', async () => {
    const a = await samlClient(idp);
    const b = await samlClient(idp);
    await makeUser(app, { [a.clientId]: 'yellow_sdr' }, { email: `di@${a.domain}` });
    const metadataB = await (await fetch(`${b.base}/metadata`)).text();
    const metadataA = await (await fetch(`${a.base}/metadata`)).text();
    // a's metadata with b's encryption certificate: what a mixed-up IdP set-up would encrypt to.
    const certB = /use="encryption">[\s\S]*?<ds:X509Certificate>([^<]+)</.exec(metadataB)![1]!;
    const crossed = metadataA.replace(/(use="encryption">[\s\S]*?<ds:X509Certificate>)[^<]+/, `$1${certB}`);
    await a.owner.put(`/v1/rest/client/${a.clientId}/saml`, { ...a.body, idp_initiated: true });
    const saml = await idp.respond(crossed, '', {
      nameId: 'di',
      attributes: { email: `di@${a.domain}` },
      encrypt: true,
    });
    const res = await fetch(a.acs, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ SAMLResponse: saml }),
    });
    expect(res.headers.get('location')).toBe(failed('assertion_invalid'));
  });

  it('with encryption required refuses a plain assertion with its own reason, and takes an encrypted one', async () => {
    const a = await samlClient(idp, { require_encryption: true });
    expect(a.settings.require_encryption).toBe(true);
    await makeUser(app, { [a.clientId]: 'yellow_sdr' }, { email: `ed@${a.domain}` });
    const who = { nameId: 'ed', attributes: { email: `ed@${a.domain}` } };
    const plain = await signIn(idp, a.clientId, who);
    expect(plain.location).toBe(failed('assertion_unencrypted'));
    expect(sessionCookie(plain.cookies)).toBeNull();
    expect((await signIn(idp, a.clientId, { ...who, encrypt: true })).location).toBe('/auth/callback');
  });

  it('answers 422 naming the new fields', async () => {
    const a = await samlClient(idp);
    for (const [over, field] of [
      [{ sign_requests: 'yes' }, 'body.sign_requests'],
      [{ require_encryption: 1 }, 'body.require_encryption'],
      [
        { metadata_xml: null, idp_entity_id: 'x', sso_url: 'https://i.example/sso', slo_url: 'ftp://x' },
        'body.slo_url',
      ],
    ] as const) {
      const res = await a.owner.put(`/v1/rest/client/${a.clientId}/saml`, { ...a.body, ...over });
      expect(res.statusCode, field).toBe(422);
      expect(res.json().errors[0].field).toBe(field);
    }
  });
});
