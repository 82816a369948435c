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

/** How deep a request's JSON may nest: no form of the product needs more than a few levels. */
export const MAX_NESTING = 32;
export const TOO_DEEP_MESSAGE = `is nested too deeply (more than ${MAX_NESTING} levels of arrays or objects)`;

/**
 * The first problem with the strings of a parsed request part (JSON body, query, params): a string
 * that is not storable text (BAD_TEXT_MESSAGE), or nesting deeper than MAX_NESTING, with its path;
 * null when there is none. Keys are checked too (a key becomes a field name in messages and logs).
 * Iterative and bounded, so a body of thousands of nested arrays is a 422, not a stack overflow.
 */
export function firstRequestTextProblem(
  value: unknown,
): { path: (string | number)[]; message: string } | null {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { value: v, path } = next;
    if (typeof v === 'string') {
      if (!isStorableText(v)) return { path, message: BAD_TEXT_MESSAGE };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (path.length >= MAX_NESTING) return { path, message: TOO_DEEP_MESSAGE };
    // Pushed in reverse so that the first problem in document order is found first.
    const entries: [string | number, unknown][] = Array.isArray(v)
      ? v.map((x, i) => [i, x])
      : Object.entries(v);
    for (const [k, child] of entries.reverse()) {
      if (typeof k === 'string' && !isStorableText(k)) {
        // The key itself is named with its unstorable characters replaced, so the reply can be sent.
        stack.push({
          value: '\u0000',
          path: [...path, [...k].map((ch) => (isStorableText(ch) ? ch : '?')).join('')],
        });
      } else stack.push({ value: child, path: [...path, k] });
    }
  }
  return null;
}

/** The path of the first string that is not storable text (see firstRequestTextProblem), or null. */
export function firstUnstorableText(value: unknown): (string | number)[] | null {
  const problem = firstRequestTextProblem(value);
  return problem?.message === BAD_TEXT_MESSAGE ? problem.path : null;
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

/** `page` (from 1) and `page_size` (1 to 200, default 50) of a paged list's query. */
export const pageQueryFields = {
  page: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(100_000).default(1),
  page_size: z.coerce
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(200, 'must be at most 200')
    .default(50),
};
