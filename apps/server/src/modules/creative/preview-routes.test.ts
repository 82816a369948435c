import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { AD_SIZES, adSizeDimensions } from '@rally/shared/schemas/content';
import { createTestApp } from '../../../test/helpers.ts';
import type { Browser } from '../../../test/http.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import { creativeOf } from './service.ts';

/**
 * POST /sc/content/render?size=…: the ad editor's live preview of fields not saved yet, drawn by
 * the renderer of saved ads (SPEC.md §3 "Ad sizes": 1080x1080, 1200x628, 728x90, 300x250).
 */
let app: FastifyInstance;
let acme: string;
let owner: Browser;
let viewer: Browser;

const AD = {
  template_id: 1,
  title: 'Robots that ship',
  image_text: 'Pick twice as fast',
  colors: { background: '#111827', text: '#ffffff', accent: '#f97316' },
  assignee: {
    first_name: 'Jane',
    last_name: 'Cooper',
    title: 'Account Executive',
    company_name: 'Acme Robotics',
    website: 'https://acme.example',
    calendar_url: '',
  },
  sdr_img_url: '',
};

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Width and height from a PNG's IHDR chunk. */
const pngSize = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });

const render = (b: Browser, size: string, body: unknown) => b.post(`/sc/content/render?size=${size}`, body);

beforeAll(async () => {
  app = await createTestApp();
  acme = await makeClient(app, 'Acme');
  ({ browser: owner } = await signedIn(app, { [acme]: 'purple_owner' }));
  ({ browser: viewer } = await signedIn(app, { [acme]: 'grey_viewer' }));
});
afterAll(() => app.close());

describe('POST /sc/content/render (the ad editor live preview)', () => {
  it('"Ad sizes: 1080x1080, 1200x628, 728x90, 300x250": a PNG of exactly each size', async () => {
    for (const size of AD_SIZES) {
      const res = await render(owner, size, AD);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.rawPayload.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      expect(pngSize(res.rawPayload)).toEqual(adSizeDimensions(size));
    }
  });

  it('draws what the fields say (another colour or template is another picture) and caches by content', async () => {
    const base = (await render(owner, '300x250', AD)).rawPayload;
    const recoloured = await render(owner, '300x250', {
      ...AD,
      colors: { ...AD.colors, background: '#ffffff' },
    });
    const template4 = await render(owner, '300x250', { ...AD, template_id: 4 });
    expect(recoloured.rawPayload.equals(base)).toBe(false);
    expect(template4.rawPayload.equals(base)).toBe(false);
    const { stats } = creativeOf(app).renderer;
    const renders = stats.renders;
    const again = await render(owner, '300x250', AD);
    expect(again.rawPayload.equals(base)).toBe(true);
    expect(stats.renders).toBe(renders);
  });

  it('fills data-id tags (SPEC.md §5): the assignee for rep tags, a sample prospect for prospect tags', async () => {
    const tagged = await render(owner, '1200x628', {
      ...AD,
      title: '<span data-id="prospect_first_name">Hi</span>, meet <span data-id="first_name">us</span>',
    });
    const plain = await render(owner, '1200x628', { ...AD, title: 'Alex, meet Jane' });
    expect(tagged.statusCode).toBe(200);
    expect(tagged.rawPayload.equals(plain.rawPayload)).toBe(true);
  });

  it('with an Idempotency-Key (the app sends one on every POST) the PNG comes back, and again on a retry', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await owner.post('/sc/content/render?size=300x250', AD, {
        headers: { 'idempotency-key': 'render-preview-key-1' },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(res.rawPayload.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    }
  });

  it('any member may preview (a viewer too); signed out is 401', async () => {
    expect((await render(viewer, '728x90', AD)).statusCode).toBe(200);
    const res = await app.inject({
      method: 'POST',
      url: '/sc/content/render?size=728x90',
      payload: AD,
      headers: { 'x-client-id': acme },
    });
    expect(res.statusCode).toBe(401);
  });

  it.each([
    ['size', '100x100', AD, 'querystring.size', 'must be one of 1080x1080, 1200x628, 728x90, 300x250'],
    [
      'template_id 0',
      '300x250',
      { ...AD, template_id: 0 },
      'body.template_id',
      'must be a whole number from 1 to 4',
    ],
    [
      'template_id 5',
      '300x250',
      { ...AD, template_id: 5 },
      'body.template_id',
      'must be a whole number from 1 to 4',
    ],
    [
      'template_id 2.5',
      '300x250',
      { ...AD, template_id: 2.5 },
      'body.template_id',
      'must be a whole number from 1 to 4',
    ],
    [
      'template_id "2"',
      '300x250',
      { ...AD, template_id: '2' },
      'body.template_id',
      'must be a whole number from 1 to 4',
    ],
    [
      "background 'fff'",
      '300x250',
      { ...AD, colors: { ...AD.colors, background: 'fff' } },
      'body.colors.background',
      'is not a valid hex color',
    ],
    [
      "accent '#GGGGGG'",
      '300x250',
      { ...AD, colors: { ...AD.colors, accent: '#GGGGGG' } },
      'body.colors.accent',
      'is not a valid hex color',
    ],
    [
      'a photo that is not a URL or upload',
      '300x250',
      { ...AD, sdr_img_url: 'javascript:alert(1)' },
      'body.sdr_img_url',
      'must be an http(s) URL or an uploaded file (/files/{id})',
    ],
  ])('bad input (%s) is a 422 naming the field', async (_what, size, body, field, message) => {
    const res = await render(owner, size, body);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toContainEqual({ field, message });
  });

  it("'#A1b2C3' (mixed case) is a valid colour", async () => {
    const res = await render(owner, '300x250', { ...AD, colors: { ...AD.colors, accent: '#A1b2C3' } });
    expect(res.statusCode).toBe(200);
  });
});
