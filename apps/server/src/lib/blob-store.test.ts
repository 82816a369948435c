import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { BLOB_CHUNK_BYTES, databaseStore } from './blob-store-db.ts';
import { createBlobStore, localStore } from './blob-store.ts';
import { createTestApp } from '../../test/helpers.ts';

/**
 * The upload stores' toFile when the object is gone (issue 41 kept uploads in shared storage): the
 * local store's read stream failed with ENOENT while the target folder was being made, before
 * anything listened, and the 'error' event with no listener ended the process. Now false, quietly.
 */
const dir = mkdtempSync(path.join(tmpdir(), 'rally-blob-store-'));
let app: FastifyInstance | undefined;
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const uncaught: unknown[] = [];
const onUncaught = (err: unknown) => uncaught.push(err);

describe('upload stores: toFile', () => {
  it('a gone local file is false, with no uncaught error, and leaves no partial file', async () => {
    process.on('uncaughtException', onUncaught);
    try {
      const store = localStore(dir);
      const out = path.join(dir, 'out', 'deep', 'copy.csv');
      for (let i = 0; i < 5; i++) expect(await store.toFile(`imports/gone-${i}.csv`, out)).toBe(false);
      await new Promise((r) => setTimeout(r, 50));
      expect(uncaught).toEqual([]);
      expect(existsSync(out)).toBe(false);
      expect(existsSync(`${out}.part`)).toBe(false);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });

  it('the database store writes a many-chunk object whole; a gone one is false; a bad target path throws, not crashes', async () => {
    app = await createTestApp();
    const store = databaseStore(app.db);
    const bytes = Buffer.alloc(BLOB_CHUNK_BYTES * 2 + 17, 7);
    bytes.write('header,row\n');
    await store.put('imports/big.csv', bytes, 'text/csv');
    const out = path.join(dir, 'db', 'big.csv');
    expect(await store.toFile('imports/big.csv', out)).toBe(true);
    expect(readFileSync(out).equals(bytes)).toBe(true);
    expect(await store.toFile('imports/none.csv', path.join(dir, 'db', 'none.csv'))).toBe(false);
    // The target's folder is a file: the write fails, and the caller hears it as a rejection.
    process.on('uncaughtException', onUncaught);
    try {
      await expect(store.toFile('imports/big.csv', path.join(out, 'inside.csv'))).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 50));
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    // The shared store with the local fallback: gone from both is false.
    const both = createBlobStore({ dataDir: dir }, app.db);
    expect(await both.toFile('imports/nowhere.csv', path.join(dir, 'both.csv'))).toBe(false);
  });
});
