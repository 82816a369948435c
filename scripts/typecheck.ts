/** Type-checks every workspace project with the pinned TypeScript; exits non-zero on any error. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The server, bench and scripts are one program (tsconfig.node-check.json says why).
const projects = ['packages/shared', 'tsconfig.node-check.json', 'apps/web', 'e2e'];
let failed = 0;
for (const p of projects) {
  const r = spawnSync(
    process.execPath,
    [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', p, '--pretty'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (r.status !== 0) {
    failed++;
    console.error(`types: ${p} has errors`);
  } else console.log(`types: ${p} ok`);
}
process.exit(failed ? 1 : 0);
