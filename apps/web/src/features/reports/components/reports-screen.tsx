import { useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import {
  ActionIcon,
  Anchor,
  Badge,
  Group,
  Pagination,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Table,
  Tabs,
  Text,
  ThemeIcon,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconStar, IconStarFilled } from '@tabler/icons-react';
import { useSearchParams } from 'react-router';
import type { AlignmentSegment, PriorityRow, UtilizationFilter } from '@rally/shared/schemas/report-insights';
import { AbbreviatedNumber } from '../../../components/abbreviated-number.tsx';
import { usePeriodPicker } from '../../../components/period-picker.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { NoDataYet } from '../../../components/no-data-yet.tsx';
import { AccountDrawer, TargetDrawer } from './report-drawers.tsx';
import { EmbeddedReportsPanel } from './embedded-reports-panel.tsx';
import type { Opened } from './report-drawers.tsx';
import { Empty, ExportButton, day, fileDay, percent, whole } from './report-parts.tsx';
import {
  PAGE_SIZE,
  useAlignment,
  useContentReport,
  usePriority,
  useUtilization,
} from '../api/get-insights.ts';
import type { Range } from '../api/get-insights.ts';
import { useSalesPriority } from '../api/sales-priority.ts';

/**
 * The four reports of issue 17 and SPEC.md §1. Engagement and Pipeline hold several views each; the
 * tab and the view are kept in the address (`?tab=pipeline&view=priority`), so a report can be linked.
 */
const TABS = [
  { value: 'engagement', label: 'Engagement' },
  { value: 'pipeline', label: 'Pipeline' },
  { value: 'revenue', label: 'Revenue' },
  { value: 'opportunities', label: 'Opportunities' },
  { value: 'shared', label: 'Shared links' },
] as const;
type Tab = (typeof TABS)[number]['value'];
const VIEWS = {
  engagement: [
    { value: 'alignment', label: 'Alignment' },
    { value: 'content', label: 'Content' },
    { value: 'signals', label: 'Signals' },
  ],
  pipeline: [
    { value: 'generated', label: 'Generated' },
    { value: 'progressed', label: 'Progressed' },
    { value: 'priority', label: 'Priority' },
  ],
} as const;
type ViewTab = keyof typeof VIEWS;
type View = (typeof VIEWS)[ViewTab][number]['value'];
/** The tabs before the four (`?tab=alignment` … `?tab=priority`) still open their report. */
const OLD_TABS: Record<string, { tab: ViewTab; view: View }> = {
  alignment: { tab: 'engagement', view: 'alignment' },
  content: { tab: 'engagement', view: 'content' },
  signals: { tab: 'engagement', view: 'signals' },
  priority: { tab: 'pipeline', view: 'priority' },
};

/** Where the address points: its tab and view, an old tab name mapped to the new pair. */
export function placeOf(params: URLSearchParams): { tab: Tab; view: View | null } {
  const asked = params.get('tab') ?? '';
  const old = OLD_TABS[asked];
  if (old) return old;
  const tab: Tab = TABS.some((t) => t.value === asked) ? (asked as Tab) : 'engagement';
  if (tab !== 'engagement' && tab !== 'pipeline') return { tab, view: null };
  const views: readonly { value: View }[] = VIEWS[tab];
  const view = params.get('view');
  return { tab, view: views.find((v) => v.value === view)?.value ?? views[0]?.value ?? null };
}

/** A part of the revenue report drawn by the revenue feature; the app passes it in (features do not import each other). */
export type RevenuePartSlot = (props: {
  part: 'engagement' | 'generated' | 'progressed' | 'revenue' | 'opportunities';
  clientId: string;
  range: Range;
}) => ReactNode;

const money = (cents: number, currency: string) => {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: 0 }).format(
      cents / 100,
    );
  } catch {
    return `${currency} ${whole(Math.round(cents / 100))}`;
  }
};

/**
 * /reports (issue 17): Engagement (engagement over time, alignment, content, signals), Pipeline
 * (generated, progressed, priority), Revenue and Opportunities, each table with its CSV export.
 * `?account=` and `?target=` open an account's buying group or a prospect's timeline (the global
 * search links to them).
 */
export function ReportsScreen({ revenuePart }: { revenuePart?: RevenuePartSlot }) {
  const auth = useAuth();
  const clientId = auth.currentClient;
  if (!clientId) return <ScreenLoader />;
  const canMark = auth.currentRole?.permissions.includes('cadence.write') ?? false;
  const canShare = auth.currentRole?.permissions.includes('settings.write') ?? false;
  return (
    <Reports
      key={clientId}
      clientId={clientId}
      canMark={canMark}
      canShare={canShare}
      revenuePart={revenuePart}
      noData={auth.integrations.length === 0}
      canConnect={auth.currentRole?.permissions.includes('integration.write') ?? false}
    />
  );
}

function Reports({
  clientId,
  canMark,
  canShare,
  revenuePart: RevenuePart,
  noData,
  canConnect,
}: {
  clientId: string;
  /** Nothing connected yet: say so above the zeros (issue 42 item 5). */
  noData: boolean;
  canConnect: boolean;
  canMark: boolean;
  canShare: boolean;
  revenuePart: RevenuePartSlot | undefined;
}) {
  const [params, setParams] = useSearchParams();
  const { tab, view } = placeOf(params);
  const { range, presets, customField } = usePeriodPicker();
  const accountId = params.get('account');
  const targetId = params.get('target');
  const opened: Opened = accountId
    ? { kind: 'account', id: accountId }
    : targetId
      ? { kind: 'target', id: targetId }
      : null;
  const update = (change: (next: URLSearchParams) => void) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        change(next);
        return next;
      },
      { replace: true },
    );
  const setOpened = (o: Opened) =>
    update((next) => {
      next.delete('account');
      next.delete('target');
      if (o) next.set(o.kind, o.id);
    });
  const openAccount = (id: string) => setOpened({ kind: 'account', id });
  const openTarget = (id: string) => setOpened({ kind: 'target', id });
  // An old tab name in the address becomes its new tab and view.
  const oldTab = params.get('tab') ?? '';
  useEffect(() => {
    const old = OLD_TABS[oldTab];
    if (old)
      update((next) => {
        next.set('tab', old.tab);
        next.set('view', old.view);
      });
    // Only the old name matters; update reads the latest address itself.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [oldTab]);
  const setTab = (value: string | null) =>
    update((next) => {
      next.set('tab', value ?? 'engagement');
      next.delete('view');
    });
  const setView = (value: string | null) =>
    update((next) => {
      next.set('tab', tab);
      if (value) next.set('view', value);
    });
  const usesRange = !(tab === 'pipeline' && view === 'priority') && tab !== 'shared';
  const slot = (part: Parameters<RevenuePartSlot>[0]['part']) =>
    RevenuePart ? <RevenuePart part={part} clientId={clientId} range={range} /> : null;
  const views = (of: ViewTab, panels: Record<string, ReactNode>) => (
    <Tabs value={view} onChange={setView} keepMounted={false} variant="pills" mt="md">
      <Tabs.List aria-label={`${TABS.find((t) => t.value === of)?.label} reports`}>
        {VIEWS[of].map((v) => (
          <Tabs.Tab key={v.value} value={v.value}>
            {v.label}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {VIEWS[of].map((v) => (
        <Tabs.Panel key={v.value} value={v.value} pt="md">
          {panels[v.value]}
        </Tabs.Panel>
      ))}
    </Tabs>
  );

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
        <div>
          <Title order={1}>Reports</Title>
          <Text c="dimmed" mt={4}>
            What your ads did for engagement, pipeline and revenue, and the opportunities behind it.
          </Text>
        </div>
        {usesRange && presets}
      </Group>
      {noData && (
        <NoDataYet
          clientId={clientId}
          what="Reports show what your ads did once prospects see them: engagement, pipeline and revenue."
          canConnect={canConnect}
        />
      )}
      {usesRange && customField}
      <Tabs value={tab} onChange={setTab} keepMounted={false}>
        <Tabs.List aria-label="Reports">
          {TABS.map((t) => (
            <Tabs.Tab key={t.value} value={t.value}>
              {t.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="engagement" pt="md">
          {slot('engagement')}
          {views('engagement', {
            alignment: <AlignmentPanel clientId={clientId} range={range} onOpen={openAccount} />,
            content: <ContentPanel clientId={clientId} range={range} />,
            signals: <SignalsPanel clientId={clientId} range={range} onOpen={openTarget} />,
          })}
        </Tabs.Panel>
        <Tabs.Panel value="pipeline" pt="md">
          {views('pipeline', {
            generated: slot('generated'),
            progressed: slot('progressed'),
            priority: <PriorityPanel clientId={clientId} canMark={canMark} onOpen={openAccount} />,
          })}
        </Tabs.Panel>
        <Tabs.Panel value="revenue" pt="md">
          {slot('revenue')}
        </Tabs.Panel>
        <Tabs.Panel value="opportunities" pt="md">
          {slot('opportunities')}
        </Tabs.Panel>
        <Tabs.Panel value="shared" pt="md">
          <EmbeddedReportsPanel clientId={clientId} canManage={canShare} />
        </Tabs.Panel>
      </Tabs>
      <AccountDrawer
        clientId={clientId}
        accountId={opened?.kind === 'account' ? opened.id : null}
        range={range}
        onClose={() => setOpened(null)}
        onOpenTarget={openTarget}
      />
      <TargetDrawer
        clientId={clientId}
        targetId={opened?.kind === 'target' ? opened.id : null}
        range={range}
        onClose={() => setOpened(null)}
      />
    </Stack>
  );
}

/** A table in a bordered box that scrolls sideways on narrow screens. */
function ReportTable({
  label,
  minWidth,
  head,
  children,
}: {
  label: string;
  minWidth: number;
  head: ReactNode;
  children: ReactNode;
}) {
  return (
    <Paper withBorder radius="md">
      <Table.ScrollContainer minWidth={minWidth} type="native">
        <Table highlightOnHover verticalSpacing="sm" aria-label={label}>
          <Table.Thead>{head}</Table.Thead>
          <Table.Tbody>{children}</Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

function Pages({
  total,
  page,
  onChange,
  label,
}: {
  total: number;
  page: number;
  onChange: (p: number) => void;
  label: string;
}) {
  const pages = Math.ceil(total / PAGE_SIZE);
  if (pages < 2) return null;
  return (
    <Group justify="flex-end">
      <Pagination
        total={pages}
        value={page}
        onChange={onChange}
        size="sm"
        getControlProps={(control) => ({ 'aria-label': `${label}: ${control} page` })}
        getItemProps={(p) => ({ 'aria-label': `${label}: page ${p}` })}
      />
    </Group>
  );
}

function Stat({ label, value, detail }: { label: string; value: ReactNode; detail?: string }) {
  return (
    <Paper withBorder radius="md" p="md">
      <Text size="xs" tt="uppercase" fw={700} c="dimmed">
        {label}
      </Text>
      <Text fz={26} fw={700} lh={1.2} mt={4}>
        {value}
      </Text>
      {detail && (
        <Text size="sm" c="dimmed" mt={4}>
          {detail}
        </Text>
      )}
    </Paper>
  );
}

// ---------------------------------------------------------------- alignment

const SEGMENT_LABEL: Record<Exclude<AlignmentSegment, 'all'>, string> = {
  both: 'Both',
  outreach_only: 'Outreach only',
  ads_only: 'Ads only',
};
const SEGMENT_COLOR: Record<Exclude<AlignmentSegment, 'all'>, string> = {
  both: 'teal',
  outreach_only: 'blue',
  ads_only: 'grape',
};

/** A row's name as a button that opens what is behind it. */
function Opener({ children, onClick }: { children: ReactNode; onClick: () => void }) {
  return (
    <Anchor component="button" type="button" fw={600} size="sm" ta="left" onClick={onClick}>
      {children}
    </Anchor>
  );
}

function AlignmentPanel({
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
  const q = useAlignment(clientId, range, segment, page);
  if (q.isPending) return <PanelLoading label="Loading the alignment report" />;
  if (q.isError)
    return <PanelError error={q.error} what="the alignment report" onRetry={() => void q.refetch()} />;
  const { counts, items, total, outreach_activity_types: types } = q.data;
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
        <ReportTable
          label="Accounts by alignment"
          minWidth={820}
          head={
            <Table.Tr>
              <Table.Th>Account</Table.Th>
              <Table.Th>Worked by</Table.Th>
              <Table.Th ta="right">Outreach</Table.Th>
              <Table.Th>Last outreach</Table.Th>
              <Table.Th ta="right">Impressions</Table.Th>
              <Table.Th ta="right">Clicks</Table.Th>
              <Table.Th ta="right">Views</Table.Th>
              <Table.Th ta="right">Engaged prospects</Table.Th>
            </Table.Tr>
          }
        >
          {items.map((a) => (
            <Table.Tr key={a.account_id}>
              <Table.Td>
                <Opener onClick={() => onOpen(a.account_id)}>{a.name}</Opener>
                {a.website && (
                  <Text size="xs" c="dimmed">
                    {a.website}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Badge variant="light" color={SEGMENT_COLOR[a.segment]}>
                  {SEGMENT_LABEL[a.segment]}
                </Badge>
              </Table.Td>
              <Table.Td ta="right">{whole(a.outreach_activities)}</Table.Td>
              <Table.Td>{day(a.last_outreach_at)}</Table.Td>
              <Table.Td ta="right">{whole(a.impressions)}</Table.Td>
              <Table.Td ta="right">{whole(a.clicks)}</Table.Td>
              <Table.Td ta="right">{whole(a.views)}</Table.Td>
              <Table.Td ta="right">{whole(a.engaged_prospects)}</Table.Td>
            </Table.Tr>
          ))}
        </ReportTable>
      )}
      <Pages total={total} page={page} onChange={setPage} label="Accounts" />
    </Stack>
  );
}

// ---------------------------------------------------------------- content

function ContentPanel({ clientId, range }: { clientId: string; range: Range }) {
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
          <ReportTable
            label="Ad performance"
            minWidth={720}
            head={
              <Table.Tr>
                <Table.Th>Ad</Table.Th>
                <Table.Th ta="right">Impressions</Table.Th>
                <Table.Th ta="right">Clicks</Table.Th>
                <Table.Th ta="right">CTR</Table.Th>
                <Table.Th ta="right">Landing page views</Table.Th>
                <Table.Th ta="right">Targets reached</Table.Th>
              </Table.Tr>
            }
          >
            {ads.map((a) => (
              <Table.Tr key={a.content_id}>
                <Table.Td>
                  <Text fw={600} size="sm">
                    {a.name}
                  </Text>
                  {(a.is_archived || a.status !== 'published') && (
                    <Text size="xs" c="dimmed">
                      {a.is_archived ? 'Archived' : 'Draft'}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td ta="right">{whole(a.impressions)}</Table.Td>
                <Table.Td ta="right">{whole(a.clicks)}</Table.Td>
                <Table.Td ta="right">{percent(a.ctr)}</Table.Td>
                <Table.Td ta="right">{whole(a.views)}</Table.Td>
                <Table.Td ta="right">{whole(a.targets_reached)}</Table.Td>
              </Table.Tr>
            ))}
          </ReportTable>
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
          <ReportTable
            label="Landing page performance"
            minWidth={600}
            head={
              <Table.Tr>
                <Table.Th>Landing page</Table.Th>
                <Table.Th ta="right">Clicks to it</Table.Th>
                <Table.Th ta="right">Views</Table.Th>
                <Table.Th ta="right">View rate</Table.Th>
                <Table.Th ta="right">Targets reached</Table.Th>
              </Table.Tr>
            }
          >
            {pages.map((p) => (
              <Table.Tr key={p.landing_page_id}>
                <Table.Td fw={600}>{p.name}</Table.Td>
                <Table.Td ta="right">{whole(p.clicks)}</Table.Td>
                <Table.Td ta="right">{whole(p.views)}</Table.Td>
                <Table.Td ta="right">{percent(p.view_rate)}</Table.Td>
                <Table.Td ta="right">{whole(p.targets_reached)}</Table.Td>
              </Table.Tr>
            ))}
          </ReportTable>
        )}
      </Stack>
    </Stack>
  );
}

// ---------------------------------------------------------------- signals

function SignalsPanel({
  clientId,
  range,
  onOpen,
}: {
  clientId: string;
  range: Range;
  onOpen: (targetId: string) => void;
}) {
  const [filter, setFilter] = useState<UtilizationFilter>('all');
  const [page, setPage] = useState(1);
  const q = useUtilization(clientId, range, filter, page);
  if (q.isPending) return <PanelLoading label="Loading the signals report" />;
  if (q.isError)
    return <PanelError error={q.error} what="the signals report" onRetry={() => void q.refetch()} />;
  const u = q.data;
  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 1, xs: 3 }}>
        <Stat
          label="New superprospects"
          value={<AbbreviatedNumber value={u.superprospects} />}
          detail="in the period"
        />
        <Stat
          label="Contacted after"
          value={<AbbreviatedNumber value={u.contacted} />}
          detail="sales outreach after they became super"
        />
        <Stat label="Signal used" value={percent(u.share)} detail="of superprospects acted on" />
      </SimpleGrid>
      <Group justify="space-between" wrap="wrap">
        <SegmentedControl
          aria-label="Superprospects shown"
          size="xs"
          value={filter}
          onChange={(v) => {
            setFilter(v as UtilizationFilter);
            setPage(1);
          }}
          data={[
            { value: 'all', label: 'All' },
            { value: 'not_contacted', label: 'Not contacted' },
            { value: 'contacted', label: 'Contacted' },
          ]}
        />
        <ExportButton
          clientId={clientId}
          report="signals/utilization"
          query={{ ...range, filter }}
          filename={`signals-utilization-${filter}-${fileDay(range.from)}.csv`}
        />
      </Group>
      {u.items.length === 0 ? (
        <Empty
          text={
            filter === 'all'
              ? 'No prospect became a superprospect in this period.'
              : 'No superprospect matches this filter in this period.'
          }
        />
      ) : (
        <ReportTable
          label="Superprospects and outreach"
          minWidth={860}
          head={
            <Table.Tr>
              <Table.Th>Prospect</Table.Th>
              <Table.Th>Cadence</Table.Th>
              <Table.Th>Sales rep</Table.Th>
              <Table.Th>Super since</Table.Th>
              <Table.Th>Contacted</Table.Th>
              <Table.Th ta="right">Days to contact</Table.Th>
            </Table.Tr>
          }
        >
          {u.items.map((r) => (
            <Table.Tr key={r.target_id}>
              <Table.Td>
                <Opener onClick={() => onOpen(r.target_id)}>{r.name || r.email}</Opener>
                {r.company_name && (
                  <Text size="xs" c="dimmed">
                    {r.company_name}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>{r.cadence_name}</Table.Td>
              <Table.Td>{r.sales_rep ?? '—'}</Table.Td>
              <Table.Td>{day(r.super_date)}</Table.Td>
              <Table.Td>
                {r.contacted_at ? (
                  day(r.contacted_at)
                ) : (
                  <Badge variant="light" color="orange">
                    Not yet
                  </Badge>
                )}
              </Table.Td>
              <Table.Td ta="right">{r.days_to_contact ?? '—'}</Table.Td>
            </Table.Tr>
          ))}
        </ReportTable>
      )}
      <Pages total={u.total} page={page} onChange={setPage} label="Superprospects" />
    </Stack>
  );
}

// ---------------------------------------------------------------- priority

const PRIORITY_DAYS = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
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

function PriorityPanel({
  clientId,
  canMark,
  onOpen,
}: {
  clientId: string;
  canMark: boolean;
  onOpen: (accountId: string) => void;
}) {
  const [days, setDays] = useState('30');
  const [page, setPage] = useState(1);
  const q = usePriority(clientId, Number(days), page);
  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Text size="sm" c="dimmed" maw={560}>
          Open opportunities ranked by their account&apos;s recent engagement with your ads. Score:
          impressions + 5 × clicks + 5 × landing page views. Accounts marked as a sales priority (★) come
          first.
        </Text>
        <Group gap="sm">
          <SegmentedControl
            aria-label="Engagement of the last"
            size="xs"
            value={days}
            onChange={(v) => {
              setDays(v);
              setPage(1);
            }}
            data={PRIORITY_DAYS}
          />
          <ExportButton
            clientId={clientId}
            report="pipeline/priority"
            query={{ days: Number(days) }}
            filename={`pipeline-priority-${days}d.csv`}
          />
        </Group>
      </Group>
      {q.isPending ? (
        <PanelLoading label="Loading the priority list" />
      ) : q.isError ? (
        <PanelError error={q.error} what="the priority list" onRetry={() => void q.refetch()} />
      ) : q.data.items.length === 0 ? (
        <Empty text="No open opportunity yet. Connect a CRM to rank its deals by engagement." />
      ) : (
        <>
          <ReportTable
            label="Open opportunities by engagement"
            minWidth={900}
            head={
              <Table.Tr>
                <Table.Th w={56}>Priority</Table.Th>
                <Table.Th>Opportunity</Table.Th>
                <Table.Th>Stage</Table.Th>
                <Table.Th ta="right">Amount</Table.Th>
                <Table.Th ta="right">Score</Table.Th>
                <Table.Th ta="right">Impressions</Table.Th>
                <Table.Th ta="right">Clicks</Table.Th>
                <Table.Th ta="right">Views</Table.Th>
                <Table.Th>Last engagement</Table.Th>
              </Table.Tr>
            }
          >
            {q.data.items.map((o) => (
              <Table.Tr key={o.opportunity_id}>
                <Table.Td>
                  <PriorityMark clientId={clientId} row={o} canMark={canMark} />
                </Table.Td>
                <Table.Td>
                  <Text fw={600} size="sm">
                    {o.name}
                  </Text>
                  {o.company_id ? (
                    <Anchor
                      component="button"
                      type="button"
                      size="xs"
                      onClick={() => onOpen(o.company_id ?? '')}
                    >
                      {o.account_name}
                    </Anchor>
                  ) : (
                    <Text size="xs" c="dimmed">
                      {o.account_name}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>{o.stage}</Table.Td>
                <Table.Td ta="right">{money(o.amount_cents, o.currency)}</Table.Td>
                <Table.Td ta="right" fw={700}>
                  {whole(o.score)}
                </Table.Td>
                <Table.Td ta="right">{whole(o.impressions)}</Table.Td>
                <Table.Td ta="right">{whole(o.clicks)}</Table.Td>
                <Table.Td ta="right">{whole(o.views)}</Table.Td>
                <Table.Td>{day(o.last_engaged_at)}</Table.Td>
              </Table.Tr>
            ))}
          </ReportTable>
          <Pages total={q.data.total} page={page} onChange={setPage} label="Opportunities" />
        </>
      )}
    </Stack>
  );
}
