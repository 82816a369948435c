import { createHash } from 'node:crypto';

/**
 * E-mail normalisation for matched audiences. Meta, "Customer File Custom Audiences › Hashing and
 * normalizing data" and the Conversions API's "Customer Information Parameters" (`em`): trim leading
 * and trailing white space and convert to lower case, then SHA-256, hex in lower case. LinkedIn DMP
 * and Google Customer Match ask the same for e-mails (Google adds a Gmail dot rule, applied by its
 * adapter when it comes). Null for what cannot be an address, so nothing meaningless is sent.
 */
export function normaliseEmail(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const email = raw.trim().toLowerCase();
  const at = email.indexOf('@');
  if (at < 1 || at !== email.lastIndexOf('@') || at === email.length - 1 || /\s/.test(email)) return null;
  return email;
}

/** SHA-256 of the normalised address, lower-case hex: the only form an address leaves Rally in. */
export function hashEmail(raw: string | null | undefined): string | null {
  const email = normaliseEmail(raw);
  return email === null ? null : createHash('sha256').update(email, 'utf8').digest('hex');
}

/** A lower-case SHA-256 hex digest (what a network's fake accepts as a hashed member). */
export const SHA256_HEX = /^[0-9a-f]{64}$/;
