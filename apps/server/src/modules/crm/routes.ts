import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  crmListPage,
  crmListQuery,
  crmRecordTypeSchema,
  crmStageQuery,
  crmStageSchema,
  stageSelectionBody,
  stageSelectionReply,
} from '@rally/shared/schemas/crm';
import { tenantOf } from '../../lib/access.ts';
import { fieldError } from '../../lib/errors.ts';
import { listsOf, recordTypesOf, setStageSetting, stageSetting, stagesOf } from './repository.ts';
import type { StageSetting } from './repository.ts';

const clientIdParam = z.object({ clientId: z.uuid('must be the id (UUID) of a client') });

/**
 * The CRM data the other screens and reports read (SPEC.md §7 "CRM integrations"): the stage
 * catalogue, record types, the client's selected and valuable stages, and CRM lists.
 */
export const crmRestRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app;

  app.get(
    '/rest/client/:clientId/crm/opportunity/stage',
    {
      config: { access: 'member' },
      schema: {
        tags: ['crm'],
        summary: "The client's opportunity stages per CRM and pipeline, in pipeline order",
        params: clientIdParam,
        querystring: crmStageQuery,
        response: { 200: z.array(crmStageSchema) },
      },
    },
    async (request) =>
      stagesOf(db, tenantOf(request).clientId, {
        integrationId: request.query.integration_id,
        pipeline: request.query.pipeline,
      }),
  );

  app.get(
    '/rest/client/:clientId/crm/record_type',
    {
      config: { access: 'member' },
      schema: {
        tags: ['crm'],
        summary: "The client's opportunity record types (Salesforce)",
        params: clientIdParam,
        response: { 200: z.array(crmRecordTypeSchema) },
      },
    },
    async (request) => recordTypesOf(db, tenantOf(request).clientId),
  );

  const stageSettingRoutes = (path: string, which: StageSetting, what: string) => {
    app.get(
      path,
      {
        config: { access: 'member' },
        schema: {
          tags: ['crm'],
          summary: `The client's ${what}`,
          params: clientIdParam,
          response: { 200: stageSelectionReply },
        },
      },
      async (request) => stageSetting(db, tenantOf(request).clientId, which),
    );
    app.put(
      path,
      {
        config: { access: { permission: 'settings.write' } },
        schema: {
          tags: ['crm'],
          summary: `Replace the client's ${what} (ids from the stage catalogue)`,
          params: clientIdParam,
          body: stageSelectionBody,
          response: { 200: stageSelectionReply },
        },
      },
      async (request) => {
        const clientId = tenantOf(request).clientId;
        const { unknown } = await setStageSetting(db, clientId, which, request.body.stage_ids);
        if (unknown.length) {
          throw fieldError(
            'body.stage_ids',
            `names no stage of this client: ${unknown.slice(0, 5).join(', ')}`,
          );
        }
        return stageSetting(db, clientId, which);
      },
    );
  };
  stageSettingRoutes(
    '/rest/client/:clientId/opportunity/selected_stages',
    'selected',
    'selected opportunity stages (the stages reports count)',
  );
  stageSettingRoutes(
    '/rest/client/:clientId/pipeline/stages/valuable',
    'valuable',
    'valuable pipeline stages (a move into one counts as progress)',
  );

  app.get(
    '/rest/crm_list',
    {
      config: { access: 'member' },
      schema: {
        tags: ['crm'],
        summary: "The client's CRM lists: Salesforce campaigns, HubSpot lists, Marketo static lists",
        querystring: crmListQuery,
        response: { 200: crmListPage },
      },
    },
    async (request) => {
      const q = request.query;
      const { items, total } = await listsOf(db, tenantOf(request).clientId, {
        integrationId: q.integration_id,
        source: q.source,
        search: q.search,
        page: q.page,
        pageSize: q.page_size,
      });
      return { items, total, page: q.page, page_size: q.page_size };
    },
  );
};
