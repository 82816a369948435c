import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
  alignmentSchema,
  buyingGroupSchema,
  contentReportSchema,
  prioritySchema,
  targetActivitiesSchema,
  targetReportSchema,
  targetStatsSchema,
  utilizationSchema,
} from '@rally/shared/schemas/report-insights';
import type { AlignmentSegment, UtilizationFilter } from '@rally/shared/schemas/report-insights';
import { apiBlob, apiRequest } from '../../../lib/api-client.ts';

/** A report range in epoch seconds (SPEC.md §9), `to` exclusive. */
export type Range = { from: number; to: number };
export const PAGE_SIZE = 25;

/** A column's sort asked of the server (a table of several pages); none keeps the report's order. */
export type ServerSort = { by: string; order: 'asc' | 'desc' } | undefined;
export const sortQuery = (sort: ServerSort) => (sort ? { sort: sort.by, order: sort.order } : {});

const base = (clientId: string) => `/v1/report/client/${clientId}`;

/** GET …/alignment: accounts worked by outreach, by ads, or both. */
export const useAlignment = (
  clientId: string,
  range: Range,
  segment: AlignmentSegment,
  page: number,
  sort?: ServerSort,
) =>
  useQuery({
    queryKey: ['reports', clientId, 'alignment', range, segment, page, sort ?? null],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/alignment`, {
        query: { ...range, segment, page, page_size: PAGE_SIZE, ...sortQuery(sort) },
        schema: alignmentSchema,
        signal,
        clientId,
      }),
    placeholderData: keepPreviousData,
  });

/** GET …/content: per ad and per landing page. */
export const useContentReport = (clientId: string, range: Range) =>
  useQuery({
    queryKey: ['reports', clientId, 'content', range],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/content`, {
        query: range,
        schema: contentReportSchema,
        signal,
        clientId,
      }),
    placeholderData: keepPreviousData,
  });

/** GET …/signals/utilization: superprospects contacted after becoming super. */
export const useUtilization = (
  clientId: string,
  range: Range,
  filter: UtilizationFilter,
  page: number,
  sort?: ServerSort,
) =>
  useQuery({
    queryKey: ['reports', clientId, 'utilization', range, filter, page, sort ?? null],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/signals/utilization`, {
        query: { ...range, filter, page, page_size: PAGE_SIZE, ...sortQuery(sort) },
        schema: utilizationSchema,
        signal,
        clientId,
      }),
    placeholderData: keepPreviousData,
  });

/** GET …/pipeline/priority: open opportunities by their account's engagement of the last `days`. */
export const usePriority = (clientId: string, days: number, page: number, sort?: ServerSort) =>
  useQuery({
    queryKey: ['reports', clientId, 'priority', days, page, sort ?? null],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/pipeline/priority`, {
        query: { days, page, page_size: PAGE_SIZE, ...sortQuery(sort) },
        schema: prioritySchema,
        signal,
        clientId,
      }),
    placeholderData: keepPreviousData,
  });

/** GET …/buying_group/{account id}: the account's people by role, with their engagement. */
export const useBuyingGroup = (clientId: string, accountId: string | null, range: Range) =>
  useQuery({
    queryKey: ['reports', clientId, 'buying-group', accountId, range],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/buying_group/${accountId}`, {
        query: range,
        schema: buyingGroupSchema,
        signal,
        clientId,
      }),
    enabled: accountId !== null,
  });

/** GET …/target/{id}, its stats and the first page of its timeline. */
export const useTarget = (clientId: string, targetId: string | null) =>
  useQuery({
    queryKey: ['reports', clientId, 'target', targetId],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/target/${targetId}`, { schema: targetReportSchema, signal, clientId }),
    enabled: targetId !== null,
  });
export const useTargetStats = (clientId: string, targetId: string | null, range: Range) =>
  useQuery({
    queryKey: ['reports', clientId, 'target-stats', targetId, range],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/target/${targetId}/stats`, {
        query: range,
        schema: targetStatsSchema,
        signal,
        clientId,
      }),
    enabled: targetId !== null,
  });
export const useTargetActivities = (clientId: string, targetId: string | null, range: Range) =>
  useQuery({
    queryKey: ['reports', clientId, 'target-activities', targetId, range],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/target/${targetId}/activities`, {
        query: { ...range, page: 1, page_size: 100 },
        schema: targetActivitiesSchema,
        signal,
        clientId,
      }),
    enabled: targetId !== null,
  });

export type ExportReport =
  | 'alignment'
  | 'content'
  | 'signals/utilization'
  | 'pipeline/priority'
  | `buying_group/${string}`
  | `target/${string}/activities`;

/**
 * Downloads a report's CSV export. The calls need the x-client-id header, so the file is fetched and
 * handed to the browser rather than linked.
 */
export async function downloadReport(
  clientId: string,
  report: ExportReport,
  query: Record<string, string | number>,
  filename: string,
): Promise<void> {
  const blob = await apiBlob(`${base(clientId)}/${report}/export`, { query, clientId });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked after the click has handed the file over.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
