import type { ReactNode } from 'react';
import { Anchor, Avatar, Badge, Group, Stack, Text, Tooltip } from '@mantine/core';
import { formatDay } from '@rally/shared';
import type { Prospect, ProspectSort } from '@rally/shared/schemas/prospects';
import { DataTable } from '../../../components/data-table/index.ts';
import type { DataColumn } from '../../../components/data-table/index.ts';
import type { ProspectListParams } from '../api/get-prospects.ts';

export const personName = (p: Pick<Prospect, 'first_name' | 'last_name' | 'email'>) =>
  `${p.first_name} ${p.last_name}`.trim() || p.email || 'Unnamed prospect';

/** The latest super_date of a prospect's cadence entries (the super_date sort's key). */
export const latestSuper = (p: Prospect) =>
  p.cadences.reduce<string | null>(
    (max, c) => (c.super_date && (!max || c.super_date > max) ? c.super_date : max),
    null,
  );

/** The most impressions in one cadence. */
export const topImpressions = (p: Prospect) => Math.max(0, ...p.cadences.map((c) => c.impressions));

/**
 * The impressions the row shows. Under the impressions sort, those of the cadence entry that placed
 * the row (`target_id`: with a cadence or rep filter, the best matching entry), so the column reads
 * in the order of the sort even when another entry, such as a cohort's, has more; otherwise the most
 * in one cadence.
 */
export const shownImpressions = (p: Prospect, sort: ProspectSort) =>
  (sort === 'impressions' ? p.cadences.find((c) => c.target_id === p.target_id)?.impressions : undefined) ??
  topImpressions(p);

const dash = (
  <Text size="sm" c="dimmed">
    —
  </Text>
);

function prospectColumns(params: ProspectListParams, onOpen: (p: Prospect) => void): DataColumn<Prospect>[] {
  const text = (v: string | null | undefined): ReactNode => (v ? <Text size="sm">{v}</Text> : dash);
  return [
    {
      id: 'name',
      label: 'Name',
      key: true,
      csv: personName,
      render: (p) => (
        <Group gap="sm" wrap="nowrap">
          <Avatar src={p.photo_url} name={personName(p)} color="initials" size={30} />
          <div>
            <Anchor
              component="button"
              type="button"
              size="sm"
              fw={600}
              ta="left"
              onClick={(e) => {
                e.stopPropagation();
                onOpen(p);
              }}
            >
              {personName(p)}
            </Anchor>
            {!p.is_active && (
              <Badge size="xs" color="gray" variant="light" ml={6}>
                Inactive
              </Badge>
            )}
          </div>
        </Group>
      ),
    },
    { id: 'company', label: 'Company', csv: (p) => p.company_name, render: (p) => text(p.company_name) },
    { id: 'email', label: 'E-mail', csv: (p) => p.email, render: (p) => text(p.email) },
    { id: 'title', label: 'Title', csv: (p) => p.title, render: (p) => text(p.title) },
    {
      id: 'cadences',
      label: 'Cadences',
      // Sorted by the server on how many cadences the prospect is in (then by name): a count is a
      // key the keyset pages on from the prospect's own row; the first of several names means little.
      csv: (p) => p.cadences.map((c) => c.cadence_name).join('; '),
      sortValue: (p) => p.cadences.length,
      render: (p) => <CadenceBadges prospect={p} />,
    },
    {
      id: 'super_date',
      label: 'Super date',
      key: true,
      csv: (p) => latestSuper(p)?.slice(0, 10) ?? '',
      render: (p) => {
        const superAt = latestSuper(p);
        return superAt ? (
          <Badge color="indigo" variant="light" size="sm" tt="none" style={{ whiteSpace: 'nowrap' }}>
            {formatDay(superAt)}
          </Badge>
        ) : (
          dash
        );
      },
    },
    {
      id: 'impressions',
      label: 'Impressions',
      align: 'right',
      csv: (p) => shownImpressions(p, params.sort),
      render: (p) => <Text size="sm">{shownImpressions(p, params.sort)}</Text>,
    },
  ];
}

/** The prospects of a page: sorted by the server, picked for an export, columns chosen, views saved. */
export function ProspectTable({
  items,
  params,
  onSort,
  onOpen,
  loading,
  views,
}: {
  items: Prospect[];
  params: ProspectListParams;
  onSort: (s: ProspectSort) => void;
  onOpen: (p: Prospect) => void;
  loading: boolean;
  views: { state: string; apply: (state: string) => void };
}) {
  return (
    <DataTable
      tableId="prospects"
      label="Prospects"
      rows={items}
      rowId={(p) => p.id}
      rowName={personName}
      columns={prospectColumns(params, onOpen)}
      sort={{ by: params.sort, order: params.order }}
      onSort={(by) => onSort(by as ProspectSort)}
      selectable
      views={views}
      exportName="prospects.csv"
      onRowClick={onOpen}
      minWidth={1000}
      loading={loading}
    />
  );
}

function CadenceBadges({ prospect }: { prospect: Prospect }) {
  if (prospect.cadences.length === 0)
    return (
      <Text size="sm" c="dimmed">
        None
      </Text>
    );
  const shown = prospect.cadences.slice(0, 2);
  const rest = prospect.cadences.slice(2);
  return (
    <Stack gap={2}>
      {shown.map((c) => (
        <Text key={c.cadence_id} size="xs" lh={1.3}>
          {c.cadence_name}
        </Text>
      ))}
      {rest.length > 0 && (
        <Tooltip label={rest.map((c) => c.cadence_name).join(', ')} withArrow>
          <Text size="xs" c="dimmed">
            and {rest.length} more
          </Text>
        </Tooltip>
      )}
    </Stack>
  );
}
