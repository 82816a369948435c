import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { invitationSchema } from '@rally/shared/schemas/auth';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /v1/rest/client/{clientId}/user_request/invite (users.read): invitations not yet accepted. */
export const getInvitations = (clientId: string, signal?: AbortSignal) =>
  apiRequest(`/v1/rest/client/${clientId}/user_request/invite`, {
    schema: z.array(invitationSchema),
    signal,
  });

export const getInvitationsQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['user_request', 'invite', clientId],
    queryFn: ({ signal }) => getInvitations(clientId, signal),
  });

export const useInvitations = (clientId: string) => useQuery(getInvitationsQueryOptions(clientId));
