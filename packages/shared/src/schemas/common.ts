// Building blocks every request schema shares: text PostgreSQL can store, integers that fit their column.
import { z } from 'zod';

/**
 * PostgreSQL refuses a NUL character in text (22P05) and text that is not valid UTF-8, which a lone
 * UTF-16 surrogate becomes (22021). Every string of every request is checked against this once, on
 * the server, before its schema (apps/server/src/lib/request-text.ts), so each such input is a 422
 * naming the field; schemas may also use `textSchema` to say so in their own words.
 */
export const BAD_TEXT_MESSAGE =
  'must not contain NUL characters or invalid Unicode (a lone UTF-16 surrogate)';

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when PostgreSQL can store the string as text: no NUL, no lone surrogate. */
export function isStorableText(s: string): boolean {
  return !s.includes('\u0000') && !LONE_SURROGATE.test(s);
}

/**
 * The path of the first string in a parsed request part (JSON body, query, params) that is not
 * storable text, or null. Keys are checked too (a key becomes a field name in messages and logs).
 */
export function firstUnstorableText(
  value: unknown,
  path: (string | number)[] = [],
): (string | number)[] | null {
  if (typeof value === 'string') return isStorableText(value) ? null : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstUnstorableText(value[i], [...path, i]);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      // The key itself is named with its unstorable characters replaced, so the reply can be sent.
      if (!isStorableText(k)) return [...path, [...k].map((ch) => (isStorableText(ch) ? ch : '?')).join('')];
      const found = firstUnstorableText(v, [...path, k]);
      if (found) return found;
    }
  }
  return null;
}

/** A string PostgreSQL can store (see BAD_TEXT_MESSAGE). */
export const textSchema = () => z.string().refine(isStorableText, { error: BAD_TEXT_MESSAGE });

/** PostgreSQL `integer` (int4) bounds: serial ids and counters. */
export const INT4_MAX = 2_147_483_647;
export const INT4_MIN = -2_147_483_648;

/**
 * The id of a row with a serial (int4) key, from a path or query string: a whole number from 1 to
 * 2147483647, so a larger one is a 422 naming the field rather than PostgreSQL's out-of-range error.
 */
export const serialIdSchema = (what: string) => {
  const error = `must be ${what} (a whole number from 1 to ${INT4_MAX})`;
  return z.coerce.number({ error }).int(error).min(1, error).max(INT4_MAX, error);
};

/** The same, in a JSON body (no coercion from strings). */
export const serialIdBodySchema = (what: string) => {
  const error = `must be ${what} (a whole number from 1 to ${INT4_MAX})`;
  return z.number({ error }).int(error).min(1, error).max(INT4_MAX, error);
};

/** Latest epoch second a request may name (9999-12-31T23:59:59Z): beyond it a date cannot be formed. */
export const MAX_EPOCH_SECONDS = 253_402_300_799;
