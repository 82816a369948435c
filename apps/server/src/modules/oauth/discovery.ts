import * as oidc from 'openid-client';
import type { Config } from '../../config/env.ts';
import { hashToken } from '../../lib/crypto.ts';
import type { GuardedFetchInit } from '../../lib/guarded-fetch.ts';
import { GuardedFetchError, guardedFetch } from '../../lib/guarded-fetch.ts';

/** Discovered provider metadata is re-read after this long (key rotation, moved endpoints). */
const DISCOVERY_TTL_MS = 60 * 60_000;
const DISCOVERY_CACHE_MAX = 500;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** A client's SSO issuer gets this long per request (discovery, token, user info), not 10 s. */
const SSO_FETCH_TIMEOUT_MS = 5_000;

export type OidcClient = { issuer: string; clientId: string; clientSecret: string };

/** The GuardedFetchError behind a discovery failure (openid-client may wrap it), if any. */
export function guardedFetchErrorOf(err: unknown): GuardedFetchError | null {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof GuardedFetchError) return e;
  }
  return null;
}

/** A client's own SSO issuer is typed in by its owner: every request to it goes through guardedFetch. */
export function createSsoDiscovery(config: Config) {
  return createDiscoveryCache({
    allowLoopbackHttp: config.allowPrivateFetch,
    fetch: (url, o) =>
      guardedFetch(
        url,
        {
          method: o.method,
          headers: o.headers,
          body: o.body as GuardedFetchInit['body'],
          signal: o.signal ?? null,
          redirect: 'manual',
        },
        { allowPrivate: config.allowPrivateFetch, timeoutMs: SSO_FETCH_TIMEOUT_MS, maxBytes: 1024 * 1024 },
      ),
  });
}

/**
 * Discovered provider configurations, kept for an hour. The key is the issuer and the OAuth client
 * (openid-client binds both into one Configuration, and Entra ID's multi-tenant issuer check only
 * survives on the discovered object), so Google and Microsoft each have one entry. Failures are not kept.
 */
export function createDiscoveryCache(opts: { allowLoopbackHttp: boolean; fetch?: oidc.CustomFetch }) {
  const cache = new Map<string, { at: number; configuration: Promise<oidc.Configuration> }>();

  const discover = (issuer: string, clientId: string, clientSecret?: string) => {
    const server = new URL(issuer);
    const insecure =
      opts.allowLoopbackHttp &&
      server.protocol === 'http:' &&
      (opts.fetch !== undefined || LOOPBACK.has(server.hostname));
    return oidc.discovery(
      server,
      clientId,
      undefined,
      clientSecret === undefined ? undefined : clientAuth(clientSecret),
      {
        execute: insecure ? [oidc.allowInsecureRequests] : [],
        timeout: 10,
        ...(opts.fetch ? { [oidc.customFetch]: opts.fetch } : {}),
      },
    );
  };

  return {
    get(client: OidcClient): Promise<oidc.Configuration> {
      const key = `${client.issuer}\n${client.clientId}\n${hashToken(client.clientSecret)}`;
      const hit = cache.get(key);
      if (hit && Date.now() - hit.at < DISCOVERY_TTL_MS) return hit.configuration;
      const configuration = discover(client.issuer, client.clientId, client.clientSecret);
      cache.delete(key);
      const oldest = cache.keys().next();
      if (cache.size >= DISCOVERY_CACHE_MAX && !oldest.done) cache.delete(oldest.value);
      cache.set(key, { at: Date.now(), configuration });
      configuration.catch(() => {
        if (cache.get(key)?.configuration === configuration) cache.delete(key);
      });
      return configuration;
    },
    /** Checks that an issuer answers discovery (for settings forms), without caching. */
    async probe(issuer: string): Promise<void> {
      await discover(issuer, 'probe');
    },
  };
}

/**
 * client_secret_basic (the OpenID Connect default) where the provider offers it, else
 * client_secret_post; decided per request from the provider's metadata.
 */
function clientAuth(secret: string): oidc.ClientAuth {
  const basic = oidc.ClientSecretBasic(secret);
  const post = oidc.ClientSecretPost(secret);
  return (as, client, body, headers) => {
    const supported = as.token_endpoint_auth_methods_supported;
    (!supported || supported.includes('client_secret_basic') ? basic : post)(as, client, body, headers);
  };
}
