import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { fieldErrorReply as errorReply } from '@rally/shared/schemas/auth';
import {
  campaignCreateBody,
  campaignIdParam,
  campaignListQuery,
  campaignListReply,
  campaignSchema,
  campaignUpdateBody,
  downloadIdParam,
} from '@rally/shared/schemas/campaigns';
import { authOf, requirePermission, tenantOf } from '../../lib/access.ts';
import { streamCsvText } from '../../lib/csv-export.ts';
import { httpError } from '../../lib/errors.ts';
import type { CampaignService } from './service.ts';
import { auditRequest } from '../audit/index.ts';

const write = { permission: 'cohort.write' } as const;
const errors = { 404: errorReply, 409: errorReply, 422: errorReply };

/**
 * Campaigns under /v1 (SPEC.md §7 "Campaigns: POST and PATCH /rest/campaign[/{id}]", "GET
 * /download/{id} (binary)"; issue 18). Reading is for every member of the client; creating and
 * changing a campaign needs cohort.write, as changing its cohort does.
 */
export function campaignRoutes(service: CampaignService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/rest/campaign',
      {
        config: { access: 'member' },
        schema: {
          tags: ['campaigns'],
          summary: "The client's campaigns, newest first; `cohort_id` keeps one cohort's",
          querystring: campaignListQuery,
          response: { 200: campaignListReply },
        },
      },
      async (request) => service.list(tenantOf(request).clientId, request.query),
    );

    app.get(
      '/rest/campaign/:id',
      {
        config: { access: 'member' },
        schema: {
          tags: ['campaigns'],
          summary: 'One campaign: its cohort, flight, status and content',
          params: campaignIdParam,
          response: { 200: campaignSchema, 404: errorReply },
        },
      },
      async (request) => service.read(tenantOf(request).clientId, request.params.id),
    );

    app.post(
      '/rest/campaign',
      {
        config: { access: write },
        schema: {
          tags: ['campaigns'],
          summary: "Plan a cohort's flight: first and last day, status and the content whose ads it runs",
          description:
            '`starts_on` and `ends_on` are calendar days (YYYY-MM-DD, both in the flight); `ends_on` must ' +
            'be after `starts_on`. `status` is draft (default), active, paused or ended; active needs ' +
            "content. `content_id` left out is the cohort's own content. 404 for a cohort of another " +
            'client, 409 for an archived cohort, 422 naming the field otherwise.',
          body: campaignCreateBody,
          response: { 201: campaignSchema, ...errors },
        },
      },
      async (request, reply) => {
        const campaign = await service.create(
          tenantOf(request).clientId,
          authOf(request).user.id,
          request.body,
        );
        return reply.code(201).send(campaign);
      },
    );

    app.patch(
      '/rest/campaign/:id',
      {
        config: { access: write },
        schema: {
          tags: ['campaigns'],
          summary: 'Change a campaign: name, flight, status (draft, active, paused, ended) or content',
          description:
            'Fields left out keep their value. An ended campaign, or one of an archived cohort, is ' +
            'read-only (409).',
          params: campaignIdParam,
          body: campaignUpdateBody,
          response: { 200: campaignSchema, ...errors },
        },
      },
      async (request) => service.update(tenantOf(request).clientId, request.params.id, request.body),
    );

    app.get(
      '/download/:id',
      {
        config: { access: 'member' },
        schema: {
          tags: ['campaigns'],
          summary: "A binary download: a campaign's ads as PNGs at the four sizes, zipped, or an export file",
          description:
            'For uploading to an ad network: `{name}-1080x1080.png`, `-1200x628`, `-728x90` and ' +
            '`-300x250`, drawn as the content preview draws them. application/zip with a ' +
            'content-disposition filename. 409 while the campaign has no content. The id of an ' +
            'export file (`POST /report/client/{id}/export_files`) gives its CSV once done (409 ' +
            'before; reports.read).',
          params: downloadIdParam,
          response: { 200: z.any(), 404: errorReply, 409: errorReply },
        },
      },
      async (request, reply) => {
        const clientId = tenantOf(request).clientId;
        const file = await service.download(clientId, request.params.id);
        if (!file) {
          // Not a campaign: one of the client's export files (issue 18), which are reports.
          const exported = await app.exportFiles.download(clientId, request.params.id, () =>
            requirePermission(request, 'reports.read'),
          );
          if (!exported) throw httpError(404, 'Nothing to download here: no such campaign or file.');
          await auditRequest(app.db, request, {
            action: 'export.downloaded',
            target: { kind: 'export_file', id: request.params.id },
            details: { filename: exported.filename },
          });
          return streamCsvText(reply, exported.filename, exported.parts);
        }
        await auditRequest(app.db, request, {
          action: 'export.downloaded',
          target: { kind: 'campaign', id: request.params.id },
          details: { filename: file.filename },
        });
        return reply
          .type('application/zip')
          .header('content-disposition', `attachment; filename="${file.filename}"`)
          .header('cache-control', 'private, no-store')
          .header('x-content-type-options', 'nosniff')
          .send(Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength));
      },
    );
  };
}
