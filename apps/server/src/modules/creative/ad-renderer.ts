import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import type { ImageInput, ImageLoader } from './images.ts';
import type { AdInput } from './render.ts';
import { renderAdPng } from './render.ts';
import { TEMPLATE_VERSION } from './templates.ts';

export type RenderedAd = {
  png: Buffer;
  /** Content hash of the inputs (and template version): the cache key, and the ETag's value. */
  key: string;
};

export type AdRendererStats = { renders: number; memoryHits: number; diskHits: number };

export type AdRenderer = {
  render(input: AdInput): Promise<RenderedAd>;
  /** The cache key of `input` without rendering (answers a conditional request without work). */
  keyOf(input: AdInput): string;
  /** The PNG under a key from an earlier `render`, if memory still holds it (no key computed). */
  cached(key: string): Buffer | undefined;
  readonly stats: AdRendererStats;
};

export type AdRendererOptions = {
  /** Folder for rendered PNGs that outlive the process; null keeps them in memory only. */
  cacheDir: string | null;
  /** Memory cache size in bytes (least recently used PNGs go first). */
  memoryBytes?: number;
  loadImage?: ImageLoader;
};

/** `<DATA_DIR>/cache/ads`; with the in-memory database (`memory://`), a folder under the temp dir. */
export function adCacheDir(dataDir: string): string {
  return dataDir === 'memory://'
    ? path.join(tmpdir(), 'rally-cache', 'ads')
    : path.join(dataDir, 'cache', 'ads');
}

function imageIdentity(input: ImageInput): string | null {
  if (!input) return null;
  // Uploads are immutable (a new file gets a new /files/{id}) and remote URLs are taken as stable,
  // so a URL names its picture; bytes are named by their hash. Data URIs are hashed too (long).
  if (typeof input === 'string') {
    return input.startsWith('data:') ? `sha256:${createHash('sha256').update(input).digest('hex')}` : input;
  }
  return `sha256:${createHash('sha256').update(input).digest('hex')}`;
}

/** The content hash of an ad: every input that changes its pixels, and the template version. */
export function adCacheKey(input: AdInput): string {
  const a = input.assignee ?? {};
  const c = input.colors;
  const colors = [c.background, c.text, c.accent, c.primary ?? ''].map((v) =>
    (v ?? '').toLowerCase().replace(/^#/, ''),
  );
  const canonical = JSON.stringify([
    TEMPLATE_VERSION,
    input.templateId,
    input.size,
    input.imageText,
    input.title ?? '',
    colors,
    [a.first_name ?? '', a.last_name ?? '', a.title ?? '', a.company_name ?? '', a.website ?? ''],
    input.cta ?? '',
    imageIdentity(input.repPhoto),
    imageIdentity(input.logo),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * Renders ads through two caches keyed by content hash: memory (bounded LRU) and disk (survives a
 * restart and is shared by processes on one machine). Concurrent requests for one key share one
 * render.
 */
export function createAdRenderer(opts: AdRendererOptions): AdRenderer {
  const memory = new LRUCache<string, Buffer>({
    maxSize: opts.memoryBytes ?? 64 * 1024 * 1024,
    sizeCalculation: (png) => png.byteLength,
  });
  const inFlight = new Map<string, Promise<Buffer>>();
  const stats: AdRendererStats = { renders: 0, memoryHits: 0, diskHits: 0 };
  const fileOf = (key: string) =>
    opts.cacheDir ? path.join(opts.cacheDir, key.slice(0, 2), `${key}.png`) : null;

  async function fromDisk(key: string): Promise<Buffer | null> {
    const file = fileOf(key);
    if (!file) return null;
    try {
      return await readFile(file);
    } catch {
      return null;
    }
  }

  async function toDisk(key: string, png: Buffer): Promise<void> {
    const file = fileOf(key);
    if (!file) return;
    await mkdir(path.dirname(file), { recursive: true });
    // Written aside and renamed, so a reader in another process never sees half a file.
    const part = `${file}.${randomBytes(6).toString('hex')}.part`;
    await writeFile(part, png);
    await rename(part, file);
  }

  async function produce(key: string, input: AdInput): Promise<Buffer> {
    const stored = await fromDisk(key);
    if (stored) {
      stats.diskHits += 1;
      return stored;
    }
    stats.renders += 1;
    const png = await renderAdPng(input, { loadImage: opts.loadImage });
    // A full disk must not cost the ad: the PNG is still served from memory.
    await toDisk(key, png).catch(() => undefined);
    return png;
  }

  return {
    stats,
    keyOf: adCacheKey,
    cached(key) {
      const hit = memory.get(key);
      if (hit) stats.memoryHits += 1;
      return hit;
    },
    async render(input) {
      const key = adCacheKey(input);
      const hit = memory.get(key);
      if (hit) {
        stats.memoryHits += 1;
        return { png: hit, key };
      }
      let pending = inFlight.get(key);
      if (!pending) {
        pending = produce(key, input).finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      const png = await pending;
      memory.set(key, png);
      return { png, key };
    },
  };
}
