import { useState } from 'react';
import type { ReactNode } from 'react';
import { Badge, Group, Pagination, Paper, Stack, Text, Title } from '@mantine/core';
import { COHORT_MEMBER_SORTS } from '@rally/shared/schemas/cohorts';
import type { CohortMember, CohortMemberSort } from '@rally/shared/schemas/cohorts';
import { DataTable } from '../../../components/data-table/index.ts';
import type { DataColumn, SortOrder } from '../../../components/data-table/index.ts';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useCohortSegment } from '../api/get-cohort-segment.ts';

export const MEMBERS_PAGE = 20;

const memberName = (m: CohortMember) => `${m.first_name} ${m.last_name}`.trim() || m.email || 'Unnamed';
const engagement = (m: CohortMember) =>
  m.super_date ? 'Superprospect' : m.impressions + m.clicks + m.views > 0 ? 'Engaged' : 'Not yet';

const count = (id: 'impressions' | 'clicks' | 'views', label: string): DataColumn<CohortMember> => ({
  id,
  label,
  align: 'right',
  csv: (m) => m[id],
  render: (m) => m[id],
});

const COLUMNS: DataColumn<CohortMember>[] = [
  {
    id: 'name',
    label: 'Name',
    key: true,
    csv: memberName,
    render: (m) => (
      <>
        <Text size="sm" fw={500}>
          {memberName(m)}
        </Text>
        {m.email && (
          <Text size="xs" c="dimmed">
            {m.email}
          </Text>
        )}
      </>
    ),
  },
  { id: 'title', label: 'Title', csv: (m) => m.title, render: (m) => m.title || '—' },
  { id: 'company', label: 'Company', csv: (m) => m.company_name, render: (m) => m.company_name ?? '—' },
  {
    id: 'stage',
    label: 'Stage',
    key: true,
    csv: (m) => m.stage?.name ?? '',
    render: (m) => m.stage?.name ?? '—',
  },
  count('impressions', 'Impressions'),
  count('clicks', 'Clicks'),
  count('views', 'Views'),
  {
    id: 'engagement',
    label: 'Engagement',
    csv: engagement,
    render: (m) =>
      m.super_date ? (
        <Badge color="indigo" variant="filled">
          Superprospect
        </Badge>
      ) : m.impressions + m.clicks + m.views > 0 ? (
        <Badge color="teal" variant="light">
          Engaged
        </Badge>
      ) : (
        <Text size="sm" c="dimmed">
          Not yet
        </Text>
      ),
  },
];

const TEXT_SORTS: readonly CohortMemberSort[] = ['name', 'title', 'company', 'stage'];
type MemberSort = { sort: CohortMemberSort; order: SortOrder };
const DEFAULT_SORT: MemberSort = { sort: 'engagement', order: 'desc' };

/** The cohort's members, a page at a time, sorted by the server on any column (issue 42 item 11). */
export function MembersPanel({
  clientId,
  id,
  download,
}: {
  clientId: string;
  id: string;
  download: ReactNode;
}) {
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<MemberSort>(DEFAULT_SORT);
  const q = useCohortSegment(clientId, id, page, MEMBERS_PAGE, sort);
  const change = (next: MemberSort) => {
    setSort(next);
    setPage(1);
  };
  return (
    <Stack gap="xs">
      <Group justify="space-between" gap="xs" wrap="wrap">
        <Title order={2} size="h4">
          Members
        </Title>
        {q.data && q.data.items.length > 0 && download}
      </Group>
      {q.isPending ? (
        <PanelLoading label="Loading the members" />
      ) : q.isError ? (
        <PanelError error={q.error} what="the members" onRetry={() => void q.refetch()} />
      ) : q.data.items.length === 0 ? (
        <Paper withBorder radius="md" p="lg">
          <Text size="sm" c="dimmed" ta="center">
            No members yet. They arrive with the cohort&apos;s sync.
          </Text>
        </Paper>
      ) : (
        <DataTable
          tableId="cohort-members"
          label="Members"
          rows={q.data.items}
          rowId={(m) => m.id}
          rowName={memberName}
          columns={COLUMNS}
          sort={{ by: sort.sort, order: sort.order }}
          onSort={(by) => {
            const key = by as CohortMemberSort;
            change(
              sort.sort === key
                ? { sort: key, order: sort.order === 'asc' ? 'desc' : 'asc' }
                : { sort: key, order: TEXT_SORTS.includes(key) ? 'asc' : 'desc' },
            );
          }}
          selectable
          views={{
            state: `order=${sort.order}&sort=${sort.sort}`,
            apply: (text) => {
              const p = new URLSearchParams(text);
              const key = COHORT_MEMBER_SORTS.find((s) => s === p.get('sort'));
              if (key) change({ sort: key, order: p.get('order') === 'asc' ? 'asc' : 'desc' });
            },
          }}
          exportName="cohort-members-shown.csv"
          minWidth={840}
          verticalSpacing="xs"
          loading={q.isFetching}
        />
      )}
      {q.data && q.data.total > MEMBERS_PAGE && (
        <Group justify="flex-end">
          <Pagination
            total={Math.ceil(q.data.total / MEMBERS_PAGE)}
            value={page}
            onChange={setPage}
            getControlProps={(control) => ({ 'aria-label': `${control} page of members` })}
            getItemProps={(p) => ({ 'aria-label': `Members page ${p}` })}
          />
        </Group>
      )}
    </Stack>
  );
}
