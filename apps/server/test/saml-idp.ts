import { execFileSync } from 'node:child_process';
import { X509Certificate, randomUUID, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { inflateRawSync } from 'node:zlib';

/** The part of samlify used here. */
type IdpEntity = {
  getMetadata(): string;
  createLogoutRequest(sp: unknown, binding: string, user: object): { context: string };
  createLogoutResponse(sp: unknown, info: unknown, binding: string, relayState: string): { context: string };
  createLoginResponse(
    sp: unknown,
    info: unknown,
    binding: string,
    user: object,
    opts: { customTagReplacement: () => { id: string; context: string } },
  ): Promise<{ context: string }>;
};
type Samlify = {
  setSchemaValidator(v: { validate: (xml: string) => Promise<string> }): void;
  IdentityProvider(o: Record<string, unknown>): IdpEntity;
  ServiceProvider(o: Record<string, unknown>): unknown;
  Constants: { namespace: { binding: { redirect: string } }; StatusCode: { Success: string } };
  SamlLib: {
    replaceTagsByValue(template: string, values: Record<string, string>): string;
    defaultLoginResponseTemplate: { context: string };
  };
};
// Loaded untyped: samlify's typings pull @xmldom/xmldom's, and with them the DOM lib, into the
// server's program, where its BodyInit and BlobPart clash with Node's.
const samlify = createRequire(import.meta.url)('samlify') as Samlify;

// samlify checks XML against the SAML schema only through a validator plugged in (its own need Java
// or a wasm build we do not install). The XML here is what samlify itself wrote, and the service
// provider under test (node-saml) does its own checks, so a no-op validator loses nothing we test.
samlify.setSchemaValidator({ validate: async () => 'skipped' });

export type KeyPair = { key: string; cert: string };

/** A fresh RSA key and self-signed certificate (openssl: node:crypto cannot write certificates). */
export function makeKeyPair(cn = 'Test IdP'): KeyPair {
  const dir = mkdtempSync(path.join(tmpdir(), 'saml-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-sha256',
        '-days',
        '2',
        '-subj',
        `/CN=${cn}`,
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return {
      key: readFileSync(path.join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';

/** Who the identity provider signs in next, and how (the ways a response can be wrong). */
export type NextLogin = {
  nameId: string;
  nameIdFormat?: string;
  attributes?: Record<string, string>;
  /** 'assertion' (what the SP asks for), 'response' (only the envelope), 'none'. */
  sign?: 'assertion' | 'response' | 'none';
  audience?: string;
  /** Minutes from now the assertion stops being valid (negative: expired). */
  validForMinutes?: number;
  /** Another key than the one the SP was told about. */
  keyPair?: KeyPair;
  /** Encrypt the assertion to the SP's encryption certificate (its metadata's use="encryption"). */
  encrypt?: boolean;
};

/** What the IdP saw of the last AuthnRequest at /sso. */
export type SeenRequest = { signed: boolean; sigAlg: string | null; verified: boolean };

export type TestSamlIdp = {
  entityId: string;
  ssoUrl: string;
  keyPair: KeyPair;
  metadata: string;
  /** The last AuthnRequest /sso received, and whether its signature checked out. */
  lastRequest: SeenRequest | null;
  sloUrl: string;
  /** The last LogoutRequest /slo received (HTTP-Redirect), its signature and NameID. */
  lastLogout: (SeenRequest & { nameId: string }) | null;
  /** An IdP-initiated LogoutRequest for `nameId`, signed (HTTP-POST binding), base64 as posted. */
  logoutRequest(spMetadata: string, nameId: string, keyPair?: KeyPair): string;
  setNextLogin(next: NextLogin): void;
  /** Builds a response as the IdP would post it; `inResponseTo` empty for IdP-initiated. */
  respond(spMetadata: string, inResponseTo: string, next?: NextLogin): Promise<string>;
  close(): Promise<void>;
};

const xmlEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The signature of a message sent by HTTP-Redirect, checked as SAML bindings §3.4.4.1 says: over
 * `SAMLRequest=…&RelayState=…&SigAlg=…` exactly as they came URL-encoded in the query, with the
 * SP's signing certificate (its metadata's KeyDescriptor use="signing").
 */
export function verifyRedirectSignature(rawQuery: string, spMetadata: string): SeenRequest {
  const raw = new Map(
    rawQuery.split('&').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  const sigAlg = raw.has('SigAlg') ? decodeURIComponent(raw.get('SigAlg')!) : null;
  const signature = raw.get('Signature');
  if (!signature || !sigAlg) return { signed: false, sigAlg, verified: false };
  const octets = ['SAMLRequest', 'SAMLResponse', 'RelayState', 'SigAlg']
    .filter((k) => raw.has(k))
    .map((k) => `${k}=${raw.get(k)}`)
    .join('&');
  const cert = /<KeyDescriptor use="signing">[\s\S]*?<ds:X509Certificate>([^<]+)</.exec(spMetadata)?.[1];
  const hash = { 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256': 'sha256' }[sigAlg];
  if (!cert || !hash) return { signed: true, sigAlg, verified: false };
  const verified = verify(
    hash,
    Buffer.from(octets),
    new X509Certificate(Buffer.from(cert, 'base64')).publicKey,
    Buffer.from(decodeURIComponent(signature), 'base64'),
  );
  return { signed: true, sigAlg, verified };
}

/**
 * A SAML identity provider (samlify) on loopback: `GET /sso` takes an AuthnRequest by HTTP-Redirect
 * and answers with the auto-posting form of a signed login response, as Okta or Entra do.
 * `wantSignedRequests`: its metadata says WantAuthnRequestsSigned="true" and /sso refuses (400) an
 * AuthnRequest whose signature is missing or does not verify, as Okta does with "Signed requests" on.
 */
export async function startSamlIdp(o: { wantSignedRequests?: boolean } = {}): Promise<TestSamlIdp> {
  // The service provider's metadata, fetched from the entity ID its AuthnRequest names.
  const spMetadata = async (issuer: string) => (await fetch(issuer)).text();
  const keyPair = makeKeyPair();
  let next: NextLogin | null = null;
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://idp.invalid');
      if (url.pathname === '/metadata') {
        res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(idp.metadata);
        return;
      }
      if (url.pathname === '/slo') {
        // SP-initiated single logout: check the LogoutRequest's signature, answer a signed
        // LogoutResponse by the auto-posting form to the SP's SingleLogoutService (HTTP-POST).
        const request = inflateRawSync(
          Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64'),
        ).toString();
        const id = /\bID="([^"]+)"/.exec(request)?.[1] ?? '';
        const issuer = /Issuer[^>]*>([^<]+)</.exec(request)?.[1] ?? '';
        const nameId = /NameID[^>]*>([^<]+)</.exec(request)?.[1] ?? '';
        const metadata = await spMetadata(issuer);
        idp.lastLogout = {
          ...verifyRedirectSignature((req.url ?? '').split('?')[1] ?? '', metadata),
          nameId,
        };
        if (!idp.lastLogout.verified) {
          res.writeHead(400).end('The LogoutRequest must be signed.');
          return;
        }
        const out = mainEntity.createLogoutResponse(
          spOf(metadata),
          { extract: { request: { id } } },
          'post',
          '',
        );
        const slo = /SingleLogoutService[^>]*Location="([^"]+)"/.exec(metadata)?.[1] ?? '';
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<form method="post" action="${xmlEscape(slo)}"><input name="SAMLResponse" value="${out.context}"></form>`,
          );
        return;
      }
      if (url.pathname !== '/sso' || !next) {
        res.writeHead(404).end();
        return;
      }
      const request = inflateRawSync(
        Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64'),
      ).toString();
      const id = /\bID="([^"]+)"/.exec(request)?.[1] ?? '';
      const issuer = /Issuer[^>]*>([^<]+)</.exec(request)?.[1] ?? '';
      const metadata = await spMetadata(issuer);
      idp.lastRequest = verifyRedirectSignature((req.url ?? '').split('?')[1] ?? '', metadata);
      if (o.wantSignedRequests && !idp.lastRequest.verified) {
        res.writeHead(400).end('The AuthnRequest must be signed.');
        return;
      }
      const saml = await idp.respond(metadata, id, next);
      const relay = url.searchParams.get('RelayState') ?? '';
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<form method="post" action="ACS"><input name="SAMLResponse" value="${saml}"><input name="RelayState" value="${xmlEscape(relay)}"></form>`,
        );
    })().catch((err: unknown) => {
      res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const entityId = `${base}/metadata`;
  const ssoUrl = `${base}/sso`;
  const sloUrl = `${base}/slo`;
  // The SP as samlify sees it from its metadata; logout messages both ways are signed (Okta's rule).
  const spOf = (metadata: string) =>
    samlify.ServiceProvider({ metadata, wantLogoutRequestSigned: true, wantLogoutResponseSigned: true });
  const entityOf = (kp: KeyPair, encrypt = false) =>
    samlify.IdentityProvider({
      entityID: entityId,
      privateKey: kp.key,
      signingCert: kp.cert,
      wantAuthnRequestsSigned: o.wantSignedRequests ?? false,
      // samlify's defaults, as Okta's: AES-256-CBC for the assertion, RSA-OAEP for its key.
      isAssertionEncrypted: encrypt,
      nameIDFormat: [PERSISTENT, EMAIL_FORMAT],
      singleSignOnService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: ssoUrl }],
      singleLogoutService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: sloUrl }],
    });
  const mainEntity = entityOf(keyPair);

  const idp: TestSamlIdp = {
    entityId,
    ssoUrl,
    keyPair,
    metadata: mainEntity.getMetadata(),
    lastRequest: null,
    sloUrl,
    lastLogout: null,
    logoutRequest(metadata, nameId, kp) {
      const entity = kp ? entityOf(kp) : mainEntity;
      return entity.createLogoutRequest(spOf(metadata), 'post', { logoutNameID: nameId }).context;
    },
    setNextLogin(n) {
      next = n;
    },
    async respond(spMetadata, inResponseTo, n = next ?? undefined) {
      if (!n) throw new Error('no login set');
      const sign = n.sign ?? 'assertion';
      const sp = samlify.ServiceProvider({
        // 'response': samlify is shown metadata wanting no signed assertion, so it signs the envelope only.
        metadata:
          sign === 'response'
            ? spMetadata.replace('WantAssertionsSigned="true"', 'WantAssertionsSigned="false"')
            : spMetadata,
      });
      const acs = /AssertionConsumerService[^>]*Location="([^"]+)"/.exec(spMetadata)?.[1] ?? '';
      const audience = n.audience ?? /entityID="([^"]+)"/.exec(spMetadata)?.[1] ?? '';
      const now = new Date();
      const until = new Date(now.getTime() + (n.validForMinutes ?? 5) * 60_000).toISOString();
      const issued = new Date(Math.min(now.getTime(), Date.parse(until) - 60_000)).toISOString();
      const attributes = Object.entries(n.attributes ?? {})
        .map(
          ([k, v]) =>
            `<saml:Attribute Name="${xmlEscape(k)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic"><saml:AttributeValue xsi:type="xs:string">${xmlEscape(v)}</saml:AttributeValue></saml:Attribute>`,
        )
        .join('');
      const values = {
        ID: `_${randomUUID()}`,
        AssertionID: `_${randomUUID()}`,
        Destination: acs,
        Audience: audience,
        SubjectRecipient: acs,
        Issuer: entityId,
        IssueInstant: issued,
        StatusCode: samlify.Constants.StatusCode.Success,
        ConditionsNotBefore: issued,
        ConditionsNotOnOrAfter: until,
        SubjectConfirmationDataNotOnOrAfter: until,
        NameIDFormat: n.nameIdFormat ?? PERSISTENT,
        NameID: n.nameId,
        InResponseTo: inResponseTo,
        AuthnStatement: '@AUTHN@',
        AttributeStatement: '@ATTRS@',
      };
      // replaceTagsByValue escapes values: the two statements are XML, put in afterwards.
      const authn = `<saml:AuthnStatement AuthnInstant="${issued}" SessionIndex="_s${randomUUID()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`;
      const attrs = attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '';
      const xml = samlify.SamlLib.replaceTagsByValue(
        samlify.SamlLib.defaultLoginResponseTemplate.context,
        values,
      )
        .replace('@AUTHN@', authn)
        .replace('@ATTRS@', attrs);
      if (sign === 'none') return Buffer.from(xml).toString('base64');
      const entity = n.keyPair || n.encrypt ? entityOf(n.keyPair ?? keyPair, n.encrypt) : mainEntity;
      const out = await entity.createLoginResponse(
        sp,
        { extract: { request: { id: inResponseTo } } },
        'post',
        {},
        {
          customTagReplacement: () => ({ id: values.ID, context: xml }),
        },
      );
      return out.context;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return idp;
}
