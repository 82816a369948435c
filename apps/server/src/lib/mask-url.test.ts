import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MASK, maskUrl, maskUrlsIn } from './mask-url.ts';

describe('secrets in URLs shown back are masked (issue 37 item 9)', () => {
  it.each([
    ['https://user:pass@hooks.example/in', `https://${MASK}@hooks.example/in`],
    ['https://only-a-token@hooks.example', `https://${MASK}@hooks.example`],
    ['https://u:p@h.example:8443/a?b=1#c', `https://${MASK}@h.example:8443/a?b=1#c`],
    ['https://h.example/in?token=abc&x=1', `https://h.example/in?token=${MASK}&x=1`],
    ['https://h.example/in?x=1&secret=abc', `https://h.example/in?x=1&secret=${MASK}`],
    ['https://h.example/in?key=abc;sig=def', `https://h.example/in?key=${MASK};sig=${MASK}`],
    ['https://h.example/in?signature=abc', `https://h.example/in?signature=${MASK}`],
    ['https://h.example/in?password=abc', `https://h.example/in?password=${MASK}`],
    ['https://h.example/in?api_key=abc', `https://h.example/in?api_key=${MASK}`],
    ['https://h.example/in?access_token=abc', `https://h.example/in?access_token=${MASK}`],
    ['https://h.example/in?X-Api-Key=abc', `https://h.example/in?X-Api-Key=${MASK}`],
    ['https://h.example/in?%74oken=abc', `https://h.example/in?%74oken=${MASK}`],
    ['https://fn.azurewebsites.net/api/hook?code=abc', `https://fn.azurewebsites.net/api/hook?code=${MASK}`],
    ['https://h.example/in#access_token=abc', `https://h.example/in#access_token=${MASK}`],
    ['https://a:b@h.example/in?token=c&sig=d', `https://${MASK}@h.example/in?token=${MASK}&sig=${MASK}`],
  ])('maskUrl(%j)', (url, masked) => {
    expect(maskUrl(url)).toBe(masked);
  });

  it('leaves a URL without secrets exactly as it was typed', () => {
    for (const url of [
      'https://hooks.example/rally',
      'https://hooks.example/rally/?page=2&monkey=1&keys=3&zip_code=1',
      'http://127.0.0.1:8080/in?event=superprospect',
      'https://h.example/in?token=',
      'https://h.example/a@b',
    ])
      expect(maskUrl(url)).toBe(url);
  });

  it('masks every URL quoted in a text, and nothing else', () => {
    expect(
      maskUrlsIn(
        'The endpoint could not be reached (fetch failed: https://u:p@h.example/x?token=abc). Retry.',
      ),
    ).toBe(
      `The endpoint could not be reached (fetch failed: https://${MASK}@h.example/x?token=${MASK}). Retry.`,
    );
    expect(maskUrlsIn('token=abc was refused')).toBe('token=abc was refused');
  });

  it('property: no secret value survives, whatever the host, path and other parameters', () => {
    const word = fc.stringMatching(/^[a-z0-9]{1,12}$/);
    const secret = fc.stringMatching(/^[A-Za-z0-9_-]{8,40}$/).map((s) => `S3CRET${s}`);
    const secretKey = fc.constantFrom(
      'token',
      'secret',
      'key',
      'signature',
      'sig',
      'password',
      'api_key',
      'access_token',
      'client_secret',
      'code',
    );
    fc.assert(
      fc.property(
        word,
        fc.array(word, { maxLength: 3 }),
        fc.array(fc.tuple(word, word), { maxLength: 3 }),
        secretKey,
        secret,
        fc.boolean(),
        fc.option(fc.tuple(word, secret)),
        (host, path, others, key, value, first, credentials) => {
          const pairs = others.map(([k, v]) => `${k}=${v}`);
          const query = first ? [`${key}=${value}`, ...pairs] : [...pairs, `${key}=${value}`];
          const userinfo = credentials ? `${credentials[0]}:${credentials[1]}@` : '';
          const url = `https://${userinfo}${host}.example/${path.join('/')}?${query.join('&')}`;
          const masked = maskUrl(url);
          expect(masked).not.toContain('S3CRET');
          expect(masked).toContain(`${host}.example/${path.join('/')}`);
        },
      ),
      { numRuns: 300 },
    );
  });
});
