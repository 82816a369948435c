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
  /** `final`: retrying cannot help (the address is refused). */
  | { ok: false; status: number | null; error: string; final?: boolean };

/** Posts one delivery; never follows redirects (a 3xx is a failed attempt). */
export async function postDelivery(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: OutboundOptions,
): Promise<PostResult> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  try {
    const res = await guardedFetch(
      url,
      { method: 'POST', headers, body, redirect: 'manual' },
      { allowPrivate: opts.allowPrivate, timeoutMs, maxBytes: MAX_REPLY_BYTES },
    );
    const text = await res.text().catch(() => '');
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status };
    return { ok: false, status: res.status, error: httpErrorText(res.status, text) };
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
