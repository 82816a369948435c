/**
 * Clean-ups of the current test file made outside a test (a describe body or a beforeAll hook): the
 * setup file's afterAll (setup-file.ts) runs them, newest first, when the file ends. An afterAll
 * registered from a beforeAll hook is silently dropped by Vitest, which left the apps and databases
 * of such files behind (21 databases after one API run on PostgreSQL).
 */
const pending: (() => Promise<void>)[] = [];

export function afterFile(fn: () => Promise<void>): void {
  pending.push(fn);
}

export async function runAfterFile(): Promise<void> {
  let failure: unknown;
  for (const fn of pending.splice(0).reverse()) {
    try {
      await fn();
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure) throw failure;
}
