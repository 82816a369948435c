import { describe, expect, it } from 'vitest';
import { hasAuthHint } from './auth-cookie.ts';

describe('"Initial loggedIn is true if the query has a token or the cookie contains the auth-token cookie"', () => {
  it('is true with a token query parameter', () => {
    expect(hasAuthHint('?token=abc&client_id=1', '')).toBe(true);
  });
  it('is true with any cookie whose name ends with auth_token', () => {
    expect(hasAuthHint('', 'theme=dark; rally_auth_token=1')).toBe(true);
    expect(hasAuthHint('', 'other_auth_token=x')).toBe(true);
  });
  it('is false otherwise', () => {
    expect(hasAuthHint('?client_id=1', 'auth_token_old=1; theme=dark')).toBe(false);
    expect(hasAuthHint('', '')).toBe(false);
  });
});
