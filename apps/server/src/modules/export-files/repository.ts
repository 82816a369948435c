import { and, asc, desc, eq, gt, lte } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { exportFileParts, exportFiles } from '../../db/schema/index.ts';

export type ExportFileRow = typeof exportFiles.$inferSelect;
export type NewExportFile = typeof exportFiles.$inferInsert;

export async function insertFile(db: Db, row: NewExportFile): Promise<ExportFileRow> {
  const [created] = await db.insert(exportFiles).values(row).returning();
  if (!created) throw new Error('export file insert returned nothing');
  return created;
}

/** One file of the client, unless it has expired. */
export async function findFile(
  db: Db,
  clientId: string,
  id: string,
  now: Date,
): Promise<ExportFileRow | null> {
  const [row] = await db
    .select()
    .from(exportFiles)
    .where(and(eq(exportFiles.id, id), eq(exportFiles.clientId, clientId), gt(exportFiles.expiresAt, now)));
  return row ?? null;
}

export async function findFileById(db: Db, id: string): Promise<ExportFileRow | null> {
  const [row] = await db.select().from(exportFiles).where(eq(exportFiles.id, id));
  return row ?? null;
}

export async function listFiles(
  db: Db,
  clientId: string,
  now: Date,
  limit: number,
): Promise<ExportFileRow[]> {
  return db
    .select()
    .from(exportFiles)
    .where(and(eq(exportFiles.clientId, clientId), gt(exportFiles.expiresAt, now)))
    .orderBy(desc(exportFiles.createdAt), desc(exportFiles.id))
    .limit(limit);
}

/** Files past their time go, parts with them (cascade). */
export async function deleteExpired(db: Db, now: Date): Promise<void> {
  await db.delete(exportFiles).where(lte(exportFiles.expiresAt, now));
}

/** A (re)started job begins from an empty file: a retry after a crash writes every part again. */
export async function startWriting(db: Db, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(exportFileParts).where(eq(exportFileParts.fileId, id));
    await tx
      .update(exportFiles)
      .set({ status: 'running', rows: 0, bytes: 0, error: null, finishedAt: null })
      .where(eq(exportFiles.id, id));
  });
}

export async function writePart(db: Db, id: string, seq: number, text: string): Promise<void> {
  await db.insert(exportFileParts).values({ fileId: id, seq, text });
}

export async function finish(
  db: Db,
  id: string,
  result: { status: 'done' | 'failed'; rows: number; bytes: number; error: string | null },
): Promise<void> {
  await db
    .update(exportFiles)
    .set({ ...result, finishedAt: new Date() })
    .where(eq(exportFiles.id, id));
}

/** The file's text in order, a few parts per read. */
export async function* partsOf(db: Db, id: string, batch = 8): AsyncGenerator<string> {
  let after = -1;
  for (;;) {
    const rows = await db
      .select({ seq: exportFileParts.seq, text: exportFileParts.text })
      .from(exportFileParts)
      .where(and(eq(exportFileParts.fileId, id), gt(exportFileParts.seq, after)))
      .orderBy(asc(exportFileParts.seq))
      .limit(batch);
    for (const r of rows) yield r.text;
    const last = rows.at(-1);
    if (!last || rows.length < batch) return;
    after = last.seq;
  }
}
