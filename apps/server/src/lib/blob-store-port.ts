/**
 * Where uploaded files (images, CSV imports) live (issue 41): the database by default, S3-compatible
 * storage when S3_BUCKET is set. Never one instance's disk, so any instance serves or imports what
 * another took. An adapter needs these five calls; `putFile`/`toFile` stream, so a large CSV never
 * sits whole in memory.
 */
export type BlobStore = {
  readonly kind: 'database' | 's3' | 'local';
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** Stores a local file's contents under `key`, streamed. */
  putFile(key: string, filePath: string, contentType: string): Promise<void>;
  /** The bytes, or null when the object is gone. */
  get(key: string): Promise<Buffer | null>;
  /** Writes the object to `filePath` (whole or not at all); false when the object is gone. */
  toFile(key: string, filePath: string): Promise<boolean>;
  delete(key: string): Promise<void>;
};
