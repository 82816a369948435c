import { Secret, TOTP } from 'otpauth';
import { PRODUCT_NAME } from '@rally/shared';
import { hashToken, randomToken } from '../../lib/crypto.ts';

/** RFC 6238 codes: 6 digits, 30 s, SHA-1 (what authenticator apps expect). */
function totp(secret: string, label: string) {
  return new TOTP({
    issuer: PRODUCT_NAME,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    secret: Secret.fromBase32(secret),
  });
}

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export async function enrolment(secret: string, email: string) {
  const url = totp(secret, email).toString();
  // Loaded at the first enrolment, not at start (bench/README.md "Embedded mode").
  const { default: QRCode } = await import('qrcode');
  return { secret, otpauth_url: url, qr_code: await QRCode.toDataURL(url, { margin: 1, width: 220 }) };
}

/** Accepts the current code and one step either side, for clock drift. */
export function verifyTotp(secret: string, code: string): boolean {
  return totp(secret, 'verify').validate({ token: code, window: 1 }) !== null;
}

/** Ten single-use recovery codes, `xxxxx-xxxxx`; only their hashes are stored. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: 10 }, () => {
    const raw = randomToken(16)
      .replace(/[^a-z0-9]/gi, '')
      .toLowerCase()
      .slice(0, 10)
      .padEnd(10, '0');
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
}

export function hashRecoveryCode(code: string): string {
  return hashToken(code.trim().toLowerCase().replace(/-/g, ''));
}
