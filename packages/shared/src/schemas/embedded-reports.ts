import { z } from 'zod';
import {
  pipelineGeneratedSchema,
  pipelineProgressedSchema,
  reportSummarySchema,
  valueReportSchema,
} from './reports.ts';

/**
 * Embedded reports (SPEC.md §7 "GET /rest/reports/embedded[/{id}]; GET and POST
 * /rest/client/{id}/reports/embedded"; issue 17): a saved report of a client, shared as an
 * expiring, read-only link that another tool can show in a frame. The link carries a random token;
 * only its SHA-256 is stored. docs/reports.md "Embedded reports".
 */

/** Which report a saved one shows: the reports of docs/reports.md that need nothing but a range. */
export const EMBEDDED_REPORT_KINDS = [
  'summary',
  'value_report',
  'pipeline_generated',
  'pipeline_progressed',
] as const;
export type EmbeddedReportKind = (typeof EMBEDDED_REPORT_KINDS)[number];
export const EMBEDDED_REPORT_LABELS: Record<EmbeddedReportKind, string> = {
  summary: 'Summary',
  value_report: 'Value report',
  pipeline_generated: 'Pipeline generated',
  pipeline_progressed: 'Pipeline progressed',
};

export const EMBEDDED_RANGE_DAYS = { min: 1, max: 365, default: 90 } as const;
export const EMBEDDED_EXPIRY_DAYS = { min: 1, max: 90, default: 30 } as const;
/** Rows of a pipeline report an embedded link shows (the first by date; the total is given). */
export const EMBEDDED_MAX_ROWS = 100;
/** A link's token: 32 random bytes, base64url (43 characters). */
export const EMBED_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** The header the embed page sends the token in (the token is in the page's fragment, never in a URL sent). */
export const EMBED_TOKEN_HEADER = 'x-embed-token';

export const EMBEDDED_REPORT_STATUSES = ['active', 'expired', 'revoked'] as const;

const wholeDays = (bounds: { min: number; max: number; default: number }) =>
  z
    .number({ error: 'must be a whole number of days' })
    .int('must be a whole number of days')
    .min(bounds.min, `must be at least ${bounds.min} day${bounds.min === 1 ? '' : 's'}`)
    .max(bounds.max, `must be at most ${bounds.max} days`)
    .default(bounds.default);

/** `POST /v1/rest/client/{id}/reports/embedded`. */
export const embeddedReportCreateBody = z.object({
  name: z
    .string({ error: 'must be text' })
    .trim()
    .min(1, 'must not be empty')
    .max(120, 'must be at most 120 characters'),
  report: z.enum(EMBEDDED_REPORT_KINDS, {
    message: `must be one of ${EMBEDDED_REPORT_KINDS.join(', ')}`,
  }),
  /** The report covers the last `range_days` days up to the moment it is opened. */
  range_days: wholeDays(EMBEDDED_RANGE_DAYS),
  /** The link stops working this many days after it is made. */
  expires_in_days: wholeDays(EMBEDDED_EXPIRY_DAYS),
});
export type EmbeddedReportCreateBody = z.input<typeof embeddedReportCreateBody>;

/** One saved report as its client's members see it (never its token). */
export const embeddedReportSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  report: z.enum(EMBEDDED_REPORT_KINDS),
  range_days: z.number().int(),
  status: z.enum(EMBEDDED_REPORT_STATUSES),
  created_at: z.iso.datetime({ offset: true }),
  created_by: z.string().nullable(),
  expires_at: z.iso.datetime({ offset: true }),
  revoked_at: z.iso.datetime({ offset: true }).nullable(),
  views: z.number().int(),
  last_viewed_at: z.iso.datetime({ offset: true }).nullable(),
});
export type EmbeddedReport = z.infer<typeof embeddedReportSchema>;
export const embeddedReportListSchema = z.object({ items: z.array(embeddedReportSchema) });
export type EmbeddedReportList = z.infer<typeof embeddedReportListSchema>;

/** The reply to a create: the only time the token and the link are shown. */
export const embeddedReportCreatedSchema = embeddedReportSchema.extend({
  token: z.string(),
  url: z.string(),
});
export type EmbeddedReportCreated = z.infer<typeof embeddedReportCreatedSchema>;

/** `GET /v1/rest/reports/embedded[/{id}]`: the token, in the `x-embed-token` header or `token` query. */
export const embedTokenQuery = z.object({
  token: z.string().regex(EMBED_TOKEN_PATTERN, 'must be the token of an embedded report link').optional(),
});
export const embeddedReportIdParam = z.object({
  id: z.uuid('must be the id (UUID) of an embedded report'),
});

const pipelineRows = { total: z.number().int() };

/** What the link shows: the saved report's name, client and range, and the report itself. */
export const embeddedReportViewSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  client_name: z.string(),
  report: z.enum(EMBEDDED_REPORT_KINDS),
  range_days: z.number().int(),
  expires_at: z.iso.datetime({ offset: true }),
  generated_at: z.iso.datetime({ offset: true }),
  data: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('summary'), summary: reportSummarySchema }),
    z.object({ kind: z.literal('value_report'), value_report: valueReportSchema }),
    z.object({
      kind: z.literal('pipeline_generated'),
      pipeline_generated: pipelineGeneratedSchema.extend(pipelineRows),
    }),
    z.object({
      kind: z.literal('pipeline_progressed'),
      pipeline_progressed: pipelineProgressedSchema.extend(pipelineRows),
    }),
  ]),
});
export type EmbeddedReportView = z.infer<typeof embeddedReportViewSchema>;
