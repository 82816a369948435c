import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messageReply } from '@rally/shared/schemas/auth';
import {
  clientCadenceParams,
  clientCohortExportParams,
  emailSnippetStatusSchema,
  emailSnippetTestBody,
  snippetTestSchema,
} from '@rally/shared/schemas/email-ads';
import { authOf, tenantOf } from '../../lib/access.ts';
import { streamCsv } from '../../lib/csv-export.ts';
import { httpError } from '../../lib/errors.ts';
import {
  CADENCE_NOT_FOUND,
  COHORT_NOT_FOUND,
  cadenceExport,
  cohortExport,
  exportColumns,
  exportName,
  sendSnippetTest,
  snippetStatus,
  tooManyTests,
} from './service.ts';

const csvReply = { 200: z.string().describe('text/csv'), 404: messageReply };

/**
 * Ads in a cadence's own e-mails (issue 38, ARCHITECTURE.md §13): the cadence's "Add ads to your
 * e-mails" step (its status and a test e-mail to the user), and the bulk export of a cadence's or
 * cohort's targets with their ad and click URLs for any other tool.
 */
export const emailAdRoutes: FastifyPluginAsyncZod = async (app) => {
  const base = '/rest/client/:clientId';
  const columns = exportColumns(app.config.publicUrl);

  app.get(
    `${base}/cadence/:id/email_snippet`,
    {
      config: { access: 'member' },
      schema: {
        tags: ['email ads'],
        summary:
          "The cadence's e-mail ad step: installed yet, whether ads run, its prospects, the user's last test",
        description:
          '`installed_at` is the first impression of the e-mail rendition (`/t/{token}/ad/email.png`) for the ' +
          'cadence: a prospect opened an e-mail carrying the snippet. Test e-mails never set it.',
        params: clientCadenceParams,
        response: { 200: emailSnippetStatusSchema, 404: messageReply },
      },
    },
    async (request) => {
      const status = await snippetStatus(
        app,
        tenantOf(request).clientId,
        request.params.id,
        authOf(request).user.id,
      );
      if (!status) throw httpError(404, CADENCE_NOT_FOUND);
      return status;
    },
  );

  app.post(
    `${base}/cadence/:id/email_snippet/test`,
    {
      config: { access: { permission: 'cadence.write' } },
      schema: {
        tags: ['email ads'],
        summary: "E-mails the signed-in user the cadence's snippet with one of its prospects' ads",
        description:
          'Through the outbox, to the user’s own address. The ad and click URLs carry `?test=` and count ' +
          'nothing for the prospect. At most 5 per user per hour (429 with Retry-After); 409 when ads are off ' +
          'for the cadence or it has no prospects.',
        params: clientCadenceParams,
        body: emailSnippetTestBody,
        response: { 202: snippetTestSchema, 404: messageReply, 409: messageReply, 429: messageReply },
      },
    },
    async (request, reply) => {
      const user = authOf(request).user;
      const out = await sendSnippetTest(app, {
        clientId: tenantOf(request).clientId,
        cadenceId: request.params.id,
        user: { id: user.id, email: user.email },
        body: request.body,
      });
      if (!out) throw httpError(404, CADENCE_NOT_FOUND);
      if ('retryAfterSeconds' in out) {
        return reply
          .code(429)
          .header('retry-after', String(out.retryAfterSeconds))
          .send({ message: tooManyTests(out.retryAfterSeconds) });
      }
      return reply.code(202).send(out.sent);
    },
  );

  app.get(
    `${base}/cadence/:id/targets/export`,
    {
      config: { access: { permission: 'reports.read' } },
      schema: {
        tags: ['email ads'],
        summary: "The cadence's targets with their ad image and click URLs, as CSV (streamed)",
        params: clientCadenceParams,
        response: csvReply,
      },
    },
    async (request, reply) => {
      const found = await cadenceExport(app, tenantOf(request).clientId, request.params.id);
      if (!found) throw httpError(404, CADENCE_NOT_FOUND);
      return streamCsv(reply, exportName('cadence', found.name), columns, found.pages);
    },
  );

  app.get(
    `${base}/cohort/:id/targets/export`,
    {
      config: { access: { permission: 'reports.read' } },
      schema: {
        tags: ['email ads'],
        summary: "The cohort's members with their ad image and click URLs, as CSV (streamed)",
        params: clientCohortExportParams,
        response: csvReply,
      },
    },
    async (request, reply) => {
      const found = await cohortExport(app, tenantOf(request).clientId, request.params.id);
      if (!found) throw httpError(404, COHORT_NOT_FOUND);
      return streamCsv(reply, exportName('cohort', found.name), columns, found.pages);
    },
  );
};
