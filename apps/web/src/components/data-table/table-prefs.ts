import { useCallback, useSyncExternalStore } from 'react';
import { useAuth } from '../../lib/auth/store.ts';

/**
 * A table's remembered choices (shown columns, saved views), per user, client and table, in this
 * browser's localStorage. Kept here rather than on the server (docs/decisions/0030): the server has
 * no per-user preference store yet, a saved view is only the table's URL state (search, filters,
 * sort), which means nothing outside this client, and a lost entry costs a click to make again.
 */
const PREFIX = 'rally.table';
const listeners = new Set<() => void>();

export const tablePrefKey = (userId: string, clientId: string, tableId: string, what: string) =>
  `${PREFIX}.${userId}.${clientId}.${tableId}.${what}`;

function readRaw(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function writeRaw(key: string, value: unknown) {
  try {
    window.localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Storage full or blocked (private mode): the choice lasts until the page is left.
  }
  for (const l of listeners) l();
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  window.addEventListener('storage', l);
  return () => {
    listeners.delete(l);
    window.removeEventListener('storage', l);
  };
};

/** One remembered value of a table (JSON), or `fallback` when none is stored or it does not parse. */
export function useTablePref<T>(
  tableId: string,
  what: string,
  fallback: T,
  valid: (v: unknown) => v is T,
): [T, (next: T) => void] {
  const auth = useAuth();
  const key = tablePrefKey(auth.user?.id ?? 'anon', auth.currentClient ?? 'none', tableId, what);
  const raw = useSyncExternalStore(subscribe, () => readRaw(key));
  let value = fallback;
  if (raw !== null) {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (valid(parsed)) value = parsed;
    } catch {
      // A hand-edited or old entry: the default again.
    }
  }
  const set = useCallback((next: T) => writeRaw(key, next), [key]);
  return [value, set];
}

export const isStringList = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === 'string');
