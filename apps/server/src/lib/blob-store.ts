import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { S3Config } from '../config/env.ts';
import type { Db } from '../db/client.ts';
import { databaseStore } from './blob-store-db.ts';
import { streamToFile } from './blob-store-file.ts';
import type { BlobStore } from './blob-store-port.ts';
import { s3Store } from './blob-store-s3.ts';

export { streamToFile } from './blob-store-file.ts';
export type { BlobStore } from './blob-store-port.ts';

/** `<DATA_DIR>/uploads`; an in-memory database (tests) has no folder, so the temp folder. */
export function uploadsRoot(dataDir: string): string {
  return dataDir === 'memory://' ? path.join(tmpdir(), 'rally-uploads') : path.join(dataDir, 'uploads');
}

/** A fresh path for a file this process works on for a while (an upload arriving, a copy to read). */
export function scratchPath(dataDir: string, extension: string): string {
  return path.join(uploadsRoot(dataDir), 'scratch', `${randomUUID()}${extension}`);
}

/**
 * `<DATA_DIR>/uploads/<key>`, where uploads were kept before issue 41. Read only as a fallback, so a
 * file uploaded before the upgrade is still found by the instance that has it.
 */
export function localStore(dataDir: string): BlobStore {
  const root = uploadsRoot(dataDir);
  const fileOf = (key: string) => {
    const resolved = path.resolve(root, key);
    // Keys are ours, but a path never leaves the uploads folder.
    if (!resolved.startsWith(path.resolve(root) + path.sep)) throw new Error(`bad storage key ${key}`);
    return resolved;
  };
  const missing = (err: unknown) => (err as { code?: string }).code === 'ENOENT';
  return {
    kind: 'local',
    async put(key, bytes) {
      const file = fileOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      // Renamed into place, so a reader never sees half a file.
      await writeFile(`${file}.part`, bytes);
      await rename(`${file}.part`, file);
    },
    async putFile(key, filePath) {
      const file = fileOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      await copyFile(filePath, `${file}.part`);
      await rename(`${file}.part`, file);
    },
    async get(key) {
      try {
        return await readFile(fileOf(key));
      } catch (err) {
        if (missing(err)) return null;
        throw err;
      }
    },
    async toFile(key, filePath) {
      try {
        await streamToFile(createReadStream(fileOf(key)), filePath);
        return true;
      } catch (err) {
        if (missing(err)) return false;
        throw err;
      }
    },
    async delete(key) {
      await rm(fileOf(key), { force: true });
    },
  };
}

/** Reads fall back to the pre-upgrade local folder; writes go to the shared store only. */
function withLocalFallback(shared: BlobStore, local: BlobStore): BlobStore {
  return {
    kind: shared.kind,
    put: (key, bytes, type) => shared.put(key, bytes, type),
    putFile: (key, file, type) => shared.putFile(key, file, type),
    get: async (key) => (await shared.get(key)) ?? local.get(key),
    toFile: async (key, file) => (await shared.toFile(key, file)) || local.toFile(key, file),
    async delete(key) {
      await shared.delete(key);
      await local.delete(key);
    },
  };
}

export function createBlobStore(config: { dataDir: string; s3?: S3Config | null }, db: Db): BlobStore {
  const shared = config.s3 ? s3Store(config.s3) : databaseStore(db);
  return withLocalFallback(shared, localStore(config.dataDir));
}

const stores = new WeakMap<Db, BlobStore>();
/** One store per database handle (an S3 client keeps its connections). */
export function blobStoreFor(config: { dataDir: string; s3?: S3Config | null }, db: Db): BlobStore {
  let store = stores.get(db);
  if (!store) {
    store = createBlobStore(config, db);
    stores.set(db, store);
  }
  return store;
}
