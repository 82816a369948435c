import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  EMBED_TOKEN_HEADER,
  embeddedReportCreatedSchema,
  embeddedReportListSchema,
  embeddedReportSchema,
  embeddedReportViewSchema,
} from '@rally/shared/schemas/embedded-reports';
import type { EmbeddedReportCreateBody } from '@rally/shared/schemas/embedded-reports';
import { apiRequest } from '../../../lib/api-client.ts';

const base = (clientId: string) => `/v1/rest/client/${clientId}/reports/embedded`;
const listKey = (clientId: string) => ['reports', clientId, 'embedded'];

/** GET /v1/rest/client/{id}/reports/embedded: the client's shared report links (reports.read). */
export const useEmbeddedReports = (clientId: string) =>
  useQuery({
    queryKey: listKey(clientId),
    queryFn: ({ signal }) =>
      apiRequest(base(clientId), { schema: embeddedReportListSchema, signal, clientId }),
  });

/** POST …/reports/embedded (settings.write): the reply carries the link, shown this once. */
export function useCreateEmbeddedReport(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['save:embedded_report'],
    meta: { toast: false },
    mutationFn: (body: EmbeddedReportCreateBody) =>
      apiRequest(base(clientId), { method: 'POST', body, schema: embeddedReportCreatedSchema, clientId }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: listKey(clientId) }),
  });
}

/** DELETE …/reports/embedded/{id} (settings.write): the link stops working at once. */
export function useRevokeEmbeddedReport(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['save:embedded_report_revoke'],
    mutationFn: (id: string) =>
      apiRequest(`${base(clientId)}/${id}`, { method: 'DELETE', schema: embeddedReportSchema, clientId }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: listKey(clientId) }),
  });
}

/**
 * GET /v1/rest/reports/embedded with the link's token in a header: no session, no client. Errors
 * are shown on the page itself (no toast: the page may be inside another tool's frame).
 */
export const useEmbeddedReportView = (token: string) =>
  useQuery({
    queryKey: ['embedded-report', token],
    queryFn: ({ signal }) =>
      apiRequest('/v1/rest/reports/embedded', {
        headers: { [EMBED_TOKEN_HEADER]: token },
        schema: embeddedReportViewSchema,
        signal,
        clientId: null,
        retries: 1,
      }),
    enabled: token !== '',
    meta: { toast: false },
    // A board on a wall: the numbers are asked again every five minutes.
    refetchInterval: 5 * 60_000,
  });
