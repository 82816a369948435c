import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
  alignmentSchema,
  contentReportSchema,
  prioritySchema,
  utilizationSchema,
} from '@rally/shared/schemas/report-insights';
import type { AlignmentSegment, UtilizationFilter } from '@rally/shared/schemas/report-insights';
import { apiBlob, apiRequest } from '../../../lib/api-client.ts';

/** A report range in epoch seconds (SPEC.md §9), `to` exclusive. */
export type Range = { from: number; to: number };
export const PAGE_SIZE = 25;

const base = (clientId: string) => `/v1/report/client/${clientId}`;

/** GET …/alignment: accounts worked by outreach, by ads, or both. */
export const useAlignment = (clientId: string, range: Range, segment: AlignmentSegment, page: number) =>
  useQuery({
    queryKey: ['reports', clientId, 'alignment', range, segment, page],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/alignment`, {
        query: { ...range, segment, page, page_size: PAGE_SIZE },
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
export const useUtilization = (clientId: string, range: Range, filter: UtilizationFilter, page: number) =>
  useQuery({
    queryKey: ['reports', clientId, 'utilization', range, filter, page],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/signals/utilization`, {
        query: { ...range, filter, page, page_size: PAGE_SIZE },
        schema: utilizationSchema,
        signal,
        clientId,
      }),
    placeholderData: keepPreviousData,
  });

/** GET …/pipeline/priority: open opportunities by their account's engagement of the last `days`. */
export const usePriority = (clientId: string, days: number, page: number) =>
  useQuery({
    queryKey: ['reports', clientId, 'priority', days, page],
    queryFn: ({ signal }) =>
      apiRequest(`${base(clientId)}/pipeline/priority`, {
        query: { days, page, page_size: PAGE_SIZE },
        schema: prioritySchema,
        signal,
        clientId,
      }),
    placeholderData: keepPreviousData,
  });

export type ExportReport = 'alignment' | 'content' | 'signals/utilization' | 'pipeline/priority';

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
