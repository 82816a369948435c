import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3Config } from '../../config/env.ts';

/** Where uploaded images live: the local data folder, or S3-compatible storage (ARCHITECTURE.md §3). */
export type BlobStore = {
  readonly kind: 'local' | 's3';
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The bytes, or null when the object is gone. */
  get(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<void>;
};

/** `<DATA_DIR>/uploads/<key>`; an in-memory database (tests) has no folder, so the temp folder. */
export function localStore(dataDir: string): BlobStore {
  const root = dataDir === 'memory://' ? path.join(tmpdir(), 'rally-uploads') : path.join(dataDir, 'uploads');
  const fileOf = (key: string) => {
    const resolved = path.resolve(root, key);
    // Keys are ours, but a path never leaves the uploads folder.
    if (!resolved.startsWith(path.resolve(root) + path.sep)) throw new Error(`bad storage key ${key}`);
    return resolved;
  };
  return {
    kind: 'local',
    async put(key, bytes) {
      const file = fileOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      // Renamed into place, so a reader never sees half a file.
      await writeFile(`${file}.part`, bytes);
      await rename(`${file}.part`, file);
    },
    async get(key) {
      try {
        return await readFile(fileOf(key));
      } catch (err) {
        if ((err as { code?: string }).code === 'ENOENT') return null;
        throw err;
      }
    },
    async delete(key) {
      await rm(fileOf(key), { force: true });
    },
  };
}

export function s3Store(config: S3Config): BlobStore {
  const client = new S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint, forcePathStyle: true } : {}),
    ...(config.accessKeyId && config.secretAccessKey
      ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } }
      : {}),
  });
  const Bucket = config.bucket;
  return {
    kind: 's3',
    async put(key, bytes, contentType) {
      await client.send(
        new PutObjectCommand({
          Bucket,
          Key: key,
          Body: bytes,
          ContentType: contentType,
          CacheControl: 'public, max-age=31536000, immutable',
        }),
      );
    },
    async get(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: key }));
        if (!out.Body) return null;
        return Buffer.from(await out.Body.transformToByteArray());
      } catch (err) {
        const name = (err as { name?: string }).name;
        if (name === 'NoSuchKey' || name === 'NotFound') return null;
        throw err;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },
  };
}

export function createBlobStore(dataDir: string, s3: S3Config | null): BlobStore {
  return s3 ? s3Store(s3) : localStore(dataDir);
}
