import type { ComponentType } from 'react';
import type { AppRouteId } from '@rally/shared';

type ScreenModule = { default: ComponentType };

/**
 * A route's screen module. /login's comes straight from here; the others through the map of every
 * screen (screens.ts), a chunk of its own: each lazy import there carries the list of files its screen
 * needs, about 3 KB gzip in all that /login has no use for (issue 19: /login JS budget). The map
 * loads with the first other screen, or once the first screen is up (warmScreens), whichever is first.
 */
export async function loadScreen(id: AppRouteId): Promise<ScreenModule> {
  if (id === 'login') {
    const login = await import('./routes/login.tsx');
    return login;
  }
  const { screens } = await import('./screens.ts');
  return screens[id]();
}

/** Fetches the map of screens ahead of the first navigation. */
export function warmScreens(): void {
  void import('./screens.ts');
}
