import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';
import { LRUCache } from 'lru-cache';

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

// Addresses a fetch for a picture must never reach: the server's own network and cloud metadata.
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return PRIVATE.check(mapped, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

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
 * are fetched with a time and size limit, only from public addresses (checked on the address
 * actually connected to, so a DNS answer cannot point us at the internal network), following at
 * most three redirects. Anything that is not an image by its bytes counts as no picture.
 */
export function createImageLoader(opts: ImageLoaderOptions = {}): ImageLoader {
  const timeoutMs = opts.timeoutMs ?? 4000;
  const maxBytes = opts.maxBytes ?? 5 * 1024 * 1024;
  const cache = new LRUCache<string, Fetched>({
    maxSize: opts.cacheBytes ?? 32 * 1024 * 1024,
    sizeCalculation: (v) => Math.max(1, v.bytes?.byteLength ?? 1),
    ttl: opts.cacheTtlMs ?? 10 * 60_000,
  });

  const lookup = (
    hostname: string,
    options: LookupOptions,
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const allowed = opts.allowPrivateNetwork
        ? addresses
        : addresses.filter((a) => !isPrivateAddress(a.address));
      if (allowed.length === 0) return callback(new Error(`${hostname} is not a public address`), []);
      if (options.all) return callback(null, allowed);
      const first = allowed[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };

  const get = (url: URL, redirects: number): Promise<Uint8Array | null> =>
    new Promise((resolve) => {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (!opts.allowPrivateNetwork && isIP(host) !== 0 && isPrivateAddress(host)) return resolve(null);
      const client = url.protocol === 'https:' ? https : http;
      const req = client.get(
        url,
        { lookup, timeout: timeoutMs, headers: { accept: 'image/*', 'user-agent': 'RallyAdRenderer/1' } },
        (res) => {
          const status = res.statusCode ?? 0;
          const location = res.headers.location;
          if (status >= 300 && status < 400 && location && redirects < 3) {
            res.resume();
            let next: URL;
            try {
              next = new URL(location, url);
            } catch {
              return resolve(null);
            }
            if (next.protocol !== 'http:' && next.protocol !== 'https:') return resolve(null);
            return resolve(get(next, redirects + 1));
          }
          if (status !== 200 || Number(res.headers['content-length'] ?? 0) > maxBytes) {
            res.resume();
            return resolve(null);
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes) {
              req.destroy();
              resolve(null);
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => resolve(Buffer.concat(chunks)));
          res.on('error', () => resolve(null));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', () => resolve(null));
    });

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
    const bytes = await get(parsed, 0);
    // Misses are remembered too, so a dead avatar link does not cost a timeout per render.
    cache.set(url, { bytes: bytes && sniffImageType(bytes) ? bytes : null });
    return cache.get(url)?.bytes ?? null;
  };
}
