import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

/**
 * The ingest bench's baseline (issue 19): a bare Node `http` server answering every request with the
 * same PNG bytes the real server serves for the ad (PNG_FILE), with the same content type and
 * cache-control, and nothing else. With PNG_DIR (the realistic mix, issue 43) it answers
 * `…/ad/{rendition}.png` with `<PNG_DIR>/{rendition}.png`, a real ad of that rendition, so both
 * servers send about the same bytes per request.
 */
const one = process.env.PNG_FILE ? readFileSync(process.env.PNG_FILE) : null;
const dir = process.env.PNG_DIR;
const byRendition = new Map<string, Buffer>();
const RENDITION = /\/ad\/([a-z0-9]+)\.png$/;
function pngFor(url: string): Buffer {
  if (!dir) return one!;
  const name = RENDITION.exec(url)?.[1] ?? '';
  let png = byRendition.get(name);
  if (!png) {
    png = readFileSync(path.join(dir, `${name}.png`));
    byRendition.set(name, png);
  }
  return png;
}
const server = http.createServer((req, res) => {
  const png = pngFor(req.url ?? '');
  res.writeHead(200, {
    'content-type': 'image/png',
    'cache-control': 'no-store',
    'content-length': png.length,
  });
  res.end(png);
});
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  const a = server.address();
  if (a && typeof a === 'object') console.log(`ready at http://${a.address}:${a.port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
