import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import {
  opportunityDetailSchema,
  performanceByDateSchema,
  opportunityReportPage,
  pipelineGeneratedSchema,
  pipelineProgressedSchema,
  reportSummarySchema,
  valueReportSchema,
} from '@rally/shared/schemas/reports';
import type { OpportunityReportSort } from '@rally/shared/schemas/reports';
import { clientSettingsSchema } from '@rally/shared/schemas/content';
import { alignmentSchema } from '@rally/shared/schemas/report-insights';
import { apiBlob, apiRequest } from '../../../lib/api-client.ts';
import { saveBlob } from '../../../lib/save-blob.ts';

/** A report range in epoch seconds (SPEC.md §9), `to` exclusive. */
export type Range = { from: number; to: number };
export type OpportunityFilter = 'all' | 'generated' | 'influenced' | 'open' | 'won' | 'lost';

const base = (clientId: string) => `/v1/report/client/${clientId}`;

export const getSummaryQueryOptions = (clientId: string, range: Range) =>
  queryOptions({
    queryKey: ['reports', clientId, 'summary', range],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/summary`, {
        query: range,
        schema: reportSummarySchema,
        signal,
        clientId,
      }),
    placeholderData: keepPreviousData,
  });
export const useSummary = (clientId: string, range: Range) =>
  useQuery(getSummaryQueryOptions(clientId, range));

/** A column's sort asked of the server (a table of several pages); none keeps the report's order. */
export type ServerSort = { by: string; order: 'asc' | 'desc' } | undefined;
const sortQuery = (sort: ServerSort) => (sort ? { sort: sort.by, order: sort.order } : {});

export const useGenerated = (clientId: string, range: Range, page: number, sort?: ServerSort) =>
  useQuery({
    queryKey: ['reports', clientId, 'generated', range, page, sort ?? null],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/pipeline/generated`, {
        query: { ...range, page, page_size: OPPORTUNITY_PAGE_SIZE, ...sortQuery(sort) },
        schema: pipelineGeneratedSchema,
        signal,
        clientId,
      }),
    placeholderData: keepPreviousData,
  });

export const useProgressed = (clientId: string, range: Range, page: number, sort?: ServerSort) =>
  useQuery({
    queryKey: ['reports', clientId, 'progressed', range, page, sort ?? null],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/pipeline/progressed`, {
        query: { ...range, page, page_size: OPPORTUNITY_PAGE_SIZE, ...sortQuery(sort) },
        schema: pipelineProgressedSchema,
        signal,
        clientId,
      }),
    placeholderData: keepPreviousData,
  });

export const OPPORTUNITY_PAGE_SIZE = 25;

export const useOpportunities = (
  clientId: string,
  range: Range,
  filter: OpportunityFilter,
  page: number,
  sort: { sort: OpportunityReportSort; order: 'asc' | 'desc' } = { sort: 'created_at', order: 'desc' },
) =>
  useQuery({
    queryKey: ['reports', clientId, 'opportunity', range, filter, page, sort],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/opportunity`, {
        query: { ...range, filter, page, page_size: OPPORTUNITY_PAGE_SIZE, ...sort },
        schema: opportunityReportPage,
        signal,
        clientId,
      }),
    placeholderData: keepPreviousData,
  });

export const useOpportunityDetail = (clientId: string, opportunityId: string | null) =>
  useQuery({
    queryKey: ['reports', clientId, 'opportunity-detail', opportunityId],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/opportunity/${opportunityId}`, {
        schema: opportunityDetailSchema,
        signal,
        clientId,
      }),
    enabled: opportunityId !== null,
  });

/**
 * Downloads an export (`pipeline/generated`, `pipeline/progressed`, `opportunity`). The calls need the
 * x-client-id header, so the file is fetched and handed to the browser rather than linked.
 */
export async function downloadExport(
  clientId: string,
  report: 'pipeline/generated' | 'pipeline/progressed' | 'opportunity',
  query: Record<string, string | number>,
  filename: string,
): Promise<void> {
  await saveBlob(await apiBlob(`${base(clientId)}/${report}/export`, { query, clientId }), filename);
}

export { saveBlob };

/**
 * The client settings, for revenue_report_enabled and the attribution window. Same query key as the
 * content feature's settings query, so both screens share one cached copy (features do not import
 * each other).
 */
export const getRevenueSettingsQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['client-settings', clientId],
    queryFn: ({ signal }) =>
      apiRequest(`/v1/rest/client/${clientId}/settings`, { schema: clientSettingsSchema, signal, clientId }),
  });
export const useRevenueSettings = (clientId: string) => useQuery(getRevenueSettingsQueryOptions(clientId));

export type ReportView = 'daily' | 'weekly' | 'monthly';

/** GET /sc/performance/by_date: engagement per day, week or month of the range. */
export const usePerformance = (clientId: string, range: Range, view: ReportView) =>
  useQuery({
    queryKey: ['reports', clientId, 'performance', range, view],
    queryFn: ({ signal }) =>
      apiRequest('/sc/performance/by_date', {
        query: { ...range, view },
        schema: performanceByDateSchema,
        signal,
        clientId,
      }),
    placeholderData: keepPreviousData,
  });

/** The /sc exports (performance by date), fetched with the client header like the others. */
export async function downloadScExport(
  clientId: string,
  path: '/sc/performance/by_date/export' | '/sc/revenue/export',
  query: Record<string, string | number>,
  filename: string,
): Promise<void> {
  await saveBlob(await apiBlob(path, { query, clientId }), filename);
}

/** GET /report/client/{id}/value_report: spend on superprospects against pipeline and revenue. */
export const useValueReport = (clientId: string, range: Range) =>
  useQuery({
    queryKey: ['reports', clientId, 'value', range],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/value_report`, {
        query: range,
        schema: valueReportSchema,
        signal,
        clientId,
      }),
    placeholderData: keepPreviousData,
  });

/**
 * The accounts behind the "Engaged accounts" card (issue 42 item 7): the alignment report's accounts
 * engaged with the ads (`segment=engaged`, both and ads only), over the same range.
 */
export const useEngagedAccounts = (clientId: string, range: Range, page: number, enabled: boolean) =>
  useQuery({
    queryKey: ['reports', clientId, 'engaged-accounts', range, page],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/alignment`, {
        query: { ...range, segment: 'engaged', page, page_size: OPPORTUNITY_PAGE_SIZE },
        schema: alignmentSchema,
        signal,
        clientId,
      }),
    enabled,
    placeholderData: keepPreviousData,
  });
