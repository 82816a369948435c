import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An S3-compatible object store on loopback (path-style: /{bucket}/{key}): PUT, GET and DELETE of
 * objects, 404 NoSuchKey as S3 answers it. Signatures are not checked; what was sent is kept.
 */
export async function startFakeS3() {
  const objects = new Map<string, { body: Buffer; contentType: string; headers: Record<string, string> }>();
  const server = createServer((req, res) => {
    const key = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'PUT') {
        objects.set(key, {
          body: Buffer.concat(chunks),
          contentType: String(req.headers['content-type'] ?? ''),
          headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        });
        res.writeHead(200, { etag: '"fake"' }).end();
      } else if (req.method === 'GET') {
        const obj = objects.get(key);
        if (!obj) {
          res
            .writeHead(404, { 'content-type': 'application/xml' })
            .end('<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>gone</Message></Error>');
          return;
        }
        res
          .writeHead(200, { 'content-type': obj.contentType, 'content-length': obj.body.length })
          .end(obj.body);
      } else if (req.method === 'DELETE') {
        objects.delete(key);
        res.writeHead(204).end();
      } else {
        res.writeHead(405).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    objects,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
