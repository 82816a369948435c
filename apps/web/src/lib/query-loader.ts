import type * as QueryClientModule from './query-client.ts';

type QueryModule = typeof QueryClientModule;

let loaded: QueryModule | null = null;
let loading: Promise<QueryModule> | null = null;
const listeners = new Set<() => void>();

/**
 * Loads the query cache's code (query-client.ts). Every route but /login awaits it before its screen
 * renders (app/router.tsx), and it loads anyway once the first screen is up; AppProviders (app/providers.tsx) provides the
 * client from the moment it is here (issue 19: /login JS budget).
 */
export function loadQueryModule(): Promise<QueryModule> {
  loading ??= import('./query-client.ts').then((m) => {
    loaded = m;
    listeners.forEach((listener) => listener());
    return m;
  });
  return loading;
}

/** The module once loaded, else null (a useSyncExternalStore snapshot). */
export function loadedQueryModule(): QueryModule | null {
  return loaded;
}

export function subscribeQueryModule(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
