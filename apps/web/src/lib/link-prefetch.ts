import { createContext, useContext, useEffect } from 'react';

/** SPEC.md §9: "Payload prefetch scheduled 1000 ms after mount". */
export const SCHEDULED_PREFETCH_MS = 1000;

/**
 * What a link may ask for ahead of a click. The app (app/prefetch.ts) provides the real one, which
 * knows the route table and the screens; components only name hrefs, so they never import app/.
 */
export type LinkPrefetcher = {
  /** The target route's code only (cheap, no API call). */
  prefetchModule: (href: string) => void;
};

const NONE: LinkPrefetcher = { prefetchModule: () => {} };

export const LinkPrefetchContext = createContext<LinkPrefetcher>(NONE);

/**
 * Loads the code of the routes behind `hrefs` 1000 ms after they are shown (and again when they
 * change), so the first click on a navigation link does not wait for its chunk.
 */
export function useScheduledPrefetch(hrefs: readonly string[]): void {
  const prefetcher = useContext(LinkPrefetchContext);
  const key = hrefs.join('\n');
  useEffect(() => {
    if (!key) return;
    const timer = setTimeout(() => {
      for (const href of key.split('\n')) prefetcher.prefetchModule(href);
    }, SCHEDULED_PREFETCH_MS);
    return () => clearTimeout(timer);
  }, [key, prefetcher]);
}
