import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { storedBlobs } from '../db/schema/index.ts';
import type { BlobStore } from './blob-store-port.ts';

/** A file is kept as rows of this many bytes: a read or write holds one chunk in memory at a time. */
export const BLOB_CHUNK_BYTES = 1024 * 1024;

/**
 * Uploads in PostgreSQL (or PGlite): `stored_blobs` rows of up to 1 MiB, written in one transaction
 * (a file is whole or absent) and read back a chunk at a time.
 */
export function databaseStore(db: Db): BlobStore {
  const chunk = (key: string, part: number) =>
    db
      .select({ bytes: storedBlobs.bytes })
      .from(storedBlobs)
      .where(and(eq(storedBlobs.key, key), eq(storedBlobs.part, part)))
      .then((rows) => rows[0]?.bytes ?? null);
  return {
    kind: 'database',
    async put(key, bytes) {
      await db.transaction(async (tx) => {
        await tx.delete(storedBlobs).where(eq(storedBlobs.key, key));
        let part = 0;
        for (let at = 0; at < bytes.length || part === 0; at += BLOB_CHUNK_BYTES) {
          const slice = Buffer.from(bytes.subarray(at, at + BLOB_CHUNK_BYTES));
          await tx.insert(storedBlobs).values({ key, part: part++, bytes: slice });
        }
      });
    },
    async putFile(key, filePath) {
      await db.transaction(async (tx) => {
        await tx.delete(storedBlobs).where(eq(storedBlobs.key, key));
        let part = 0;
        for await (const piece of createReadStream(filePath, { highWaterMark: BLOB_CHUNK_BYTES })) {
          await tx.insert(storedBlobs).values({ key, part: part++, bytes: piece as Buffer });
        }
        // An empty file is one empty chunk, so that it exists.
        if (part === 0) await tx.insert(storedBlobs).values({ key, part, bytes: Buffer.alloc(0) });
      });
    },
    async get(key) {
      const rows = await db
        .select({ bytes: storedBlobs.bytes })
        .from(storedBlobs)
        .where(eq(storedBlobs.key, key))
        .orderBy(asc(storedBlobs.part));
      return rows.length ? Buffer.concat(rows.map((r) => r.bytes)) : null;
    },
    async toFile(key, filePath) {
      const first = await chunk(key, 0);
      if (!first) return false;
      await mkdir(path.dirname(filePath), { recursive: true });
      const partial = `${filePath}.part`;
      const out = createWriteStream(partial);
      try {
        let piece: Buffer | null = first;
        for (let part = 1; piece; part++) {
          if (!out.write(piece)) await once(out, 'drain');
          piece = await chunk(key, part);
        }
        out.end();
        await once(out, 'finish');
        await rename(partial, filePath);
        return true;
      } catch (err) {
        out.destroy();
        await rm(partial, { force: true });
        throw err;
      }
    },
    async delete(key) {
      await db.delete(storedBlobs).where(eq(storedBlobs.key, key));
    },
  };
}
