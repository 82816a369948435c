import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { toastApiError } from './api-errors.ts';
import { actionName, refreshAuthBeforeAction } from './auth/action-refresh.ts';

/**
 * The app's query cache. Its own chunk (query-loader.ts): /login reads no query, and the cache's
 * code is about 7 KB gzip of the first download (issue 19: /login JS budget).
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    // Failed calls are reported in one place (SPEC.md §8); the HTTP client has already retried them.
    // A form or screen that shows its own error inline sets `meta: { toast: false }`.
    queryCache: new QueryCache({
      onError: (error, query) => {
        if (query.meta?.toast !== false) toastApiError(error);
      },
    }),
    mutationCache: new MutationCache({
      // SPEC.md §8: the auth state is refreshed before each action but those named update:….
      onMutate: (_vars, mutation) => {
        refreshAuthBeforeAction(actionName(mutation.options.mutationKey));
      },
      onError: (error, _vars, _ctx, mutation) => {
        if (mutation.meta?.toast !== false) toastApiError(error);
      },
    }),
    defaultOptions: { queries: { retry: false, staleTime: 30_000 } },
  });
}
