import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { emailSnippetStatusSchema, snippetTestSchema } from '@rally/shared/schemas/email-ads';
import type { EmailSnippetTestBody } from '@rally/shared/schemas/email-ads';
import { apiRequest } from '../../../lib/api-client.ts';

/**
 * How often the step is asked again until the first impression arrives: the owner pastes the
 * snippet in another tab and waits for "Installed" (or for the test e-mail to be opened).
 */
export const EMAIL_SNIPPET_POLL_MS = 20_000;

const base = (clientId: string, cadenceId: number) =>
  `/v1/rest/client/${clientId}/cadence/${cadenceId}/email_snippet`;

/** GET …/cadence/{id}/email_snippet: installed yet, ads on, prospects, the user's last test. */
export const getEmailSnippetQueryOptions = (clientId: string, cadenceId: number) =>
  queryOptions({
    queryKey: ['email-snippet', clientId, cadenceId],
    queryFn: ({ signal }) =>
      apiRequest(base(clientId, cadenceId), { schema: emailSnippetStatusSchema, signal, clientId }),
  });

export const useEmailSnippet = (clientId: string, cadenceId: number) =>
  useQuery({
    ...getEmailSnippetQueryOptions(clientId, cadenceId),
    refetchInterval: (q) =>
      q.state.data && q.state.data.installed_at === null ? EMAIL_SNIPPET_POLL_MS : false,
  });

/**
 * POST …/email_snippet/test: a test e-mail to the signed-in user. Not retried: a 409 (ads off, no
 * prospects) and a 429 (the hourly limit) are answers to show, and a retry would send twice.
 */
export function useSendSnippetTest(clientId: string, cadenceId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: EmailSnippetTestBody) =>
      apiRequest(`${base(clientId, cadenceId)}/test`, {
        method: 'POST',
        body,
        schema: snippetTestSchema,
        clientId,
        retries: 0,
      }),
    meta: { toast: false },
    onSettled: () =>
      queryClient.invalidateQueries({ queryKey: getEmailSnippetQueryOptions(clientId, cadenceId).queryKey }),
  });
}
