import { describe, expect, it } from 'vitest';
import { REDACTED, redactText, redactUrl } from './log-redact.ts';

describe('secrets in URLs are kept out of logs (issue 37 item 10)', () => {
  it.each([
    ['/v1/rest/reports/embedded?token=abc', `/v1/rest/reports/embedded?token=${REDACTED}`],
    [
      '/v1/rest/reports/embedded/1?x=1&token=abc&y=2',
      `/v1/rest/reports/embedded/1?x=1&token=${REDACTED}&y=2`,
    ],
    ['/?token=abc#frag', `/?token=${REDACTED}#frag`],
    ['/reset-password?hash=abc', `/reset-password?hash=${REDACTED}`],
    [
      '/v1/api/auth/google/callback?code=c&state=s',
      `/v1/api/auth/google/callback?code=${REDACTED}&state=${REDACTED}`,
    ],
    ['/x?t%6Fken=abc', `/x?t%6Fken=${REDACTED}`],
    ['/x?TOKEN=abc;api_key=k', `/x?TOKEN=${REDACTED};api_key=${REDACTED}`],
    ['/x?token', `/x?token=${REDACTED}`],
    ['/v1/api/user_request/abc123', `/v1/api/user_request/${REDACTED}`],
    ['/v1/api/user_request/abc123?z=1', `/v1/api/user_request/${REDACTED}?z=1`],
  ])('redactUrl(%j)', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('leaves URLs without secrets as they are', () => {
    for (const url of [
      '/v1/report/client/x/summary?from=1&to=2',
      '/feed?client_id=abc&page=2',
      '/',
      '/t/abc/c',
    ]) {
      expect(redactUrl(url)).toBe(url);
    }
    // A key that only ends like a secret one is not one.
    expect(redactUrl('/x?monkey=1&tokens=2')).toBe('/x?monkey=1&tokens=2');
  });

  it('scrubs any text: a JSON log line, an error message, a stack', () => {
    const line = JSON.stringify({
      msg: 'Route GET:/v1/rest/reports/embedded-typo?token=secret1 not found',
      err: {
        message: 'failed at https://h.example/p?a=1&signature=secret2&b=2',
        stack: 'Error: x?sig=secret3\n at y',
      },
      url: '/v1/api/user_request/secret4',
    });
    const out = redactText(line);
    for (const s of ['secret1', 'secret2', 'secret3', 'secret4']) expect(out).not.toContain(s);
    expect(JSON.parse(out)).toMatchObject({
      err: { message: `failed at https://h.example/p?a=1&signature=${REDACTED}&b=2` },
    });
  });
});
