import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base58ToUuid, decodeBase58, encodeBase58, uuidToBase58 } from './base58.ts';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
// ASCII only, which is all the vectors use
const text = (s: string) => Uint8Array.from(s, (char) => char.charCodeAt(0));

/** An independent BigInt encoder to check the library against. */
function referenceEncode(bytes: Uint8Array): string {
  let value = 0n;
  for (const byte of bytes) value = value * 256n + BigInt(byte);
  let digits = '';
  while (value > 0n) {
    digits = ALPHABET[Number(value % 58n)]! + digits;
    value /= 58n;
  }
  const zeros = bytes.findIndex((b) => b !== 0);
  return '1'.repeat(zeros === -1 ? bytes.length : zeros) + digits;
}

describe('base58 for "/lp/:base58" and "/content/preview/:base58/:resolution" (SPEC.md §2)', () => {
  describe('bytes', () => {
    it('encodes the Bitcoin test vectors', () => {
      expect(encodeBase58(new Uint8Array())).toBe('');
      expect(encodeBase58(text('a'))).toBe('2g');
      expect(encodeBase58(text('abc'))).toBe('ZiCa');
      expect(encodeBase58(text('Hello World!'))).toBe('2NEpo7TZRRrLZSi2U');
      expect(encodeBase58(new Uint8Array([0, 0, 0x28, 0x7f, 0xb4, 0xcd]))).toBe('11233QC4');
    });

    it('turns each leading zero byte into a leading 1', () => {
      expect(encodeBase58(new Uint8Array([0]))).toBe('1');
      expect(encodeBase58(new Uint8Array([0, 0, 0]))).toBe('111');
      expect(decodeBase58('111')).toEqual(new Uint8Array([0, 0, 0]));
    });

    it('decodes the vectors back', () => {
      expect(decodeBase58('')).toEqual(new Uint8Array());
      expect(decodeBase58('2NEpo7TZRRrLZSi2U')).toEqual(text('Hello World!'));
      expect(decodeBase58('11233QC4')).toEqual(new Uint8Array([0, 0, 0x28, 0x7f, 0xb4, 0xcd]));
    });

    it.each(['0', 'O', 'I', 'l', '2g!', '2g ', ' 2g', '+/', 'é'])(
      'returns null for %j, outside the alphabet',
      (value) => {
        expect(decodeBase58(value)).toBeNull();
      },
    );

    it('matches a BigInt reference encoder', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
          expect(encodeBase58(bytes)).toBe(referenceEncode(bytes));
        }),
      );
    });

    it('round-trips any bytes', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
          const encoded = encodeBase58(bytes);
          expect(encoded).toMatch(/^[1-9A-HJ-NP-Za-km-z]*$/);
          expect(decodeBase58(encoded)).toEqual(bytes);
        }),
      );
    });

    it('round-trips any text in the alphabet', () => {
      fc.assert(
        fc.property(fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 40 }), (value) => {
          const bytes = decodeBase58(value);
          expect(bytes).not.toBeNull();
          expect(encodeBase58(bytes!)).toBe(value);
        }),
      );
    });
  });

  describe('UUIDs', () => {
    it('encodes the nil and the largest UUID', () => {
      expect(uuidToBase58('00000000-0000-0000-0000-000000000000')).toBe('1'.repeat(16));
      expect(uuidToBase58('ffffffff-ffff-ffff-ffff-ffffffffffff')).toBe('YcVfxkQb6JRzqk5kF2tNLv');
      expect(base58ToUuid('1'.repeat(16))).toBe('00000000-0000-0000-0000-000000000000');
      expect(base58ToUuid('YcVfxkQb6JRzqk5kF2tNLv')).toBe('ffffffff-ffff-ffff-ffff-ffffffffffff');
    });

    it('encodes the 16 bytes of a real UUID', () => {
      const uuid = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
      const encoded = uuidToBase58(uuid);
      expect(encoded).toBe(referenceEncode(Uint8Array.from(uuidBytes(uuid))));
      expect(encoded.length).toBeLessThanOrEqual(22);
      expect(base58ToUuid(encoded)).toBe(uuid);
    });

    it('ignores case on the way in and answers in lower case', () => {
      const upper = '7C9E6679-7425-40DE-944B-E07FC1F90AE7';
      expect(uuidToBase58(upper)).toBe(uuidToBase58(upper.toLowerCase()));
      expect(base58ToUuid(uuidToBase58(upper))).toBe(upper.toLowerCase());
    });

    it.each([
      '',
      'not-a-uuid',
      '7c9e6679742540de944be07fc1f90ae7',
      '{7c9e6679-7425-40de-944b-e07fc1f90ae7}',
      '7c9e6679-7425-40de-944b-e07fc1f90ae',
      '7c9e6679-7425-40de-944b-e07fc1f90ae7a',
      '7c9e6679-7425-40de-944b-e07fc1f90aeg',
      ' 7c9e6679-7425-40de-944b-e07fc1f90ae7',
    ])('uuidToBase58 throws for %j', (value) => {
      expect(() => uuidToBase58(value)).toThrow(RangeError);
    });

    it.each([
      ['empty text', ''],
      ['a character outside the alphabet', 'YcVfxkQb6JRzqk5kF2tNL0'],
      ['too few bytes', '2g'],
      ['15 zero bytes', '1'.repeat(15)],
      ['an extra leading 1 (17 bytes)', `1${'1'.repeat(16)}`],
      ['a value above 2^128', 'YcVfxkQb6JRzqk5kF2tNLw'],
      ['more than 22 characters', 'z'.repeat(23)],
      ['a very long input', '2'.repeat(100_000)],
    ])('base58ToUuid returns null for %s', (_label, value) => {
      expect(base58ToUuid(value)).toBeNull();
    });

    it('round-trips any UUID', () => {
      fc.assert(
        fc.property(fc.uuid(), (uuid) => {
          const encoded = uuidToBase58(uuid);
          expect(encoded.length).toBeGreaterThanOrEqual(16);
          expect(encoded.length).toBeLessThanOrEqual(22);
          expect(base58ToUuid(encoded)).toBe(uuid.toLowerCase());
        }),
      );
    });

    it('round-trips any 16 bytes, including leading zero bytes', () => {
      fc.assert(
        fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.nat(16), (bytes, zeros) => {
          bytes.fill(0, 0, zeros);
          const uuid = base58ToUuid(encodeBase58(bytes));
          expect(uuid).not.toBeNull();
          expect(uuidToBase58(uuid!)).toBe(encodeBase58(bytes));
        }),
      );
    });

    it('never answers anything but null or a UUID for arbitrary text', () => {
      fc.assert(
        fc.property(fc.string({ maxLength: 30 }), (value) => {
          const uuid = base58ToUuid(value);
          if (uuid !== null) {
            expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
            expect(uuidToBase58(uuid)).toBe(value);
          }
        }),
      );
    });
  });
});

function uuidBytes(uuid: string): number[] {
  return (uuid.replaceAll('-', '').match(/../g) ?? []).map((pair) => Number.parseInt(pair, 16));
}
