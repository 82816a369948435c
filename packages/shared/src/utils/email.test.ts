import { describe, expect, it } from 'vitest';
import { isEmail } from './email.ts';

describe('isEmail (SPEC.md §5: a sales rep e-mail must be valid)', () => {
  it('accepts ordinary addresses', () => {
    for (const e of ['ada@example.com', 'rob.rep+sales@mail.acme.co.uk', "o'neil@x-y.io"])
      expect(isEmail(e)).toBe(true);
  });
  it('refuses what is not an address', () => {
    for (const e of [
      '',
      'n/a',
      'ada',
      'ada@',
      '@example.com',
      'ada@example',
      'ada@@example.com',
      'ada example@x.com',
      'ada@exa_mple.com',
      `${'a'.repeat(250)}@x.com`,
    ])
      expect(isEmail(e), e).toBe(false);
  });
});
