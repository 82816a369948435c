import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Where uploaded CSV files are kept: `<DATA_DIR>/uploads/fileforce/<client>/<uuid>.csv`. An in-memory
 * database (tests) has no data folder, so its files go to the system's temporary folder.
 */
export function uploadsRoot(dataDir: string): string {
  return dataDir === 'memory://' ? path.join(tmpdir(), 'rally-uploads') : path.join(dataDir, 'uploads');
}

export type StoredFile = { storageKey: string; filePath: string; byteSize: number };

export class FileTooLargeError extends Error {
  constructor() {
    super('file too large');
    this.name = 'FileTooLargeError';
  }
}

export function storedPath(root: string, storageKey: string): string {
  const resolved = path.resolve(root, storageKey);
  // Keys are ours, but a path never leaves the uploads folder.
  if (!resolved.startsWith(path.resolve(root) + path.sep)) throw new Error(`bad storage key ${storageKey}`);
  return resolved;
}

/**
 * Streams `source` to a new file, chunk by chunk. Written under a temporary name and renamed when
 * complete, so a half-received upload never looks like a file. `isTruncated` tells whether the
 * source stopped at the size limit (busboy then ends the stream early).
 */
export async function storeStream(
  root: string,
  clientId: string,
  source: Readable,
  isTruncated: () => boolean,
): Promise<StoredFile> {
  const storageKey = path.posix.join('fileforce', clientId, `${randomUUID()}.csv`);
  const filePath = storedPath(root, storageKey);
  await mkdir(path.dirname(filePath), { recursive: true });
  const partial = `${filePath}.part`;
  try {
    await pipeline(source, createWriteStream(partial));
    if (isTruncated()) throw new FileTooLargeError();
    await rename(partial, filePath);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  return { storageKey, filePath, byteSize: (await stat(filePath)).size };
}

export async function removeStored(root: string, storageKey: string): Promise<void> {
  await rm(storedPath(root, storageKey), { force: true });
}
