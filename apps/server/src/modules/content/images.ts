import { imageSize } from 'image-size';
import { UPLOAD_DIMENSION_LIMITS } from '@rally/shared/schemas/content';
import type { UploadKind } from '@rally/shared/schemas/content';
import { fieldError } from '../../lib/errors.ts';

export type ImageType = { contentType: string; extension: string };

const NOT_AN_IMAGE = 'is not a PNG, JPEG, GIF or WebP image';

/** The image type by its first bytes (magic numbers), whatever the file is called. */
export function sniffImage(bytes: Uint8Array): ImageType | null {
  const starts = (sig: number[], at = 0) => sig.every((b, i) => bytes[at + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    return { contentType: 'image/png', extension: 'png' };
  }
  if (starts([0xff, 0xd8, 0xff])) return { contentType: 'image/jpeg', extension: 'jpg' };
  if (starts([0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) {
    return { contentType: 'image/gif', extension: 'gif' };
  }
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) {
    return { contentType: 'image/webp', extension: 'webp' };
  }
  return null;
}

/** SVG (or any XML/HTML) can carry script, so it gets its own message. */
function looksLikeMarkup(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 1024))
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  return (
    head.startsWith('<') && (head.includes('<svg') || head.startsWith('<?xml') || head.includes('<html'))
  );
}

export type CheckedImage = ImageType & { width: number; height: number };

/**
 * Checks an upload by its bytes: a PNG, JPEG, GIF or WebP whose dimensions can be read and are
 * within the limits of its kind. Every refusal is a 422 naming the field.
 */
export function checkImage(bytes: Uint8Array, kind: UploadKind, field = 'body.file'): CheckedImage {
  if (bytes.length === 0) throw fieldError(field, 'is empty');
  const type = sniffImage(bytes);
  if (!type) {
    if (looksLikeMarkup(bytes)) {
      throw fieldError(
        field,
        `${NOT_AN_IMAGE}: SVG and other markup are refused because they can carry scripts`,
      );
    }
    throw fieldError(field, NOT_AN_IMAGE);
  }
  let size: { width?: number; height?: number };
  try {
    size = imageSize(bytes);
  } catch {
    throw fieldError(
      field,
      `looks like a ${type.extension.toUpperCase()} image but cannot be read (damaged?)`,
    );
  }
  const { width = 0, height = 0 } = size;
  if (!width || !height) throw fieldError(field, 'has no readable width and height');
  const limit = UPLOAD_DIMENSION_LIMITS[kind];
  if (width > limit.maxWidth || height > limit.maxHeight) {
    throw fieldError(
      field,
      `is ${width}x${height} pixels; a ${kind} can be at most ${limit.maxWidth}x${limit.maxHeight}`,
    );
  }
  if (width < limit.minWidth || height < limit.minHeight) {
    throw fieldError(
      field,
      `is ${width}x${height} pixels; a ${kind} must be at least ${limit.minWidth}x${limit.minHeight}`,
    );
  }
  return { ...type, width, height };
}
