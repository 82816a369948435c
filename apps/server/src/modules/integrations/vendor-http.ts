import { setTimeout as sleep } from 'node:timers/promises';
import type { AdapterContext, Credentials, OAuthCredentials } from './port.ts';

/**
 * HTTP for vendor adapters: JSON requests with retry and backoff on rate limits (429, honouring the
 * vendor's wait hint), 5xx and network errors; one OAuth refresh on a 401. Adapters call `request`
 * and get a parsed 2xx body, or one of the typed errors below.
 */

/** The vendor refused our credentials for good: the integration becomes inactive with this message. */
export class VendorAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VendorAuthError';
  }
}

/** Any other non-2xx answer after retries. */
export class VendorError extends Error {
  readonly status: number;
  readonly body: string;
  constructor(vendor: string, status: number, body: string) {
    super(`${vendor} answered ${status}: ${body.slice(0, 300)}`);
    this.name = 'VendorError';
    this.status = status;
    this.body = body;
  }
}

/**
 * The vendor could not be reached at all (refused connection, unknown host, no answer in time): the
 * route answers 502 naming the vendor, and nothing is stored.
 */
export class VendorUnreachableError extends Error {
  readonly vendor: string;
  /** The network reason (ECONNREFUSED, ENOTFOUND, timeout…). */
  readonly reason: string;
  constructor(vendor: string, reason: string, cause?: unknown) {
    super(`${vendor} could not be reached (${reason})`, { cause });
    this.name = 'VendorUnreachableError';
    this.vendor = vendor;
    this.reason = reason;
  }
}

/** The network reason of a failed fetch: undici puts the system error code in `cause`. */
function networkReason(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'no answer in time';
  return e.cause?.code ?? e.cause?.message ?? e.message ?? 'network error';
}

/** A user waiting for a connection check gets an answer within this, per request. */
export const INTERACTIVE_TIMEOUT_MS = 10_000;

export type RetryPolicy = {
  /** Attempts after the first (rate limits, 5xx, network). */
  retries: number;
  /** First backoff; doubles each time (with jitter) up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Longest wait a vendor's Retry-After may impose before we give up this run. */
  maxRateLimitWaitMs: number;
  /** Longest wait for one request's answer before it counts as a network failure. */
  attemptTimeoutMs: number;
  sleep: (ms: number) => Promise<unknown>;
};

export const DEFAULT_RETRY: RetryPolicy = {
  retries: 6,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRateLimitWaitMs: 120_000,
  attemptTimeoutMs: 60_000,
  sleep: (ms) => sleep(ms),
};

const RETRIED = new Set([408, 425, 500, 502, 503, 504]);

export type VendorRequest = {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** JSON-encoded unless a string, URLSearchParams or bytes (Uint8Array, Buffer) are given. */
  body?: unknown;
};

export type VendorHttpOptions = {
  /** Name used in messages ("Salesloft"). */
  vendor: string;
  retry?: Partial<RetryPolicy>;
  /**
   * How long the vendor asks us to wait after a 429, in ms, from its headers; the default reads
   * Retry-After (seconds or an HTTP date) and X-RateLimit-Reset (epoch seconds).
   */
  rateLimitWait?: (res: Response, now: number) => number | null;
  /** Adds authentication to a request from the current credentials. */
  authorize: (creds: Credentials) => Record<string, string>;
  /** Trades a refresh token for new tokens; absent for API keys. */
  refresh?: (creds: OAuthCredentials) => Promise<OAuthCredentials>;
  /** Message for the user when the vendor rejects our credentials. */
  revokedMessage: string;
  /**
   * For vendors that say "slow down" or "bad token" otherwise than with 429 and 401 (Salesforce's 403
   * REQUEST_LIMIT_EXCEEDED, Marketo's HTTP 200 with error 606 or 601): reads a copy of each response
   * and tells which it is, if either. A rate limit is waited out and retried like a 429; an auth
   * failure is handled like a 401 (one refresh, then VendorAuthError).
   */
  classify?: (res: ClassifiedResponse) => Promise<ResponseVerdict | null>;
  /** Sees each authenticated reply's status and headers (e.g. a usage header read on every reply). */
  observe?: (ctx: AdapterContext, res: { status: number; headers: Headers }) => void;
};

/** What `classify` sees: the body is read (from a copy) only if it asks for it. */
export type ClassifiedResponse = { status: number; headers: Headers; text(): Promise<string> };
export type ResponseVerdict = { kind: 'rate_limit'; waitMs: number | null } | { kind: 'auth' };

export function defaultRateLimitWait(res: Response, now: number): number | null {
  const after = res.headers.get('retry-after');
  if (after) {
    const seconds = Number(after);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const at = Date.parse(after);
    if (Number.isFinite(at)) return Math.max(0, at - now);
  }
  const reset = Number(res.headers.get('x-ratelimit-reset'));
  if (reset > 0) return Math.max(0, reset * 1000 - now);
  return null;
}

export function createVendorHttp(options: VendorHttpOptions) {
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const rateLimitWait = options.rateLimitWait ?? defaultRateLimitWait;
  /** Responses `classify` called an auth failure: `request` treats them as a 401. */
  const authFailed = new WeakSet<Response>();

  const backoff = (attempt: number) => {
    const base = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
    return base / 2 + Math.random() * (base / 2);
  };

  function encode(
    body: unknown,
    headers: Record<string, string>,
  ): string | URLSearchParams | Uint8Array | undefined {
    if (body === undefined) return undefined;
    if (typeof body === 'string' || body instanceof URLSearchParams) return body;
    // Bytes (an image upload) go as they are, with the caller's content-type.
    if (body instanceof Uint8Array) return body;
    headers['content-type'] ??= 'application/json';
    return JSON.stringify(body);
  }

  /**
   * One request with retries, without authentication (token endpoints). `interactive` (a user is
   * waiting): no retries and INTERACTIVE_TIMEOUT_MS per request. A vendor that cannot be reached
   * raises VendorUnreachableError.
   */
  async function send(req: VendorRequest, signal?: AbortSignal, interactive = false): Promise<Response> {
    const retries = interactive ? 0 : policy.retries;
    const timeoutMs = interactive
      ? Math.min(INTERACTIVE_TIMEOUT_MS, policy.attemptTimeoutMs)
      : policy.attemptTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
      let res: Response;
      const timeout = AbortSignal.timeout(timeoutMs);
      try {
        res = await fetch(req.url, {
          method: req.method ?? 'GET',
          headers,
          body: encode(req.body, headers),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
      } catch (err) {
        if (signal?.aborted) throw err;
        if (attempt >= retries) throw new VendorUnreachableError(options.vendor, networkReason(err), err);
        await policy.sleep(backoff(attempt));
        continue;
      }
      // A copy is made only when the body is read, and then read whole: a copy left unread would
      // keep the original's cancel() waiting for ever (tee semantics).
      const verdict = options.classify
        ? await options.classify({ status: res.status, headers: res.headers, text: () => res.clone().text() })
        : null;
      if (verdict?.kind === 'auth') authFailed.add(res);
      if ((res.status === 429 || verdict?.kind === 'rate_limit') && attempt < retries) {
        const hinted = verdict?.kind === 'rate_limit' ? verdict.waitMs : rateLimitWait(res, Date.now());
        await res.body?.cancel();
        if (hinted !== null && hinted > policy.maxRateLimitWaitMs) {
          throw new VendorError(
            options.vendor,
            res.status,
            `rate limited for ${Math.round(hinted / 1000)} s`,
          );
        }
        await policy.sleep(hinted ?? backoff(attempt));
        continue;
      }
      if (RETRIED.has(res.status) && attempt < retries) {
        await res.body?.cancel();
        await policy.sleep(backoff(attempt));
        continue;
      }
      return res;
    }
  }

  async function parse<T>(res: Response): Promise<T> {
    const text = await res.text();
    if (!res.ok) throw new VendorError(options.vendor, res.status, text);
    return (text ? JSON.parse(text) : null) as T;
  }

  return {
    policy,
    /** An unauthenticated call (token exchange and refresh). */
    async raw<T>(req: VendorRequest, signal?: AbortSignal, interactive = false): Promise<T> {
      return parse<T>(await send(req, signal, interactive));
    },
    /** An authenticated call: refreshes an OAuth token once on 401, else raises VendorAuthError. */
    async request<T>(ctx: AdapterContext, req: VendorRequest): Promise<T> {
      const attempt = async () => {
        const res = await send(
          { ...req, headers: { ...req.headers, ...options.authorize(ctx.credentials()) } },
          ctx.signal,
          ctx.interactive,
        );
        options.observe?.(ctx, res);
        return res;
      };
      let res = await attempt();
      if (res.status === 401 || authFailed.has(res)) {
        await res.body?.cancel();
        const creds = ctx.credentials();
        if (creds.kind !== 'oauth' || !creds.refreshToken || !options.refresh) {
          throw new VendorAuthError(options.revokedMessage);
        }
        let next: OAuthCredentials;
        try {
          next = await options.refresh(creds);
        } catch (err) {
          if (err instanceof VendorError && err.status >= 400 && err.status < 500) {
            // A concurrent sync may have rotated the refresh token first: use what it stored.
            const stored = await ctx.reloadCredentials?.();
            if (stored?.kind !== 'oauth' || stored.accessToken === creds.accessToken) {
              throw new VendorAuthError(options.revokedMessage);
            }
            next = stored;
          } else {
            throw err;
          }
        }
        await ctx.saveCredentials(next);
        res = await attempt();
        if (res.status === 401 || authFailed.has(res)) {
          await res.body?.cancel();
          throw new VendorAuthError(options.revokedMessage);
        }
      }
      return parse<T>(res);
    },
  };
}

export type VendorHttp = ReturnType<typeof createVendorHttp>;

/** Reads an OAuth token reply (`access_token, refresh_token, expires_in`) into our credentials. */
export function oauthCredentialsFrom(
  reply: { access_token: string; refresh_token?: string | null; expires_in?: number | string | null },
  previous?: OAuthCredentials,
  now = Date.now(),
): OAuthCredentials {
  const expiresIn = Number(reply.expires_in);
  return {
    kind: 'oauth',
    accessToken: reply.access_token,
    // A refresh that returns no new refresh token keeps the old one (Salesforce does this).
    refreshToken: reply.refresh_token ?? previous?.refreshToken ?? null,
    expiresAt:
      Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(now + expiresIn * 1000).toISOString() : null,
  };
}
