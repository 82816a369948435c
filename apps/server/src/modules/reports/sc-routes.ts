import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  performanceByDateSchema,
  performanceQuery,
  reportRangeQuery,
  revenueByMonthSchema,
} from '@rally/shared/schemas/reports';
import type { PerformanceByDate, RevenueByMonth } from '@rally/shared/schemas/reports';
import { tenantOf } from '../../lib/access.ts';
import { sendCsv } from '../../lib/csv-export.ts';
import type { CsvColumn } from '../../lib/csv-export.ts';
import { performance, revenueByMonth } from './service.ts';

const access = { permission: 'reports.read' } as const;
const csvReply = { 200: z.string().describe('text/csv') };
const day = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().slice(0, 10);

const PERFORMANCE_COLUMNS: CsvColumn<PerformanceByDate['rows'][number]>[] = [
  { header: 'Date', value: (r) => r.date },
  { header: 'Impressions', value: (r) => r.impressions },
  { header: 'Clicks', value: (r) => r.clicks },
  { header: 'Landing page views', value: (r) => r.views },
  { header: 'New superprospects', value: (r) => r.new_superprospects },
];
const REVENUE_COLUMNS: CsvColumn<RevenueByMonth['rows'][number]>[] = [
  { header: 'Month', value: (r) => r.month },
  { header: 'Won', value: (r) => r.won },
  { header: 'Revenue won', value: (r) => Number((r.revenue_won_cents / 100).toFixed(2)) },
  { header: 'Influenced', value: (r) => r.influenced },
  { header: 'Revenue influenced', value: (r) => Number((r.revenue_influenced_cents / 100).toFixed(2)) },
];

/**
 * The cadence service's report calls (SPEC.md §7 "/sc": performance by date and revenue, each with
 * its export). The client is the x-client-id header's; ranges are epoch seconds (SPEC.md §9).
 */
export const scReportRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app;

  app.get(
    '/performance/by_date',
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'Impressions, clicks, landing page views and new superprospects per day, week or month',
        querystring: performanceQuery,
        response: { 200: performanceByDateSchema },
      },
    },
    async (request) => performance(db, tenantOf(request).clientId, request.query),
  );

  app.get(
    '/performance/by_date/export',
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'Performance by date as CSV',
        querystring: performanceQuery,
        response: csvReply,
      },
    },
    async (request, reply) => {
      const report = await performance(db, tenantOf(request).clientId, request.query);
      const name = `performance-${report.view}-${day(report.range.from)}-${day(report.range.to)}.csv`;
      return sendCsv(reply, name, PERFORMANCE_COLUMNS, report.rows);
    },
  );

  app.get(
    '/revenue',
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'Revenue won and revenue influenced per month (docs/reports.md)',
        querystring: reportRangeQuery,
        response: { 200: revenueByMonthSchema },
      },
    },
    async (request) => revenueByMonth(db, tenantOf(request).clientId, request.query),
  );

  app.get(
    '/revenue/export',
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'Revenue by month as CSV',
        querystring: reportRangeQuery,
        response: csvReply,
      },
    },
    async (request, reply) => {
      const report = await revenueByMonth(db, tenantOf(request).clientId, request.query);
      return sendCsv(
        reply,
        `revenue-${day(report.range.from)}-${day(report.range.to)}.csv`,
        REVENUE_COLUMNS,
        report.rows,
      );
    },
  );
};
