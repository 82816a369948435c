import fastifyMultipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messageReply, fieldErrorReply as errorReply } from '@rally/shared/schemas/auth';
import {
  addSuppressionBody,
  addSuppressionReply,
  removeSuppressionBody,
  suppressionIdParams,
  suppressionListQuery,
  suppressionListReply,
  suppressionSchema,
  uploadSuppressionsReply,
} from '@rally/shared/schemas/suppressions';
import { authOf, tenantOf } from '../../lib/access.ts';
import { sendCsv } from '../../lib/csv-export.ts';
import type { CsvColumn } from '../../lib/csv-export.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import { multipartProblem } from '../../lib/multipart.ts';
import type { Suppression } from '@rally/shared/schemas/suppressions';
import { allSuppressions, listSuppressions, suppressionById, unsuppress } from './service.ts';
import { addressesOfCsv } from './upload.ts';

const clientParams = z.object({ clientId: z.uuid({ error: 'must be the id (UUID) of a client' }) });
const idParams = clientParams.extend(suppressionIdParams.shape);
/** The list names people: owners and admins only (they hold settings.write; SPEC.md roles). */
const OWNERS = { access: { permission: 'settings.write' } } as const;
const UPLOAD_MAX_BYTES = 5 * 1024 * 1024;

const CSV_COLUMNS: CsvColumn<Suppression>[] = [
  { header: 'email', value: (s) => s.email ?? '(erased: kept as a keyed hash only)' },
  { header: 'source', value: (s) => s.source },
  { header: 'reason', value: (s) => s.reason },
  { header: 'added_by', value: (s) => s.created_by_name ?? '' },
  { header: 'added_at', value: (s) => s.created_at },
  { header: 'removed_at', value: (s) => s.removed_at ?? '' },
  { header: 'removed_by', value: (s) => s.removed_by_name ?? '' },
  { header: 'removed_reason', value: (s) => s.removed_reason ?? '' },
];

/**
 * A client's suppression list (issue 44, decision 0027): list, add one, upload a CSV, export, and
 * remove with a reason (kept as history). Everything is scoped by the x-client-id client.
 */
export const suppressionRoutes: FastifyPluginAsyncZod = async (app) => {
  const base = '/rest/client/:clientId/suppressions';
  await app.register(fastifyMultipart, {
    limits: { fileSize: UPLOAD_MAX_BYTES, files: 1, fields: 5, fieldSize: 1024, parts: 10 },
  });

  app.get(
    base,
    {
      config: OWNERS,
      schema: {
        tags: ['suppressions'],
        summary: "A page of the client's suppression list, newest first (or of its removed entries)",
        params: clientParams,
        querystring: suppressionListQuery,
        response: { 200: suppressionListReply, 422: errorReply },
      },
    },
    async (request) => listSuppressions(app.db, tenantOf(request).clientId, request.query),
  );

  app.post(
    base,
    {
      config: OWNERS,
      schema: {
        tags: ['suppressions'],
        summary: 'Suppress one person by e-mail address (source manual)',
        params: clientParams,
        body: addSuppressionBody,
        response: { 200: addSuppressionReply, 201: addSuppressionReply, 422: errorReply },
      },
    },
    async (request, reply) => {
      const { clientId } = tenantOf(request);
      const done = await app.suppressions.suppress(clientId, request.body.email, {
        source: 'manual',
        reason: request.body.reason,
        by: authOf(request).user.id,
      });
      if (!done) throw fieldError('body.email', 'must be an e-mail address');
      const suppression = await suppressionById(app.db, clientId, done.id);
      if (!suppression) throw httpError(404, 'Not found: no such suppression');
      return reply.code(done.created ? 201 : 200).send({ suppression, created: done.created });
    },
  );

  app.post(
    `${base}/upload`,
    {
      config: OWNERS,
      schema: {
        tags: ['suppressions'],
        summary: 'Suppress every address of a CSV file (multipart/form-data, a part named "file")',
        description:
          'One address per line, or a column headed email (or e-mail). Lines that are not an address are ' +
          'reported, not added. Source import.',
        params: clientParams,
        response: { 200: uploadSuppressionsReply, 413: messageReply, 415: messageReply, 422: errorReply },
      },
    },
    async (request) => {
      const { clientId } = tenantOf(request);
      if (!request.isMultipart()) {
        throw httpError(415, 'Send the CSV file as multipart/form-data, in a part named "file".');
      }
      let text: string | null = null;
      let reason = '';
      try {
        for await (const part of request.parts()) {
          if (part.type === 'field') {
            if (part.fieldname === 'reason' && typeof part.value === 'string')
              reason = part.value.trim().slice(0, 500);
          } else if (part.fieldname !== 'file') {
            part.file.resume();
          } else {
            const bytes = await part.toBuffer();
            text = bytes.toString('utf8');
          }
        }
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === 'FST_REQ_FILE_TOO_LARGE') {
          throw httpError(413, 'The file is larger than 5 MB. Split it into smaller files.');
        }
        throw multipartProblem(err);
      }
      if (text === null)
        throw fieldError('body.file', 'is required: attach the CSV file in a part named "file"');
      const parsed = addressesOfCsv(text);
      if ('error' in parsed) throw fieldError('body.file', parsed.error);
      const { added, already } = await app.suppressions.suppressMany(clientId, parsed.emails, {
        source: 'import',
        reason,
        by: authOf(request).user.id,
      });
      return {
        added,
        already,
        invalid: parsed.invalid.slice(0, 20),
        invalid_count: parsed.invalid.length,
      };
    },
  );

  app.get(
    `${base}/export.csv`,
    {
      config: OWNERS,
      schema: {
        tags: ['suppressions'],
        summary:
          'The whole list as CSV, removed entries included (cells that would run as formulas are quoted)',
        params: clientParams,
        response: { 200: z.string().describe('text/csv') },
      },
    },
    async (request, reply) => {
      const rows = await allSuppressions(app.db, tenantOf(request).clientId);
      return sendCsv(reply, 'suppression-list.csv', CSV_COLUMNS, rows);
    },
  );

  app.post(
    `${base}/:id/remove`,
    {
      config: OWNERS,
      schema: {
        tags: ['suppressions'],
        summary: 'Take a person off the list, with the reason (the entry is kept as history)',
        params: idParams,
        body: removeSuppressionBody,
        response: { 200: suppressionSchema, 404: messageReply, 422: errorReply },
      },
    },
    async (request) => {
      const { clientId } = tenantOf(request);
      const id = Number(request.params.id);
      const removed = await unsuppress(app.db, clientId, id, {
        reason: request.body.reason,
        by: authOf(request).user.id,
      });
      if (!removed) throw httpError(404, 'Not found: no suppression with this id is in force in this client');
      const view = await suppressionById(app.db, clientId, id);
      if (!view) throw httpError(404, 'Not found: no suppression with this id is in force in this client');
      return view;
    },
  );
};
