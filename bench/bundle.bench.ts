import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { report, root } from './lib.ts';

type Chunk = { file: string; imports?: string[]; isEntry?: boolean; src?: string };

/**
 * JavaScript a browser needs to show /login (entry, its static imports, and the login screen chunk
 * with its imports), gzip, against all JavaScript of the app. Needs `npm run build` first.
 */
export function run() {
  const dist = path.join(root, 'apps/web/dist');
  const manifest = JSON.parse(readFileSync(path.join(dist, '.vite/manifest.json'), 'utf8')) as Record<
    string,
    Chunk
  >;
  const gz = (file: string) => gzipSync(readFileSync(path.join(dist, file))).length;
  const closure = (key: string, seen = new Set<string>()) => {
    if (seen.has(key)) return seen;
    seen.add(key);
    for (const i of manifest[key]?.imports ?? []) closure(i, seen);
    return seen;
  };
  const entry = Object.keys(manifest).find((k) => manifest[k]?.isEntry);
  const login = Object.keys(manifest).find((k) => k.endsWith('app/routes/login.tsx'));
  if (!entry || !login) throw new Error('manifest has no entry or login chunk: run npm run build');
  const needed = new Set([...closure(entry), ...closure(login)]);
  const loginBytes = [...needed].reduce((n, k) => n + gz(manifest[k]!.file), 0);
  const allBytes = Object.values(manifest)
    .filter((c) => c.file.endsWith('.js'))
    .reduce((n, c) => n + gz(c.file), 0);
  report(
    '/login initial JS (gzip)',
    `${(loginBytes / 1024).toFixed(1)} KiB`,
    `${(allBytes / 1024).toFixed(1)} KiB (all JS)`,
    loginBytes / allBytes,
  );
}
