import { matchAppRoute } from '@rally/shared';
import { screens } from './screens.ts';

type ScreenId = keyof typeof screens;
type NetworkInformation = { saveData?: boolean; effectiveType?: string };

/** SPEC.md §2: no prefetch on a very slow connection, nor when the user asked to save data. */
export function isSlowConnection(nav: Navigator = navigator): boolean {
  const connection = (nav as Navigator & { connection?: NetworkInformation }).connection;
  return connection?.saveData === true || (connection?.effectiveType ?? '').includes('2g');
}

/**
 * Loads a screen's code when the pointer rests on a link to it (SPEC.md §2 "prefetch on link
 * hover"), once per route. Returns a function that removes the listener.
 */
export function installPrefetch(
  target: Document = document,
  load: (id: ScreenId) => Promise<unknown> = (id) => screens[id](),
): () => void {
  const started = new Set<ScreenId>();
  const onMouseOver = (event: Event) => {
    const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
    if (!(link instanceof HTMLAnchorElement) || isSlowConnection()) return;
    const url = new URL(link.href, window.location.href);
    if (url.origin !== window.location.origin) return;
    const id = matchAppRoute(url.pathname)?.route.id as ScreenId | undefined;
    if (!id || started.has(id) || !(id in screens)) return;
    started.add(id);
    // A failed prefetch is tried again on the next hover; the navigation itself reports errors.
    load(id).catch(() => started.delete(id));
  };
  target.addEventListener('mouseover', onMouseOver, { passive: true });
  return () => target.removeEventListener('mouseover', onMouseOver);
}
