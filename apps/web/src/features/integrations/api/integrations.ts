import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { integrationSchema } from '@rally/shared/schemas/auth';
import type { Integration } from '@rally/shared/schemas/auth';
import { connectReply, syncStateSchema } from '@rally/shared/schemas/integrations';
import type { SequenceSourceName } from '@rally/shared/schemas/integrations';
import { apiRequest } from '../../../lib/api-client.ts';
import { refreshIntegrations } from '../../../lib/auth/store.ts';

/** While anything syncs, lists poll this often so the progress bar moves. */
export const SYNC_POLL_MS = 1500;

const syncing = (list: Integration[] | undefined) => list?.some((i) => i.is_syncing) ?? false;

/** GET /v1/rest/client/{id}/integrations. */
export const integrationsQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['integrations', clientId],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/client/${clientId}/integrations`, {
        schema: z.array(integrationSchema),
        signal,
        clientId,
      }),
  });

export const useIntegrations = (clientId: string) =>
  useQuery({
    ...integrationsQueryOptions(clientId),
    refetchInterval: (q) => (syncing(q.state.data) ? SYNC_POLL_MS : false),
  });

/** POST /sc/action/sync_cadences?client_id: sync every connected sequence platform now. */
export function useSyncAll(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      apiRequest('/sc/action/sync_cadences', {
        method: 'POST',
        query: { client_id: clientId },
        schema: syncStateSchema,
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['integrations', clientId] }),
  });
}

/** Starts a connection: OAuth sources answer with the vendor's consent URL, Apollo with the integration. */
export function useConnect(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: {
      source: SequenceSourceName;
      apiKey?: string;
      returnTo: 'onboarding' | 'connections';
    }) =>
      apiRequest(`/v1/integration/sequence/${input.source}/client/${clientId}/connect`, {
        method: 'POST',
        body: { api_key: input.apiKey, return_to: input.returnTo },
        schema: connectReply,
      }),
    meta: { toast: false },
    onSuccess: async (reply) => {
      if ('redirect_url' in reply) {
        window.location.assign(reply.redirect_url);
        return;
      }
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ['integrations', clientId] }),
        refreshIntegrations().catch(() => undefined),
      ]);
    },
  });
}

/** DELETE /v1/integration/sequence/{source}/client/{id}: forget the credentials; data stays. */
export function useDisconnect(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (source: SequenceSourceName) =>
      apiRequest(`/v1/integration/sequence/${source}/client/${clientId}`, { method: 'DELETE' }),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ['integrations', clientId] }),
        refreshIntegrations().catch(() => undefined),
      ]),
  });
}
