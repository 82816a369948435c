import { useState } from 'react';
import { Group, SegmentedControl, SimpleGrid, Stack, Text } from '@mantine/core';
import { ALIGNMENT_SORTS } from '@rally/shared/schemas/report-insights';
import type { AlignmentSegment } from '@rally/shared/schemas/report-insights';
import { AbbreviatedNumber } from '../../../components/abbreviated-number.tsx';
import { DataTable, pagedSort } from '../../../components/data-table/index.ts';
import type { SortState } from '../../../components/data-table/index.ts';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { PAGE_SIZE, useAlignment } from '../api/get-insights.ts';
import type { Range } from '../api/get-insights.ts';
import { Empty, ExportButton, Pages, Stat, fileDay, whole } from './report-parts.tsx';
import { alignmentColumns } from './report-tables.tsx';

/**
 * Engagement › Alignment: accounts worked by sales outreach, by the ads, or both. Paged by the
 * server, so across pages a header sorts there (issue 42 item 11).
 */
export function AlignmentPanel({
  clientId,
  range,
  onOpen,
}: {
  clientId: string;
  range: Range;
  onOpen: (accountId: string) => void;
}) {
  const [segment, setSegment] = useState<AlignmentSegment>('all');
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<SortState>();
  const q = useAlignment(clientId, range, segment, page, sort);
  if (q.isPending) return <PanelLoading label="Loading the alignment report" />;
  if (q.isError)
    return <PanelError error={q.error} what="the alignment report" onRetry={() => void q.refetch()} />;
  const { counts, items, total, outreach_activity_types: types } = q.data;
  const sorting = pagedSort(
    alignmentColumns(onOpen),
    { total, pageSize: PAGE_SIZE, allowed: ALIGNMENT_SORTS },
    sort,
    (next) => {
      setSort(next);
      setPage(1);
    },
  );
  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 1, xs: 3 }}>
        <Stat
          label="Worked by both"
          value={<AbbreviatedNumber value={counts.both} />}
          detail="sales outreach and your ads"
        />
        <Stat
          label="Outreach only"
          value={<AbbreviatedNumber value={counts.outreach_only} />}
          detail="no engagement with your ads"
        />
        <Stat
          label="Ads only"
          value={<AbbreviatedNumber value={counts.ads_only} />}
          detail="no sales outreach yet"
        />
      </SimpleGrid>
      <Text size="sm" c="dimmed">
        Outreach is the CRM activity your CRM settings count as outreach
        {types.length ? ` (${types.join(', ')})` : ' (none chosen yet)'}, last done in the period; ads are
        impressions, clicks and landing page views of the account&apos;s prospects.
      </Text>
      <Group justify="space-between" wrap="wrap">
        <SegmentedControl
          aria-label="Worked by"
          size="xs"
          value={segment}
          onChange={(v) => {
            setSegment(v as AlignmentSegment);
            setPage(1);
          }}
          data={[
            { value: 'all', label: `All (${whole(counts.total)})` },
            { value: 'both', label: `Both (${whole(counts.both)})` },
            { value: 'outreach_only', label: `Outreach only (${whole(counts.outreach_only)})` },
            { value: 'ads_only', label: `Ads only (${whole(counts.ads_only)})` },
          ]}
        />
        <ExportButton
          clientId={clientId}
          report="alignment"
          query={{ ...range, segment }}
          filename={`alignment-${segment}-${fileDay(range.from)}.csv`}
        />
      </Group>
      {items.length === 0 ? (
        <Empty text="No account was worked by sales outreach or your ads in this period." />
      ) : (
        <DataTable
          tableId="report-alignment"
          label="Accounts by alignment"
          rows={items}
          rowId={(a) => a.account_id}
          rowName={(a) => a.name}
          {...sorting}
          selectable
          exportName={`alignment-${segment}-shown.csv`}
          minWidth={820}
        />
      )}
      <Pages total={total} page={page} onChange={setPage} label="Accounts" />
    </Stack>
  );
}
