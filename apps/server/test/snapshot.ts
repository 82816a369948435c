import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SNAPSHOT_FILE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../.tmp/pglite-test-snapshot.tar',
);
