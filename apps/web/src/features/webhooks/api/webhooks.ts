import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  webhookDeliveriesReply,
  webhookEndpointSchema,
  webhookEndpointWithSecretReply,
  webhookSettingsReply,
} from '@rally/shared/schemas/hookly';
import type { WebhookEndpointChange, WebhookEndpointCreate } from '@rally/shared/schemas/hookly';
import { apiRequest } from '../../../lib/api-client.ts';

/** The webhook calls under /v1/hookly/client/{id}/settings (SPEC.md §7 "hookly"). */
const base = (clientId: string) => `/v1/hookly/client/${clientId}/settings`;

export const webhookSettingsQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['webhooks', clientId, 'settings'],
    queryFn: ({ signal }) => apiRequest(base(clientId), { schema: webhookSettingsReply, signal }),
  });

export const useWebhookSettings = (clientId: string) => useQuery(webhookSettingsQueryOptions(clientId));

export const webhookDeliveriesQueryOptions = (clientId: string, endpointId: string) =>
  queryOptions({
    queryKey: ['webhooks', clientId, 'deliveries', endpointId],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/${endpointId}/deliveries`, {
        query: { limit: 50 },
        schema: webhookDeliveriesReply,
        signal,
      }),
  });

/** An endpoint's delivery log; polls while a delivery is pending or waiting for a retry. */
export const useWebhookDeliveries = (clientId: string, endpointId: string) =>
  useQuery({
    ...webhookDeliveriesQueryOptions(clientId, endpointId),
    refetchInterval: (q) =>
      q.state.data?.deliveries.some((d) => d.status === 'pending' || d.status === 'retrying') ? 1500 : false,
  });

function useInvalidate(clientId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: ['webhooks', clientId] });
}

export function useCreateWebhook(clientId: string) {
  const invalidate = useInvalidate(clientId);
  return useMutation({
    mutationFn: (body: WebhookEndpointCreate) =>
      apiRequest(base(clientId), { method: 'POST', body, schema: webhookEndpointWithSecretReply }),
    meta: { toast: false },
    onSuccess: invalidate,
  });
}

export function useChangeWebhook(clientId: string, endpointId: string) {
  const invalidate = useInvalidate(clientId);
  return useMutation({
    mutationFn: (body: WebhookEndpointChange) =>
      apiRequest(`${base(clientId)}/${endpointId}`, { method: 'PATCH', body, schema: webhookEndpointSchema }),
    meta: { toast: false },
    onSuccess: invalidate,
  });
}

export function useDeleteWebhook(clientId: string, endpointId: string) {
  const invalidate = useInvalidate(clientId);
  return useMutation({
    mutationFn: () => apiRequest(`${base(clientId)}/${endpointId}`, { method: 'DELETE' }),
    meta: { toast: false },
    onSuccess: invalidate,
  });
}

export function useRotateWebhookSecret(clientId: string, endpointId: string) {
  const invalidate = useInvalidate(clientId);
  return useMutation({
    mutationFn: () =>
      apiRequest(`${base(clientId)}/${endpointId}/rotate_secret`, {
        method: 'POST',
        schema: webhookEndpointWithSecretReply,
      }),
    meta: { toast: false },
    onSuccess: invalidate,
  });
}

/** The test export: a sample of each subscribed event, delivered like real ones. */
export function useSendWebhookTest(clientId: string, endpointId: string) {
  const invalidate = useInvalidate(clientId);
  return useMutation({
    mutationFn: () =>
      apiRequest(`${base(clientId)}/${endpointId}/test`, { method: 'POST', schema: webhookDeliveriesReply }),
    meta: { toast: false },
    onSuccess: invalidate,
  });
}
