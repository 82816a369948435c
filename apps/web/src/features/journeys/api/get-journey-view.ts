import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { journeyMovesReply, journeyViewReply } from '@rally/shared/schemas/journeys';
import { apiRequest } from '../../../lib/api-client.ts';

/** The journey view asks again this often: stage moves show without a reload. */
export const JOURNEY_VIEW_POLL_MS = 5_000;
const DAY = 86_400;

/** GET /v1/report/client/{id}/cohort/{id}/journey/view: accounts by stage now and per day. */
export const useJourneyView = (clientId: string, cohortId: string, days: number) =>
  useQuery({
    queryKey: ['journeys', clientId, 'view', cohortId, days],
    queryFn: ({ signal }) => {
      const to = Math.ceil(Date.now() / 1000 / DAY) * DAY;
      return apiRequest(`/v1/report/client/${clientId}/cohort/${cohortId}/journey/view`, {
        query: { from: to - days * DAY, to },
        schema: journeyViewReply,
        signal,
        clientId,
      });
    },
    placeholderData: keepPreviousData,
    refetchInterval: JOURNEY_VIEW_POLL_MS,
  });

/** GET …/journey/view/moves: the stage moves, newest first. */
export const useJourneyMoves = (clientId: string, cohortId: string, page: number, pageSize: number) =>
  useQuery({
    queryKey: ['journeys', clientId, 'moves', cohortId, page, pageSize],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/report/client/${clientId}/cohort/${cohortId}/journey/view/moves`, {
        query: { page, page_size: pageSize },
        schema: journeyMovesReply,
        signal,
        clientId,
      }),
    placeholderData: keepPreviousData,
    refetchInterval: JOURNEY_VIEW_POLL_MS,
  });
