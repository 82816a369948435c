import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { fieldErrorReply as errorReply } from '@rally/shared/schemas/auth';
import {
  createExportFileBody,
  exportFileListReply,
  exportFileSchema,
} from '@rally/shared/schemas/export-files';
import { authOf, tenantOf } from '../../lib/access.ts';
import type { ExportFileService } from './service.ts';
import { auditRequest } from '../audit/index.ts';

const clientIdParam = z.object({ clientId: z.uuid('must be the id (UUID) of a client') });
const access = { permission: 'reports.read' } as const;

/**
 * `POST` and `GET /v1/report/client/{id}/export_files`: ask for a report's CSV as a file, and see
 * the files asked for; a done file downloads through `GET /v1/download/{id}`. Reports read access.
 */
export function exportFileRoutes(service: ExportFileService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/report/client/:clientId/export_files',
      {
        config: { access },
        schema: {
          tags: ['reports'],
          summary: "Ask for a report's CSV as a file, written in the background",
          description:
            'Answers 202 with the file (status queued); the job writes it and its status becomes ' +
            'done (then `download_url` is set) or failed. Files are kept for 7 days.',
          params: clientIdParam,
          body: createExportFileBody,
          response: { 202: exportFileSchema, 422: errorReply },
        },
      },
      async (request, reply) => {
        const file = await service.create(tenantOf(request).clientId, authOf(request).user.id, request.body);
        await auditRequest(app.db, request, {
          action: 'export.requested',
          target: { kind: 'export_file', id: file.id },
          details: { report: request.body.report },
        });
        return reply.code(202).send(file);
      },
    );

    app.get(
      '/report/client/:clientId/export_files',
      {
        config: { access },
        schema: {
          tags: ['reports'],
          summary: "The client's export files, newest first, until they expire",
          params: clientIdParam,
          response: { 200: exportFileListReply },
        },
      },
      async (request) => ({ items: await service.list(tenantOf(request).clientId) }),
    );
  };
}
