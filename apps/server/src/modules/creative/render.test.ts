import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { renderAsync } from '@resvg/resvg-js';
import satori from 'satori';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AD_RENDITIONS, TEMPLATE_IDS, adRenditionPixels } from '@rally/shared/schemas/content';
import type { AdSize, TemplateId } from '@rally/shared/schemas/content';
import { createAdRenderer } from './ad-renderer.ts';
import type { AdNode, Child } from './elements.ts';
import { box } from './elements.ts';
import { adFonts } from './fonts.ts';
import { createImageLoader, sniffImageType } from './images.ts';
import { PREVIEW_PAYLOAD, renderLandingPageHtml } from './landing-page.ts';
import { adPalette, inkOn } from './palette.ts';
import type { AdInput } from './render.ts';
import { adContext, adElement, layoutOf, renderAdPng, renderAdSvg } from './render.ts';
import { samplePortraitPng, sampleLogoPng } from './sample-images.ts';

const photo = samplePortraitPng(256);

/** Width and height from the PNG's IHDR chunk (bytes 16-23), after checking the signature. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

const LONG: Omit<AdInput, 'templateId' | 'size'> = {
  imageText:
    'Hi there, your pipeline deserves better than cold calls and guesswork every single Monday morning, all year long',
  title: 'An extraordinarily long kicker above the headline for testing',
  colors: { background: '#0f172a', text: '#000000', accent: '#22d3ee', primary: '#f59e0b' },
  assignee: {
    first_name: 'Maximilian-Alexander',
    last_name: 'Featherstonehaugh-Worthington',
    title: 'Vice President of Strategic Enterprise Partnerships, Europe, Middle East and Africa',
    company_name: 'International Consolidated Holdings Group plc',
    website: 'https://www.averyveryverylongdomainnameexample.com/some/path',
    calendar_url: '',
  },
  repPhoto: photo,
  logo: sampleLogoPng(),
};

const SHORT: Omit<AdInput, 'templateId' | 'size'> = {
  imageText: 'Let’s grow together',
  colors: { background: '#ffffff', text: '#000000', accent: '#000000' },
  assignee: { first_name: 'Sam', last_name: 'Lee', title: 'SDR', company_name: 'Acme Robotics' },
  repPhoto: null,
};

// The four sizes and the e-mail rendition (decision 0020).
const combos = TEMPLATE_IDS.flatMap((templateId) => AD_RENDITIONS.map((size) => [templateId, size] as const));

describe('ad PNGs (SPEC.md §3 "Ad sizes: 1080x1080, 1200x628, 728x90, 300x250"; §9 "Template ids 1 to 4")', () => {
  it.each(combos)('template %i at %s is a PNG of exactly that size', async (templateId, size) => {
    const png = await renderAdPng({ templateId, size, ...LONG });
    expect(pngSize(png)).toEqual(adRenditionPixels(size));
  });

  it('the e-mail rendition is 1200 × 600 pixels, laid out at 600 × 300 with no text under 12 px', async () => {
    expect(adRenditionPixels('email')).toEqual({ width: 1200, height: 600 });
    expect(layoutOf('email')).toEqual({ width: 600, height: 300 });
    const sizes = (node: Child): number[] => {
      if (!node || typeof node !== 'object') return [];
      const own = typeof node.props.style?.fontSize === 'number' ? [node.props.style.fontSize] : [];
      return [...own, ...(node.props.children ?? []).flatMap(sizes)];
    };
    for (const templateId of TEMPLATE_IDS) {
      for (const input of [LONG, SHORT]) {
        const ctx = await adContext({ templateId, size: 'email', ...input });
        const found = sizes(adElement(ctx, templateId, 'email'));
        expect(found.length).toBeGreaterThan(3);
        expect(Math.min(...found), `template ${templateId}`).toBeGreaterThanOrEqual(12);
      }
    }
  });

  it('is an 8-bit palette PNG a third the size of the RGBA one, with the same picture', async () => {
    const input: AdInput = { templateId: 1, size: '300x250', ...LONG };
    const png = await renderAdPng(input);
    // IHDR: bit depth at byte 24, colour type at 25 (3 = indexed colour).
    expect([png[24], png[25]]).toEqual([8, 3]);
    const rgba = await renderAsync(await renderAdSvg(input), { font: { loadSystemFonts: false } });
    expect(png.length).toBeLessThan(rgba.asPng().length / 2);
    // `pixels` copies the image out of resvg on every read: read it once.
    const reference = rgba.pixels;
    // Decoded back to RGBA by resvg, as the one image of an SVG of the same size.
    const frame = `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="250"><image width="300" height="250" href="data:image/png;base64,${png.toString('base64')}"/></svg>`;
    const decoded = (await renderAsync(frame, { font: { loadSystemFonts: false } })).pixels;
    expect(decoded.length).toBe(reference.length);
    let diff = 0;
    for (let i = 0; i < decoded.length; i++) diff += Math.abs(decoded[i]! - reference[i]!);
    // Mean error per channel, out of 255: dithering moves pixels a little, never the picture.
    expect(diff / decoded.length).toBeLessThan(3);
  });

  it('the four templates look different at one size', async () => {
    const pngs = await Promise.all(
      TEMPLATE_IDS.map((templateId) =>
        renderAdPng({ templateId, size: '300x250', ...SHORT, repPhoto: photo }),
      ),
    );
    expect(new Set(pngs.map((p) => p.toString('base64'))).size).toBe(4);
  });
});

// ---------------------------------------------------------------------------------------------
// Layout: nothing leaves its box

type LaidOut = {
  key: string;
  left: number;
  top: number;
  width: number;
  height: number;
  props: Record<string, unknown>;
};

function keyed(node: Child, at = 'r'): Child {
  if (!node || typeof node !== 'object') return node;
  const children = (node.props.children ?? []).map((c, i) => keyed(c, `${at}.${i}`));
  return { ...node, key: at, props: { ...node.props, children } } as AdNode;
}

/** Every laid-out element that sticks out of its parent, except shapes marked as decoration. */
async function overflows(element: AdNode, width: number, height: number): Promise<string[]> {
  const nodes: LaidOut[] = [];
  await satori(keyed(element) as unknown as Parameters<typeof satori>[0], {
    width,
    height,
    fonts: adFonts(),
    onNodeDetected: (n) => {
      if (n.key !== undefined) nodes.push({ ...n, key: String(n.key) });
    },
  });
  const byKey = new Map(nodes.map((n) => [n.key, n]));
  const problems: string[] = [];
  for (const n of nodes) {
    const parent = byKey.get(n.key.split('.').slice(0, -1).join('.'));
    if (!parent || n.props['data-decoration']) continue;
    const tol = 0.6;
    if (
      n.left < parent.left - tol ||
      n.top < parent.top - tol ||
      n.left + n.width > parent.left + parent.width + tol ||
      n.top + n.height > parent.top + parent.height + tol
    ) {
      problems.push(`${n.key} (${[n.left, n.top, n.width, n.height].map(Math.round).join(',')})`);
    }
  }
  return problems;
}

describe('text never overflows its box at any size (issue 8, long name and title)', () => {
  it('the check itself finds a child wider than its parent', async () => {
    const bad = box({ width: 100, height: 50 }, box({ width: 180, height: 20, flexShrink: 0 }));
    expect(await overflows(bad, 200, 100)).toEqual(['r.0 (0,0,180,20)']);
  });

  it.each(combos)('template %i at %s, with long texts and without', async (templateId, size) => {
    const { width, height } = layoutOf(size);
    for (const input of [LONG, SHORT]) {
      const ctx = await adContext({ templateId, size, ...input });
      expect(await overflows(adElement(ctx, templateId, size), width, height)).toEqual([]);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Colours

/** The colour of the element whose text is exactly `text`. */
function colorOfText(node: Child, text: string): string | undefined {
  if (!node || typeof node !== 'object') return undefined;
  const children = node.props.children ?? [];
  if (children.includes(text)) return node.props.style?.color as string | undefined;
  for (const child of children) {
    const found = colorOfText(child, text);
    if (found) return found;
  }
  return undefined;
}

// SPEC.md §9: "Text colour is white or black by brightness threshold 200 for titles and 150 for body
// text." Issue 21 puts a floor under it (docs/decisions/0011-readable-text-colour.md): where the
// spec's choice has less than WCAG AA contrast (4.5:1), the other of black and white is used. That
// only ever turns white into black (any colour above brightness 150 has 6.7:1 or more with black),
// and it leaves titles and body text the same colour on every background.
describe("text colour: SPEC.md §9's brightness rule, unless it is under WCAG AA contrast (issue 21)", () => {
  it("follows the spec where its choice is readable, black where the spec's white is not", () => {
    expect(inkOn('#ffffff', 'title')).toBe('#000000');
    expect(inkOn('#111827', 'body')).toBe('#ffffff');
    // #767676 (brightness 118): the spec's white has 4.54:1, kept.
    expect(inkOn('#767676', 'title')).toBe('#ffffff');
    expect(inkOn('#767676', 'body')).toBe('#ffffff');
    // #b4b4b4 (180): the spec gives titles white (2.1:1), body text black; both are black now.
    expect(inkOn('#b4b4b4', 'title')).toBe('#000000');
    expect(inkOn('#b4b4b4', 'body')).toBe('#000000');
    // At the thresholds the spec gives white: 1.7:1 on #c8c8c8 (200), 3.0:1 on #969696 (150).
    expect(inkOn('#c8c8c8', 'title')).toBe('#000000');
    expect(inkOn('#969696', 'body')).toBe('#000000');
    expect(inkOn('#979797', 'body')).toBe('#000000');
    // Acme's orange (144.5): the spec's white has 2.8:1, black 7.5:1.
    expect(inkOn('#f97316', 'title')).toBe('#000000');
    expect(inkOn('#f97316', 'body')).toBe('#000000');
  });

  it("the client's text colour is used only where it has 4.5:1 on the surface", () => {
    // Red on white stands out by brightness (179 apart) but has 4.0:1: black instead.
    expect(inkOn('#ffffff', 'body', '#ff0000')).toBe('#000000');
    expect(inkOn('#ffffff', 'body', '#1e40af')).toBe('#1e40af');
  });

  it("a landing page in Acme's colours has black text on its orange buttons (7.5:1, not white's 2.8:1)", () => {
    const html = renderLandingPageHtml({
      payload: PREVIEW_PAYLOAD,
      colors: { background: '#111827', text: '#ffffff', accent: '#f97316', primary: '#f97316' },
      assignee: {
        first_name: 'Sam',
        last_name: 'Lee',
        title: 'SDR',
        company_name: 'Acme Robotics',
        website: '',
        calendar_url: 'https://cal.example/sam',
      },
      repPhotoUrl: '',
      logoUrl: '',
      faviconUrl: '',
      buttonName: 'Book a meeting',
      fallbackLink: '',
      values: {},
    });
    const buttons = html.match(/<a class="btn[^"]*" style="[^"]*"/g) ?? [];
    expect(buttons).toHaveLength(3);
    for (const b of buttons) expect(b).toContain('style="background:#f97316;color:#000000"');
    // The initials on the orange avatar too; the page's own text stays the chosen white.
    expect(html).toContain(
      '.avatar-initials{display:flex;align-items:center;justify-content:center;background:#f97316;color:#000000;',
    );
    expect(html).toContain('body{margin:0;background:#111827;color:#ffffff;');
  });

  it("the client's text colour is used where it stands out, else black or white", () => {
    expect(adPalette({ background: '#ffffff', text: '#1e40af', accent: '#000000' }).onBackground).toEqual({
      title: '#1e40af',
      body: '#1e40af',
    });
    // Black text chosen on a dark background would be unreadable: white instead.
    expect(adPalette({ background: '#111827', text: '#000000', accent: '#000000' }).onBackground).toEqual({
      title: '#ffffff',
      body: '#ffffff',
    });
    // Defaults (SPEC.md §3): white background, black text and accent.
    const p = adPalette({ background: 'ffffff', text: '000000', accent: '000000' });
    expect([p.background, p.accent, p.primary, p.onBackground.title, p.onAccent.title]).toEqual([
      '#ffffff',
      '#000000',
      '#000000',
      '#000000',
      '#ffffff',
    ]);
  });

  it.each(TEMPLATE_IDS)(
    'template %i draws the headline and name (titles) and the rep role (body) by that rule',
    async (templateId) => {
      // Background, accent and text one colour, so whatever the text sits on, the rule is the same.
      const inks = async (colour: string) => {
        const colors = { background: colour, text: colour, accent: colour };
        const ctx = await adContext({ templateId, size: '1200x628', ...SHORT, colors });
        const tree = adElement(ctx, templateId, '1200x628');
        return ['Let’s grow together', 'Sam Lee', 'SDR'].map((text) => colorOfText(tree, text));
      };
      // Brightness 180: the spec alone would give white titles (2.1:1) and black body text.
      expect(await inks('#b4b4b4')).toEqual(['#000000', '#000000', '#000000']);
      // Acme's orange: the spec alone would give white (2.8:1) to all three.
      expect(await inks('#f97316')).toEqual(['#000000', '#000000', '#000000']);
      // Where the spec's white is readable (4.54:1) it stays.
      expect(await inks('#767676')).toEqual(['#ffffff', '#ffffff', '#ffffff']);
      expect(await inks('#f1f5f9')).toEqual(['#000000', '#000000', '#000000']);
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Cache

describe('rendered PNGs are cached by content hash', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rally-ads-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const input: AdInput = { templateId: 2, size: '300x250', ...SHORT, repPhoto: photo };

  it('a second request returns identical bytes without rendering again (memory, then disk)', async () => {
    const renderer = createAdRenderer({ cacheDir: dir });
    const first = await renderer.render(input);
    const second = await renderer.render({ ...input, colors: { ...input.colors } });
    expect(second.png.equals(first.png)).toBe(true);
    expect(second.key).toBe(first.key);
    expect(renderer.stats).toEqual({ renders: 1, memoryHits: 1, diskHits: 0 });

    // Another process (a new renderer on the same folder) reads the file instead of rendering.
    const restarted = createAdRenderer({ cacheDir: dir });
    const third = await restarted.render(input);
    expect(third.png.equals(first.png)).toBe(true);
    expect(restarted.stats).toEqual({ renders: 0, memoryHits: 0, diskHits: 1 });
    const shards = await readdir(dir);
    expect(await readdir(path.join(dir, shards[0] ?? ''))).toEqual([`${first.key}.png`]);
  });

  it('any change to what the ad shows is a new key and a new render; same-time requests share one', async () => {
    const renderer = createAdRenderer({ cacheDir: null });
    const base = await renderer.render(input);
    const changes: Partial<AdInput>[] = [
      { colors: { ...input.colors, accent: '#ff0000' } },
      { imageText: 'Another line' },
      { templateId: 3 as TemplateId },
      { size: '728x90' as AdSize },
      { assignee: { ...input.assignee, title: 'AE' } },
      { repPhoto: samplePortraitPng(256, 20) },
    ];
    for (const change of changes) {
      const other = await renderer.render({ ...input, ...change });
      expect(other.key).not.toBe(base.key);
    }
    expect(renderer.stats.renders).toBe(1 + changes.length);

    const fresh = createAdRenderer({ cacheDir: null });
    const all = await Promise.all(Array.from({ length: 5 }, () => fresh.render(input)));
    expect(fresh.stats.renders).toBe(1);
    expect(all.every((r) => r.png.equals(base.png))).toBe(true);
  });

  it('with a memory budget smaller than one PNG, each request renders (nothing is kept)', async () => {
    const renderer = createAdRenderer({ cacheDir: null, memoryBytes: 10 });
    const { key } = await renderer.render(input);
    await renderer.render(input);
    expect(renderer.stats.renders).toBe(2);
    // Nor can a key known from before bring it back (the ad tag then renders again).
    expect(renderer.cached(key)).toBeUndefined();
  });

  it('a key from an earlier render gives its bytes from memory without computing a key; an unknown key nothing', async () => {
    const renderer = createAdRenderer({ cacheDir: null });
    const first = await renderer.render(input);
    expect(renderer.cached(first.key)?.equals(first.png)).toBe(true);
    expect(renderer.cached('0'.repeat(64))).toBeUndefined();
    expect(renderer.stats).toEqual({ renders: 1, memoryHits: 1, diskHits: 0 });
  });
});

// ---------------------------------------------------------------------------------------------
// Pictures

describe('ad pictures', () => {
  let server: ReturnType<typeof createServer>;
  let base: string;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits += 1;
      if (req.url === '/photo.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(photo);
      if (req.url === '/moved') return res.writeHead(302, { location: '/photo.png' }).end();
      if (req.url === '/fake.png')
        return res.writeHead(200, { 'content-type': 'image/png' }).end('<svg onload=alert(1)>');
      if (req.url === '/huge.png')
        return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(2048, 1));
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('are recognised by their bytes, not their name', () => {
    expect(sniffImageType(photo)).toBe('image/png');
    expect(sniffImageType(Buffer.from('<svg onload=alert(1)>'))).toBeNull();
    expect(sniffImageType(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
  });

  it('are fetched over http(s) once, following a redirect; non-images and oversized bodies are no picture', async () => {
    const load = createImageLoader({ allowPrivateNetwork: true, maxBytes: 1024 * 1024 });
    hits = 0;
    expect(Buffer.from((await load(`${base}/photo.png`)) ?? []).equals(photo)).toBe(true);
    expect(Buffer.from((await load(`${base}/photo.png`)) ?? []).equals(photo)).toBe(true);
    expect(hits).toBe(1);
    expect(Buffer.from((await load(`${base}/moved`)) ?? []).equals(photo)).toBe(true);
    expect(await load(`${base}/fake.png`)).toBeNull();
    expect(await load(`${base}/missing.png`)).toBeNull();
    expect(
      await createImageLoader({ allowPrivateNetwork: true, maxBytes: 1000 })(`${base}/huge.png`),
    ).toBeNull();
    expect(await load('javascript:alert(1)')).toBeNull();
    expect(await load('file:///etc/passwd')).toBeNull();
  });

  it('are never fetched from loopback or private addresses unless allowed (no server-side request forgery)', async () => {
    hits = 0;
    const load = createImageLoader();
    expect(await load(`${base}/photo.png`)).toBeNull();
    expect(await load(`http://localhost:${new URL(base).port}/photo.png`)).toBeNull();
    const port = new URL(base).port;
    for (const host of [
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[::127.0.0.1]',
      '[64:ff9b::7f00:1]',
      '2130706433',
      '0x7f.1',
      '127.1',
      '0.0.0.0',
    ]) {
      expect(await load(`http://${host}:${port}/photo.png`), host).toBeNull();
    }
    expect(hits).toBe(0);
  });

  it('an upload path is read from the upload store, and a missing picture falls back to initials', async () => {
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const load = createImageLoader({ readUpload: async (asked) => (asked === id ? photo : null) });
    expect(await load(`/files/${id}`)).toBe(photo);
    const withUpload = await adContext(
      { templateId: 1, size: '300x250', ...SHORT, repPhoto: `/files/${id}` },
      { loadImage: load },
    );
    expect(withUpload.photo).toMatch(/^data:image\/png;base64,/);
    const missing = await adContext(
      { templateId: 1, size: '300x250', ...SHORT, repPhoto: '/files/not-an-id' },
      { loadImage: load },
    );
    expect(missing.photo).toBeNull();
    expect(missing.initials).toBe('SL');
  });
});
