import type { FastifyInstance } from 'fastify';
import {
  EXPORT_FILE_LIST_MAX,
  EXPORT_FILE_TTL_DAYS,
  type CreateExportFileBody,
  type ExportFile,
} from '@rally/shared/schemas/export-files';
import type { Db } from '../../db/client.ts';
import { csvText } from '../../lib/csv-export.ts';
import { httpError } from '../../lib/errors.ts';
import { OPPORTUNITY_COLUMNS } from '../reports/routes.ts';
import { epochOf, opportunityExportPages, rangeOf } from '../reports/service.ts';
import * as repo from './repository.ts';
import type { ExportFileRow } from './repository.ts';

export const EXPORT_FILE_JOB = 'export-file';
const DAY_MS = 86_400_000;
const FAILED = 'The export stopped after a server error. Ask for the file again.';

const day = (d: Date) => d.toISOString().slice(0, 10);

function toApi(row: ExportFileRow): ExportFile {
  return {
    id: row.id,
    report: row.report,
    filter: row.filter,
    name: row.filename,
    status: row.status,
    range: epochOf({ from: row.rangeFrom, to: row.rangeTo }),
    rows: row.rows,
    bytes: row.bytes,
    error: row.error,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
    expires_at: row.expiresAt.toISOString(),
    download_url: row.status === 'done' ? `/v1/download/${row.id}` : null,
  };
}

/**
 * Export files: a report's CSV written by a job, part by part, then downloaded through
 * `GET /v1/download/{id}` (SPEC.md §7; issue 18 "or a finished export file"). The rows are those of
 * the report's streamed export at the moment the job runs.
 */
export function createExportFileService(app: FastifyInstance) {
  const db: Db = app.db;

  async function run(id: string): Promise<void> {
    const row = await repo.findFileById(db, id);
    if (!row || row.status === 'done' || row.status === 'failed') return;
    await repo.startWriting(db, id);
    let rows = 0;
    let bytes = 0;
    try {
      const range = epochOf({ from: row.rangeFrom, to: row.rangeTo });
      const pages = await opportunityExportPages(db, row.clientId, { ...range, filter: row.filter });
      async function* counted() {
        for await (const page of pages) {
          rows += page.length;
          yield page;
        }
      }
      let seq = 0;
      for await (const text of csvText(OPPORTUNITY_COLUMNS, counted())) {
        await repo.writePart(db, id, seq++, text);
        bytes += Buffer.byteLength(text);
      }
      await repo.finish(db, id, { status: 'done', rows, bytes, error: null });
    } catch (err) {
      app.log.error({ err, exportFileId: id }, 'export file failed');
      await repo.finish(db, id, { status: 'failed', rows, bytes, error: FAILED });
    }
  }

  // An error is caught and the file marked failed; a worker that dies mid-file leaves the job to
  // expire, and its retry writes the file again from the start (startWriting empties it).
  app.queue.register<{ fileId: string }>(EXPORT_FILE_JOB, (data) => run(data.fileId), {
    retryLimit: 2,
    expireInSeconds: 3600,
  });

  return {
    run,

    async create(clientId: string, userId: string, body: CreateExportFileBody): Promise<ExportFile> {
      const now = new Date();
      await repo.deleteExpired(db, now);
      const range = rangeOf(body, now);
      const row = await repo.insertFile(db, {
        clientId,
        createdBy: userId,
        report: body.report,
        filter: body.filter,
        rangeFrom: range.from,
        rangeTo: range.to,
        filename: `opportunities-${body.filter}-${day(range.from)}-${day(range.to)}.csv`,
        expiresAt: new Date(now.getTime() + EXPORT_FILE_TTL_DAYS * DAY_MS),
      });
      await app.queue.send(EXPORT_FILE_JOB, { fileId: row.id });
      return toApi(row);
    },

    async list(clientId: string): Promise<ExportFile[]> {
      return (await repo.listFiles(db, clientId, new Date(), EXPORT_FILE_LIST_MAX)).map(toApi);
    },

    /**
     * A finished file of the client as a stream of its text; null when the id is not one of its
     * files (the download route then answers 404). `authorize` throws for a member who may not read
     * reports. 409 while it is being written or after it failed.
     */
    async download(
      clientId: string,
      id: string,
      authorize: () => void,
    ): Promise<{ filename: string; parts: AsyncIterable<string> } | null> {
      const row = await repo.findFile(db, clientId, id, new Date());
      if (!row) return null;
      authorize(); // before its state says anything

      if (row.status === 'failed') throw httpError(409, row.error ?? FAILED);
      if (row.status !== 'done') {
        throw httpError(409, 'This export is not finished yet: download it when its status is done.');
      }
      return { filename: row.filename, parts: repo.partsOf(db, id) };
    },
  };
}

export type ExportFileService = ReturnType<typeof createExportFileService>;
