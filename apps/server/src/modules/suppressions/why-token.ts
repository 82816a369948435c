import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * The "Why am I seeing this?" link (issue 44, decision 0027): `/why/{target token}.{signature}`. The
 * target token is what the landing page's `?t=` and the e-mail's click URL carry already; the
 * signature (HMAC under a key derived from APP_SECRET) means a link cannot be made up from a guessed
 * or harvested token. The page's form carries a second signature bound to the same target (the
 * CSRF token: a public page has no session to bind one to). No address is in either.
 */
export type WhySigner = {
  link(publicUrl: string, targetToken: string): string;
  /** The target token of a signed path segment, or null when the signature does not hold. */
  open(signed: string): string | null;
  formToken(targetToken: string): string;
  formTokenHolds(targetToken: string, value: unknown): boolean;
};

const TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

export function createWhySigner(appSecret: string): WhySigner {
  const key = Buffer.from(hkdfSync('sha256', appSecret, 'rally', 'why-link-v1', 32));
  const mac = (purpose: string, token: string) =>
    createHmac('sha256', key).update(`${purpose}:${token}`).digest('base64url').slice(0, 22);
  const same = (a: string, b: string) =>
    a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
  return {
    link(publicUrl, targetToken) {
      return `${publicUrl.replace(/\/+$/, '')}/why/${targetToken}.${mac('why', targetToken)}`;
    },
    open(signed) {
      const at = signed.lastIndexOf('.');
      if (at < 1) return null;
      const token = signed.slice(0, at);
      if (!TOKEN.test(token)) return null;
      return same(signed.slice(at + 1), mac('why', token)) ? token : null;
    },
    formToken: (targetToken) => mac('optout', targetToken),
    formTokenHolds: (targetToken, value) =>
      typeof value === 'string' && same(value, mac('optout', targetToken)),
  };
}

const signers = new Map<string, WhySigner>();

/** One signer per secret (deriving the key is not free; pages are rendered per visit). */
export function whySignerFor(appSecret: string): WhySigner {
  let signer = signers.get(appSecret);
  if (!signer) {
    signer = createWhySigner(appSecret);
    signers.set(appSecret, signer);
  }
  return signer;
}
