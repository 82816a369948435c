import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { reportSearchSchema } from '@rally/shared/schemas/report-insights';
import { apiRequest } from '../../../lib/api-client.ts';

/** The server's bounds on `search` (packages/shared reportSearchQuery): shorter is not asked. */
export const SEARCH_MIN_LENGTH = 2;
export const SEARCH_MAX_LENGTH = 100;

/** GET /v1/report/client/{id}/search: prospects, companies, cadences and content matching the text. */
export const getSearchQueryOptions = (clientId: string, text: string) =>
  queryOptions({
    queryKey: ['search', clientId, text],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/report/client/${clientId}/search`, {
        query: { search: text },
        schema: reportSearchSchema,
        signal,
        clientId,
      }),
  });

/** Asked once the text is long enough; the previous results stay while the next ones load. */
export const useSearchEverything = (clientId: string, text: string) =>
  useQuery({
    ...getSearchQueryOptions(clientId, text),
    enabled: text.length >= SEARCH_MIN_LENGTH,
    placeholderData: keepPreviousData,
    // The box shows its own error with a way to try again; a toast per keystroke would be noise.
    meta: { toast: false },
  });
