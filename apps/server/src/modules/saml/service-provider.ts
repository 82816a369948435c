import { createRequire } from 'node:module';
import type { SAML } from '@node-saml/node-saml';
import type * as NodeSaml from '@node-saml/node-saml';
import type { CacheProvider } from '@node-saml/node-saml';
import { SERVICE_PREFIXES } from '../../lib/prefixes.ts';
import type { samlConfigs } from '../../db/schema/index.ts';
import type { SpKeyPair } from './sp-key.ts';

type SamlConfig = typeof samlConfigs.$inferSelect;

/** Clocks of the identity provider and ours may differ this much (Okta and Entra suggest minutes). */
export const CLOCK_SKEW_MS = 2 * 60_000;

/** Our URLs for one client: what its owner gives the identity provider. */
export function spUrls(publicUrl: string, clientId: string) {
  const base = `${publicUrl}${SERVICE_PREFIXES.main}/api/auth/saml/${clientId}`;
  return {
    entityId: `${base}/metadata`,
    acsUrl: `${base}/acs`,
    metadataUrl: `${base}/metadata`,
    loginUrl: `${base}/login`,
    sloUrl: `${base}/slo`,
  };
}

/** Whether our AuthnRequests are signed: the owner asked, or the IdP's metadata does. */
export const signsRequests = (row: SamlConfig) => row.signRequests || row.idpWantsSignedRequests;

/** node-saml, loaded at the first SAML use, not at start (about 0.15 s and 20 MiB: bench/README.md "Embedded mode"). */
const nodeSaml = () => createRequire(import.meta.url)('@node-saml/node-saml') as typeof NodeSaml;

/**
 * Our metadata for this client: entity ID, ACS, single logout (HTTP-POST), and our certificate
 * twice, as KeyDescriptor use="signing" and use="encryption" (one key for both, as Okta and Entra
 * take one SP certificate for each). AuthnRequestsSigned says what we do, not what we could.
 */
export function spMetadata(publicUrl: string, row: SamlConfig, key: SpKeyPair): string {
  const urls = spUrls(publicUrl, row.clientId);
  const xml = nodeSaml().generateServiceProviderMetadata({
    issuer: urls.entityId,
    callbackUrl: urls.acsUrl,
    logoutCallbackUrl: urls.sloUrl,
    identifierFormat: row.nameIdFormat,
    wantAssertionsSigned: true,
    privateKey: key.keyPem,
    publicCerts: key.certPem,
    signatureAlgorithm: 'sha256',
    decryptionPvk: key.keyPem,
    decryptionCert: key.certPem,
  });
  return xml.replace(/AuthnRequestsSigned="(true|false)"/, `AuthnRequestsSigned="${signsRequests(row)}"`);
}

/**
 * The service provider of one client. Signed assertions are required (a signed response around an
 * unsigned assertion is not enough), the audience must be this client's entity ID, and any of the
 * stored certificates may have signed (rotation); `key` is Rally's own for this client. `expectRequest`: the ID of the AuthnRequest this
 * response must answer (SP-initiated); null accepts an unsolicited one (IdP-initiated, when allowed).
 */
export function serviceProvider(
  publicUrl: string,
  row: SamlConfig,
  key: SpKeyPair,
  o: { expectRequest?: string | null; requestId?: string; sign?: boolean } = {},
): SAML {
  const urls = spUrls(publicUrl, row.clientId);
  const expected = o.expectRequest;
  const requestId = o.requestId;
  // Requests are remembered in the sealed RelayState, not in this process: any instance can check.
  const cacheProvider: CacheProvider = {
    saveAsync: async (key, value) => ({ value, createdAt: Date.now() }),
    // node-saml reads the value as when the request was made; the RelayState's own expiry was checked.
    getAsync: async (key) => (expected && key === expected ? new Date().toISOString() : null),
    removeAsync: async (key) => key,
  };
  const { SAML: Saml, ValidateInResponseTo } = nodeSaml();
  // With privateKey set node-saml signs every redirect it builds (SigAlg + Signature, SAML bindings
  // §3.4.4.1): AuthnRequests when asked; logout messages always (`sign`), as Okta requires.
  const sign = o.sign ?? signsRequests(row);
  return new Saml({
    ...(sign ? { privateKey: key.keyPem, publicCert: key.certPem, signatureAlgorithm: 'sha256' } : {}),
    // An EncryptedAssertion is decrypted with our key, then its signature checked as for a plain one.
    decryptionPvk: key.keyPem,
    ...(row.sloUrl ? { logoutUrl: row.sloUrl } : {}),
    logoutCallbackUrl: urls.sloUrl,
    issuer: urls.entityId,
    audience: urls.entityId,
    callbackUrl: urls.acsUrl,
    entryPoint: row.ssoUrl,
    idpIssuer: row.idpEntityId,
    idpCert: row.certificates,
    identifierFormat: row.nameIdFormat,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    validateInResponseTo: expected ? ValidateInResponseTo.always : ValidateInResponseTo.never,
    cacheProvider,
    disableRequestedAuthnContext: true,
    ...(requestId ? { generateUniqueId: () => requestId } : {}),
  });
}

/** The assertion's ID and when it stops being valid, for the replay guard. */
export function assertionFacts(assertion: Record<string, unknown> | undefined): {
  id: string;
  notOnOrAfter: Date;
} | null {
  const a = (assertion as { Assertion?: Record<string, unknown> } | undefined)?.Assertion as
    | { $?: { ID?: string }; Conditions?: { $?: { NotOnOrAfter?: string } }[]; Subject?: unknown[] }
    | undefined;
  const id = a?.$?.ID;
  if (!id) return null;
  const times: number[] = [];
  const c = a.Conditions?.[0]?.$?.NotOnOrAfter;
  if (c) times.push(Date.parse(c));
  const subject = a.Subject?.[0] as
    { SubjectConfirmation?: { SubjectConfirmationData?: { $?: { NotOnOrAfter?: string } }[] }[] } | undefined;
  const s = subject?.SubjectConfirmation?.[0]?.SubjectConfirmationData?.[0]?.$?.NotOnOrAfter;
  if (s) times.push(Date.parse(s));
  const valid = times.filter((t) => Number.isFinite(t));
  // Remember it past the skew we accept; without any bound, for a day.
  const until = valid.length ? Math.max(...valid) + CLOCK_SKEW_MS : Date.now() + 86_400_000;
  return { id, notOnOrAfter: new Date(until) };
}
