import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { fieldErrorReply as errorReply } from '@rally/shared/schemas/auth';
import { retentionSettingsSchema, retentionSettingsUpdateBody } from '@rally/shared/schemas/retention';
import { authOf, tenantOf } from '../../lib/access.ts';
import { auditRequest, changedFields } from '../audit/index.ts';
import { getRetention, saveRetention } from './settings.ts';

const clientParams = z.object({ clientId: z.uuid({ error: 'must be the id (UUID) of a client' }) });
/** As the other client settings: owners and admins (settings.write; SPEC.md roles). */
const SETTINGS_WRITE = { access: { permission: 'settings.write' } } as const;

/** A client's retention settings (issue 44, decision 0032). */
export const retentionRoutes: FastifyPluginAsyncZod = async (app) => {
  const base = '/rest/client/:clientId/retention';

  app.get(
    base,
    {
      config: SETTINGS_WRITE,
      schema: {
        tags: ['retention'],
        summary: 'How long the client keeps raw events, export files, delivery logs and the audit log',
        params: clientParams,
        response: { 200: retentionSettingsSchema },
      },
    },
    async (request) => getRetention(app.db, tenantOf(request).clientId),
  );

  app.patch(
    base,
    {
      config: SETTINGS_WRITE,
      schema: {
        tags: ['retention'],
        summary: 'Change retention settings: only the fields given change',
        description:
          'events_months 1–120 (default 25), export_files_days 1–90 (7), delivery_logs_days 1–365 (30), ' +
          'audit_log_days 30–3650 (365). Raw events older than events_months are folded into the daily ' +
          'rollups and deleted by the daily retention job.',
        params: clientParams,
        body: retentionSettingsUpdateBody,
        response: { 200: retentionSettingsSchema, 422: errorReply },
      },
    },
    async (request) => {
      const clientId = tenantOf(request).clientId;
      const before = await getRetention(app.db, clientId);
      const saved = await saveRetention(app.db, clientId, authOf(request).user.id, request.body);
      const fields = changedFields(before, request.body);
      if (fields.length) {
        await auditRequest(app.db, request, {
          action: 'settings.changed',
          target: { kind: 'retention_settings', id: clientId },
          details: { fields },
        });
      }
      return saved;
    },
  );
};
