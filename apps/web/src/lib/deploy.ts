import { LATEST_BUILD_FILE } from '@rally/shared';

/**
 * New deployments (SPEC.md §4, §8): the app polls the latest-build file; once it changes, the next
 * navigation does a full load of its target path. A stale chunk (an old hashed file gone after a
 * deploy) reloads the page once. 404 and 403 on the build file are tolerated (a CDN in front may
 * hide it).
 */

export const DEPLOY_POLL_MS = 60_000;
const RELOADED_KEY = 'rally.chunk-reload';

let loadedBuild: string | null = null;
let stale = false;

export function isStale(): boolean {
  return stale;
}

/** Fetches the build id; null when it cannot be read (tolerated). */
async function fetchBuild(): Promise<string | null> {
  try {
    const res = await fetch(`/${LATEST_BUILD_FILE}`, { cache: 'no-store' });
    if (!res.ok) return null; // 404/403 tolerated, as are other failures: try again later
    return (await res.text()).trim() || null;
  } catch {
    return null;
  }
}

export async function checkForNewBuild(): Promise<boolean> {
  const current = await fetchBuild();
  if (current === null) return stale;
  if (loadedBuild === null) loadedBuild = current;
  else if (current !== loadedBuild) stale = true;
  return stale;
}

/** Full load of `path` when a new build was detected; returns true when it did. */
export function reloadIfStale(path: string): boolean {
  if (!stale) return false;
  window.location.assign(path);
  return true;
}

export function isChunkLoadError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /Failed to fetch dynamically imported module|Importing a module script failed|error loading dynamically imported module|Unable to preload CSS/i.test(
    message,
  );
}

/** Reloads once for a stale chunk; a second failure in a row is shown as an error instead. */
export function reloadForStaleChunk(): boolean {
  if (sessionStorage.getItem(RELOADED_KEY)) return false;
  sessionStorage.setItem(RELOADED_KEY, String(Date.now()));
  window.location.reload();
  return true;
}

export function startDeployWatch(): () => void {
  void checkForNewBuild();
  const timer = setInterval(() => void checkForNewBuild(), DEPLOY_POLL_MS);
  const onVisible = () => {
    if (document.visibilityState === 'visible') void checkForNewBuild();
  };
  document.addEventListener('visibilitychange', onVisible);
  // Vite reports a failed preload of a lazy chunk here.
  const onPreloadError = (event: Event) => {
    if (reloadForStaleChunk()) event.preventDefault();
  };
  window.addEventListener('vite:preloadError', onPreloadError);
  // A page that loaded fine clears the one-reload guard after a while.
  const clear = setTimeout(() => sessionStorage.removeItem(RELOADED_KEY), 10_000);
  return () => {
    clearInterval(timer);
    clearTimeout(clear);
    document.removeEventListener('visibilitychange', onVisible);
    window.removeEventListener('vite:preloadError', onPreloadError);
  };
}
