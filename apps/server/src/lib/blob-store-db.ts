import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { storedBlobs } from '../db/schema/index.ts';
import type { BlobStore } from './blob-store-port.ts';
import { streamToFile } from './blob-store-file.ts';

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
      // A generator piped by pipeline: the write stream's errors are listened to while the next
      // chunk is read (a bare write loop left them unheard between writes).
      async function* chunks() {
        let piece: Buffer | null = first;
        for (let part = 1; piece; part++) {
          yield piece;
          piece = await chunk(key, part);
        }
      }
      await streamToFile(Readable.from(chunks()), filePath);
      return true;
    },
    async delete(key) {
      await db.delete(storedBlobs).where(eq(storedBlobs.key, key));
    },
  };
}
