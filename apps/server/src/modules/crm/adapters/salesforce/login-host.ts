import { createHash } from 'node:crypto';
import type { SalesforceConfig } from '../../../../config/env.ts';
import { GuardedFetchError, checkFetchableUrl, fetchErrorMessage } from '../../../../lib/guarded-fetch.ts';
import { fieldError } from '../../../../lib/errors.ts';
import { hmac } from '../../../../lib/crypto.ts';

/**
 * Where a Salesforce connection logs in, chosen by the owner when connecting: production
 * (login.salesforce.com, SALESFORCE_AUTH_URL), sandbox (test.salesforce.com,
 * SALESFORCE_SANDBOX_AUTH_URL) or the org's My Domain, which orgs that block the generic hosts
 * require. A My Domain is Salesforce's own: `<name>.my.salesforce.com`, or with a sandbox, scratch,
 * developer, demo, patch or Trailhead part (`acme--uat.sandbox.my.salesforce.com`); anything else
 * is refused, so a typed-in host cannot point the token exchange elsewhere.
 */
export type SalesforceLogin = 'production' | 'sandbox' | 'my_domain';

const MY_DOMAIN =
  /^[a-z0-9](?:[a-z0-9-]{0,78}[a-z0-9])?(?:\.(?:sandbox|develop|scratch|demo|patch|trailblaze))?\.my\.salesforce\.com$/;

/** `acme`, `acme.my.salesforce.com` or `https://acme.my.salesforce.com/` → its https origin, or null. */
export function myDomainOrigin(raw: string): string | null {
  const text = raw.trim().toLowerCase();
  if (!text) return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.port || url.username || url.password) return null;
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) return null;
  const host = url.hostname.includes('.') ? url.hostname : `${url.hostname}.my.salesforce.com`;
  return MY_DOMAIN.test(host) ? `https://${host}` : null;
}

/**
 * The login origin for the redirect's `login` and `my_domain` query fields; a 422 naming the field
 * when the My Domain is missing, not a Salesforce My Domain, or (guarded fetcher rules) does not
 * resolve to public addresses.
 */
export async function salesforceLoginUrl(
  cfg: SalesforceConfig,
  q: { login: SalesforceLogin; my_domain?: string | undefined },
  opts: { allowPrivate: boolean },
): Promise<string> {
  if (q.login === 'production') return cfg.authUrl;
  if (q.login === 'sandbox') return cfg.sandboxAuthUrl;
  if (!q.my_domain?.trim())
    throw fieldError('querystring.my_domain', 'is required when logging in with My Domain');
  const origin = myDomainOrigin(q.my_domain);
  if (!origin) {
    throw fieldError(
      'querystring.my_domain',
      "must be the org's My Domain, like https://acme.my.salesforce.com (Setup › My Domain shows it)",
    );
  }
  try {
    await checkFetchableUrl(origin, { allowPrivate: opts.allowPrivate });
  } catch (err) {
    if (err instanceof GuardedFetchError) throw fieldError('querystring.my_domain', fetchErrorMessage(err));
    throw err;
  }
  return origin;
}

/**
 * PKCE (RFC 7636, S256) for a connect flow: the verifier is derived from the flow's nonce with the
 * app secret, so it never leaves the server until the token request, and nothing has to be stored
 * beside the signed state. 43 base64url characters, the shortest verifier RFC 7636 §4.1 allows.
 */
export function pkceVerifier(appSecret: string, nonce: string): string {
  return hmac(appSecret, `crm-pkce:${nonce}`);
}

export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
