import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateSpKeyPair, keyMatches, serialNumber } from './sp-key.ts';

/** Rally's self-made SP certificate (issue 44, decision 0035): it must parse wherever it is read. */
describe('SP certificate', () => {
  it('makes a serial that is positive and minimally encoded whatever the random bytes (DER: no padding)', () => {
    for (const first of [0x00, 0x01, 0x3f, 0x7f, 0x80, 0xff]) {
      for (const second of [0x00, 0x7f, 0x80, 0xff]) {
        const serial = serialNumber(Buffer.from([first, second, 1, 2, 3]));
        // Positive: the high bit clear; minimal: a first byte that is not zero.
        expect(serial[0]! & 0x80, `${first},${second}`).toBe(0);
        expect(serial[0], `${first},${second}`).not.toBe(0);
        expect(serial.subarray(1)).toEqual(Buffer.from([second, 1, 2, 3]));
      }
    }
  });

  it('is an X.509 certificate OpenSSL reads, matching its key', async () => {
    const pair = await generateSpKeyPair('Acme SAML');
    const cert = new X509Certificate(pair.certPem);
    expect(cert.subject).toBe('CN=Acme SAML');
    expect(keyMatches(pair.keyPem, pair.certPem)).toBe(true);
    expect(new Date(cert.validTo).getTime()).toBeGreaterThan(Date.now());
  });
});
