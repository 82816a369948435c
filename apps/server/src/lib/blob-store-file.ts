import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Streams `source` to `filePath` under a temporary name, renamed when complete. */
export async function streamToFile(source: Readable, filePath: string): Promise<void> {
  // The source may fail (a local file that is gone: ENOENT) while the folder is made, before the
  // pipeline listens: an 'error' event with no listener would end the process. Held and thrown here.
  let early: unknown;
  const hold = (err: unknown) => {
    early ??= err;
  };
  source.on('error', hold);
  try {
    await mkdir(path.dirname(filePath), { recursive: true });
  } finally {
    source.off('error', hold);
  }
  if (early !== undefined || source.errored) {
    source.destroy();
    throw early ?? source.errored;
  }
  const partial = `${filePath}.part`;
  try {
    await pipeline(source, createWriteStream(partial));
    await rename(partial, filePath);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
}
