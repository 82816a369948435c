import { afterAll, describe, expect, it } from 'vitest';
import { startFakeS3 } from '../../../test/fakes/s3.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makePng, multipart } from '../../../test/images.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';

describe('uploads in S3-compatible storage when S3_BUCKET is set (ARCHITECTURE.md §3)', async () => {
  const s3 = await startFakeS3();
  afterAll(() => s3.close());
  const app = await createTestApp({
    env: {
      S3_BUCKET: 'rally-images',
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY_ID: 'test-key',
      S3_SECRET_ACCESS_KEY: 'test-secret',
    },
  });
  const mine = await makeClient(app);
  const { browser: owner } = await signedIn(app, { [mine]: 'purple_owner' });

  it('stores the image as an object and serves it back at /files/{id}', async () => {
    const png = makePng(400, 200);
    const { payload, headers } = await multipart(png, { kind: 'hero' });
    const res = await owner.post(`/v1/rest/client/${mine}/uploads`, payload, { headers });
    expect(res.statusCode, res.body).toBe(201);
    const { id, url } = res.json();
    const object = s3.objects.get(`/rally-images/images/${mine}/${id}.png`);
    expect(object?.body.equals(png)).toBe(true);
    expect(object?.contentType).toBe('image/png');
    expect(object?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=test-key\//);

    const file = await new Browser(app).get(url);
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(png)).toBe(true);

    // An object gone from the bucket is a 404, not a 500.
    s3.objects.clear();
    expect((await new Browser(app).get(url)).statusCode).toBe(404);
  });
});
