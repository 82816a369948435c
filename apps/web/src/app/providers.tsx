import { MantineProvider, createTheme } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { toastApiError } from '../lib/api-errors.ts';
import { RoutePrefetchProvider } from './prefetch.tsx';
import { useState } from 'react';
import type { ReactNode } from 'react';

export const theme = createTheme({
  primaryColor: 'indigo',
  fontFamily: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  defaultRadius: 'md',
});

/** SPEC.md §9: toasts close after 7000 ms, placed at the bottom left. */
export const TOAST_AUTO_CLOSE_MS = 7000;

export function AppProviders({ children }: { children: ReactNode }) {
  // Failed calls are reported in one place (SPEC.md §8); the HTTP client has already retried them.
  // A form that shows its own error inline sets `meta: { toast: false }`.
  const [queryClient] = useState(
    () =>
      new QueryClient({
        queryCache: new QueryCache({ onError: toastApiError }),
        mutationCache: new MutationCache({
          onError: (error, _vars, _ctx, mutation) => {
            if (mutation.meta?.toast !== false) toastApiError(error);
          },
        }),
        defaultOptions: { queries: { retry: false, staleTime: 30_000 } },
      }),
  );
  return (
    <MantineProvider theme={theme}>
      <Notifications position="bottom-left" autoClose={TOAST_AUTO_CLOSE_MS} />
      <QueryClientProvider client={queryClient}>
        <RoutePrefetchProvider>{children}</RoutePrefetchProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
