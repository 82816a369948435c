import { createHash, randomUUID } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { UploadKind, UploadReply } from '@rally/shared/schemas/content';
import type { Db } from '../../db/client.ts';
import { uploads } from '../../db/schema/index.ts';
import { oneRow } from '../../lib/errors.ts';
import type { BlobStore } from '../../lib/blob-store.ts';
import { blobStoreFor } from '../../lib/blob-store.ts';
import { checkImage } from './images.ts';

type UploadRow = typeof uploads.$inferSelect;

/** Uploaded files are served at /files/{id}, on our host and on every landing domain. */
export const filePath = (id: string) => `/files/${id}`;

export function toUploadReply(row: UploadRow): UploadReply {
  return {
    id: row.id,
    kind: row.kind,
    url: filePath(row.id),
    width: row.width,
    height: row.height,
    content_type: row.contentType,
    byte_size: row.byteSize,
  };
}

/** Where the app keeps uploads: the database, or S3 when configured (lib/blob-store.ts). */
export function blobStoreOf(app: FastifyInstance): BlobStore {
  return blobStoreFor(app.config, app.db);
}

/** Checks the bytes (type, size, dimensions), stores them and records the upload. */
export async function saveUpload(
  db: Db,
  store: BlobStore,
  input: { clientId: string; userId: string | null; kind: UploadKind; bytes: Buffer },
): Promise<UploadReply> {
  const image = checkImage(input.bytes, input.kind);
  const id = randomUUID();
  const storageKey = `images/${input.clientId}/${id}.${image.extension}`;
  await store.put(storageKey, input.bytes, image.contentType);
  try {
    const row = oneRow(
      await db
        .insert(uploads)
        .values({
          id,
          clientId: input.clientId,
          kind: input.kind,
          storageKey,
          contentType: image.contentType,
          byteSize: input.bytes.length,
          width: image.width,
          height: image.height,
          sha256: createHash('sha256').update(input.bytes).digest('hex'),
          createdBy: input.userId,
        })
        .returning(),
    );
    return toUploadReply(row);
  } catch (err) {
    await store.delete(storageKey).catch(() => undefined);
    throw err;
  }
}

export async function listUploads(db: Db, clientId: string, kind?: UploadKind) {
  const rows = await db
    .select()
    .from(uploads)
    .where(and(eq(uploads.clientId, clientId), kind ? eq(uploads.kind, kind) : undefined))
    .orderBy(desc(uploads.createdAt))
    .limit(500);
  return { items: rows.map(toUploadReply) };
}

/** An uploaded file's bytes and type by id, for /files/{id} and for renderers; null if unknown. */
export async function readUpload(
  app: FastifyInstance,
  id: string,
): Promise<{ row: UploadRow; bytes: Buffer } | null> {
  const [row] = await app.db.select().from(uploads).where(eq(uploads.id, id));
  if (!row) return null;
  const bytes = await blobStoreOf(app).get(row.storageKey);
  return bytes ? { row, bytes } : null;
}
