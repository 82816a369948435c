import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from './passwords.ts';

describe('password hashes', () => {
  // The suite's own users get a cheap hash (test/http.ts): this is where production's cost is held.
  it("are argon2id at OWASP's minimum profile (19 MiB, 2 passes, 1 lane)", async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(hash, 'correct horse battery')).toBe(true);
    expect(await verifyPassword(hash, 'correct horse battery!')).toBe(false);
  });

  it('a hash that cannot be read verifies nothing', async () => {
    expect(await verifyPassword('not-a-hash', 'correct horse battery')).toBe(false);
  });
});
