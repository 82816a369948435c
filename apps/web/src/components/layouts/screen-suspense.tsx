import { Center, Loader } from '@mantine/core';
import { Suspense } from 'react';
import type { ReactNode } from 'react';

/** Loading state shown while a screen's data or code arrives. */
export function ScreenLoader() {
  return (
    <Center py={80} role="status" aria-label="Loading">
      <Loader />
    </Center>
  );
}

export function ScreenSuspense({ children }: { children: ReactNode }) {
  return <Suspense fallback={<ScreenLoader />}>{children}</Suspense>;
}
