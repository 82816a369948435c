import { z } from 'zod';
import { OPPORTUNITY_REPORT_FILTERS, reportRangeQuery } from './reports.ts';

/**
 * Export files (issue 18's `GET /download/{id}` "a finished export file"; issue 17's exports): a
 * report's CSV written by a job into the database, so an export too long to wait for in the browser
 * is asked for once and downloaded when it is done. Kept for EXPORT_FILE_TTL_DAYS.
 */
export const EXPORT_FILE_REPORTS = ['opportunity'] as const;
export const EXPORT_FILE_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export const EXPORT_FILE_TTL_DAYS = 7;
/** The newest files listed (older ones stay downloadable until they expire). */
export const EXPORT_FILE_LIST_MAX = 20;

export const createExportFileBody = z
  .object({
    report: z.enum(EXPORT_FILE_REPORTS, { message: `must be one of ${EXPORT_FILE_REPORTS.join(', ')}` }),
    filter: z
      .enum(OPPORTUNITY_REPORT_FILTERS, {
        message: `must be one of ${OPPORTUNITY_REPORT_FILTERS.join(', ')}`,
      })
      .default('all'),
  })
  .and(reportRangeQuery);
export type CreateExportFileBody = z.infer<typeof createExportFileBody>;

export const exportFileSchema = z.object({
  id: z.string(),
  report: z.enum(EXPORT_FILE_REPORTS),
  filter: z.enum(OPPORTUNITY_REPORT_FILTERS),
  /** The file's name when downloaded. */
  name: z.string(),
  status: z.enum(EXPORT_FILE_STATUSES),
  range: z.object({ from: z.number().int(), to: z.number().int() }),
  rows: z.number().int(),
  bytes: z.number().int(),
  error: z.string().nullable(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
  expires_at: z.string(),
  /** `/v1/download/{id}` once the file is done, else null. */
  download_url: z.string().nullable(),
});
export type ExportFile = z.infer<typeof exportFileSchema>;

export const exportFileListReply = z.object({ items: z.array(exportFileSchema) });
