import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { FileImport } from '@rally/shared/schemas/fileforce';
import { afterFile } from '../cleanups.ts';
import { CLUSTER_READY } from './cluster-kit.ts';
import { createTestApp, freshDatabaseUrl, waitFor } from '../helpers.ts';
import { makePng, multipart } from '../images.ts';
import { Browser, makeClient, signedIn } from '../http.ts';

/**
 * Issue 41 item 3: uploads are kept where every instance reads them (the database here), not on the
 * disk of the instance that took them. Before, with a data folder per instance (as containers have),
 * a CSV uploaded on A and imported by B's job failed "The uploaded file is no longer there", and an
 * image uploaded on A answered 404 on B.
 */

/** An app on `databaseUrl` with a data folder of its own, removed when the file ends. */
async function instance(databaseUrl: string): Promise<FastifyInstance> {
  const dir = mkdtempSync(path.join(tmpdir(), 'rally-uploads-'));
  afterFile(async () => rmSync(dir, { recursive: true, force: true }));
  return createTestApp({ env: { DATABASE_URL: databaseUrl, DATA_DIR: dir } });
}

describe.skipIf(!CLUSTER_READY)('two instances on one PostgreSQL, each with its own data folder', () => {
  it('an image uploaded on A is served by B; a CSV uploaded on A is imported by B', async () => {
    const databaseUrl = (await freshDatabaseUrl())!;
    const a = await instance(databaseUrl);
    const b = await instance(databaseUrl);
    const clientId = await makeClient(a, 'Shared uploads');
    const { browser: onA } = await signedIn(a, { [clientId]: 'purple_owner' });
    const { browser: onB } = await signedIn(b, { [clientId]: 'purple_owner' });

    const png = makePng(64, 32);
    const image = await multipart(png, { kind: 'logo' }, 'logo.png');
    const up = await onA.post(`/v1/rest/client/${clientId}/uploads`, image.payload, {
      headers: image.headers,
    });
    expect(up.statusCode, up.body).toBe(201);
    const served = await new Browser(b).get(up.json<{ url: string }>().url);
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(png)).toBe(true);

    const base = `/v1/integration/crm/fileforce/client/${clientId}`;
    const csv = await multipart('email,first_name,last_name\nada@example.com,Ada,Lovelace\n', {
      kind: 'targets',
    });
    const uploaded = await onA.post(`${base}/imports`, csv.payload, { headers: csv.headers });
    expect(uploaded.statusCode, uploaded.body).toBe(201);
    const id = uploaded.json<FileImport>().id;
    // A stops (its queue workers with it): only B can take the job.
    await a.close();
    const check = await onB.post(`${base}/targets/check`, { import_id: id });
    expect(check.statusCode, check.body).toBe(200);
    expect(check.json()).toMatchObject({ total_rows: 1, valid_rows: 1 });
    expect((await onB.post(`${base}/imports/${id}/start`)).statusCode).toBe(202);
    const done = await waitFor(async () => {
      const body = (await onB.get(`${base}/imports/${id}`)).json<FileImport>();
      return body.status === 'done' || body.status === 'failed' ? body : null;
    }, 90_000);
    expect(done).toMatchObject({ status: 'done', imported_rows: 1, failure_reason: null });
  }, 240_000);
});
