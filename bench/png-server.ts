import { readFileSync } from 'node:fs';
import http from 'node:http';

/**
 * The ingest bench's baseline (issue 19): a bare Node `http` server answering every request with the
 * same PNG bytes the real server serves for the ad (PNG_FILE), with the same content type and
 * cache-control, and nothing else.
 */
const png = readFileSync(process.env.PNG_FILE!);
const server = http.createServer((_req, res) => {
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
