import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messageReply, fieldErrorReply as errorReply } from '@rally/shared/schemas/auth';
import {
  AUDIT_ACTION_LABELS,
  auditEntrySchema,
  auditExportQuery,
  auditListQuery,
  auditListReply,
  auditVerifyReply,
} from '@rally/shared/schemas/audit';
import type { AuditEntry } from '@rally/shared/schemas/audit';
import { tenantOf } from '../../lib/access.ts';
import { streamCsv } from '../../lib/csv-export.ts';
import type { CsvColumn } from '../../lib/csv-export.ts';
import { httpError } from '../../lib/errors.ts';
import { auditOrigin, recordAudit } from './record.ts';
import { auditEntry, auditPages, listAudit, verifyAudit } from './repository.ts';

const clientIdParam = z.object({ clientId: z.uuid('must be the id (UUID) of a client') });
const entryParams = clientIdParam.extend({ id: z.uuid('must be the id (UUID) of an audit log entry') });
const access = { permission: 'settings.write' } as const;
const OWNER = 'purple_owner';
export const AUDIT_OWNER_ONLY =
  'Access Denied: only an owner of this client can read its audit log, because it shows what every member did and from where.';

const CSV_COLUMNS: CsvColumn<AuditEntry>[] = [
  { header: 'Seq', value: (e) => e.seq },
  { header: 'Time (UTC)', value: (e) => e.created_at },
  { header: 'Actor e-mail', value: (e) => e.actor_email },
  { header: 'Actor id', value: (e) => e.actor_user_id },
  { header: 'Action', value: (e) => e.action },
  { header: 'Action (words)', value: (e) => AUDIT_ACTION_LABELS[e.action] },
  { header: 'Target kind', value: (e) => e.target_kind },
  { header: 'Target id', value: (e) => e.target_id },
  { header: 'Details', value: (e) => JSON.stringify(e.details) },
  { header: 'IP', value: (e) => e.ip },
  { header: 'User agent', value: (e) => e.user_agent },
  { header: 'Hash', value: (e) => e.hash },
];

/**
 * The client's audit log, for owners (issue 44): entries newest first with filters and cursor
 * paging, one entry, the CSV of the filtered entries, and the chain's verification.
 */
export const auditRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app;
  const ownerOf = (request: Parameters<typeof tenantOf>[0]) => {
    const tenant = tenantOf(request);
    if (tenant.role !== OWNER) throw httpError(403, AUDIT_OWNER_ONLY);
    return tenant.clientId;
  };

  app.get(
    '/rest/client/:clientId/audit_log',
    {
      config: { access },
      schema: {
        tags: ['audit'],
        summary: "The client's audit log, newest first, owners only",
        description:
          'Filters: actor (user id), action, target_kind, target_id, from and to (a date or an ISO time; ' +
          'a bare `to` date includes that day). Pass `next_cursor` as `cursor` for the next page.',
        params: clientIdParam,
        querystring: auditListQuery,
        response: { 200: auditListReply, 403: messageReply, 422: errorReply },
      },
    },
    async (request) => listAudit(db, ownerOf(request), request.query),
  );

  app.get(
    '/rest/client/:clientId/audit_log/export',
    {
      config: { access },
      schema: {
        tags: ['audit'],
        summary: "The client's audit log as CSV (the same filters), owners only",
        params: clientIdParam,
        querystring: auditExportQuery,
        response: { 200: z.string().describe('text/csv'), 403: messageReply, 422: errorReply },
      },
    },
    async (request, reply) => {
      const clientId = ownerOf(request);
      const q = request.query;
      // Recorded first: the export shows itself, and a log read out of the product is on record.
      await recordAudit(db, {
        ...auditOrigin(request),
        clientId,
        action: 'audit.exported',
        target: { kind: 'audit_log', id: clientId },
        details: { filters: q },
      });
      const day = new Date().toISOString().slice(0, 10);
      return streamCsv(reply, `audit-log-${day}.csv`, CSV_COLUMNS, auditPages(db, clientId, q));
    },
  );

  app.get(
    '/rest/client/:clientId/audit_log/verify',
    {
      config: { access },
      schema: {
        tags: ['audit'],
        summary: "Walk the client's audit chain from its anchor; reports the first broken entry",
        params: clientIdParam,
        response: { 200: auditVerifyReply, 403: messageReply },
      },
    },
    async (request) => verifyAudit(db, ownerOf(request)),
  );

  app.get(
    '/rest/client/:clientId/audit_log/:id',
    {
      config: { access },
      schema: {
        tags: ['audit'],
        summary: 'One audit log entry, owners only',
        params: entryParams,
        response: { 200: auditEntrySchema, 403: messageReply, 404: messageReply, 422: errorReply },
      },
    },
    async (request, reply) => {
      const entry = await auditEntry(db, ownerOf(request), request.params.id);
      if (!entry) return reply.code(404).send({ message: 'No such audit log entry in this client.' });
      return entry;
    },
  );
};
