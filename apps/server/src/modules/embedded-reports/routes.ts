import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  EMBED_TOKEN_HEADER,
  EMBED_TOKEN_PATTERN,
  embeddedReportCreateBody,
  embeddedReportCreatedSchema,
  embeddedReportIdParam,
  embeddedReportListSchema,
  embeddedReportSchema,
  embeddedReportViewSchema,
  embedTokenQuery,
} from '@rally/shared/schemas/embedded-reports';
import { messageReply } from '@rally/shared/schemas/auth';
import { authOf, tenantOf } from '../../lib/access.ts';
import { createLimiter } from '../../lib/rate-limit.ts';
import type { LimitResult } from '../../lib/rate-limit.ts';
import { FieldError, httpError } from '../../lib/errors.ts';
import { INVALID_LINK, createEmbedded, listEmbedded, revokeEmbedded, viewEmbedded } from './service.ts';
import { auditRequest } from '../audit/index.ts';

const clientIdParam = z.object({ clientId: z.uuid('must be the id (UUID) of a client') });
const clientPath = '/rest/client/:clientId/reports/embedded';
const tokenHeaders = z.object({
  [EMBED_TOKEN_HEADER]: z
    .string()
    .regex(EMBED_TOKEN_PATTERN, 'must be the token of an embedded report link')
    .optional(),
});
/** Failed link look-ups one address may make in a window before it is refused (guessing tokens). */
export const EMBED_MISSES_PER_WINDOW = 30;
const EMBED_WINDOW_SECONDS = 600;
const NO_TOKEN = 'is required: the token of an embedded report link (or the token query)';
const errorReply = z.object({ message: z.string() });

/**
 * Embedded reports (SPEC.md §7; docs/reports.md "Embedded reports"). A client's members list them,
 * those who may change settings make and revoke them; anyone with a link's token reads its report,
 * without a session. Unknown tokens are counted per address and answered 429 after
 * EMBED_MISSES_PER_WINDOW in ten minutes; a known token is always served.
 */
export const embeddedReportRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app;
  const misses = createLimiter(
    { redis: app.redis },
    'embed-miss',
    EMBED_MISSES_PER_WINDOW,
    EMBED_WINDOW_SECONDS,
  );

  const tooMany = (reply: FastifyReply, r: LimitResult) => {
    const seconds = r.allowed ? 1 : r.retryAfterSeconds;
    reply.header('retry-after', String(seconds));
    return httpError(429, `Too many attempts. Try again in ${seconds} seconds.`);
  };

  async function view(
    request: { ip: string; headers: Record<string, unknown>; query: { token?: string | undefined } },
    reply: FastifyReply,
    id: string | undefined,
  ) {
    reply.header('cache-control', 'no-store');
    const token = (request.headers[EMBED_TOKEN_HEADER] as string | undefined) ?? request.query.token;
    // Not a 401: that tells the app its session ended, and this call has nothing to do with one.
    if (!token) throw new FieldError([{ field: `headers.${EMBED_TOKEN_HEADER}`, message: NO_TOKEN }]);
    // Only misses are limited: a valid token is served whatever its address did before (offices
    // behind one NAT address share the limit). Tokens are 256 random bits: the limit is not what
    // stops them being guessed, it answers a scanner with 429s. A miss is counted atomically (one
    // consume), so a burst cannot slip past the limit between a check and a count.
    try {
      return await viewEmbedded(db, token, id);
    } catch (err) {
      if ((err as { message?: string }).message === INVALID_LINK) {
        const counted = await misses.hit(request.ip);
        if (!counted.allowed) throw tooMany(reply, counted);
      }
      throw err;
    }
  }

  const publicSchema = {
    tags: ['reports'],
    description:
      `No session: the link's token goes in the \`${EMBED_TOKEN_HEADER}\` header (kept out of logs) ` +
      'or the `token` query. 422 without a token, 404 for an unknown one, 410 when the link expired ' +
      `or was revoked; an unknown token is a 429 once ${EMBED_MISSES_PER_WINDOW} came from one address in ten ` +
      'minutes (a known token is still served).',
    headers: tokenHeaders,
    querystring: embedTokenQuery,
    response: {
      200: embeddedReportViewSchema,
      404: errorReply,
      410: errorReply,
      429: errorReply,
    },
  };

  app.get(
    '/rest/reports/embedded',
    {
      config: { access: 'public' },
      schema: { ...publicSchema, summary: "An embedded report link's report, by its token" },
    },
    async (request, reply) => view(request, reply, undefined),
  );

  app.get(
    '/rest/reports/embedded/:id',
    {
      config: { access: 'public' },
      schema: {
        ...publicSchema,
        summary: "One embedded report's report, by its id and its link's token",
        params: embeddedReportIdParam,
      },
    },
    async (request, reply) => view(request, reply, request.params.id),
  );

  app.get(
    clientPath,
    {
      config: { access: { permission: 'reports.read' } },
      schema: {
        tags: ['reports'],
        summary: "The client's embedded report links (never their tokens), newest first",
        params: clientIdParam,
        response: { 200: embeddedReportListSchema },
      },
    },
    async (request) => listEmbedded(db, tenantOf(request).clientId),
  );

  app.post(
    clientPath,
    {
      config: { access: { permission: 'settings.write' }, secretReply: true },
      schema: {
        tags: ['reports'],
        summary:
          'Saves a report as an expiring, read-only link; the reply is the only time its token is shown',
        params: clientIdParam,
        body: embeddedReportCreateBody,
        response: { 201: embeddedReportCreatedSchema, 410: messageReply },
      },
    },
    async (request, reply) => {
      const created = await createEmbedded(
        db,
        config.publicUrl,
        tenantOf(request).clientId,
        authOf(request).user.id,
        request.body,
      );
      // The link's token stays out of the log: the entry names the saved report only.
      await auditRequest(db, request, {
        action: 'shared_link.created',
        target: { kind: 'embedded_report', id: created.id },
        details: {
          report: request.body.report,
          name: request.body.name,
          range_days: request.body.range_days,
        },
      });
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );

  app.delete(
    `${clientPath}/:id`,
    {
      config: { access: { permission: 'settings.write' } },
      schema: {
        tags: ['reports'],
        summary: 'Revokes an embedded report link at once (it then answers 410)',
        params: clientIdParam.extend(embeddedReportIdParam.shape),
        response: { 200: embeddedReportSchema },
      },
    },
    async (request) => {
      const revoked = await revokeEmbedded(db, tenantOf(request).clientId, request.params.id);
      await auditRequest(db, request, {
        action: 'shared_link.revoked',
        target: { kind: 'embedded_report', id: request.params.id },
      });
      return revoked;
    },
  );
};
