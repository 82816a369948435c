/**
 * URLs shown back to people (webhook endpoints, error texts that quote a URL) with their secrets
 * masked (issue 37 item 9): receivers often take a key in the URL itself, as credentials
 * (`https://user:pass@host/`) or a query parameter (`?token=`, Azure Functions' `?code=`, a
 * signature), and whoever reads the settings would get it. The URL is masked as text, not parsed
 * and written again, so what is shown is what was typed, less the secrets.
 */
export const MASK = '***';

/** Query keys that carry secrets: a name ending in one of these (alone or after `_`, `-` or `.`)… */
const SECRET_SUFFIX =
  /(^|[_.-])(token|secret|key|apikey|signature|sig|password|passwd|pwd|auth|authorization|hmac|credentials?)$/i;
/** …or one of these names (Azure Functions' function key is `code`). */
const SECRET_NAME = /^(code|pass|session|sessionid|sid)$/i;
const isSecretKey = (key: string) => SECRET_SUFFIX.test(key) || SECRET_NAME.test(key);

function decodedKey(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

function maskPairs(part: string): string {
  return part
    .split(/([&;])/)
    .map((pair, i) => {
      if (i % 2 === 1) return pair; // a separator
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      const key = pair.slice(0, eq);
      return isSecretKey(decodedKey(key).trim()) && eq < pair.length - 1 ? `${key}=${MASK}` : pair;
    })
    .join('');
}

/** One URL with its user name, password and secret query (and fragment) values masked. */
export function maskUrl(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url);
  let rest = url;
  let head = '';
  if (scheme) {
    head = scheme[0];
    rest = url.slice(head.length);
    const end = rest.search(/[/?#]/);
    const authority = end < 0 ? rest : rest.slice(0, end);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      head += `${MASK}@${authority.slice(at + 1)}`;
      rest = end < 0 ? '' : rest.slice(end);
    }
  }
  const hashAt = rest.indexOf('#');
  const fragment = hashAt < 0 ? '' : `#${maskPairs(rest.slice(hashAt + 1))}`;
  const beforeHash = hashAt < 0 ? rest : rest.slice(0, hashAt);
  const q = beforeHash.indexOf('?');
  const withQuery = q < 0 ? beforeHash : `${beforeHash.slice(0, q)}?${maskPairs(beforeHash.slice(q + 1))}`;
  return `${head}${withQuery}${fragment}`;
}

/** Every http(s) URL quoted in a text (an error message) masked. */
export function maskUrlsIn(text: string): string {
  return text.replace(/https?:\/\/[^\s"'<>()]+/gi, (u) => maskUrl(u));
}
