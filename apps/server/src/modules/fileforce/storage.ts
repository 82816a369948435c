import { randomUUID } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { scratchPath, streamToFile } from '../../lib/blob-store.ts';

/**
 * An uploaded CSV file: streamed to a scratch file of this instance while it arrives (the size limit
 * is checked as it does), then kept in the shared upload storage under `storageKey`
 * (`fileforce/<client>/<uuid>.csv`) by createImport, which removes the scratch file.
 */
export type StoredFile = { storageKey: string; filePath: string; byteSize: number };

export class FileTooLargeError extends Error {
  constructor() {
    super('file too large');
    this.name = 'FileTooLargeError';
  }
}

/**
 * Streams `source` to a new scratch file, chunk by chunk, renamed when complete, so a half-received
 * upload never looks like a file. `isTruncated` tells whether the source stopped at the size limit
 * (busboy then ends the stream early).
 */
export async function storeStream(
  dataDir: string,
  clientId: string,
  source: Readable,
  isTruncated: () => boolean,
): Promise<StoredFile> {
  const storageKey = path.posix.join('fileforce', clientId, `${randomUUID()}.csv`);
  const filePath = scratchPath(dataDir, '.csv');
  await streamToFile(source, filePath);
  if (isTruncated()) {
    await rm(filePath, { force: true });
    throw new FileTooLargeError();
  }
  return { storageKey, filePath, byteSize: (await stat(filePath)).size };
}

/** Removes an upload's scratch file (kept or refused, it is not needed once handled). */
export async function removeScratch(stored: StoredFile): Promise<void> {
  await rm(stored.filePath, { force: true });
}
