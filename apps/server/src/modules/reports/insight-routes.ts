import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  alignmentExportQuery,
  alignmentQuery,
  alignmentSchema,
  buyingGroupSchema,
  contentDetailSchema,
  contentExportQuery,
  contentReportSchema,
  dashboardStatsSchema,
  priorityExportQuery,
  priorityQuery,
  prioritySchema,
  reportFeedQuery,
  reportFeedSchema,
  reportSearchQuery,
  reportSearchSchema,
  targetActivitiesQuery,
  targetActivitiesSchema,
  targetReportSchema,
  targetStatsSchema,
  utilizationExportQuery,
  utilizationQuery,
  utilizationSchema,
} from '@rally/shared/schemas/report-insights';
import type {
  ActivityItem,
  AlignmentAccount,
  BuyingGroupMember,
  ContentDetail,
  ContentPerformance,
  LandingPagePerformance,
  PriorityRow,
  ReportFeedItem,
  UtilizationRow,
} from '@rally/shared/schemas/report-insights';
import { reportRangeQuery } from '@rally/shared/schemas/reports';
import { tenantOf } from '../../lib/access.ts';
import { sendCsv, streamCsv } from '../../lib/csv-export.ts';
import type { CsvColumn } from '../../lib/csv-export.ts';
import { httpError } from '../../lib/errors.ts';
import {
  alignment,
  alignmentExport,
  buyingGroup,
  targetActivities,
  targetReport,
  targetStats,
} from './accounts.ts';
import { contentDetail, contentReport, reportSearch } from './content.ts';
import {
  dashboardStats,
  feedExport,
  priority,
  priorityExport,
  reportFeed,
  utilization,
  utilizationExport,
} from './signals.ts';

const access = { permission: 'reports.read' } as const;
const csvReply = { 200: z.string().describe('text/csv') };
const clientIdParam = z.object({ clientId: z.uuid('must be the id (UUID) of a client') });
const targetParams = clientIdParam.extend({ targetId: z.uuid('must be the id (UUID) of a target') });
const accountParams = clientIdParam.extend({
  accountId: z.uuid('must be the id (UUID) of an account (company)'),
});
const contentParams = clientIdParam.extend({ contentId: z.uuid('must be the id (UUID) of a content item') });
/** The most rows an export writes (the pages of the screen are at most 200). */
const EXPORT_LIMIT = 50_000;
const day = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().slice(0, 10);
const rangeName = (r: { from: number; to: number }) => `${day(r.from)}-${day(r.to)}`;
const amount = (cents: number) => Number((cents / 100).toFixed(2));

const ALIGNMENT_COLUMNS: CsvColumn<AlignmentAccount>[] = [
  { header: 'Account', value: (a) => a.name },
  { header: 'Website', value: (a) => a.website },
  { header: 'Worked by', value: (a) => a.segment },
  { header: 'Outreach activities', value: (a) => a.outreach_activities },
  { header: 'Contacts reached out to', value: (a) => a.outreach_contacts },
  { header: 'Last outreach', value: (a) => a.last_outreach_at },
  { header: 'Impressions', value: (a) => a.impressions },
  { header: 'Clicks', value: (a) => a.clicks },
  { header: 'Landing page views', value: (a) => a.views },
  { header: 'Engaged prospects', value: (a) => a.engaged_prospects },
  { header: 'Last engagement', value: (a) => a.last_engaged_at },
];
const ACTIVITY_COLUMNS: CsvColumn<ActivityItem>[] = [
  { header: 'When', value: (a) => a.at },
  { header: 'Kind', value: (a) => a.kind },
  { header: 'Detail', value: (a) => a.detail },
  { header: 'Count', value: (a) => a.count },
];
const BUYING_GROUP_COLUMNS: CsvColumn<BuyingGroupMember>[] = [
  { header: 'Role', value: (m) => m.role },
  { header: 'Primary', value: (m) => m.is_primary },
  { header: 'Name', value: (m) => m.name },
  { header: 'E-mail', value: (m) => m.email },
  { header: 'Title', value: (m) => m.title },
  { header: 'Impressions', value: (m) => m.impressions },
  { header: 'Clicks', value: (m) => m.clicks },
  { header: 'Landing page views', value: (m) => m.views },
  { header: 'Last engagement', value: (m) => m.last_engaged_at },
  { header: 'Superprospect since', value: (m) => m.super_date },
  { header: 'Outreach activities', value: (m) => m.outreach_activities },
];
const UTILIZATION_COLUMNS: CsvColumn<UtilizationRow>[] = [
  { header: 'Prospect', value: (r) => r.name },
  { header: 'E-mail', value: (r) => r.email },
  { header: 'Company', value: (r) => r.company_name },
  { header: 'Cadence', value: (r) => r.cadence_name },
  { header: 'Sales rep', value: (r) => r.sales_rep },
  { header: 'Superprospect since', value: (r) => r.super_date },
  { header: 'Contacted', value: (r) => r.contacted_at },
  { header: 'Days to contact', value: (r) => r.days_to_contact },
];
const FEED_COLUMNS: CsvColumn<ReportFeedItem>[] = [
  { header: 'When', value: (f) => f.at },
  { header: 'Kind', value: (f) => f.kind },
  { header: 'Who or what', value: (f) => f.title },
  { header: 'Detail', value: (f) => f.detail },
];
const PRIORITY_COLUMNS: CsvColumn<PriorityRow>[] = [
  { header: 'Opportunity', value: (o) => o.name },
  { header: 'Account', value: (o) => o.account_name },
  { header: 'Stage', value: (o) => o.stage },
  { header: 'Amount', value: (o) => amount(o.amount_cents) },
  { header: 'Currency', value: (o) => o.currency },
  { header: 'Close date', value: (o) => o.close_date },
  { header: 'Score', value: (o) => o.score },
  { header: 'Impressions', value: (o) => o.impressions },
  { header: 'Clicks', value: (o) => o.clicks },
  { header: 'Landing page views', value: (o) => o.views },
  { header: 'Engaged prospects', value: (o) => o.engaged_prospects },
  { header: 'Last engagement', value: (o) => o.last_engaged_at },
];
const CONTENT_COLUMNS: CsvColumn<ContentPerformance>[] = [
  { header: 'Ad', value: (c) => c.name },
  { header: 'Title', value: (c) => c.title },
  { header: 'Status', value: (c) => (c.is_archived ? 'archived' : c.status) },
  { header: 'Impressions', value: (c) => c.impressions },
  { header: 'Clicks', value: (c) => c.clicks },
  { header: 'CTR', value: (c) => c.ctr },
  { header: 'Landing page views', value: (c) => c.views },
  { header: 'Targets reached', value: (c) => c.targets_reached },
];
const LANDING_PAGE_COLUMNS: CsvColumn<LandingPagePerformance>[] = [
  { header: 'Landing page', value: (p) => p.name },
  { header: 'Clicks to it', value: (p) => p.clicks },
  { header: 'Views', value: (p) => p.views },
  { header: 'View rate', value: (p) => p.view_rate },
  { header: 'Targets reached', value: (p) => p.targets_reached },
];
const CONTENT_TARGET_COLUMNS: CsvColumn<ContentDetail['targets'][number]>[] = [
  { header: 'Prospect', value: (t) => t.name },
  { header: 'Company', value: (t) => t.company_name },
  { header: 'Cadence', value: (t) => t.cadence_name },
  { header: 'Impressions', value: (t) => t.impressions },
  { header: 'Clicks', value: (t) => t.clicks },
  { header: 'Landing page views', value: (t) => t.views },
  { header: 'Last engagement', value: (t) => t.last_engaged_at },
];

/**
 * Account, signal, content and search reports (SPEC.md §7 "Reports and others"; issue 17;
 * docs/reports.md). Every table has a CSV export beside it (`…/export`, at most 50,000 rows).
 */
export const reportInsightRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app;
  const base = '/report/client/:clientId';

  async function targetOf(clientId: string, targetId: string) {
    const target = await targetReport(db, clientId, targetId);
    if (!target) throw httpError(404, 'Target not found.');
    return target;
  }

  app.get(
    `${base}/alignment`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'Accounts worked by sales outreach (CRM activity), by Rally ads (engagement), or both',
        params: clientIdParam,
        querystring: alignmentQuery,
        response: { 200: alignmentSchema },
      },
    },
    async (request) => alignment(db, tenantOf(request).clientId, request.query),
  );

  app.get(
    `${base}/alignment/export`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'The alignment accounts as CSV',
        params: clientIdParam,
        querystring: alignmentExportQuery,
        response: csvReply,
      },
    },
    async (request, reply) => {
      const r = await alignmentExport(db, tenantOf(request).clientId, request.query);
      return streamCsv(
        reply,
        `alignment-${request.query.segment}-${rangeName(r.range)}.csv`,
        ALIGNMENT_COLUMNS,
        r.pages,
      );
    },
  );

  app.get(
    `${base}/target/:targetId`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'One target: its prospect, cadence, company, rep and engagement counters',
        params: targetParams,
        response: { 200: targetReportSchema },
      },
    },
    async (request) => targetOf(tenantOf(request).clientId, request.params.targetId),
  );

  app.get(
    `${base}/target/:targetId/stats`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: "One target's engagement in the range, per ad, with its outreach and open pipeline",
        params: targetParams,
        querystring: reportRangeQuery,
        response: { 200: targetStatsSchema },
      },
    },
    async (request) => {
      const { clientId } = tenantOf(request);
      return targetStats(db, clientId, await targetOf(clientId, request.params.targetId), request.query);
    },
  );

  app.get(
    `${base}/target/:targetId/activities`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary:
          "One target's timeline: impressions, clicks, views, CRM activities and its accounts' stage moves",
        params: targetParams,
        querystring: targetActivitiesQuery,
        response: { 200: targetActivitiesSchema },
      },
    },
    async (request) => {
      const { clientId } = tenantOf(request);
      return targetActivities(db, clientId, await targetOf(clientId, request.params.targetId), request.query);
    },
  );

  app.get(
    `${base}/target/:targetId/activities/export`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: "One target's timeline as CSV",
        params: targetParams,
        querystring: reportRangeQuery,
        response: csvReply,
      },
    },
    async (request, reply) => {
      const { clientId } = tenantOf(request);
      const target = await targetOf(clientId, request.params.targetId);
      const r = await targetActivities(db, clientId, target, request.query, { limit: EXPORT_LIMIT });
      return sendCsv(reply, `target-activities-${rangeName(r.range)}.csv`, ACTIVITY_COLUMNS, r.items);
    },
  );

  app.get(
    `${base}/buying_group/:accountId`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: "One account's people grouped by opportunity contact role, with their engagement",
        params: accountParams,
        querystring: reportRangeQuery,
        response: { 200: buyingGroupSchema },
      },
    },
    async (request) => {
      const found = await buyingGroup(
        db,
        tenantOf(request).clientId,
        request.params.accountId,
        request.query,
      );
      if (!found) throw httpError(404, 'Account not found.');
      return found;
    },
  );

  app.get(
    `${base}/buying_group/:accountId/export`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: "One account's buying group as CSV",
        params: accountParams,
        querystring: reportRangeQuery,
        response: csvReply,
      },
    },
    async (request, reply) => {
      const found = await buyingGroup(
        db,
        tenantOf(request).clientId,
        request.params.accountId,
        request.query,
      );
      if (!found) throw httpError(404, 'Account not found.');
      return sendCsv(
        reply,
        `buying-group-${rangeName(found.range)}.csv`,
        BUYING_GROUP_COLUMNS,
        found.roles.flatMap((r) => r.members),
      );
    },
  );

  app.get(
    `${base}/dashboard/stats`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: "A dashboard's headline numbers for the range (each opens in another report)",
        params: clientIdParam,
        querystring: reportRangeQuery,
        response: { 200: dashboardStatsSchema },
      },
    },
    async (request) => dashboardStats(db, tenantOf(request).clientId, request.query),
  );

  app.get(
    `${base}/signals/utilization`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary:
          'Superprospects of the range contacted by sales outreach after becoming super: share and list',
        params: clientIdParam,
        querystring: utilizationQuery,
        response: { 200: utilizationSchema },
      },
    },
    async (request) => utilization(db, tenantOf(request).clientId, request.query),
  );

  app.get(
    `${base}/signals/utilization/export`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'The superprospects of signals/utilization as CSV',
        params: clientIdParam,
        querystring: utilizationExportQuery,
        response: csvReply,
      },
    },
    async (request, reply) => {
      const r = utilizationExport(db, tenantOf(request).clientId, request.query);
      return streamCsv(
        reply,
        `signals-utilization-${request.query.filter}-${rangeName(r.range)}.csv`,
        UTILIZATION_COLUMNS,
        r.pages,
      );
    },
  );

  app.get(
    `${base}/feed`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'Clicks, landing page views, new superprospects and stage moves, newest first, paged',
        params: clientIdParam,
        querystring: reportFeedQuery,
        response: { 200: reportFeedSchema },
      },
    },
    async (request) => reportFeed(db, tenantOf(request).clientId, request.query),
  );

  app.get(
    `${base}/feed/export`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'The report feed of the range as CSV',
        params: clientIdParam,
        querystring: reportRangeQuery,
        response: csvReply,
      },
    },
    async (request, reply) => {
      const r = feedExport(db, tenantOf(request).clientId, request.query);
      return streamCsv(reply, `feed-${rangeName(r.range)}.csv`, FEED_COLUMNS, r.pages);
    },
  );

  app.get(
    `${base}/pipeline/priority`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: "Open opportunities ranked by their account's engagement in the last `days` days",
        params: clientIdParam,
        querystring: priorityQuery,
        response: { 200: prioritySchema },
      },
    },
    async (request) => priority(db, tenantOf(request).clientId, request.query),
  );

  app.get(
    `${base}/pipeline/priority/export`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'The sales priority list as CSV',
        params: clientIdParam,
        querystring: priorityExportQuery,
        response: csvReply,
      },
    },
    async (request, reply) => {
      const r = await priorityExport(db, tenantOf(request).clientId, request.query);
      return streamCsv(reply, `pipeline-priority-${r.days}d.csv`, PRIORITY_COLUMNS, r.pages);
    },
  );

  app.get(
    `${base}/search`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'Prospects, companies, cadences and content whose text contains `search`',
        params: clientIdParam,
        querystring: reportSearchQuery,
        response: { 200: reportSearchSchema },
      },
    },
    async (request) => reportSearch(db, tenantOf(request).clientId, request.query),
  );

  app.get(
    `${base}/content`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'Performance per ad and per landing page in the range: impressions, clicks, views, CTR',
        params: clientIdParam,
        querystring: reportRangeQuery,
        response: { 200: contentReportSchema },
      },
    },
    async (request) => contentReport(db, tenantOf(request).clientId, request.query),
  );

  app.get(
    `${base}/content/export`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'Content performance as CSV: `kind=ads` (default) or `kind=landing_pages`',
        params: clientIdParam,
        querystring: contentExportQuery,
        response: csvReply,
      },
    },
    async (request, reply) => {
      const r = await contentReport(db, tenantOf(request).clientId, request.query);
      const name = `content-${request.query.kind.replace('_', '-')}-${rangeName(r.range)}.csv`;
      return request.query.kind === 'ads'
        ? sendCsv(reply, name, CONTENT_COLUMNS, r.ads)
        : sendCsv(reply, name, LANDING_PAGE_COLUMNS, r.landing_pages);
    },
  );

  app.get(
    `${base}/content/:contentId`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'One ad: totals, a row per day, and the targets that engaged with it',
        params: contentParams,
        querystring: reportRangeQuery,
        response: { 200: contentDetailSchema },
      },
    },
    async (request) => {
      const found = await contentDetail(
        db,
        tenantOf(request).clientId,
        request.params.contentId,
        request.query,
      );
      if (!found) throw httpError(404, 'Content not found.');
      return found;
    },
  );

  app.get(
    `${base}/content/:contentId/export`,
    {
      config: { access },
      schema: {
        tags: ['reports'],
        summary: 'The targets that engaged with one ad, as CSV',
        params: contentParams,
        querystring: reportRangeQuery,
        response: csvReply,
      },
    },
    async (request, reply) => {
      const found = await contentDetail(
        db,
        tenantOf(request).clientId,
        request.params.contentId,
        request.query,
      );
      if (!found) throw httpError(404, 'Content not found.');
      return sendCsv(
        reply,
        `content-targets-${rangeName(found.range)}.csv`,
        CONTENT_TARGET_COLUMNS,
        found.targets,
      );
    },
  );
};
