import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { UploadReply } from '@rally/shared/schemas/content';
import { uploads } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { GIF_1X1, makePng, multipart } from '../../../test/images.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';
import { checkImage, sniffImage } from './images.ts';

const app = await createTestApp();
const mine = await makeClient(app, 'Mine');
const other = await makeClient(app, 'Other');
const { browser: owner } = await signedIn(app, { [mine]: 'purple_owner' });
const { browser: manager } = await signedIn(app, { [mine]: 'green_manager' });
const { browser: sdr } = await signedIn(app, { [mine]: 'yellow_sdr' });
const { browser: stranger } = await signedIn(app, { [other]: 'purple_owner' });
const url = (client = mine) => `/v1/rest/client/${client}/uploads`;

async function upload(
  b: Browser,
  file: Buffer | string | null,
  fields: Record<string, string> = { kind: 'logo' },
  fileName = 'logo.png',
  client = mine,
) {
  const { payload, headers } = await multipart(file, fields, fileName);
  const res = await b.post(url(client), payload, { headers });
  return {
    statusCode: res.statusCode,
    body: res.json() as UploadReply & { message: string; errors?: unknown[] },
  };
}

describe('uploads: POST /v1/rest/client/{id}/uploads, checked by their bytes (issue 8)', () => {
  it('stores a real PNG with its dimensions and serves it publicly at /files/{id}', async () => {
    const png = makePng(240, 120);
    const res = await upload(owner, png, { kind: 'logo' });
    expect(res.statusCode, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      kind: 'logo',
      url: `/files/${res.body.id}`,
      width: 240,
      height: 120,
      content_type: 'image/png',
      byte_size: png.length,
    });
    const [row] = await app.db.select().from(uploads).where(eq(uploads.id, res.body.id));
    expect(row).toMatchObject({ clientId: mine, kind: 'logo', width: 240, height: 120 });
    expect(row!.storageKey).toBe(`images/${mine}/${res.body.id}.png`);

    // Public: no session, no client header.
    const file = await new Browser(app).get(res.body.url);
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(png)).toBe(true);
    expect(file.headers).toMatchObject({
      'content-type': 'image/png',
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
    });
    const again = await new Browser(app).get(res.body.url, {
      headers: { 'if-none-match': String(file.headers.etag) },
    });
    expect(again.statusCode).toBe(304);

    const listed = (await sdr.get(`${url()}?kind=logo`)).json();
    expect(listed.items.map((u: UploadReply) => u.id)).toContain(res.body.id);
    expect((await sdr.get(`${url()}?kind=photo`)).json().items).toEqual([]);
  });

  it('the type comes from the bytes, not the name: a GIF called photo.png is a GIF', async () => {
    const res = await upload(owner, GIF_1X1, { kind: 'image' }, 'photo.png');
    expect(res.body).toMatchObject({ content_type: 'image/gif', width: 1, height: 1 });
  });

  it('a text file named .png is refused, naming the field', async () => {
    const res = await upload(owner, 'just some text, not an image', { kind: 'logo' }, 'logo.png');
    expect(res.statusCode).toBe(422);
    expect(res.body.message).toBe('body.file: is not a PNG, JPEG, GIF or WebP image');
  });

  it('SVG is refused: it can carry script', async () => {
    const svg =
      '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(1)</script></svg>';
    const res = await upload(owner, svg, { kind: 'logo' }, 'logo.svg');
    expect(res.statusCode).toBe(422);
    expect(res.body.message).toBe(
      'body.file: is not a PNG, JPEG, GIF or WebP image: SVG and other markup are refused because they can carry scripts',
    );
  });

  it('a file over 5 MB is refused', async () => {
    const big = Buffer.concat([makePng(100, 100), Buffer.alloc(5 * 1024 * 1024)]);
    const res = await upload(owner, big, { kind: 'image' }, 'big.png');
    expect(res.statusCode).toBe(422);
    expect(res.body.message).toBe('body.file: is larger than 5 MB; upload a smaller image');
  });

  it('dimensions are limited per kind', async () => {
    const favicon = await upload(owner, makePng(1024, 1024), { kind: 'favicon' }, 'favicon.png');
    expect(favicon.statusCode).toBe(422);
    expect(favicon.body.message).toBe('body.file: is 1024x1024 pixels; a favicon can be at most 512x512');
    const tiny = await upload(owner, makePng(8, 8), { kind: 'logo' });
    expect(tiny.body.message).toBe('body.file: is 8x8 pixels; a logo must be at least 16x16');
    expect((await upload(owner, makePng(32, 32), { kind: 'favicon' })).statusCode).toBe(201);
  });

  it('a damaged image, an empty file, a missing file and a bad kind are 422s naming the field', async () => {
    const truncated = makePng(50, 50).subarray(0, 20);
    const damaged = await upload(owner, truncated, { kind: 'image' });
    expect(damaged.statusCode).toBe(422);
    expect(damaged.body.message).toMatch(/^body\.file: /);
    expect((await upload(owner, Buffer.alloc(0), { kind: 'image' })).body.message).toBe(
      'body.file: is empty',
    );
    expect((await upload(owner, null, { kind: 'image' })).body.message).toBe(
      'body.file: is required: attach the image in a part named "file"',
    );
    const kind = await upload(owner, makePng(20, 20), { kind: 'banner' });
    expect(kind.statusCode).toBe(422);
    expect(kind.body.message).toBe('body.kind: must be one of logo, favicon, photo, hero, cover, image');
    const json = await owner.post(url(), { kind: 'logo' });
    expect(json.statusCode).toBe(415);
  });

  it('brand images need settings.write; photos and heroes content.write; a yellow_sdr neither', async () => {
    const logo = await upload(manager, makePng(64, 64), { kind: 'logo' });
    expect(logo.statusCode).toBe(403);
    expect(logo.body.message).toBe('Access Denied: uploading a logo needs the settings.write permission.');
    expect((await upload(manager, makePng(64, 64), { kind: 'photo' })).statusCode).toBe(201);
    const none = await upload(sdr, makePng(64, 64), { kind: 'photo' });
    expect(none.statusCode).toBe(403);
    expect(none.body.message).toBe('Access Denied: your role has neither content.write nor settings.write.');
  });

  it("another client's path is refused; ids that are not ours are 404 at /files", async () => {
    expect((await upload(stranger, makePng(64, 64), { kind: 'logo' }, 'x.png', mine)).statusCode).toBe(403);
    expect((await stranger.get(url(mine))).statusCode).toBe(403);
    expect((await new Browser(app).get(`/files/${randomUUID()}`)).statusCode).toBe(404);
    expect((await new Browser(app).get('/files/..%2F..%2Fetc%2Fpasswd')).statusCode).toBe(404);
  });
});

describe('image sniffing by magic numbers', () => {
  it('knows PNG, JPEG, GIF and WebP, and nothing else', () => {
    expect(sniffImage(makePng(1, 1))?.contentType).toBe('image/png');
    expect(sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]))?.contentType).toBe('image/jpeg');
    expect(sniffImage(GIF_1X1)?.contentType).toBe('image/gif');
    const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]);
    expect(sniffImage(webp)?.contentType).toBe('image/webp');
    expect(sniffImage(Buffer.from('BM'))).toBeNull();
    expect(sniffImage(Buffer.from('%PDF-1.7'))).toBeNull();
  });

  it('a JPEG signature without a readable header is refused as damaged, not guessed', () => {
    expect(() => checkImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0]), 'image')).toThrow(/cannot be read/);
  });
});
