// pg-copy-streams ships no types; the part the import benchmark uses.
declare module 'pg-copy-streams' {
  import type { Writable } from 'node:stream';
  import type { Submittable } from 'pg';
  export type CopyStreamQuery = Writable & Submittable & { rowCount: number };
  export function from(text: string): CopyStreamQuery;
}
