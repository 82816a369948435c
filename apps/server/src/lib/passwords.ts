import { hash, verify } from '@node-rs/argon2';
import type { Options } from '@node-rs/argon2';

/**
 * argon2id with OWASP's minimum profile (19 MiB, 2 passes, 1 lane): about 50-100 ms per hash on one
 * core here, which keeps sign-in responsive while making offline guessing expensive.
 */
// algorithm 2 is Argon2id (a const enum in the package's types, which erasable TypeScript cannot import).
const PARAMS: Options = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, PARAMS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}
