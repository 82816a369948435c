// Base58 (Bitcoin alphabet) for the short ids in links such as /lp/:base58 (SPEC.md §2).
import bs58 from 'bs58';

/** A UUID as 8-4-4-4-12 hexadecimal digits; any version, either case. */
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const UUID_BYTES = 16;
// 58^22 > 2^128 > 58^21: no 16 bytes need more than 22 characters, so longer text is rejected unread.
const MAX_UUID_BASE58_LENGTH = 22;

/** Encodes bytes; each leading zero byte becomes a leading '1', as in Bitcoin. */
export function encodeBase58(bytes: Uint8Array): string {
  return bs58.encode(bytes);
}

/** Decodes base58 text, or null when it holds a character outside the alphabet. */
export function decodeBase58(text: string): Uint8Array | null {
  return bs58.decodeUnsafe(text) ?? null;
}

/**
 * Encodes the 16 bytes of a UUID (22 characters at most). Throws a RangeError for anything that is
 * not a UUID: the ids come from validated data, so a bad one is a bug, not user input.
 */
export function uuidToBase58(uuid: string): string {
  if (!UUID_PATTERN.test(uuid)) throw new RangeError(`Not a UUID: ${uuid}`);
  const hex = uuid.replaceAll('-', '');
  const bytes = new Uint8Array(UUID_BYTES);
  for (let i = 0; i < UUID_BYTES; i += 1) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return encodeBase58(bytes);
}

/**
 * Decodes base58 text from a link back to a lowercase UUID, or null when it is not the encoding of
 * exactly 16 bytes (bad characters, too short, too long, or an extra leading '1').
 */
export function base58ToUuid(text: string): string | null {
  if (text.length === 0 || text.length > MAX_UUID_BASE58_LENGTH) return null;
  const bytes = decodeBase58(text);
  if (bytes?.length !== UUID_BYTES) return null;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
