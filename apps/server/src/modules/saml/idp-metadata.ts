import { X509Certificate } from 'node:crypto';
import { createRequire } from 'node:module';

/** The little of the DOM read here. */
type XmlElement = {
  getAttribute(name: string): string | null;
  getElementsByTagNameNS(ns: string, name: string): ArrayLike<XmlElement>;
  textContent: string | null;
};
type XmlParser = new (o: { errorHandler: Record<'error' | 'fatalError', (m: string) => void> }) => {
  parseFromString(xml: string, type: string): XmlElement;
};
// Loaded untyped: @xmldom/xmldom's typings pull the DOM lib into the server's program, where its
// BodyInit and BlobPart clash with Node's. Required at the first metadata read, not at start
// (bench/README.md "Embedded mode").
const require = createRequire(import.meta.url);

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

export type IdpMetadata = {
  entityId: string;
  ssoUrl: string;
  certificates: string[];
  /** Its SingleLogoutService (HTTP-Redirect, as node-saml sends LogoutRequests by redirect); null: none. */
  sloUrl: string | null;
  /** IDPSSODescriptor's WantAuthnRequestsSigned: it refuses unsigned AuthnRequests. */
  wantsSignedRequests: boolean;
};

/**
 * Reads what sign-in needs from an identity provider's metadata: its entity ID, its SingleSignOnService
 * (HTTP-Redirect preferred, as the AuthnRequest goes by redirect) and its signing certificates, every
 * one of them (during a rotation Okta and Entra publish the old and the new). Returns a reason when
 * the XML is not usable.
 */
export function parseIdpMetadata(xml: string): IdpMetadata | string {
  // Metadata needs no DTD; refusing one keeps entity expansion out.
  if (/<!DOCTYPE/i.test(xml)) return 'must not contain a DOCTYPE';
  const doc = parseXml(xml);
  if (!doc) return 'is not well-formed XML';
  const entity = doc.getElementsByTagNameNS(MD, 'EntityDescriptor')[0];
  const entityId = entity?.getAttribute('entityID') ?? '';
  if (!entity || !entityId) return 'has no EntityDescriptor with an entityID';
  const idp = entity.getElementsByTagNameNS(MD, 'IDPSSODescriptor')[0];
  if (!idp) return 'has no IDPSSODescriptor (is it the identity provider’s metadata?)';
  const services = Array.from(idp.getElementsByTagNameNS(MD, 'SingleSignOnService'));
  const service =
    services.find((s) => s.getAttribute('Binding') === REDIRECT) ??
    services.find((s) => s.getAttribute('Binding') === POST);
  const ssoUrl = service?.getAttribute('Location') ?? '';
  if (!ssoUrl) return 'has no SingleSignOnService with the HTTP-Redirect or HTTP-POST binding';
  const certificates: string[] = [];
  for (const key of Array.from(idp.getElementsByTagNameNS(MD, 'KeyDescriptor'))) {
    const use = key.getAttribute('use');
    if (use && use !== 'signing') continue;
    for (const c of Array.from(key.getElementsByTagNameNS(DS, 'X509Certificate'))) {
      const pem = toPem(c.textContent ?? '');
      if (pem && !certificates.includes(pem)) certificates.push(pem);
    }
  }
  if (certificates.length === 0) return 'has no signing certificate (KeyDescriptor with X509Certificate)';
  const slo = Array.from(idp.getElementsByTagNameNS(MD, 'SingleLogoutService')).find(
    (s) => s.getAttribute('Binding') === REDIRECT,
  );
  return {
    entityId,
    ssoUrl,
    certificates,
    sloUrl: slo?.getAttribute('Location') || null,
    wantsSignedRequests: idp.getAttribute('WantAuthnRequestsSigned') === 'true',
  };
}

const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';

/**
 * Whether a SAMLResponse (base64, as posted) carries its assertion only encrypted: an
 * EncryptedAssertion and no plain Assertion anywhere (before decryption the assertion inside is
 * ciphertext, so any Assertion element found was sent in the clear).
 */
export function isEncryptedResponse(base64: string): boolean {
  const xml = Buffer.from(base64, 'base64').toString('utf8');
  const doc = parseXml(xml);
  if (!doc) return false;
  return (
    doc.getElementsByTagNameNS(ASSERTION, 'EncryptedAssertion').length > 0 &&
    doc.getElementsByTagNameNS(ASSERTION, 'Assertion').length === 0
  );
}

function parseXml(xml: string): XmlElement | null {
  if (/<!DOCTYPE/i.test(xml)) return null;
  const { DOMParser } = require('@xmldom/xmldom') as { DOMParser: XmlParser };
  try {
    return new DOMParser({
      errorHandler: {
        error: (m: string) => {
          throw new Error(m);
        },
        fatalError: (m: string) => {
          throw new Error(m);
        },
      },
    }).parseFromString(xml, 'text/xml');
  } catch {
    return null;
  }
}

/** A certificate as PEM, from PEM or bare base64 (as metadata holds it); null when it is not one. */
export function toPem(text: string): string | null {
  const body = text.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  if (!body || !/^[A-Za-z0-9+/]+=*$/.test(body)) return null;
  const pem = `-----BEGIN CERTIFICATE-----\n${(body.match(/.{1,64}/g) ?? []).join('\n')}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
    return pem;
  } catch {
    return null;
  }
}

export function describeCertificate(pem: string): { fingerprint: string; not_after: string | null } {
  const cert = new X509Certificate(pem);
  const end = new Date(cert.validTo);
  return {
    fingerprint: cert.fingerprint256,
    not_after: Number.isNaN(end.getTime()) ? null : end.toISOString(),
  };
}
