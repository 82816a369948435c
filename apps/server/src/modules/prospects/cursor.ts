import { createHash } from 'node:crypto';
import type { ProspectSort, SortOrder } from '@rally/shared/schemas/prospects';

/** The types of keyset values; a cursor's values are checked against them before SQL sees them. */
export type KeyType = 'text' | 'int' | 'uuid' | 'timestamptz';
export const SQL_TYPES: Record<KeyType, string> = {
  text: 'text',
  int: 'integer',
  uuid: 'uuid',
  timestamptz: 'timestamptz',
};

/** Where the next page starts: after the row with these keys, in this phase of the sort. */
export type Cursor = { sort: ProspectSort; order: SortOrder; filters: string; phase: number; keys: string[] };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INT = /^-?\d{1,10}$/;
// PostgreSQL's text form of a timestamptz (any session zone): 2026-05-01 10:11:12.123456+00
const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2}){0,2}$/;

const valid: Record<KeyType, (v: string) => boolean> = {
  text: (v) => v.length <= 1000,
  int: (v) => INT.test(v) && Math.abs(Number(v)) <= 2_147_483_647,
  uuid: (v) => UUID.test(v),
  timestamptz: (v) => TIMESTAMP.test(v),
};

/** A short fingerprint of the search and filters, so a cursor is not reused for another list. */
export function filtersFingerprint(filters: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 10);
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.sort, c.order, c.filters, c.phase, c.keys])).toString('base64url');
}

/**
 * The cursor, or why it does not belong to this list (a message for a 422 on `querystring.cursor`).
 * `phases` gives the key types of each phase of the sort.
 */
export function decodeCursor(
  text: string,
  expected: { sort: ProspectSort; order: SortOrder; filters: string },
  phases: KeyType[][],
): Cursor | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return 'is not a cursor of this list';
  }
  if (!Array.isArray(parsed) || parsed.length !== 5) return 'is not a cursor of this list';
  const [sort, order, filters, phase, keys] = parsed as unknown[];
  if (sort !== expected.sort || order !== expected.order || filters !== expected.filters) {
    return 'belongs to another sort, search or filter: start again from the first page';
  }
  const types = typeof phase === 'number' && Number.isInteger(phase) ? phases[phase] : undefined;
  if (
    !types ||
    !Array.isArray(keys) ||
    keys.length !== types.length ||
    !keys.every((k, i) => {
      const type = types[i];
      return typeof k === 'string' && type !== undefined && valid[type](k);
    })
  ) {
    return 'is not a cursor of this list';
  }
  return { sort: expected.sort, order: expected.order, filters, phase: phase as number, keys };
}
