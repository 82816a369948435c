import { describe, expect, it } from 'vitest';
import { createSecretBox, hashToken, randomToken, safeEqual } from './crypto.ts';

describe('crypto helpers', () => {
  it('encrypts secrets so that only the same APP_SECRET opens them', () => {
    const box = createSecretBox('a'.repeat(64));
    const sealed = box.encrypt('totp-secret');
    expect(sealed).not.toContain('totp-secret');
    expect(sealed).not.toBe(box.encrypt('totp-secret')); // random IV
    expect(box.decrypt(sealed)).toBe('totp-secret');
    expect(() => createSecretBox('b'.repeat(64)).decrypt(sealed)).toThrow();
    const [v, iv, tag, data] = sealed.split('.');
    expect(() => box.decrypt([v, iv, tag, `${data}A`].join('.'))).toThrow();
  });

  it('makes distinct tokens and stores only their hash', () => {
    const t = randomToken();
    expect(t).toMatch(/^[\w-]{43}$/);
    expect(randomToken()).not.toBe(t);
    expect(hashToken(t)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(t)).toBe(hashToken(t));
  });

  it('compares in constant time and handles different lengths', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});
