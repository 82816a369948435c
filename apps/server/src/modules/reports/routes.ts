import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  OPPORTUNITY_REPORT_FILTERS,
  opportunityDetailSchema,
  opportunityReportPage,
  opportunityReportQuery,
  generatedQuery,
  progressedQuery,
  pipelineGeneratedSchema,
  pipelineProgressedSchema,
  reportRangeQuery,
  reportSummarySchema,
  valueReportSchema,
} from '@rally/shared/schemas/reports';
import type { ReportOpportunity, StageMove } from '@rally/shared/schemas/reports';
import { tenantOf } from '../../lib/access.ts';
import { streamCsv } from '../../lib/csv-export.ts';
import type { CsvColumn } from '../../lib/csv-export.ts';
import { httpError } from '../../lib/errors.ts';
import {
  opportunityDetail,
  opportunityExportPages,
  opportunityReport,
  generatedExportPages,
  pipelineGenerated,
  pipelineProgressed,
  progressedExportPages,
  summary,
  valueReport,
} from './service.ts';

const clientIdParam = z.object({ clientId: z.uuid('must be the id (UUID) of a client') });
const opportunityParams = clientIdParam.extend({
  opportunityId: z.uuid('must be the id (UUID) of an opportunity'),
});
const access = { permission: 'reports.read' } as const;
const csvReply = { 200: z.string().describe('text/csv') };
const exportQuery = reportRangeQuery.and(
  z.object({
    filter: z
      .enum(OPPORTUNITY_REPORT_FILTERS, {
        message: `must be one of ${OPPORTUNITY_REPORT_FILTERS.join(', ')}`,
      })
      .default('all'),
  }),
);

const amount = (cents: number) => (cents / 100).toFixed(2);

export const OPPORTUNITY_COLUMNS: CsvColumn<ReportOpportunity>[] = [
  { header: 'Opportunity', value: (o) => o.name },
  { header: 'Account', value: (o) => o.account_name },
  { header: 'Stage', value: (o) => o.stage },
  { header: 'Amount', value: (o) => Number(amount(o.amount_cents)) },
  { header: 'Currency', value: (o) => o.currency },
  { header: 'Created', value: (o) => o.created_at },
  { header: 'Close date', value: (o) => o.close_date },
  { header: 'Won', value: (o) => o.is_won },
  { header: 'Generated (first engagement)', value: (o) => o.generated_engaged_at },
  { header: 'Revenue influenced', value: (o) => o.influenced },
  { header: 'Engaged prospects', value: (o) => o.engaged_prospects },
];

const MOVE_COLUMNS: CsvColumn<StageMove>[] = [
  { header: 'Opportunity', value: (m) => m.name },
  { header: 'Account', value: (m) => m.account_name },
  { header: 'From stage', value: (m) => m.from_stage },
  { header: 'To stage', value: (m) => m.to_stage },
  { header: 'Moved', value: (m) => m.moved_at },
  { header: 'Last engagement before', value: (m) => m.engaged_at },
  { header: 'Amount', value: (m) => Number(amount(m.amount_cents)) },
  { header: 'Currency', value: (m) => m.currency },
];

const day = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().slice(0, 10);

/**
 * Pipeline and revenue reports (SPEC.md §7 "Reports and others"; issue 17). The attribution model is
 * docs/reports.md. Every number of the summary opens to the rows behind it: generated and
 * progressed list their opportunities and moves, and one opportunity lists its engaged prospects.
 */
export const reportRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app;

  app.get(
    '/report/client/:clientId/summary',
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'Pipeline generated and progressed, revenue influenced and engagement of a date range',
        params: clientIdParam,
        querystring: reportRangeQuery,
        response: { 200: reportSummarySchema },
      },
    },
    async (request) => summary(db, tenantOf(request).clientId, request.query),
  );

  app.get(
    '/report/client/:clientId/pipeline/generated',
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'Opportunities created in the range after an engagement of their account within the window',
        description:
          'A page of them, newest first unless `sort` (and `order`) ask for another column, with their number and amount in all and per month.',
        params: clientIdParam,
        querystring: generatedQuery,
        response: { 200: pipelineGeneratedSchema },
      },
    },
    async (request) => pipelineGenerated(db, tenantOf(request).clientId, request.query),
  );

  app.get(
    '/report/client/:clientId/pipeline/generated/export',
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'The generated pipeline as CSV',
        params: clientIdParam,
        querystring: reportRangeQuery,
        response: csvReply,
      },
    },
    async (request, reply) => {
      const report = await generatedExportPages(db, tenantOf(request).clientId, request.query);
      const name = `pipeline-generated-${day(report.range.from)}-${day(report.range.to)}.csv`;
      return streamCsv(reply, name, OPPORTUNITY_COLUMNS, report.pages);
    },
  );

  app.get(
    '/report/client/:clientId/pipeline/progressed',
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'Stage moves in the range into a later selected or valuable stage after an engagement',
        description:
          'A page of them, newest first unless `sort` (and `order`) ask for another column, with their number.',
        params: clientIdParam,
        querystring: progressedQuery,
        response: { 200: pipelineProgressedSchema },
      },
    },
    async (request) => pipelineProgressed(db, tenantOf(request).clientId, request.query),
  );

  app.get(
    '/report/client/:clientId/pipeline/progressed/export',
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'The progressed pipeline as CSV',
        params: clientIdParam,
        querystring: reportRangeQuery,
        response: csvReply,
      },
    },
    async (request, reply) => {
      const report = await progressedExportPages(db, tenantOf(request).clientId, request.query);
      const name = `pipeline-progressed-${day(report.range.from)}-${day(report.range.to)}.csv`;
      return streamCsv(reply, name, MOVE_COLUMNS, report.pages);
    },
  );

  app.get(
    '/report/client/:clientId/opportunity',
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'Opportunities created or won in the range, with their attribution, paged',
        params: clientIdParam,
        querystring: opportunityReportQuery,
        response: { 200: opportunityReportPage },
      },
    },
    async (request) => opportunityReport(db, tenantOf(request).clientId, request.query),
  );

  app.get(
    '/report/client/:clientId/opportunity/export',
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'The opportunity report as CSV, streamed (every row of the range)',
        params: clientIdParam,
        querystring: exportQuery,
        response: csvReply,
      },
    },
    async (request, reply) => {
      const pages = await opportunityExportPages(db, tenantOf(request).clientId, request.query);
      return streamCsv(reply, `opportunities-${request.query.filter}.csv`, OPPORTUNITY_COLUMNS, pages);
    },
  );

  app.get(
    '/report/client/:clientId/opportunity/:opportunityId',
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'One opportunity with the engaged prospects of its account and its stage history',
        params: opportunityParams,
        response: { 200: opportunityDetailSchema },
      },
    },
    async (request) => {
      const found = await opportunityDetail(db, tenantOf(request).clientId, request.params.opportunityId);
      if (!found) throw httpError(404, 'Opportunity not found.');
      return found;
    },
  );

  app.get(
    '/report/client/:clientId/value_report',
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'Spend on superprospects in the range against the pipeline and revenue it was behind',
        params: clientIdParam,
        querystring: reportRangeQuery,
        response: { 200: valueReportSchema },
      },
    },
    async (request) => valueReport(db, tenantOf(request).clientId, request.query),
  );
};
