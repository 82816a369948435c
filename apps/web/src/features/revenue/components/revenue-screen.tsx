import '@mantine/charts/styles.css';
import { useMemo, useState } from 'react';
import { BarChart, LineChart } from '@mantine/charts';
import {
  Anchor,
  Badge,
  Button,
  Drawer,
  Group,
  Pagination,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Tabs,
  Text,
  Timeline,
  Title,
} from '@mantine/core';
import { IconChartBar, IconInfoCircle } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { abbreviateNumber, formatCount, formatDay, formatMonth, formatMultiple } from '@rally/shared';
import { clientSettingsSchema } from '@rally/shared/schemas/content';
import type {
  PipelineGenerated,
  ReportOpportunity,
  ReportSummary,
  StageMove,
} from '@rally/shared/schemas/reports';
import { AbbreviatedNumber } from '../../../components/abbreviated-number.tsx';
import { usePeriodPicker } from '../../../components/period-picker.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { DownloadButton } from '../../../components/download-button.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { UncountedNote } from '../../../components/uncounted-note.tsx';
import { apiRequest } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth/store.ts';
import {
  OPPORTUNITY_PAGE_SIZE,
  downloadExport,
  downloadScExport,
  getRevenueSettingsQueryOptions,
  useGenerated,
  useOpportunities,
  useOpportunityDetail,
  usePerformance,
  useProgressed,
  useRevenueSettings,
  useSummary,
  useValueReport,
} from '../api/get-reports.ts';
import type { OpportunityFilter, Range, ReportView } from '../api/get-reports.ts';
import { ExportFilesPanel, PrepareFileButton } from './export-files-panel.tsx';
import { NoCrmNote, emptyWithoutCrm, useHasCrm } from './no-crm.tsx';

function currencySymbol(currency: string): string {
  try {
    const part = new Intl.NumberFormat('en-US', { style: 'currency', currency })
      .formatToParts(0)
      .find((p) => p.type === 'currency');
    return part?.value ?? `${currency} `;
  } catch {
    return `${currency} `;
  }
}

/** Headline amounts use the SPEC.md §9 abbreviations (K, MM, B…). */
const shortMoney = (cents: number, currency: string) =>
  `${currencySymbol(currency)}${abbreviateNumber(cents / 100)}`;
const fullMoney = (cents: number, currency: string) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: 0 }).format(
    cents / 100,
  );
const day = (iso: string) => formatDay(iso);

/** /revenue: the pipeline and revenue Rally's ads were behind (docs/reports.md). */
export function RevenueScreen() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  if (!clientId) return <ScreenLoader />;
  return <RevenueGate key={clientId} clientId={clientId} />;
}

function RevenueGate({ clientId }: { clientId: string }) {
  const settings = useRevenueSettings(clientId);
  if (settings.isPending) return <PanelLoading label="Loading the revenue report" />;
  if (settings.isError)
    return (
      <PanelError error={settings.error} what="the client settings" onRetry={() => void settings.refetch()} />
    );
  if (!settings.data.revenue_report_enabled) return <RevenueOff clientId={clientId} />;
  return <Revenue clientId={clientId} windowDays={settings.data.attribution_window_days} />;
}

export type RevenuePart = 'engagement' | 'generated' | 'progressed' | 'revenue' | 'opportunities';

/**
 * One part of the revenue report for another screen (the /reports tabs, issue 17), over the range that
 * screen chose. The parts built on opportunities follow the client's revenue_report_enabled like
 * /revenue does; engagement over time does not depend on it.
 */
export function RevenueReportPart({
  part,
  clientId,
  range,
}: {
  part: RevenuePart;
  clientId: string;
  range: Range;
}) {
  const settings = useRevenueSettings(clientId);
  const [opened, setOpened] = useState<string | null>(null);
  if (part === 'engagement') return <EngagementPanel clientId={clientId} range={range} />;
  if (settings.isPending) return <PanelLoading label="Loading the revenue report" />;
  if (settings.isError)
    return (
      <PanelError error={settings.error} what="the client settings" onRetry={() => void settings.refetch()} />
    );
  if (!settings.data.revenue_report_enabled) return <RevenueOff clientId={clientId} withHeader={false} />;
  return (
    <>
      {part === 'generated' && <GeneratedPanel clientId={clientId} range={range} onOpen={setOpened} />}
      {part === 'progressed' && <ProgressedPanel clientId={clientId} range={range} onOpen={setOpened} />}
      {part === 'revenue' && (
        <RevenuePanel
          clientId={clientId}
          range={range}
          windowDays={settings.data.attribution_window_days}
          onOpen={setOpened}
        />
      )}
      {part === 'opportunities' && (
        <OpportunitiesPanel clientId={clientId} range={range} onOpen={setOpened} />
      )}
      <OpportunityDrawer clientId={clientId} opportunityId={opened} onClose={() => setOpened(null)} />
    </>
  );
}

/** The headline numbers, the return on spend and the won deals the ads were behind. */
function RevenuePanel({
  clientId,
  range,
  windowDays,
  onOpen,
}: {
  clientId: string;
  range: Range;
  windowDays: number;
  onOpen: (id: string) => void;
}) {
  const summary = useSummary(clientId, range);
  const hasCrm = useHasCrm();
  return (
    <Stack gap="lg">
      {summary.isError ? (
        <PanelError error={summary.error} what="the revenue report" onRetry={() => void summary.refetch()} />
      ) : emptyWithoutCrm(hasCrm, summary.data) ? (
        <NoCrmNote clientId={clientId} />
      ) : (
        <Headlines summary={summary.data} />
      )}
      <WindowNote windowDays={windowDays} />
      <ValueLine clientId={clientId} range={range} />
      <Title order={2} size="h4">
        Revenue influenced
      </Title>
      <OpportunitiesPanel clientId={clientId} range={range} onOpen={onOpen} initialFilter="influenced" />
    </Stack>
  );
}

function WindowNote({ windowDays }: { windowDays: number }) {
  return (
    <Text size="sm" c="dimmed">
      <IconInfoCircle size={14} style={{ verticalAlign: -2 }} /> An engagement counts for an opportunity when
      it came within {windowDays} days before the opportunity was created, moved forward or won (the window is
      a client setting).
    </Text>
  );
}

/** SPEC.md §3: revenue_report_enabled is off by default; whoever may change settings can turn it on here. */
function RevenueOff({ clientId, withHeader = true }: { clientId: string; withHeader?: boolean }) {
  const auth = useAuth();
  const hasCrm = useHasCrm();
  const queryClient = useQueryClient();
  const canChange = auth.currentRole?.permissions.includes('settings.write') ?? false;
  const turnOn = useMutation({
    mutationFn: () =>
      apiRequest(`/v1/rest/client/${clientId}/settings`, {
        method: 'PUT',
        body: { revenue_report_enabled: true },
        schema: clientSettingsSchema,
        clientId,
      }),
    onSuccess: (data) => queryClient.setQueryData(getRevenueSettingsQueryOptions(clientId).queryKey, data),
  });
  return (
    <Stack gap="lg">
      {withHeader && <Header />}
      <Paper withBorder radius="md" p="xl">
        <Stack align="flex-start" gap="sm" maw={620}>
          <Title order={2} size="h3">
            The revenue report is off for this client
          </Title>
          <Text c="dimmed">
            Once on, this screen ties the opportunities in your CRM to the ads your prospects saw: the
            pipeline they generated, the deals they moved forward and the revenue they influenced.
          </Text>
          {!hasCrm && (
            <Text size="sm">
              It needs your opportunities: no CRM is connected yet.{' '}
              <Anchor component={Link} to={`/settings/connections?client_id=${clientId}`}>
                Connect a CRM
              </Anchor>{' '}
              or{' '}
              <Anchor
                component={Link}
                to={`/onboarding?client_id=${clientId}&source=fileforce&step=connect&kind=revenue`}
              >
                import revenue from a CSV file
              </Anchor>
              .
            </Text>
          )}
          {canChange ? (
            <Button onClick={() => turnOn.mutate()} loading={turnOn.isPending}>
              Turn on the revenue report
            </Button>
          ) : (
            <Text size="sm">Ask an owner or admin of this client to turn it on.</Text>
          )}
        </Stack>
      </Paper>
    </Stack>
  );
}

function Header({ children }: { children?: React.ReactNode }) {
  return (
    <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
      <div>
        <Title order={1}>Revenue</Title>
        <Text c="dimmed" mt={4}>
          Pipeline and revenue that followed your prospects&apos; engagement with Rally&apos;s ads.
        </Text>
      </div>
      {children}
    </Group>
  );
}

function Revenue({ clientId, windowDays }: { clientId: string; windowDays: number }) {
  const hasCrm = useHasCrm();
  const { range, presets, customField } = usePeriodPicker();
  const summary = useSummary(clientId, range);
  const [opened, setOpened] = useState<string | null>(null);
  return (
    <Stack gap="lg">
      <Header>{presets}</Header>
      {customField}
      {summary.isError ? (
        <PanelError error={summary.error} what="the revenue report" onRetry={() => void summary.refetch()} />
      ) : emptyWithoutCrm(hasCrm, summary.data) ? (
        <NoCrmNote clientId={clientId} />
      ) : (
        <Headlines summary={summary.data} />
      )}
      <WindowNote windowDays={windowDays} />
      <ValueLine clientId={clientId} range={range} />
      <EngagementPanel clientId={clientId} range={range} />
      <Tabs defaultValue="generated" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="generated">Pipeline generated</Tabs.Tab>
          <Tabs.Tab value="progressed">Pipeline progressed</Tabs.Tab>
          <Tabs.Tab value="opportunities">All opportunities</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="generated" pt="md">
          <GeneratedPanel clientId={clientId} range={range} onOpen={setOpened} />
        </Tabs.Panel>
        <Tabs.Panel value="progressed" pt="md">
          <ProgressedPanel clientId={clientId} range={range} onOpen={setOpened} />
        </Tabs.Panel>
        <Tabs.Panel value="opportunities" pt="md">
          <OpportunitiesPanel clientId={clientId} range={range} onOpen={setOpened} />
        </Tabs.Panel>
      </Tabs>
      <OpportunityDrawer clientId={clientId} opportunityId={opened} onClose={() => setOpened(null)} />
    </Stack>
  );
}

function Headlines({ summary }: { summary: ReportSummary | undefined }) {
  if (!summary) {
    return (
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} role="status" aria-label="Loading the headline numbers">
        {[0, 1, 2, 3].map((i) => (
          <Skeleton key={i} height={118} radius="md" />
        ))}
      </SimpleGrid>
    );
  }
  const c = summary.currency;
  const cards = [
    {
      label: 'Pipeline generated',
      amount: summary.pipeline_generated_cents / 100,
      prefix: currencySymbol(c),
      detail: `${summary.generated} of ${summary.opportunities_created} new opportunities (${shortMoney(summary.pipeline_created_cents, c)})`,
      exact: fullMoney(summary.pipeline_generated_cents, c),
    },
    {
      label: 'Pipeline progressed',
      amount: summary.pipeline_progressed_cents / 100,
      prefix: currencySymbol(c),
      detail: `${summary.progressed} ${summary.progressed === 1 ? 'opportunity' : 'opportunities'} moved forward`,
      exact: fullMoney(summary.pipeline_progressed_cents, c),
    },
    {
      label: 'Revenue influenced',
      amount: summary.revenue_influenced_cents / 100,
      prefix: currencySymbol(c),
      detail: `${summary.influenced} of ${summary.won} won (${shortMoney(summary.revenue_won_cents, c)})`,
      exact: fullMoney(summary.revenue_influenced_cents, c),
    },
    {
      label: 'Engaged accounts',
      amount: summary.engaged_accounts,
      prefix: '',
      detail: `${abbreviateNumber(summary.impressions)} impressions · ${abbreviateNumber(summary.clicks)} clicks · ${abbreviateNumber(summary.views)} views`,
      exact: formatCount(summary.engaged_accounts),
    },
  ];
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
      {cards.map((card) => (
        <Paper key={card.label} withBorder radius="md" p="md">
          <Text size="xs" tt="uppercase" fw={700} c="dimmed">
            {card.label}
          </Text>
          <Text fz={28} fw={700} lh={1.2} mt={4} w="fit-content">
            <AbbreviatedNumber value={card.amount} prefix={card.prefix} full={card.exact} />
          </Text>
          <Text size="sm" c="dimmed" mt={4}>
            {card.detail}
          </Text>
          {card.label === 'Pipeline generated' && summary.other_currency_opportunities > 0 && (
            <Text size="xs" c="dimmed" mt={4}>
              {summary.other_currency_opportunities} in other currencies not summed
            </Text>
          )}
        </Paper>
      ))}
    </SimpleGrid>
  );
}

function ExportButton({ onExport, label }: { onExport: () => Promise<void>; label: string }) {
  return <DownloadButton label={label} onDownload={onExport} />;
}

const fileDay = (epoch: number) => new Date(epoch * 1000).toISOString().slice(0, 10);

/** Generated pipeline by month, with the same numbers as a table for screen readers and copying. */
function GeneratedByMonth({ months, currency }: { months: PipelineGenerated['by_month']; currency: string }) {
  const data = useMemo(
    () =>
      months.map((m) => ({
        // The server's months are UTC ("2026-11"); the middle of the month names it in any zone.
        month: formatMonth(`${m.month}-15`),
        opportunities: m.opportunities,
        amount: m.amount_cents / 100,
      })),
    [months],
  );
  if (data.length < 2) return null;
  return (
    <Paper withBorder radius="md" p="md">
      <Group gap={6} mb="sm">
        <IconChartBar size={16} />
        <Text fw={600} size="sm">
          Generated pipeline by month
        </Text>
      </Group>
      <BarChart
        h={200}
        data={data}
        dataKey="month"
        series={[{ name: 'amount', label: 'Pipeline generated', color: 'indigo.6' }]}
        valueFormatter={(v) => `${currencySymbol(currency)}${abbreviateNumber(v)}`}
        // The table below carries the numbers for screen readers; the picture stays out of their way
        // and out of the tab order.
        barChartProps={{ accessibilityLayer: false }}
        aria-hidden
      />
      <Table mt="sm" fz="sm" verticalSpacing={4} aria-label="Generated pipeline by month">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Month</Table.Th>
            <Table.Th ta="right">Opportunities</Table.Th>
            <Table.Th ta="right">Pipeline generated</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {data.map((m) => (
            <Table.Tr key={m.month}>
              <Table.Td>{m.month}</Table.Td>
              <Table.Td ta="right">{m.opportunities}</Table.Td>
              <Table.Td ta="right">{fullMoney(m.amount * 100, currency)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}

function GeneratedPanel({
  clientId,
  range,
  onOpen,
}: {
  clientId: string;
  range: Range;
  onOpen: (id: string) => void;
}) {
  const [page, setPage] = useState(1);
  const q = useGenerated(clientId, range, page);
  if (q.isPending) return <PanelLoading label="Loading the generated pipeline" />;
  if (q.isError)
    return <PanelError error={q.error} what="the generated pipeline" onRetry={() => void q.refetch()} />;
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          Opportunities created in the period whose account engaged with your ads first.
        </Text>
        <ExportButton
          label="Export CSV"
          onExport={() =>
            downloadExport(
              clientId,
              'pipeline/generated',
              range,
              `pipeline-generated-${fileDay(range.from)}.csv`,
            )
          }
        />
      </Group>
      <GeneratedByMonth months={q.data.by_month} currency={q.data.currency} />
      <OpportunityTable
        items={q.data.items}
        label="Pipeline generated"
        empty="No opportunity in this period followed an engagement with your ads yet."
        onOpen={onOpen}
      />
      <Pager total={q.data.total} page={page} onChange={setPage} noun="opportunities" />
    </Stack>
  );
}

function ProgressedPanel({
  clientId,
  range,
  onOpen,
}: {
  clientId: string;
  range: Range;
  onOpen: (id: string) => void;
}) {
  const [page, setPage] = useState(1);
  const q = useProgressed(clientId, range, page);
  if (q.isPending) return <PanelLoading label="Loading the progressed pipeline" />;
  if (q.isError)
    return <PanelError error={q.error} what="the progressed pipeline" onRetry={() => void q.refetch()} />;
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          Stage moves forward in the period, made after the account engaged with your ads.
        </Text>
        <ExportButton
          label="Export CSV"
          onExport={() =>
            downloadExport(
              clientId,
              'pipeline/progressed',
              range,
              `pipeline-progressed-${fileDay(range.from)}.csv`,
            )
          }
        />
      </Group>
      {q.data.items.length === 0 ? (
        <EmptyTable text="No opportunity moved forward after an engagement in this period." />
      ) : (
        <Paper withBorder radius="md">
          <Table.ScrollContainer minWidth={720} type="native">
            <Table highlightOnHover verticalSpacing="sm" aria-label="Pipeline progressed">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Opportunity</Table.Th>
                  <Table.Th>Move</Table.Th>
                  <Table.Th>Moved</Table.Th>
                  <Table.Th>Engaged before</Table.Th>
                  <Table.Th ta="right">Amount</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {q.data.items.map((m: StageMove) => (
                  <Table.Tr key={`${m.opportunity_id}-${m.moved_at}`}>
                    <Table.Td>
                      <Anchor
                        component="button"
                        type="button"
                        fw={600}
                        onClick={() => onOpen(m.opportunity_id)}
                      >
                        {m.name}
                      </Anchor>
                      <Text size="xs" c="dimmed">
                        {m.account_name}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      {m.from_stage} → <b>{m.to_stage}</b>
                    </Table.Td>
                    <Table.Td>{day(m.moved_at)}</Table.Td>
                    <Table.Td>{day(m.engaged_at)}</Table.Td>
                    <Table.Td ta="right">{fullMoney(m.amount_cents, m.currency)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
      <Pager total={q.data.total} page={page} onChange={setPage} noun="moves" />
    </Stack>
  );
}

/** The pages of a report's table, with the number of its rows; nothing when one page holds them. */
function Pager({
  total,
  page,
  onChange,
  noun,
}: {
  total: number;
  page: number;
  onChange: (page: number) => void;
  noun: string;
}) {
  if (total <= OPPORTUNITY_PAGE_SIZE) return null;
  return (
    <Group justify="space-between">
      <Text size="sm" c="dimmed">
        {formatCount(total)} {noun}
      </Text>
      <Pagination
        total={Math.ceil(total / OPPORTUNITY_PAGE_SIZE)}
        value={page}
        onChange={onChange}
        size="sm"
        getControlProps={(control) => ({ 'aria-label': `${control} page` })}
      />
    </Group>
  );
}

const FILTERS: { value: OpportunityFilter; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'generated', label: 'Generated' },
  { value: 'influenced', label: 'Influenced' },
  { value: 'open', label: 'Open' },
  { value: 'won', label: 'Won' },
  { value: 'lost', label: 'Lost' },
];

function OpportunitiesPanel({
  clientId,
  range,
  onOpen,
  initialFilter = 'all',
}: {
  clientId: string;
  range: Range;
  onOpen: (id: string) => void;
  initialFilter?: OpportunityFilter;
}) {
  const [filter, setFilter] = useState<OpportunityFilter>(initialFilter);
  const [page, setPage] = useState(1);
  const q = useOpportunities(clientId, range, filter, page);
  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <SegmentedControl
          aria-label="Which opportunities"
          size="xs"
          data={FILTERS}
          value={filter}
          onChange={(v) => {
            setFilter(v as OpportunityFilter);
            setPage(1);
          }}
        />
        <Group gap="xs">
          <ExportButton
            label="Export CSV"
            onExport={() =>
              downloadExport(
                clientId,
                'opportunity',
                { ...range, filter },
                `opportunities-${filter}-${fileDay(range.from)}.csv`,
              )
            }
          />
          <PrepareFileButton clientId={clientId} range={range} filter={filter} />
        </Group>
      </Group>
      {q.isPending ? (
        <PanelLoading label="Loading the opportunities" />
      ) : q.isError ? (
        <PanelError error={q.error} what="the opportunities" onRetry={() => void q.refetch()} />
      ) : (
        <>
          <OpportunityTable
            items={q.data.items}
            label="Opportunities"
            empty="No opportunity was created or won in this period."
            onOpen={onOpen}
          />
          <Pager total={q.data.total} page={page} onChange={setPage} noun="opportunities" />
        </>
      )}
      <ExportFilesPanel clientId={clientId} />
    </Stack>
  );
}

function EmptyTable({ text }: { text: string }) {
  return (
    <Paper withBorder radius="md" p="xl">
      <Text c="dimmed" ta="center">
        {text}
      </Text>
    </Paper>
  );
}

function OpportunityTable({
  items,
  label,
  empty,
  onOpen,
}: {
  items: ReportOpportunity[];
  label: string;
  empty: string;
  onOpen: (id: string) => void;
}) {
  if (items.length === 0) return <EmptyTable text={empty} />;
  return (
    <Paper withBorder radius="md">
      <Table.ScrollContainer minWidth={760} type="native">
        <Table highlightOnHover verticalSpacing="sm" aria-label={label}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Opportunity</Table.Th>
              <Table.Th>Stage</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>Rally</Table.Th>
              <Table.Th ta="right">Amount</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((o) => (
              <Table.Tr key={o.id}>
                <Table.Td>
                  <Anchor component="button" type="button" fw={600} ta="left" onClick={() => onOpen(o.id)}>
                    {o.name}
                  </Anchor>
                  <Text size="xs" c="dimmed">
                    {o.account_name}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Badge variant="light" color={o.is_won ? 'green' : o.is_closed ? 'gray' : 'blue'}>
                    {o.stage}
                  </Badge>
                </Table.Td>
                <Table.Td>{o.created_at ? day(o.created_at) : '—'}</Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {o.generated_engaged_at && (
                      <Badge variant="light" color="indigo">
                        Generated
                      </Badge>
                    )}
                    {o.influenced && (
                      <Badge variant="light" color="teal">
                        Influenced
                      </Badge>
                    )}
                    {!o.generated_engaged_at && !o.influenced && (
                      <Text size="sm" c="dimmed">
                        —
                      </Text>
                    )}
                  </Group>
                </Table.Td>
                <Table.Td ta="right">{fullMoney(o.amount_cents, o.currency)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

/** One opportunity opened: the engaged prospects of its account and its stage history. */
function OpportunityDrawer({
  clientId,
  opportunityId,
  onClose,
}: {
  clientId: string;
  opportunityId: string | null;
  onClose: () => void;
}) {
  const q = useOpportunityDetail(clientId, opportunityId);
  const o = q.data?.opportunity;
  return (
    <Drawer
      opened={opportunityId !== null}
      onClose={onClose}
      position="right"
      size="lg"
      title={<Text fw={700}>{o?.name ?? 'Opportunity'}</Text>}
      closeButtonProps={{ 'aria-label': 'Close the opportunity' }}
    >
      {q.isPending ? (
        <PanelLoading label="Loading the opportunity" />
      ) : q.isError ? (
        <PanelError error={q.error} what="the opportunity" onRetry={() => void q.refetch()} />
      ) : o ? (
        <Stack gap="lg">
          <Text c="dimmed">
            {o.account_name} · {o.stage} · {fullMoney(o.amount_cents, o.currency)}
            {o.created_at ? ` · created ${day(o.created_at)}` : ''}
            {o.close_date ? ` · ${o.is_closed ? 'closed' : 'closes'} ${day(o.close_date)}` : ''}
          </Text>
          <Stack gap="xs">
            <Title order={3} size="h5">
              Engaged prospects
            </Title>
            {q.data.prospects.length === 0 ? (
              <Text size="sm" c="dimmed">
                Nobody at this account engaged with your ads within {q.data.window_days} days of this
                opportunity.
              </Text>
            ) : (
              <Table fz="sm" verticalSpacing={6} aria-label="Engaged prospects">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Prospect</Table.Th>
                    <Table.Th ta="right">Impressions</Table.Th>
                    <Table.Th ta="right">Clicks</Table.Th>
                    <Table.Th ta="right">Views</Table.Th>
                    <Table.Th>First engaged</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {q.data.prospects.map((p) => (
                    <Table.Tr key={p.prospect_id}>
                      <Table.Td>
                        <Text size="sm" fw={600}>
                          {p.name || p.email}
                        </Text>
                        <Text size="xs" c="dimmed">
                          {p.title || p.email}
                        </Text>
                      </Table.Td>
                      <Table.Td ta="right">{p.impressions}</Table.Td>
                      <Table.Td ta="right">{p.clicks}</Table.Td>
                      <Table.Td ta="right">{p.views}</Table.Td>
                      <Table.Td>{day(p.first_engaged_at)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
          </Stack>
          <Stack gap="xs">
            <Title order={3} size="h5">
              Stage history
            </Title>
            {q.data.stage_history.length === 0 ? (
              <Text size="sm" c="dimmed">
                The CRM gave no stage history for this opportunity.
              </Text>
            ) : (
              <Timeline bulletSize={14} lineWidth={2}>
                {q.data.stage_history.map((h) => (
                  <Timeline.Item key={`${h.changed_at}-${h.to_stage}`} title={h.to_stage}>
                    <Text size="xs" c="dimmed">
                      {h.from_stage ? `from ${h.from_stage}, ` : 'created, '}
                      {day(h.changed_at)}
                    </Text>
                  </Timeline.Item>
                ))}
              </Timeline>
            )}
          </Stack>
        </Stack>
      ) : null}
    </Drawer>
  );
}

const VIEWS: { value: ReportView; label: string }[] = [
  { value: 'daily', label: 'Daily' },
  { value: 'weekly', label: 'Weekly' },
  { value: 'monthly', label: 'Monthly' },
];

/** Engagement per day, week or month (GET /sc/performance/by_date), with its numbers as a table. */
function EngagementPanel({ clientId, range }: { clientId: string; range: Range }) {
  const [view, setView] = useState<ReportView>('weekly');
  const q = usePerformance(clientId, range, view);
  return (
    <Paper withBorder radius="md" p="md">
      <Group justify="space-between" mb="sm" wrap="wrap" gap="xs">
        <Text fw={600}>Engagement</Text>
        <Group gap="xs">
          <SegmentedControl
            aria-label="Engagement per"
            size="xs"
            data={VIEWS}
            value={view}
            onChange={(v) => setView(v as ReportView)}
          />
          <ExportButton
            label="Export engagement"
            onExport={() =>
              downloadScExport(
                clientId,
                '/sc/performance/by_date/export',
                { ...range, view },
                `performance-${view}-${fileDay(range.from)}.csv`,
              )
            }
          />
        </Group>
      </Group>
      {q.isPending ? (
        <Skeleton height={220} role="status" aria-label="Loading the engagement" />
      ) : q.isError ? (
        <PanelError error={q.error} what="the engagement" onRetry={() => void q.refetch()} />
      ) : (
        <>
          <LineChart
            h={220}
            data={q.data.rows}
            dataKey="date"
            series={[
              { name: 'impressions', label: 'Impressions', color: 'indigo.6' },
              { name: 'clicks', label: 'Clicks', color: 'teal.7' },
              { name: 'views', label: 'Landing page views', color: 'orange.7' },
              { name: 'new_superprospects', label: 'New superprospects', color: 'grape.7' },
            ]}
            withLegend
            curveType="monotone"
            valueFormatter={(v) => abbreviateNumber(v)}
            lineChartProps={{ accessibilityLayer: false }}
            aria-hidden
          />
          <UncountedNote
            summary={q.data.uncounted}
            title="Not counted in this period"
            ariaLabel="Not counted in the engagement report"
            mt="xs"
            mb="xs"
          />
          <details>
            <summary>
              <Text span size="sm">
                Show the numbers
              </Text>
            </summary>
            <Table mt="xs" fz="sm" verticalSpacing={4} aria-label="Engagement per period">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{view === 'daily' ? 'Day' : view === 'weekly' ? 'Week from' : 'Month'}</Table.Th>
                  <Table.Th ta="right">Impressions</Table.Th>
                  <Table.Th ta="right">Clicks</Table.Th>
                  <Table.Th ta="right">Landing page views</Table.Th>
                  <Table.Th ta="right">New superprospects</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {q.data.rows.map((r) => (
                  <Table.Tr key={r.date}>
                    <Table.Td>{r.date}</Table.Td>
                    <Table.Td ta="right">{r.impressions}</Table.Td>
                    <Table.Td ta="right">{r.clicks}</Table.Td>
                    <Table.Td ta="right">{r.views}</Table.Td>
                    <Table.Td ta="right">{r.new_superprospects}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </details>
        </>
      )}
    </Paper>
  );
}

/** The return on what the client paid for superprospects (value_report), in one line. */
/** A multiple of the spend, abbreviated as every number (SPEC.md §9): 140866.7 is "140.9K×". */
const times = formatMultiple;

function ValueLine({ clientId, range }: { clientId: string; range: Range }) {
  const q = useValueReport(clientId, range);
  if (!q.data) return null;
  const v = q.data;
  return (
    <Paper withBorder radius="md" p="md" bg="indigo.0">
      <Text size="sm">
        {v.spend_cents > 0 ? (
          <>
            <b>{fullMoney(v.spend_cents, v.spend_currency)}</b> spent on {v.superprospects_billed}{' '}
            {v.superprospects_billed === 1 ? 'superprospect' : 'superprospects'} in this period was behind{' '}
            <b>{times(v.pipeline_per_spend)}</b> its cost in pipeline generated and{' '}
            <b>{times(v.revenue_per_spend)}</b> in revenue influenced.
          </>
        ) : (
          <>No superprospect was billed in this period, so there is no spend to weigh the results against.</>
        )}
      </Text>
    </Paper>
  );
}
