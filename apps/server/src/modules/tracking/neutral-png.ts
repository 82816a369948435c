import { crc32, deflateSync } from 'node:zlib';
import type { AdRendition } from '@rally/shared/schemas/content';
import { adRenditionPixels } from '@rally/shared/schemas/content';

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** A fully transparent PNG (8-bit grey + alpha), small once deflated. */
export function transparentPng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 4; // grey + alpha
  // Each scanline is a filter byte (0) and two zero bytes per pixel: transparent black.
  const raw = Buffer.alloc(height * (1 + width * 2));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const made = new Map<AdRendition, Buffer>();

/**
 * What a tag shows when there is no ad to show (ads off, cadence paused, no content for the day):
 * a transparent image of the size asked for, so the page around it keeps its layout.
 */
export function neutralAd(size: AdRendition): Buffer {
  let png = made.get(size);
  if (!png) {
    const { width, height } = adRenditionPixels(size);
    png = transparentPng(width, height);
    made.set(size, png);
  }
  return png;
}
