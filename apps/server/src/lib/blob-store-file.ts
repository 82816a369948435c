import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Streams `source` to `filePath` under a temporary name, renamed when complete. */
export async function streamToFile(source: Readable, filePath: string): Promise<void> {
  await mkdir(path.dirname(filePath), { recursive: true });
  const partial = `${filePath}.part`;
  try {
    await pipeline(source, createWriteStream(partial));
    await rename(partial, filePath);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
}
