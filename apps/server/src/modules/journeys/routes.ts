import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messageReply } from '@rally/shared/schemas/auth';
import {
  clientCohortJourneyParams,
  clientJourneyParams,
  journeyCohortsReply,
  journeyCreateBody,
  journeyListReply,
  journeyMovesQuery,
  journeyMovesReply,
  journeySchema,
  journeyUpdateBody,
  journeyViewQuery,
  journeyViewReply,
} from '@rally/shared/schemas/journeys';
import { authOf, tenantOf } from '../../lib/access.ts';
import type { JourneyService } from './service.ts';

const clientIdParam = z.object({ clientId: z.uuid({ error: 'must be the id (UUID) of a client' }) });
const write = { permission: 'cohort.write' } as const;
const reports = { permission: 'reports.read' } as const;
const errors = { 404: messageReply, 409: messageReply };

/**
 * Journeys under /v1 (SPEC.md §7 "Journeys"; issue 18; docs/decisions/0010). Reading a journey is
 * for every member of the client, building one needs cohort.write, the journey reports reports.read.
 */
export function journeyRoutes(service: JourneyService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/rest/client/:clientId/journey',
      {
        config: { access: 'member' },
        schema: {
          tags: ['journeys'],
          summary: "The client's journeys with their stages and the accounts in each",
          params: clientIdParam,
          response: { 200: journeyListReply },
        },
      },
      async (request) => service.list(tenantOf(request).clientId),
    );

    app.get(
      '/rest/client/:clientId/journey/:id',
      {
        config: { access: 'member' },
        schema: {
          tags: ['journeys'],
          summary: 'One journey: its stages in order, each with its content, rules and accounts',
          params: clientJourneyParams,
          response: { 200: journeySchema, 404: messageReply },
        },
      },
      async (request) => service.read(tenantOf(request).clientId, request.params.id),
    );

    app.post(
      '/rest/client/:clientId/journey',
      {
        config: { access: write },
        schema: {
          tags: ['journeys'],
          summary: 'Create the journey of a cohort (one per cohort); its accounts enter the first stage',
          description:
            "Without `stages`: Unaware (showing the cohort's content), Aware, Engaged, Opportunity, Customer, " +
            'without rules. Each later stage has `rules` (impressions_gte, clicks_gte, views_gte and ' +
            'days_in_stage_gte with `value`; opportunity_created; crm_stage_reached with `crm_stage_id`) ' +
            'joined by `match` (any or all). An account goes to the furthest later stage whose rules hold. ' +
            '409 when the cohort is archived or already has a journey.',
          params: clientIdParam,
          body: journeyCreateBody,
          response: { 201: journeySchema, ...errors },
        },
      },
      async (request, reply) => {
        const journey = await service.create(
          tenantOf(request).clientId,
          authOf(request).user.id,
          request.body,
        );
        return reply.code(201).send(journey);
      },
    );

    app.put(
      '/rest/client/:clientId/journey/:id',
      {
        config: { access: write },
        schema: {
          tags: ['journeys'],
          summary:
            'Replace a journey: name and stages in order (rename, reorder, add, remove an empty stage)',
          description:
            'A stage keeps its accounts through a rename or a move when sent with its `id`; a stage without ' +
            '`id` is new; a stage left out is removed, which is refused (422) while it holds accounts. ' +
            '409 when the cohort is archived.',
          params: clientJourneyParams,
          body: journeyUpdateBody,
          response: { 200: journeySchema, ...errors },
        },
      },
      async (request) => service.update(tenantOf(request).clientId, request.params.id, request.body),
    );

    app.get(
      '/report/client/:clientId/journey/cohorts',
      {
        config: { access: reports },
        schema: {
          tags: ['journeys'],
          summary: "The client's cohorts with their journey (if any), archived ones last",
          params: clientIdParam,
          response: { 200: journeyCohortsReply },
        },
      },
      async (request) => service.cohorts(tenantOf(request).clientId),
    );

    app.get(
      '/report/client/:clientId/cohort/:cohortId/journey/view',
      {
        config: { access: reports },
        schema: {
          tags: ['journeys'],
          summary: "The cohort journey's funnel: accounts by stage now and at the end of each day",
          description:
            '`from` and `to` are epoch seconds (`to` exclusive, at most 366 days); the last 30 days by ' +
            'default. 404 when the cohort has no journey.',
          params: clientCohortJourneyParams,
          querystring: journeyViewQuery,
          response: { 200: journeyViewReply, 404: messageReply },
        },
      },
      async (request) => service.view(tenantOf(request).clientId, request.params.cohortId, request.query),
    );

    app.get(
      '/report/client/:clientId/cohort/:cohortId/journey/view/moves',
      {
        config: { access: reports },
        schema: {
          tags: ['journeys'],
          summary: "The cohort journey's stage moves, newest first",
          params: clientCohortJourneyParams,
          querystring: journeyMovesQuery,
          response: { 200: journeyMovesReply, 404: messageReply },
        },
      },
      async (request) =>
        service.moves(
          tenantOf(request).clientId,
          request.params.cohortId,
          request.query.page,
          request.query.page_size,
        ),
    );
  };
}
