/**
 * SPEC.md §4: "Initial loggedIn is true if the query has a token or the cookie contains the auth-token
 * cookie (its name ends with auth_token)."
 */
export function hasAuthHint(search: string, cookie: string): boolean {
  if (new URLSearchParams(search).has('token')) return true;
  return cookie
    .split(';')
    .map((part) => part.split('=')[0]?.trim() ?? '')
    .some((name) => name.endsWith('auth_token'));
}
