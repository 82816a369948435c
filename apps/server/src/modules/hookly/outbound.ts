/**
 * The one place webhooks reach the network: checking an endpoint's URL when it is stored, and
 * posting a delivery. Both go through the guarded fetcher (ARCHITECTURE.md §12) once it is on main.
 */

export type OutboundOptions = { allowPrivate: boolean; timeoutMs?: number };

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
  return null;
}

export type PostResult = { ok: true; status: number } | { ok: false; status: number | null; error: string };

/** Posts one delivery; never follows redirects (a 3xx is a failed attempt). */
export async function postDelivery(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: OutboundOptions,
): Promise<PostResult> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
    });
    const text = await res.text().catch(() => '');
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status };
    return { ok: false, status: res.status, error: httpErrorText(res.status, text) };
  } catch (err) {
    return { ok: false, status: null, error: networkErrorText(err) };
  }
}

function httpErrorText(status: number, body: string): string {
  const snippet = body.replace(/\s+/g, ' ').trim().slice(0, 200);
  return `The endpoint answered HTTP ${status}${snippet ? `: ${snippet}` : ''}`;
}

function networkErrorText(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return 'The endpoint did not answer within 10 seconds';
  const why = e.cause?.code ?? e.cause?.message ?? e.message;
  return `The endpoint could not be reached (${why})`;
}
