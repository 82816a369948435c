import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { clientSchema } from '@rally/shared/schemas/auth';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /v1/rest/client: the clients the user is a member of, with their role in each. */
export const getClients = (signal?: AbortSignal) =>
  apiRequest('/v1/rest/client', { schema: z.array(clientSchema), signal });

export const getClientsQueryOptions = () =>
  queryOptions({ queryKey: ['client'], queryFn: ({ signal }) => getClients(signal) });

export const useClients = () => useQuery(getClientsQueryOptions());
