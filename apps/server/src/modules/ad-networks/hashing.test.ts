import { describe, expect, it } from 'vitest';
import { hashEmail, normaliseEmail } from './hashing.ts';

describe('e-mail hashing for matched audiences', () => {
  it("matches Meta's published normalisation example", () => {
    // Meta, Conversions API › Customer Information Parameters, `em`: input "John_Smith@gmail.com",
    // normalised "john_smith@gmail.com", hashed as below.
    expect(normaliseEmail('  John_Smith@gmail.com ')).toBe('john_smith@gmail.com');
    expect(hashEmail('John_Smith@gmail.com')).toBe(
      '62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f',
    );
  });

  it('gives one hash for every spelling of one address and none for what is not an address', () => {
    expect(hashEmail('\tANA@Example.COM\n')).toBe(hashEmail('ana@example.com'));
    for (const bad of [null, '', '   ', 'no-at-sign', '@example.com', 'a@', 'a@b@c', 'a b@c.d']) {
      expect(hashEmail(bad)).toBeNull();
    }
  });
});
