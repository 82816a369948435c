import { X509Certificate, createPrivateKey, generateKeyPair, randomBytes, sign } from 'node:crypto';
import { promisify } from 'node:util';

/**
 * Rally's own key and certificate as a client's SAML service provider: it signs AuthnRequests and
 * LogoutRequests/Responses, and identity providers encrypt assertions to it (docs/decisions/0035).
 * node:crypto makes the RSA key but cannot write a certificate, and no X.509 library is a
 * dependency, so the self-signed certificate is written here in DER (RFC 5280 §4.1): a SAML peer
 * reads only its public key from metadata, so subject, serial and validity are all it needs.
 */

export type SpKeyPair = { keyPem: string; certPem: string };

const VALID_YEARS = 10;

// DER (X.690) for the few types a certificate uses.
function tlv(tag: number, body: Buffer): Buffer {
  const n = body.length;
  const len =
    n < 0x80
      ? Buffer.from([n])
      : n < 0x100
        ? Buffer.from([0x81, n])
        : n < 0x10000
          ? Buffer.from([0x82, n >> 8, n & 0xff])
          : Buffer.from([0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, body]);
}
const seq = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]) => tlv(0x31, Buffer.concat(parts));
const int = (b: Buffer) => tlv(0x02, (b[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
const nul = () => Buffer.from([0x05, 0x00]);
const bits = (b: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0]), b]));
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const out = [a * 40 + b];
  for (const v of rest) {
    const chunk = [v & 0x7f];
    for (let x = v >>> 7; x > 0; x >>>= 7) chunk.unshift((x & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}
/** UTCTime until 2049, GeneralizedTime after (RFC 5280 §4.1.2.5). */
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(iso.slice(2))) : tlv(0x18, Buffer.from(iso));
}

const SHA256_RSA = '1.2.840.113549.1.1.11';
const COMMON_NAME = '2.5.4.3';

/** A fresh RSA-2048 key and a self-signed SHA-256 certificate for it, valid ten years. */
/**
 * A certificate serial from random bytes: positive (RFC 5280 §4.1.2.2) and minimally encoded. The
 * first byte is kept in 0x40–0x7f: a zero first byte before one under 0x80 is padding DER forbids,
 * and OpenSSL refused such a certificate ("illegal padding"), about one key in 256.
 */
export function serialNumber(random: Buffer): Buffer {
  const serial = Buffer.from(random);
  serial.writeUInt8(((serial[0] ?? 0) & 0x3f) | 0x40, 0);
  return serial;
}

export async function generateSpKeyPair(commonName: string): Promise<SpKeyPair> {
  const { privateKey, publicKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
  const name = seq(set(seq(oid(COMMON_NAME), utf8(commonName.slice(0, 64)))));
  const now = new Date();
  const until = new Date(now);
  until.setUTCFullYear(until.getUTCFullYear() + VALID_YEARS);
  const algorithm = seq(oid(SHA256_RSA), nul());
  const serial = serialNumber(randomBytes(16));
  const tbs = seq(
    tlv(0xa0, int(Buffer.from([2]))), // version 3
    int(serial),
    algorithm,
    name,
    seq(time(new Date(now.getTime() - 60_000)), time(until)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, algorithm, bits(signature));
  const certPem = `-----BEGIN CERTIFICATE-----\n${(der.toString('base64').match(/.{1,64}/g) ?? []).join('\n')}\n-----END CERTIFICATE-----\n`;
  // Checked by Node's own X.509 parser before anything relies on it.
  if (!new X509Certificate(certPem).checkPrivateKey(privateKey)) throw new Error('certificate mismatch');
  return { keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), certPem };
}

/** True when `keyPem` is the private key of `certPem` (a stored pair was not mixed up). */
export function keyMatches(keyPem: string, certPem: string): boolean {
  return new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
}
