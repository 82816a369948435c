import { Outlet } from 'react-router';
import { RouteTitle } from './route-title.tsx';
import { ScreenSuspense } from './screen-suspense.tsx';

/** No chrome at all: landing pages, previews and the OAuth return. */
export function EmptyLayout() {
  return (
    <>
      <RouteTitle />
      <ScreenSuspense>
        <Outlet />
      </ScreenSuspense>
    </>
  );
}
