import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { auditListReply, auditVerifyReply } from '@rally/shared/schemas/audit';
import type { AuditAction } from '@rally/shared/schemas/audit';
import { apiBlob, apiRequest } from '../../../lib/api-client.ts';

const base = (clientId: string) => `/v1/rest/client/${clientId}/audit_log`;

/** The screen's filters, as the list and the CSV take them (empty means any). */
export type AuditFilters = { action?: AuditAction; actor?: string; from?: string; to?: string };

const queryOf = (f: AuditFilters) =>
  Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined && v !== '')) as Record<
    string,
    string
  >;

/** GET /rest/client/{id}/audit_log (owners): newest first, a page at a time by cursor. */
export const getAuditLogQueryOptions = (clientId: string, filters: AuditFilters) =>
  infiniteQueryOptions({
    queryKey: ['audit-log', clientId, filters],
    initialPageParam: undefined as number | undefined,
    queryFn: ({ signal, pageParam }) =>
      apiRequest(base(clientId), {
        schema: auditListReply,
        signal,
        clientId,
        query: { ...queryOf(filters), limit: 50, ...(pageParam ? { cursor: pageParam } : {}) },
      }),
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });

export const useAuditLog = (clientId: string, filters: AuditFilters) =>
  useInfiniteQuery(getAuditLogQueryOptions(clientId, filters));

/** GET …/audit_log/verify: the chain walked from its anchor. */
export const getAuditVerifyQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['audit-log', clientId, 'verify'],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/verify`, { schema: auditVerifyReply, signal, clientId }),
  });

export const useAuditVerify = (clientId: string) => useQuery(getAuditVerifyQueryOptions(clientId));

const memberList = z.array(
  z.object({ id: z.string(), email: z.string(), first_name: z.string(), last_name: z.string() }),
);

/** The client's members, for the "who" filter (GET /rest/client/{id}/users). */
export const getAuditActorsQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['users', clientId, 'audit-actors'],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/client/${clientId}/users`, { schema: memberList, signal, clientId }),
  });

export const useAuditActors = (clientId: string) => useQuery(getAuditActorsQueryOptions(clientId));

/** GET …/audit_log/export with the same filters, handed to the browser as a file. */
export async function downloadAuditCsv(clientId: string, filters: AuditFilters): Promise<void> {
  const blob = await apiBlob(`${base(clientId)}/export`, { query: queryOf(filters), clientId });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `audit-log-${new Date().toISOString().slice(0, 10)}.csv`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
