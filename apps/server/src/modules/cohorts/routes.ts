import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messageReply } from '@rally/shared/schemas/auth';
import {
  clientCohortParams,
  cohortArchiveBody,
  cohortAudienceReport,
  cohortCreateBody,
  cohortDetailedReport,
  cohortIdParam,
  cohortImpactQuery,
  cohortImpactReply,
  cohortListQuery,
  cohortListReply,
  cohortPauseBody,
  cohortPreSyncBody,
  cohortPreSyncReply,
  cohortSchema,
  cohortSegmentQuery,
  cohortSegmentReply,
  cohortUpdateBody,
} from '@rally/shared/schemas/cohorts';
import { authOf, tenantOf } from '../../lib/access.ts';
import type { CohortService } from './service.ts';

const clientIdParam = z.object({ clientId: z.uuid({ error: 'must be the id (UUID) of a client' }) });
const write = { permission: 'cohort.write' } as const;
const reports = { permission: 'reports.read' } as const;
const errors = { 404: messageReply, 409: messageReply };

/**
 * Cohorts under /v1 (SPEC.md §7 "Cohorts"; issue 18). Reading is for every member of the client,
 * reports need reports.read, and creating or changing a cohort needs cohort.write (owners, admins
 * and managers; not SDRs or viewers — ARCHITECTURE.md §4).
 */
export function cohortRoutes(service: CohortService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/report/client/:clientId/cohort',
      {
        config: { access: 'member' },
        schema: {
          tags: ['cohorts'],
          summary: "The client's cohorts, one page: name search, archived ones only with show_archived",
          description:
            'Paged by `page` (from 1) and `page_size` (1-100, default 25); sorted by `sort_field` ' +
            '(name, created_at, size, status, last_synced_at; default created_at) and `order` (asc or desc, ' +
            'default desc). `name` is a case-insensitive substring. Archived cohorts are left out unless ' +
            '`show_archived=true`.',
          params: clientIdParam,
          querystring: cohortListQuery,
          response: { 200: cohortListReply },
        },
      },
      async (request) => service.list(tenantOf(request).clientId, request.query),
    );

    app.get(
      '/api/cohort/:id',
      {
        config: { access: 'member' },
        schema: {
          tags: ['cohorts'],
          summary: 'One cohort with its status, size, sync state and engagement totals',
          params: cohortIdParam,
          response: { 200: cohortSchema, 404: messageReply },
        },
      },
      async (request) => service.read(tenantOf(request).clientId, request.params.id),
    );

    app.get(
      '/rest/cohort/:id',
      {
        config: { access: 'member' },
        schema: {
          tags: ['cohorts'],
          summary: 'One cohort (as GET /api/cohort/{id})',
          params: cohortIdParam,
          response: { 200: cohortSchema, 404: messageReply },
        },
      },
      async (request) => service.read(tenantOf(request).clientId, request.params.id),
    );

    app.get(
      '/rest/cohort',
      {
        config: { access: 'member' },
        schema: {
          tags: ['cohorts'],
          summary: "The client's cohorts (the same query and page as GET /report/client/{id}/cohort)",
          querystring: cohortListQuery,
          response: { 200: cohortListReply },
        },
      },
      async (request) => service.list(tenantOf(request).clientId, request.query),
    );

    app.post(
      '/rest/cohort',
      {
        config: { access: write },
        schema: {
          tags: ['cohorts'],
          summary: 'Create a cohort from a CRM list or from prospect filters; its first sync is queued',
          description:
            '`source_kind` crm_list needs `crm_list_id` (GET /rest/crm_list); filter takes `filters` ' +
            '(title, company, cadence_id, superprospect, engagement). `content_id` is the content its ' +
            "members' ads show.",
          body: cohortCreateBody,
          response: { 201: cohortSchema },
        },
      },
      async (request, reply) => {
        const cohort = await service.create(
          tenantOf(request).clientId,
          authOf(request).user.id,
          request.body,
        );
        return reply.code(201).send(cohort);
      },
    );

    app.patch(
      '/rest/cohort/:id',
      {
        config: { access: write },
        schema: {
          tags: ['cohorts'],
          summary: 'Change a cohort: name, CRM list or filters (a new sync is queued), content',
          description: 'An archived cohort is read-only: 409 until it is restored.',
          params: cohortIdParam,
          body: cohortUpdateBody,
          response: { 200: cohortSchema, ...errors },
        },
      },
      async (request) => service.update(tenantOf(request).clientId, request.params.id, request.body),
    );

    app.patch(
      '/rest/cohort/:id/archive',
      {
        config: { access: write },
        schema: {
          tags: ['cohorts'],
          summary: 'Archive (`archived: true`) or restore (`archived: false`) a cohort',
          description:
            'Archived: hidden from the list unless show_archived, read-only, its ads stopped. Restoring ' +
            'brings back the status it had (active or paused).',
          params: cohortIdParam,
          body: cohortArchiveBody,
          response: { 200: cohortSchema, 404: messageReply },
        },
      },
      async (request) =>
        service.setArchived(tenantOf(request).clientId, request.params.id, request.body.archived),
    );

    app.patch(
      '/rest/cohort/:id/pause',
      {
        config: { access: write },
        schema: {
          tags: ['cohorts'],
          summary: 'Pause (`paused: true`) or resume (`paused: false`) a cohort',
          description:
            "Paused: its members' ad tags serve the neutral image and count nothing, and syncs stop. " +
            '409 for an archived cohort.',
          params: cohortIdParam,
          body: cohortPauseBody,
          response: { 200: cohortSchema, ...errors },
        },
      },
      async (request) =>
        service.setPaused(tenantOf(request).clientId, request.params.id, request.body.paused),
    );

    app.post(
      '/marx/client/:clientId/cohort/pre_sync',
      {
        config: { access: write },
        schema: {
          tags: ['cohorts'],
          summary: 'The audience a source and filters would give, before saving: contacts and accounts',
          params: clientIdParam,
          body: cohortPreSyncBody,
          response: { 200: cohortPreSyncReply },
        },
      },
      async (request) => service.preSync(tenantOf(request).clientId, request.body),
    );

    app.get(
      '/rest/cohort/:id/segment',
      {
        config: { access: 'member' },
        schema: {
          tags: ['cohorts'],
          summary:
            "The cohort's members with their engagement and ad tags, most engaged first or sorted by a column",
          params: cohortIdParam,
          querystring: cohortSegmentQuery,
          response: { 200: cohortSegmentReply, 404: messageReply },
        },
      },
      async (request) =>
        service.segment(
          tenantOf(request).clientId,
          request.params.id,
          request.query.page,
          request.query.page_size,
          { sort: request.query.sort, order: request.query.order },
        ),
    );

    app.get(
      '/marx/action/client/:clientId/cohort/:id/sync',
      {
        config: { access: write },
        schema: {
          tags: ['cohorts'],
          summary: 'Queue a sync of the cohort from its CRM list or filters (one at a time)',
          description:
            'Answers the cohort with sync_state queued (or running, when a sync was already under way). ' +
            '409 when the cohort is paused or archived.',
          params: clientCohortParams,
          response: { 200: cohortSchema, ...errors },
        },
      },
      async (request) => service.sync(tenantOf(request).clientId, request.params.id),
    );

    app.get(
      '/report/cohort/:id/detailed_report',
      {
        config: { access: reports },
        schema: {
          tags: ['cohorts'],
          summary: "The cohort's totals: members, accounts, impressions, clicks, views, supers, engaged",
          params: cohortIdParam,
          response: { 200: cohortDetailedReport, 404: messageReply },
        },
      },
      async (request) => service.detailedReport(tenantOf(request).clientId, request.params.id),
    );

    app.get(
      '/report/cohort/:id/audience',
      {
        config: { access: reports },
        schema: {
          tags: ['cohorts'],
          summary: "The cohort's members by title and by company, with their engagement",
          params: cohortIdParam,
          response: { 200: cohortAudienceReport, 404: messageReply },
        },
      },
      async (request) => service.audience(tenantOf(request).clientId, request.params.id),
    );

    app.get(
      '/report/cohort/:id/impact/by_date',
      {
        config: { access: reports },
        schema: {
          tags: ['cohorts'],
          summary: "Impressions, clicks and views of the cohort's members per day (UTC)",
          description: '`from` and `to` are epoch seconds (`to` exclusive); the last 30 days by default.',
          params: cohortIdParam,
          querystring: cohortImpactQuery,
          response: { 200: cohortImpactReply, 404: messageReply },
        },
      },
      async (request) => service.impact(tenantOf(request).clientId, request.params.id, request.query),
    );
  };
}
