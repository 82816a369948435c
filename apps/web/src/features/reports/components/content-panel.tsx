import { Group, Stack, Title } from '@mantine/core';
import { DataTable } from '../../../components/data-table/index.ts';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useContentReport } from '../api/get-insights.ts';
import type { Range } from '../api/get-insights.ts';
import { Empty, ExportButton, fileDay } from './report-parts.tsx';
import { adColumns, landingPageColumns } from './report-tables.tsx';
import { NetworkRows } from './network-rows.tsx';

/** Engagement › Content: per ad and per landing page; every row is loaded, so tables sort in the browser. */
export function ContentPanel({ clientId, range }: { clientId: string; range: Range }) {
  const q = useContentReport(clientId, range);
  if (q.isPending) return <PanelLoading label="Loading the content report" />;
  if (q.isError)
    return <PanelError error={q.error} what="the content report" onRetry={() => void q.refetch()} />;
  const { ads, landing_pages: pages } = q.data;
  return (
    <Stack gap="lg">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">
            Ads
          </Title>
          <ExportButton
            clientId={clientId}
            report="content"
            query={{ ...range, kind: 'ads' }}
            filename={`content-ads-${fileDay(range.from)}.csv`}
          />
        </Group>
        {ads.length === 0 ? (
          <Empty text="No ad yet. Ads made in Content show here with their numbers." />
        ) : (
          <DataTable
            tableId="report-ads"
            label="Ad performance"
            rows={ads}
            rowId={(a) => a.content_id}
            rowName={(a) => a.name}
            columns={adColumns}
            selectable
            exportName="ad-performance-shown.csv"
            minWidth={720}
          />
        )}
      </Stack>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">
            Landing pages
          </Title>
          <ExportButton
            clientId={clientId}
            report="content"
            query={{ ...range, kind: 'landing_pages' }}
            filename={`content-landing-pages-${fileDay(range.from)}.csv`}
          />
        </Group>
        {pages.length === 0 ? (
          <Empty text="No landing page yet." />
        ) : (
          <DataTable
            tableId="report-landing-pages"
            label="Landing page performance"
            rows={pages}
            rowId={(p) => p.landing_page_id}
            rowName={(p) => p.name}
            columns={landingPageColumns}
            selectable
            exportName="landing-page-performance-shown.csv"
            minWidth={600}
          />
        )}
      </Stack>
      {/* Issue 39: the ad networks' rows beside the tags'. */}
      <NetworkRows clientId={clientId} range={range} />
    </Stack>
  );
}
