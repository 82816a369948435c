import type { ReactNode } from 'react';
import { ActionIcon, Anchor, Badge, Button, Text, ThemeIcon, Tooltip } from '@mantine/core';
import { IconStar, IconStarFilled } from '@tabler/icons-react';
import type {
  AlignmentAccount,
  AlignmentSegment,
  ContentPerformance,
  LandingPagePerformance,
  PriorityRow,
  UtilizationRow,
} from '@rally/shared/schemas/report-insights';
import type { DataColumn } from '../../../components/data-table/index.ts';
import { useSalesPriority } from '../api/sales-priority.ts';
import { day, percent, whole } from './report-parts.tsx';

// The report tables' columns (issue 42 item 11): each renders its cell, exports its value and sorts.

const isoDay = (iso: string | null) => iso?.slice(0, 10) ?? '';
const count = <T,>(id: string, label: string, value: (row: T) => number): DataColumn<T> => ({
  id,
  label,
  align: 'right',
  csv: value,
  render: (r) => whole(value(r)),
});
const rate = <T,>(id: string, label: string, value: (row: T) => number | null): DataColumn<T> => ({
  id,
  label,
  align: 'right',
  csv: (r) => (value(r) === null ? '' : Number(((value(r) ?? 0) * 100).toFixed(1))),
  sortValue: value,
  render: (r) => percent(value(r)),
});

export const money = (cents: number, currency: string) => {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: 0 }).format(
      cents / 100,
    );
  } catch {
    return `${currency} ${whole(Math.round(cents / 100))}`;
  }
};

/** A row's name as a button that opens what is behind it. */
export function Opener({ children, onClick }: { children: ReactNode; onClick: () => void }) {
  return (
    <Anchor component="button" type="button" fw={600} size="sm" ta="left" onClick={onClick}>
      {children}
    </Anchor>
  );
}

const SEGMENT_LABEL: Record<Exclude<AlignmentSegment, 'all' | 'engaged'>, string> = {
  both: 'Both',
  outreach_only: 'Outreach only',
  ads_only: 'Ads only',
};
const SEGMENT_COLOR: Record<Exclude<AlignmentSegment, 'all' | 'engaged'>, string> = {
  both: 'teal',
  outreach_only: 'blue',
  ads_only: 'grape',
};

export const alignmentColumns = (onOpen: (id: string) => void): DataColumn<AlignmentAccount>[] => [
  {
    id: 'name',
    label: 'Account',
    key: true,
    csv: (a) => a.name,
    render: (a) => (
      <>
        <Opener onClick={() => onOpen(a.account_id)}>{a.name}</Opener>
        {a.website && (
          <Text size="xs" c="dimmed">
            {a.website}
          </Text>
        )}
      </>
    ),
  },
  {
    id: 'segment',
    label: 'Worked by',
    key: true,
    csv: (a) => SEGMENT_LABEL[a.segment],
    render: (a) => (
      <Badge variant="light" color={SEGMENT_COLOR[a.segment]}>
        {SEGMENT_LABEL[a.segment]}
      </Badge>
    ),
  },
  count('outreach', 'Outreach', (a: AlignmentAccount) => a.outreach_activities),
  {
    id: 'last_outreach',
    label: 'Last outreach',
    csv: (a) => isoDay(a.last_outreach_at),
    render: (a) => day(a.last_outreach_at),
  },
  count('impressions', 'Impressions', (a: AlignmentAccount) => a.impressions),
  count('clicks', 'Clicks', (a: AlignmentAccount) => a.clicks),
  count('views', 'Views', (a: AlignmentAccount) => a.views),
  { ...count('engaged', 'Engaged prospects', (a: AlignmentAccount) => a.engaged_prospects), key: true },
];

export const adColumns: DataColumn<ContentPerformance>[] = [
  {
    id: 'name',
    label: 'Ad',
    key: true,
    csv: (a) => a.name,
    render: (a) => (
      <>
        <Text fw={600} size="sm">
          {a.name}
        </Text>
        {(a.is_archived || a.status !== 'published') && (
          <Text size="xs" c="dimmed">
            {a.is_archived ? 'Archived' : 'Draft'}
          </Text>
        )}
      </>
    ),
  },
  count('impressions', 'Impressions', (a: ContentPerformance) => a.impressions),
  { ...count('clicks', 'Clicks', (a: ContentPerformance) => a.clicks), key: true },
  rate('ctr', 'CTR', (a: ContentPerformance) => a.ctr),
  count('views', 'Landing page views', (a: ContentPerformance) => a.views),
  count('targets', 'Targets reached', (a: ContentPerformance) => a.targets_reached),
];

export const landingPageColumns: DataColumn<LandingPagePerformance>[] = [
  {
    id: 'name',
    label: 'Landing page',
    key: true,
    csv: (p) => p.name,
    render: (p) => (
      <Text fw={600} size="sm">
        {p.name}
      </Text>
    ),
  },
  count('clicks', 'Clicks to it', (p: LandingPagePerformance) => p.clicks),
  { ...count('views', 'Views', (p: LandingPagePerformance) => p.views), key: true },
  rate('view_rate', 'View rate', (p: LandingPagePerformance) => p.view_rate),
  count('targets', 'Targets reached', (p: LandingPagePerformance) => p.targets_reached),
];

export const signalColumns = (onOpen: (id: string) => void): DataColumn<UtilizationRow>[] => [
  {
    id: 'name',
    label: 'Prospect',
    key: true,
    csv: (r) => r.name || r.email,
    render: (r) => (
      <>
        <Opener onClick={() => onOpen(r.target_id)}>{r.name || r.email}</Opener>
        {r.company_name && (
          <Text size="xs" c="dimmed">
            {r.company_name}
          </Text>
        )}
      </>
    ),
  },
  { id: 'cadence', label: 'Cadence', csv: (r) => r.cadence_name, render: (r) => r.cadence_name },
  { id: 'rep', label: 'Sales rep', csv: (r) => r.sales_rep, render: (r) => r.sales_rep ?? '—' },
  { id: 'super', label: 'Super since', csv: (r) => isoDay(r.super_date), render: (r) => day(r.super_date) },
  {
    id: 'contacted',
    label: 'Contacted',
    key: true,
    csv: (r) => isoDay(r.contacted_at) || 'Not yet',
    sortValue: (r) => isoDay(r.contacted_at) || null,
    render: (r) =>
      r.contacted_at ? (
        day(r.contacted_at)
      ) : (
        <Badge variant="light" color="orange">
          Not yet
        </Badge>
      ),
  },
  {
    id: 'days',
    label: 'Days to contact',
    align: 'right',
    csv: (r) => r.days_to_contact,
    render: (r) => r.days_to_contact ?? '—',
  },
];

/**
 * The sales priority mark of one opportunity's account: a toggle for those who may mark
 * (cadence.write), a read-only star for the others. Opportunities without an account cannot be marked.
 */
function PriorityMark({ clientId, row, canMark }: { clientId: string; row: PriorityRow; canMark: boolean }) {
  const toggle = useSalesPriority(clientId);
  if (!row.company_id)
    return (
      <Text size="xs" c="dimmed">
        —
      </Text>
    );
  const marked = toggle.isPending ? toggle.variables.mark : row.is_priority;
  const since = row.priority_marked_at ? ` since ${day(row.priority_marked_at)}` : '';
  if (!canMark)
    return marked ? (
      <Tooltip label={`Sales priority${since}`} withArrow>
        <ThemeIcon variant="transparent" color="yellow" aria-label={`${row.account_name}: sales priority`}>
          <IconStarFilled size={18} />
        </ThemeIcon>
      </Tooltip>
    ) : null;
  const label = marked
    ? `Unmark ${row.account_name} as a sales priority`
    : `Mark ${row.account_name} as a sales priority`;
  return (
    <Tooltip
      label={marked ? `Sales priority${since}: click to unmark` : 'Mark as a sales priority'}
      withArrow
    >
      <ActionIcon
        variant="subtle"
        color={marked ? 'yellow' : 'gray'}
        aria-label={label}
        aria-pressed={marked}
        loading={toggle.isPending}
        onClick={() => toggle.mutate({ accountId: row.company_id ?? '', mark: !marked })}
      >
        {marked ? <IconStarFilled size={18} /> : <IconStar size={18} />}
      </ActionIcon>
    </Tooltip>
  );
}

export const priorityColumns = (
  clientId: string,
  canMark: boolean,
  onOpen: (id: string) => void,
): DataColumn<PriorityRow>[] => [
  {
    id: 'priority',
    label: 'Priority',
    csv: (o) => (o.is_priority ? 'yes' : ''),
    sortValue: (o) => (o.is_priority ? 1 : 0),
    render: (o) => <PriorityMark clientId={clientId} row={o} canMark={canMark} />,
  },
  {
    id: 'name',
    label: 'Opportunity',
    key: true,
    csv: (o) => o.name,
    render: (o) => (
      <>
        <Text fw={600} size="sm">
          {o.name}
        </Text>
        {o.company_id ? (
          <Anchor component="button" type="button" size="xs" onClick={() => onOpen(o.company_id ?? '')}>
            {o.account_name}
          </Anchor>
        ) : (
          <Text size="xs" c="dimmed">
            {o.account_name}
          </Text>
        )}
      </>
    ),
  },
  { id: 'stage', label: 'Stage', key: true, csv: (o) => o.stage, render: (o) => o.stage },
  {
    id: 'amount',
    label: 'Amount',
    key: true,
    align: 'right',
    csv: (o) => (o.amount_cents / 100).toFixed(2),
    sortValue: (o) => o.amount_cents,
    render: (o) => money(o.amount_cents, o.currency),
  },
  {
    id: 'score',
    label: 'Score',
    align: 'right',
    csv: (o) => o.score,
    render: (o) => (
      <Text fw={700} size="sm">
        {whole(o.score)}
      </Text>
    ),
  },
  count('impressions', 'Impressions', (o: PriorityRow) => o.impressions),
  count('clicks', 'Clicks', (o: PriorityRow) => o.clicks),
  count('views', 'Views', (o: PriorityRow) => o.views),
  {
    id: 'last_engaged',
    label: 'Last engagement',
    csv: (o) => isoDay(o.last_engaged_at),
    render: (o) => day(o.last_engaged_at),
  },
];

/** Bulk action of the priority list: mark (or unmark) the picked opportunities' accounts at once. */
export function PriorityBulkActions({
  clientId,
  rows,
  clear,
}: {
  clientId: string;
  rows: PriorityRow[];
  clear: () => void;
}) {
  const toggle = useSalesPriority(clientId);
  const accounts = [...new Set(rows.map((r) => r.company_id).filter((id): id is string => id !== null))];
  const run = async (mark: boolean) => {
    for (const accountId of accounts) await toggle.mutateAsync({ accountId, mark });
    clear();
  };
  if (accounts.length === 0)
    return (
      <Text size="xs" c="dimmed">
        None of these has an account to mark.
      </Text>
    );
  return (
    <>
      <Button size="xs" variant="light" loading={toggle.isPending} onClick={() => void run(true)}>
        Mark as sales priority
      </Button>
      <Button size="xs" variant="default" loading={toggle.isPending} onClick={() => void run(false)}>
        Unmark
      </Button>
    </>
  );
}
