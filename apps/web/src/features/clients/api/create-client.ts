import { useMutation, useQueryClient } from '@tanstack/react-query';
import { clientSchema } from '@rally/shared/schemas/auth';
import type { Client } from '@rally/shared/schemas/auth';
import type { ClientOverviewReply, ClientOverviewRow } from '@rally/shared/schemas/client-overview';
import { apiRequest } from '../../../lib/api-client.ts';
import { refreshClients } from '../../../lib/auth/store.ts';
import { getClientsQueryOptions } from './get-clients.ts';

/** POST /v1/rest/client {name, parent_id} (client.write): a client under the parent named (null: none). */
export const createClient = (body: { name: string; parent_id: string | null }) =>
  apiRequest('/v1/rest/client', { method: 'POST', body, schema: clientSchema });

export function useCreateClient() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createClient,
    meta: { toast: false },
    // The auth state learns the new membership too, so the header's switcher and Switch know it. The
    // client exists either way: a failed refresh must not turn the creation into an error.
    // One after the other: the new membership can re-render the screen, which would cancel a list
    // fetch already under way (the new client then stayed out of the agency view until a reload).
    // Not awaited: the per-client numbers of the overview take a while on a busy server, and the
    // person's confirmation must not wait for them (the e2e agency walk saw it come after 10 s).
    onSuccess: async (client) => {
      // In the agency view at once: a client made a moment ago has no numbers yet (its row from the
      // server, with what needs attention, replaces this one when the refetch below comes back; on
      // a busy server that took more than 30 s in the e2e agency walk). A fetch of the overview still
      // under way is cancelled first: cancelling it later (the refetch below does) puts back the
      // data from before it began, which dropped this row, and the list stayed without the client.
      await queryClient.cancelQueries({ queryKey: ['client', 'overview'] });
      queryClient.setQueriesData<ClientOverviewReply>({ queryKey: ['client', 'overview'] }, (old) =>
        old && !old.clients.some((c) => c.id === client.id)
          ? { ...old, clients: [...old.clients, newOverviewRow(client)] }
          : old,
      );
      void (async () => {
        await refreshClients().catch(() => undefined);
        // The overview's key starts with the list's, so both refresh.
        await queryClient.invalidateQueries({ queryKey: getClientsQueryOptions().queryKey });
      })();
    },
  });
}

/** A new client's row: nothing seen, billed or generated yet, and set-up still to do. */
function newOverviewRow(client: Client): ClientOverviewRow {
  return {
    id: client.id,
    name: client.name,
    parent_id: client.parent_id,
    role: client.role,
    superprospects: 0,
    spend_cents: 0,
    pipeline_cents: 0,
    currency: 'USD',
    health: 'needs_attention',
    attention_count: 0,
    attention: null,
  };
}
