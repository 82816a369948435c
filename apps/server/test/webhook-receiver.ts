import http from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll } from 'vitest';

export type Received = {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  answered: number;
  /** When the request arrived (ms since the epoch). */
  at: number;
};

/** A status, or a status with reply headers (e.g. Retry-After). */
export type Answer = number | { status: number; headers?: Record<string, string> };

/**
 * A webhook receiver on loopback. `answer` picks the status of each request (default 200); every
 * request is kept with the status it got. Closed after the file's tests.
 */
export async function startReceiver(
  answer: (r: Omit<Received, 'answered' | 'at'>, n: number) => Answer = () => 200,
) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const given = answer(r, received.length);
      const { status, headers = {} } = typeof given === 'number' ? { status: given } : given;
      received.push({ ...r, answered: status, at });
      res
        .writeHead(status, { 'content-type': 'text/plain', ...headers })
        .end(status < 300 ? 'ok' : 'try later');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${port}/hooks`, received };
}

/** Verifies with the official `standardwebhooks` package: an implementation independent of ours. */
export function verified(secret: string, r: Pick<Received, 'headers' | 'body'>) {
  return new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  }) as { type: string; timestamp: string; data: Record<string, unknown> };
}
