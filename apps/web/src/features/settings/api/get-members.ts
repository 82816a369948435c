import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { memberSchema } from '@rally/shared/schemas/auth';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /v1/rest/client/{clientId}/users (users.read): the members of a client and their roles. */
export const getMembers = (clientId: string, signal?: AbortSignal) =>
  apiRequest(`/v1/rest/client/${clientId}/users`, { schema: z.array(memberSchema), signal });

export const getMembersQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['users', clientId],
    queryFn: ({ signal }) => getMembers(clientId, signal),
  });

export const useMembers = (clientId: string) => useQuery(getMembersQueryOptions(clientId));
