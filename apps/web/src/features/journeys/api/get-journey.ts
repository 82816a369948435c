import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { journeyListReply } from '@rally/shared/schemas/journeys';
import { apiRequest } from '../../../lib/api-client.ts';

/** GET /v1/rest/client/{id}/journey: the client's journeys (a cohort has at most one). */
export const getJourneysQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['journeys', clientId, 'list'],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/client/${clientId}/journey`, { schema: journeyListReply, signal, clientId }),
  });

/** The journey of one cohort, or null when it has none yet. */
export const useCohortJourney = (clientId: string, cohortId: string) =>
  useQuery({
    ...getJourneysQueryOptions(clientId),
    select: (reply) => reply.items.find((j) => j.cohort_id === cohortId) ?? null,
  });

const cohortHead = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(['active', 'paused', 'archived']),
  size: z.number(),
  accounts: z.number(),
});
/** GET /v1/api/cohort/{id}: the cohort's name and status (the builder's heading). */
export const useCohortHead = (clientId: string, cohortId: string) =>
  useQuery({
    queryKey: ['journeys', clientId, 'cohort', cohortId],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/api/cohort/${cohortId}`, { schema: cohortHead.passthrough(), signal, clientId }),
  });
