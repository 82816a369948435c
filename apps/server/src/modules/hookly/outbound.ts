import {
  checkFetchableUrl,
  fetchErrorMessage,
  FetchBlockedError,
  GuardedFetchError,
  guardedFetch,
} from '../../lib/guarded-fetch.ts';

/**
 * The one place webhooks reach the network, both through the guarded fetcher (ARCHITECTURE.md §12):
 * an endpoint's URL is checked when it is stored, and its address again on every delivery (DNS
 * answers change), so Rally never posts to loopback, private, link-local or metadata addresses
 * unless the operator allows it (ALLOW_PRIVATE_FETCH).
 */

export type OutboundOptions = { allowPrivate: boolean; timeoutMs?: number };

/**
 * Per-attempt time limit. The Standard Webhooks specification ("Request timeouts"): "A recommended
 * request timeout value for webhooks is somewhere between 15 and 30s."
 */
export const DEFAULT_TIMEOUT_MS = 20_000;
/** A receiver's Retry-After is honoured up to this long (a day, the schedule's longest wait). */
const MAX_RETRY_AFTER_MS = 86_400_000;

/** A receiver's reply is read only to quote it in the log; a longer one is a failed attempt. */
const MAX_REPLY_BYTES = 1024 * 1024;

/** Why a URL may not be stored (a 422 message for `body.url`), or null when it may. */
export async function urlProblem(raw: string, opts: OutboundOptions): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an https:// URL';
  }
  // Plain http only where the operator allows private addresses (local receivers, tests).
  if (url.protocol !== 'https:' && !(opts.allowPrivate && url.protocol === 'http:')) {
    return 'must be an https:// URL';
  }
  if (url.username || url.password) return 'must not carry a user name or password';
  try {
    await checkFetchableUrl(url, { allowPrivate: opts.allowPrivate });
  } catch (err) {
    if (err instanceof GuardedFetchError) return fetchErrorMessage(err);
    throw err;
  }
  return null;
}

export type PostResult =
  | { ok: true; status: number }
  /**
   * `final`: retrying cannot help (the address is refused, or the receiver answered 410 Gone);
   * `gone`: the receiver asked not to be sent anything more; `retryAfterMs`: its Retry-After.
   */
  | {
      ok: false;
      status: number | null;
      error: string;
      final?: boolean;
      gone?: boolean;
      retryAfterMs?: number;
    };

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 §10.2.3), in ms; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

/** Posts one delivery; never follows redirects (a 3xx is a failed attempt). */
export async function postDelivery(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: OutboundOptions,
): Promise<PostResult> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    const res = await guardedFetch(
      url,
      { method: 'POST', headers, body, redirect: 'manual' },
      { allowPrivate: opts.allowPrivate, timeoutMs, maxBytes: MAX_REPLY_BYTES },
    );
    const text = await res.text().catch(() => '');
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status };
    // Standard Webhooks, "Delivery success and failure": "410 Gone: ... Sender should disable the
    // webhook endpoint, and stop sending it messages"; a retry-after header "should be taken into
    // consideration when scheduling the next attempt".
    if (res.status === 410) {
      return { ok: false, status: 410, error: httpErrorText(410, text), final: true, gone: true };
    }
    const wait = retryAfterMs(res.headers.get('retry-after'));
    return {
      ok: false,
      status: res.status,
      error: httpErrorText(res.status, text),
      ...(wait !== undefined ? { retryAfterMs: wait } : {}),
    };
  } catch (err) {
    if (err instanceof FetchBlockedError) {
      return {
        ok: false,
        status: null,
        error: `Not sent: the endpoint's URL ${fetchErrorMessage(err)}`,
        final: true,
      };
    }
    if (err instanceof GuardedFetchError) {
      const why =
        err.reason === 'timeout'
          ? `did not answer within ${Math.round(timeoutMs / 1000)} seconds`
          : err.reason === 'too_large'
            ? 'answered with more than 1 MB'
            : `could not be reached (${err.message})`;
      return { ok: false, status: null, error: `The endpoint ${why}` };
    }
    return {
      ok: false,
      status: null,
      error: `The endpoint could not be reached (${(err as Error).message})`,
    };
  }
}

function httpErrorText(status: number, body: string): string {
  const snippet = body.replace(/\s+/g, ' ').trim().slice(0, 200);
  return `The endpoint answered HTTP ${status}${snippet ? `: ${snippet}` : ''}`;
}
