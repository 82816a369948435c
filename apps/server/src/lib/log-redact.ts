import type { FastifyRequest, FastifyServerOptions } from 'fastify';

/**
 * Secrets that travel in URLs stay out of the logs (issue 37 item 10): an embedded report's
 * `?token=`, a sign-in link's `/?token=`, a reset or invitation `?hash=` (and an invitation's hash in
 * `/api/user_request/{hash}`), OAuth's `?code=` and `?state=`, and the usual names of keys and
 * signatures. Two layers: the request serializer writes the URL with those values replaced (keys
 * compared once percent-decoded, as the query parser reads them), and every finished log line, of
 * any logger of the app, errors included, is scrubbed again before it is written.
 */
export const SECRET_QUERY_KEYS = [
  'token',
  'hash',
  'code',
  'state',
  'secret',
  'client_secret',
  'password',
  'key',
  'api_key',
  'apikey',
  'access_token',
  'refresh_token',
  'id_token',
  'signature',
  'sig',
] as const;

export const REDACTED = '[redacted]';

const SECRET_KEYS = new Set<string>(SECRET_QUERY_KEYS);
/** `/api/user_request/{hash}`: an invitation's secret is a path segment. */
const SECRET_PATH = /(\/api\/user_request\/)[^/?#\s"\\]+/g;
/** `key=value` after ? & or ; anywhere in a text (a log line is JSON: stop at a quote or backslash). */
const SECRET_PAIR = new RegExp(`([?&;](?:${SECRET_QUERY_KEYS.join('|')})=)[^&;#\\s"'\\\\]*`, 'gi');

function decodedKey(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/** A request URL with the values of secret query parameters (and secret path segments) replaced. */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  const path = (at < 0 ? url : url.slice(0, at)).replace(SECRET_PATH, `$1${REDACTED}`);
  if (at < 0) return path;
  const hashAt = url.indexOf('#', at);
  const query = url.slice(at + 1, hashAt < 0 ? undefined : hashAt);
  const parts = query.split(/([&;])/).map((part, i) => {
    if (i % 2 === 1) return part; // a separator
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    return SECRET_KEYS.has(decodedKey(key)) ? `${key}=${REDACTED}` : part;
  });
  return `${path}?${parts.join('')}${hashAt < 0 ? '' : url.slice(hashAt)}`;
}

/** Any text (a log line, an error message) with secret query values and path segments replaced. */
export function redactText(text: string): string {
  return text.replace(SECRET_PAIR, `$1${REDACTED}`).replace(SECRET_PATH, `$1${REDACTED}`);
}

/** Fastify's own request serializer, with the URL redacted. */
function serializeRequest(req: FastifyRequest) {
  const version = req.headers['accept-version'];
  return {
    method: req.method,
    url: redactUrl(req.url),
    version: typeof version === 'string' ? version : undefined,
    host: req.host,
    remoteAddress: req.ip,
    // Fastify logs a bare request (no socket) in some error paths.
    remotePort: (req.socket as typeof req.socket | undefined)?.remotePort,
  };
}

/** The app's logger: its level, header redaction, and the URL secrets above kept out of every line. */
export function loggerOptions(
  level: string,
  stream?: { write(line: string): void },
): NonNullable<Exclude<FastifyServerOptions['logger'], boolean>> {
  return {
    level,
    redact: ['req.headers.cookie', 'req.headers.authorization', 'req.headers["x-xsrf-token"]'],
    serializers: { req: serializeRequest },
    hooks: { streamWrite: redactText },
    ...(stream ? { stream } : {}),
  };
}
