import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  cadenceIdParam,
  cadenceListItemSchema,
  cadenceSchema,
  changeStatusQuery,
  integrationIdQuery,
  superAudienceQuery,
  superAudienceReply,
  updateCadenceBody,
} from '@rally/shared/schemas/cadences';
import { tenantOf } from '../../lib/access.ts';
import { httpError } from '../../lib/errors.ts';
import * as service from './service.ts';

const NOT_FOUND = 'Cadence not found.';

/** Cadences under /sc (SPEC.md §7 "Cadence service"; ARCHITECTURE.md §5). */
export const cadenceRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app;

  app.get(
    '/cadence',
    {
      config: { access: 'member' },
      schema: {
        tags: ['cadences'],
        summary: "The client's cadences with their status, sync state, day count and target counts",
        response: { 200: z.array(cadenceListItemSchema) },
      },
    },
    async (request) => service.listCadences(db, tenantOf(request).clientId),
  );

  app.get(
    '/cadence/super/audience',
    {
      config: { access: 'member' },
      schema: {
        tags: ['cadences'],
        summary: "The client's superprospects across cadences, newest super_date first",
        description:
          'A superprospect is a target with a super_date (≥1 click or ≥15 impressions in its cadence); ' +
          'a person super in two cadences is listed twice. Paged by `page` (from 1) and `page_size` ' +
          '(1-100, default 25); `cadence_id` narrows to one cadence. `total` counts every match.',
        querystring: superAudienceQuery,
        response: { 200: superAudienceReply },
      },
    },
    async (request) => service.superAudience(db, tenantOf(request).clientId, request.query),
  );

  app.get(
    '/cadence/:id',
    {
      config: { access: 'member' },
      schema: {
        tags: ['cadences'],
        summary: 'One cadence with its days: target counts, content and transition actions',
        params: cadenceIdParam,
        querystring: integrationIdQuery,
        response: { 200: cadenceSchema },
      },
    },
    async (request) => {
      const cadence = await service.getCadence(
        db,
        tenantOf(request).clientId,
        request.params.id,
        request.query.integration_id,
      );
      if (!cadence) throw httpError(404, NOT_FOUND);
      return cadence;
    },
  );

  app.put(
    '/cadence/:id',
    {
      config: { access: { permission: 'cadence.write' } },
      schema: {
        tags: ['cadences'],
        summary:
          'Change a cadence: name, ads on (is_super), selected sales reps, content and actions of days',
        description:
          "Fields left out keep their value; each day named replaces that day's content_days. " +
          '`move_to_day` actions name the day in `target_day_number`.',
        params: cadenceIdParam,
        querystring: integrationIdQuery.partial(),
        body: updateCadenceBody,
        response: { 200: cadenceSchema },
      },
    },
    async (request) => {
      const cadence = await service.updateCadence(
        db,
        tenantOf(request).clientId,
        request.params.id,
        request.body,
        request.query.integration_id,
      );
      if (!cadence) throw httpError(404, NOT_FOUND);
      return cadence;
    },
  );

  app.put(
    '/cadence/:id/change_status',
    {
      config: { access: { permission: 'cadence.write' } },
      schema: {
        tags: ['cadences'],
        summary: 'Change the status: draft → active ⇄ paused → finished (409 for any other move)',
        description: 'SPEC.md §7: the app ignores the reply, so success has no body.',
        params: cadenceIdParam,
        querystring: changeStatusQuery,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      const clientId = tenantOf(request).clientId;
      if (request.query.client_id.toLowerCase() !== clientId) {
        throw httpError(403, 'Access Denied: the client_id query is not the x-client-id client.');
      }
      await service.changeStatus(
        db,
        clientId,
        request.params.id,
        request.query.integration_id,
        request.query.status,
      );
      return reply.code(204).send(null);
    },
  );
};
