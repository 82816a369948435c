import type { z } from 'zod';
import { getCsrfToken, setCsrfToken } from './csrf.ts';
import { plainPermissionMessage } from '@rally/shared/constants/permissions';

/**
 * The only fetch wrapper (STYLE.md). It applies the request rules of SPEC.md §7: x-client-id on every
 * call but GET self, x-xsrf-token on writes, the X-Xsrf-Token of every response kept and shared,
 * cookies sent, a bearer token on self when the page was opened with ?token=. It retries 408, 409,
 * 425, 429, 500, 502, 503 and 504 with backoff, sending the same Idempotency-Key on each attempt of a
 * write. Errors are thrown as ApiError; toasts and redirects are decided above it.
 */

export class ApiError extends Error {
  readonly status: number;
  readonly data: unknown;
  constructor(status: number, message: string, data: unknown) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.data = data;
  }
}

export const RETRY_STATUSES = new Set([408, 409, 425, 429, 500, 502, 503, 504]);
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const MAX_RETRIES = 3;
const SELF_PATH = '/v1/api/user/self';

type Context = {
  clientId: () => string | null;
  loginToken: () => string | null;
  onUnauthorized: (error: ApiError) => void;
};
let context: Context = { clientId: () => null, loginToken: () => null, onUnauthorized: () => {} };

/** Wires the client to the auth state (done once by the auth provider). */
export function configureApiClient(next: Partial<Context>): void {
  context = { ...context, ...next };
}

export type RequestOptions<S extends z.ZodType | undefined = undefined> = {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined | null>;
  signal?: AbortSignal;
  /** Parses the reply with a shared schema, so a contract change fails loudly. */
  schema?: S;
  /** Overrides the current client for this call. */
  clientId?: string | null;
  retries?: number;
  /** Read a successful reply as a Blob (an image) instead of JSON; errors are still JSON. */
  responseType?: 'json' | 'blob';
  /** Extra request headers (an embedded report link's token). */
  headers?: Record<string, string>;
};

export function isAbortError(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(new DOMException('Aborted', 'AbortError'));
    });
  });
}

function backoff(attempt: number, retryAfter: string | null): number {
  const seconds = retryAfter ? Number(retryAfter) : NaN;
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  return 300 * 2 ** attempt + Math.random() * 100;
}

const CSRF_PATH = '/v1/api/auth/csrf';

/** Fetches a CSRF token (a fresh browser has none before its first write). */
async function refreshCsrf(signal?: AbortSignal): Promise<void> {
  const res = await fetch(CSRF_PATH, { credentials: 'same-origin', signal });
  const token = res.headers.get('x-xsrf-token');
  if (token) setCsrfToken(token);
}

function isCsrfRefusal(status: number, data: unknown): boolean {
  return status === 403 && /x-xsrf-token/.test(messageOf(data) ?? '');
}

export async function apiRequest<S extends z.ZodType | undefined = undefined>(
  path: string,
  opts: RequestOptions<S> = {},
): Promise<S extends z.ZodType ? z.infer<S> : unknown> {
  const method = opts.method ?? 'GET';
  const url = new URL(path, window.location.origin);
  for (const [k, v] of Object.entries(opts.query ?? {}))
    if (v !== undefined && v !== null) url.searchParams.set(k, String(v));

  const headers: Record<string, string> = { ...opts.headers, accept: 'application/json' };
  // A file upload (FormData) lets the browser set the multipart boundary itself.
  const isForm = typeof FormData !== 'undefined' && opts.body instanceof FormData;
  if (opts.body !== undefined && !isForm) headers['content-type'] = 'application/json';
  const isSelf = method === 'GET' && url.pathname === SELF_PATH;
  const clientId = opts.clientId === undefined ? context.clientId() : opts.clientId;
  if (!isSelf && clientId) headers['x-client-id'] = clientId;
  const loginToken = isSelf ? context.loginToken() : null;
  if (loginToken) headers.authorization = `Bearer ${loginToken}`;
  if (WRITES.has(method)) headers['idempotency-key'] = crypto.randomUUID();

  const retries = opts.retries ?? MAX_RETRIES;
  let csrfRetried = false;
  for (let attempt = 0; ; attempt++) {
    if (WRITES.has(method)) {
      if (!getCsrfToken()) await refreshCsrf(opts.signal);
      const csrf = getCsrfToken();
      if (csrf) headers['x-xsrf-token'] = csrf;
    }
    const res = await fetch(url, {
      method,
      headers,
      body:
        opts.body === undefined ? undefined : isForm ? (opts.body as FormData) : JSON.stringify(opts.body),
      credentials: 'same-origin',
      signal: opts.signal,
    });
    const csrf = res.headers.get('x-xsrf-token');
    if (csrf) setCsrfToken(csrf);

    const retryAfter = res.headers.get('retry-after');
    const wait = backoff(attempt, retryAfter);
    // A long Retry-After (a sign-in lockout) is reported, not waited out.
    if (RETRY_STATUSES.has(res.status) && attempt < retries && wait <= 10_000) {
      await sleep(wait, opts.signal);
      continue;
    }

    if (res.ok && opts.responseType === 'blob') {
      return (await res.blob()) as S extends z.ZodType ? z.infer<S> : unknown;
    }
    const text = await res.text();
    let data: unknown = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = text;
      }
    }
    // The token changes at sign-in and sign-out; a write refused for it is retried once with a fresh one.
    if (isCsrfRefusal(res.status, data) && !csrfRetried) {
      csrfRetried = true;
      await refreshCsrf(opts.signal);
      continue;
    }
    if (!res.ok) {
      const error = new ApiError(res.status, messageOf(data) ?? res.statusText, data);
      if (res.status === 401) context.onUnauthorized(error);
      throw error;
    }
    return (opts.schema ? opts.schema.parse(data) : data) as S extends z.ZodType ? z.infer<S> : unknown;
  }
}

/** A call whose successful reply is binary (a rendered PNG): the same transport, read as a Blob. */
export async function apiBlob(
  path: string,
  opts: Omit<RequestOptions, 'schema' | 'responseType'> = {},
): Promise<Blob> {
  return (await apiRequest(path, { ...opts, responseType: 'blob' })) as Blob;
}

/** The server's message field, or a nested data.message (SPEC.md §8). */
export function messageOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const d = data as { message?: unknown; data?: { message?: unknown } };
  // The server names permissions by code ("the content.write permission"): people read words.
  if (typeof d.message === 'string' && d.message) return plainPermissionMessage(d.message);
  if (typeof d.data?.message === 'string' && d.data.message) return plainPermissionMessage(d.data.message);
  return undefined;
}
