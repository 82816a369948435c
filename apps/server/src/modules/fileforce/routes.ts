import fastifyMultipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messageReply, fieldErrorReply as errorReply } from '@rally/shared/schemas/auth';
import {
  checkReply,
  checkTargetsBody,
  FILEFORCE_FIELDS,
  fieldsQuery,
  fieldsReply,
  fileImportListReply,
  fileImportSchema,
  importKindSchema,
  revenueQuery,
  revenueReply,
  updateImportBody,
} from '@rally/shared/schemas/fileforce';
import { authOf, tenantOf } from '../../lib/access.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import {
  checkImport,
  createImport,
  getImport,
  IMPORT_JOB,
  ImportFailure,
  listClientImports,
  markFailed,
  removeImport,
  revenueOf,
  runImport,
  setMapping,
  startImport,
  toImport,
  toSummary,
} from './service.ts';
import { FileTooLargeError, removeScratch, storeStream } from './storage.ts';
import type { StoredFile } from './storage.ts';
import { runImportInChild } from './child-process.ts';
import { skippedColumns, skippedRows } from './skipped-rows.ts';
import { streamCsv } from '../../lib/csv-export.ts';
import { multipartProblem } from '../../lib/multipart.ts';

const BASE = '/integration/crm/fileforce/client/:clientId';
const clientParam = z.uuid('must be the id (UUID) of a client');
const importParam = z.uuid('must be the id (UUID) of an import');
const clientParams = z.object({ clientId: clientParam });
const importParams = z.object({ clientId: clientParam, importId: importParam });
/** Room for the multipart envelope around the file itself. */
const MULTIPART_OVERHEAD = 64 * 1024;
const READ = { access: 'member' } as const;
const WRITE = { access: { permission: 'integration.write' } } as const;
/** Imported opportunities (names, amounts) are revenue data: read as the reports read them (issue 37). */
const REPORTS = { access: { permission: 'reports.read' } } as const;

/**
 * The file import source `fileforce` (SPEC.md §7 "File import under
 * /integration/crm/fileforce/client/{id}/imports, targets/check, fields, revenue").
 */
export const fileforceRoutes: FastifyPluginAsyncZod = async (app) => {
  const { config } = app;
  const megabytes = Math.round(config.uploadMaxBytes / (1024 * 1024));
  const tooLarge = () =>
    httpError(
      413,
      `The file is larger than the upload limit of ${megabytes} MB. Split it into smaller files.`,
    );

  await app.register(fastifyMultipart, {
    limits: { fileSize: config.uploadMaxBytes, files: 1, fields: 10, fieldSize: 1024, parts: 20 },
  });

  // A dead worker's import is retried after a third of the heartbeat (then backing off).
  const heartbeat = {
    heartbeatSeconds: config.jobHeartbeatSeconds,
    retryDelay: Math.max(1, Math.round(config.jobHeartbeatSeconds / 3)),
  };
  // Big imports run in a child process on PostgreSQL (issue 19); PGlite is in this process only.
  const childDatabase =
    app.database.driver === 'postgres' && config.importChildProcess ? config.databaseUrl : undefined;
  // A child still importing when the server closes is stopped with it, as a crash would stop it:
  // its job (still active, its heartbeat gone) is resumed by the next worker.
  const closing = new AbortController();
  app.addHook('onClose', async () => closing.abort(new Error('the server is closing')));
  // Handlers are idempotent (runImport resumes and upserts), as the queue requires.
  app.queue.register<{ importId: string }>(
    IMPORT_JOB,
    async (data, job) => {
      try {
        if (childDatabase) {
          const run = await runImportInChild(app, childDatabase, data.importId, {
            signal: AbortSignal.any([job.signal, closing.signal]),
          });
          app.log.info(
            { importId: data.importId, pid: run.pid, peakRssMiB: Math.round(run.peakRssBytes / 2 ** 20) },
            'import process finished',
          );
        } else {
          await runImport(app, data.importId, { signal: job.signal });
        }
      } catch (err) {
        if (closing.signal.aborted) throw err;
        const meta = await app.queue.boss.getJobById(IMPORT_JOB, job.id).catch(() => null);
        if (!meta || meta.retryCount >= meta.retryLimit) {
          await markFailed(
            app,
            data.importId,
            'The import stopped after a server error. Start it again to resume where it stopped.',
          );
        }
        throw err;
      }
    },
    // A worker that dies mid-import stops its heartbeat; the job is then retried and resumes.
    { retryLimit: 3, retryBackoff: true, expireInSeconds: 6 * 3600, ...heartbeat },
  );
  // Given with each job too: a queue made before JOB_HEARTBEAT_SECONDS changed keeps its old values.
  const enqueue = (importId: string) => app.queue.send(IMPORT_JOB, { importId }, heartbeat);

  app.get(
    `${BASE}/fields`,
    {
      config: READ,
      schema: {
        tags: ['fileforce'],
        summary: 'The columns a file import accepts, and their types',
        params: clientParams,
        querystring: fieldsQuery,
        response: { 200: fieldsReply },
      },
    },
    async (request) =>
      FILEFORCE_FIELDS[request.query.kind].map(({ name, label, type, required, description }) => ({
        name,
        label,
        type,
        required,
        description,
      })),
  );

  app.post(
    `${BASE}/imports`,
    {
      config: WRITE,
      schema: {
        tags: ['fileforce'],
        summary:
          'Upload a CSV file (multipart/form-data: a "file" part and a "kind" field, targets or revenue)',
        description:
          'The file is streamed to storage; only its header row is read now, and a column mapping is suggested from it.',
        params: clientParams,
        response: { 201: fileImportSchema, 413: messageReply, 415: messageReply, 422: errorReply },
      },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      if (!request.isMultipart()) {
        throw httpError(415, 'Send the CSV file as multipart/form-data, in a part named "file".');
      }
      if (Number(request.headers['content-length']) > config.uploadMaxBytes + MULTIPART_OVERHEAD)
        throw tooLarge();
      let kind: unknown;
      let stored: StoredFile | undefined;
      let fileName = '';
      let stray = false;
      try {
        for await (const part of request.parts()) {
          if (part.type === 'field') {
            if (part.fieldname === 'kind') kind = part.value;
          } else if (part.fieldname !== 'file') {
            stray = true;
            part.file.resume(); // not ours: let it flow past
          } else {
            fileName = part.filename;
            stored = await storeStream(config.dataDir, tenant.clientId, part.file, () => part.file.truncated);
          }
        }
      } catch (err) {
        if (stored) await removeScratch(stored);
        const code = (err as { code?: string }).code;
        if (err instanceof FileTooLargeError || code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
        if (code === 'FST_FILES_LIMIT') throw fieldError('body.file', 'send one file at a time');
        throw multipartProblem(err);
      }
      const parsedKind = importKindSchema.safeParse(kind ?? 'targets');
      if (!stored || !parsedKind.success) {
        if (stored) await removeScratch(stored);
        if (!parsedKind.success) throw fieldError('body.kind', 'must be targets or revenue');
        throw fieldError(
          'body.file',
          stray
            ? 'is required: name the file part "file"'
            : 'is required: attach the CSV file in a part named "file"',
        );
      }
      const created = await createImport(app, {
        clientId: tenant.clientId,
        userId: authOf(request).user.id,
        kind: parsedKind.data,
        fileName,
        stored,
      });
      return reply.code(201).send(toImport(created));
    },
  );

  app.get(
    `${BASE}/imports`,
    {
      config: READ,
      schema: {
        tags: ['fileforce'],
        summary: "The client's file imports, newest first (the latest 100)",
        params: clientParams,
        response: { 200: fileImportListReply },
      },
    },
    async (request) => (await listClientImports(app, tenantOf(request).clientId)).map(toSummary),
  );

  app.get(
    `${BASE}/imports/:importId`,
    {
      config: READ,
      schema: {
        tags: ['fileforce'],
        summary: 'One import with its progress and the report of its bad rows',
        params: importParams,
        response: { 200: fileImportSchema, 404: messageReply },
      },
    },
    async (request) => toImport(await getImport(app, tenantOf(request).clientId, request.params.importId)),
  );

  app.get(
    `${BASE}/imports/:importId/skipped.csv`,
    {
      config: WRITE,
      schema: {
        tags: ['fileforce'],
        summary: "The rows the import skips, as CSV: Row, Problem, then the file's own columns",
        description:
          'Every refused row (not only the first 1000 the report lists), read again from the uploaded file with the saved mapping, for fixing and uploading again. Cells a spreadsheet would run as a formula are defused. 409 when the file is no longer stored.',
        params: importParams,
        response: { 404: messageReply, 409: messageReply },
      },
    },
    async (request, reply) => {
      const r = await getImport(app, tenantOf(request).clientId, request.params.importId);
      const pages = skippedRows(app, r);
      // The first page is read before the reply starts, so a missing file is a 409, not a cut stream.
      const first = await pages.next().catch((err: unknown) => {
        if (err instanceof ImportFailure) throw httpError(409, err.message);
        throw err;
      });
      async function* all() {
        if (first.done) return;
        yield first.value;
        yield* pages;
      }
      const base = r.fileName.replace(/\.csv$/i, '');
      return streamCsv(reply, `${base}-skipped-rows.csv`, skippedColumns(r), all());
    },
  );

  app.put(
    `${BASE}/imports/:importId`,
    {
      config: WRITE,
      schema: {
        tags: ['fileforce'],
        summary: 'Set the column mapping (our field → the file column)',
        params: importParams,
        body: updateImportBody,
        response: { 200: fileImportSchema, 404: messageReply, 409: messageReply, 422: errorReply },
      },
    },
    async (request) =>
      toImport(
        await setMapping(app, tenantOf(request).clientId, request.params.importId, request.body.mapping),
      ),
  );

  app.delete(
    `${BASE}/imports/:importId`,
    {
      config: WRITE,
      schema: {
        tags: ['fileforce'],
        summary: 'Delete an import that is not running, and its file (imported rows stay)',
        params: importParams,
        response: { 204: z.null(), 404: messageReply, 409: messageReply },
      },
    },
    async (request, reply) => {
      await removeImport(app, tenantOf(request).clientId, request.params.importId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${BASE}/targets/check`,
    {
      config: WRITE,
      schema: {
        tags: ['fileforce'],
        summary: 'Dry run: validate every row of an uploaded file, writing nothing',
        params: clientParams,
        body: checkTargetsBody,
        response: { 200: checkReply, 404: messageReply, 409: messageReply, 422: errorReply },
      },
    },
    async (request) =>
      checkImport(app, tenantOf(request).clientId, request.body.import_id, request.body.mapping),
  );

  app.post(
    `${BASE}/imports/:importId/start`,
    {
      config: WRITE,
      schema: {
        tags: ['fileforce'],
        summary: 'Queue the import; follow its progress with GET imports/{importId}',
        description:
          'A finished import runs again from the start (rows are upserted, so each lands once); a failed one resumes; a queued or running one is left as it is.',
        params: importParams,
        response: { 202: fileImportSchema, 404: messageReply, 422: errorReply },
      },
    },
    async (request, reply) => {
      const started = await startImport(app, tenantOf(request).clientId, request.params.importId, enqueue);
      return reply.code(202).send(toImport(started));
    },
  );

  app.get(
    `${BASE}/revenue`,
    {
      config: REPORTS,
      schema: {
        tags: ['fileforce'],
        summary: "The client's imported opportunities, latest close date first",
        params: clientParams,
        querystring: revenueQuery,
        response: { 200: revenueReply },
      },
    },
    async (request) =>
      revenueOf(app, tenantOf(request).clientId, request.query.page, request.query.page_size),
  );
};
