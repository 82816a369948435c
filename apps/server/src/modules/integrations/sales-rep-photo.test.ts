import { beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { integrations, salesReps } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import type { Browser } from '../../../test/http.ts';

/** POST /sc/sdr/{id} photo_url: an http(s) image, or one of our uploads (/files/{id}) from the sales reps screen. */
let app: FastifyInstance;
let owner: Browser;
let repId: string;

beforeAll(async () => {
  app = await createTestApp();
  const clientId = await makeClient(app, 'Photos');
  const [integration] = await app.db
    .insert(integrations)
    .values({ clientId, source: 'fileforce', isActive: true })
    .returning();
  const [rep] = await app.db
    .insert(salesReps)
    .values({ clientId, integrationId: integration!.id, externalId: 'r1', firstName: 'Ada' })
    .returning();
  repId = rep!.id;
  owner = (await signedIn(app, { [clientId]: 'purple_owner' })).browser;
});

describe('POST /sc/sdr/{id} photo_url', () => {
  it('takes the /files/{id} path an upload replies with, an https URL, and null to remove it', async () => {
    const path = '/files/0b6f2f5e-8d4c-4f55-9a7e-2f1d3c4b5a69';
    const uploaded = await owner.post(`/sc/sdr/${repId}`, { photo_url: path });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    expect(uploaded.json().photo_url).toBe(path);
    const https = await owner.post(`/sc/sdr/${repId}`, { photo_url: 'https://img.example/ada.png' });
    expect(https.json().photo_url).toBe('https://img.example/ada.png');
    const removed = await owner.post(`/sc/sdr/${repId}`, { photo_url: null });
    expect(removed.json().photo_url).toBeNull();
  });

  it.each(['/etc/passwd', '/files/../secret', 'javascript:alert(1)', '//evil.example/x.png'])(
    'refuses %s with 422 naming body.photo_url',
    async (value) => {
      const res = await owner.post(`/sc/sdr/${repId}`, { photo_url: value });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors[0].field).toBe('body.photo_url');
    },
  );
});
