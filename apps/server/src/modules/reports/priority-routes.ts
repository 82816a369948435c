import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { salesPriorityInput, salesPrioritySchema } from '@rally/shared/schemas/report-insights';
import { authOf, tenantOf } from '../../lib/access.ts';
import { markPriority, unmarkPriority } from './sales-priority.ts';

/**
 * Who may mark: the roles that steer the outreach (cadence.write: owner, admin, manager). SDRs read
 * the priority list (reports.read) but do not change it (issue 17: "an SDR sees reports read-only").
 */
const access = { permission: 'cadence.write' } as const;
const clientIdParam = z.object({ clientId: z.uuid('must be the id (UUID) of a client') });

/**
 * `POST` and `DELETE /v1/rest/client/{id}/sales/priority` (SPEC.md §7 "Sales priority"): mark or
 * unmark one account or one target; `GET …/report/client/{id}/pipeline/priority` puts the marked
 * accounts' opportunities first with `is_priority`.
 */
export const salesPriorityRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app;
  const path = '/rest/client/:clientId/sales/priority';

  app.post(
    path,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'Marks an account (`account_id`) or a target (`target_id`) as a sales priority',
        description:
          'Idempotent: marking again keeps the first mark. The pipeline/priority report lists the ' +
          "opportunities of marked accounts (and of the accounts of a marked target's prospect) first.",
        params: clientIdParam,
        body: salesPriorityInput,
        response: { 200: salesPrioritySchema },
      },
    },
    async (request) => markPriority(db, tenantOf(request).clientId, authOf(request).user.id, request.body),
  );

  app.delete(
    path,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'Unmarks an account (`?account_id=`) or a target (`?target_id=`) as a sales priority',
        description: 'Idempotent: unmarking what is not marked answers the same.',
        params: clientIdParam,
        querystring: salesPriorityInput,
        response: { 200: salesPrioritySchema },
      },
    },
    async (request) => unmarkPriority(db, tenantOf(request).clientId, request.query),
  );
};
