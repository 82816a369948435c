import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { count, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { integrations } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import type { Browser } from '../../../test/http.ts';
import { makeClient, signedIn } from '../../../test/http.ts';

/**
 * Issue 20 item 5: connecting a vendor that cannot be reached used to retry for 21–24 s and then
 * answer 500. It answers at once with a 502 naming the vendor, and stores nothing. The app keeps the
 * default retry policy (real waits), so a retry would show in the time taken.
 */
let app: FastifyInstance;
let acme: string;
let owner: Browser;
let closed: string;

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  closed = `http://127.0.0.1:${await closedPort()}`;
  app = await createTestApp({ env: { APOLLO_API_URL: `${closed}/api/v1` } });
  acme = await makeClient(app, 'Acme');
  ({ browser: owner } = await signedIn(app, { [acme]: 'purple_owner' }));
});

const stored = async () =>
  (await app.db.select({ n: count() }).from(integrations).where(eq(integrations.clientId, acme)))[0]?.n;

describe('connecting a vendor that cannot be reached', () => {
  it('Apollo on a closed port: 502 naming Apollo at once, nothing stored', async () => {
    const started = Date.now();
    const res = await owner.post(`/v1/integration/sequence/apolloio/client/${acme}/connect`, {
      api_key: 'a-master-key',
    });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json().message).toMatch(/^Apollo could not be reached \(ECONNREFUSED\)\. Nothing was stored/);
    expect(await stored()).toBe(0);
  });

  it('Marketo on a closed port: 502 naming Marketo at once, nothing stored', async () => {
    const started = Date.now();
    const res = await owner.post(`/v1/integration/crm/marketo/client/${acme}/connection`, {
      client_id: 'id',
      client_secret: 'secret',
      rest_base_url: `${closed}/rest`,
    });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json().message).toMatch(/^Marketo could not be reached at 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
    expect(await stored()).toBe(0);
  });
});
