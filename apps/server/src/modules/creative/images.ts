import { LRUCache } from 'lru-cache';
import { guardedFetch } from '../../lib/guarded-fetch.ts';

/** A picture for an ad: its bytes, a URL to fetch them from, or nothing. */
export type ImageInput = Uint8Array | string | null | undefined;

/** Bytes of the image at `url` (an upload path, a data: URI or an http(s) URL), or null. */
export type ImageLoader = (url: string) => Promise<Uint8Array | null>;

export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

/** The image type by its first bytes (never by a name or a header someone else chose). */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  const at = (i: number, ...values: number[]) => values.every((v, k) => bytes[i + k] === v);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  return null;
}

/** A data: URI of the bytes when they are an image the renderer can draw, else null. */
export function imageDataUri(bytes: Uint8Array): string | null {
  const type = sniffImageType(bytes);
  if (!type) return null;
  return `data:${type};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`;
}

const DATA_URI = /^data:image\/(?:png|jpeg|gif|webp);base64,([A-Za-z0-9+/=]+)$/;
const UPLOAD_PATH = /^\/files\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

export type ImageLoaderOptions = {
  /** Bytes of one of our uploads (`/files/{id}`), from the upload storage. */
  readUpload?: (id: string) => Promise<Uint8Array | null>;
  /** Lets http(s) fetches reach loopback and private addresses (tests, local development). */
  allowPrivateNetwork?: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  /** Fetched pictures kept in memory, in bytes, so the four sizes of an ad fetch a photo once. */
  cacheBytes?: number;
  cacheTtlMs?: number;
};

type Fetched = { bytes: Uint8Array | null };

/**
 * Loads ad pictures. Remote photos (a sequence platform's avatar URL, a URL typed into the editor)
 * are fetched through guardedFetch (public addresses only, pinned to the checked address, redirects
 * re-checked) with a total time and size limit. Anything that is not an image by its bytes, or that
 * the guard refuses, counts as no picture.
 */
export function createImageLoader(opts: ImageLoaderOptions = {}): ImageLoader {
  const timeoutMs = opts.timeoutMs ?? 4000;
  const maxBytes = opts.maxBytes ?? 5 * 1024 * 1024;
  const cache = new LRUCache<string, Fetched>({
    maxSize: opts.cacheBytes ?? 32 * 1024 * 1024,
    sizeCalculation: (v) => Math.max(1, v.bytes?.byteLength ?? 1),
    ttl: opts.cacheTtlMs ?? 10 * 60_000,
  });

  const get = async (url: URL): Promise<Uint8Array | null> => {
    try {
      const res = await guardedFetch(
        url,
        { headers: { accept: 'image/*', 'user-agent': 'RallyAdRenderer/1' } },
        { allowPrivate: opts.allowPrivateNetwork ?? false, timeoutMs, maxBytes },
      );
      if (res.status !== 200) return null;
      return new Uint8Array(await res.arrayBuffer());
    } catch {
      // Refused (an internal address), too big, too slow or unreachable: no picture.
      return null;
    }
  };

  return async (url: string) => {
    const data = DATA_URI.exec(url);
    if (data) return Buffer.from(data[1] ?? '', 'base64');
    const upload = UPLOAD_PATH.exec(url);
    if (upload) return opts.readUpload ? opts.readUpload((upload[1] ?? '').toLowerCase()) : null;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return null;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
    const hit = cache.get(url);
    if (hit) return hit.bytes;
    const bytes = await get(parsed);
    // Misses are remembered too, so a dead avatar link does not cost a timeout per render.
    cache.set(url, { bytes: bytes && sniffImageType(bytes) ? bytes : null });
    return cache.get(url)?.bytes ?? null;
  };
}
