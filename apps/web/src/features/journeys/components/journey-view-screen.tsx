import '@mantine/charts/styles.css';
import { AreaChart } from '@mantine/charts';
import {
  Alert,
  Anchor,
  Button,
  Group,
  Pagination,
  Paper,
  Progress,
  SegmentedControl,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { IconRoute } from '@tabler/icons-react';
import { useState } from 'react';
import type { ComponentType } from 'react';
import { Link, useParams } from 'react-router';
import type { JourneyViewReply } from '@rally/shared/schemas/journeys';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth/store.ts';
import { useJourneyMoves, useJourneyView } from '../api/get-journey-view.ts';
import { formatDay, formatDayTime, formatShortDay } from '@rally/shared';
import { JourneyStagesTooltip, StageLegend } from './journey-chart-parts.tsx';

const MOVES_PAGE = 15;
const COLORS = [
  'gray.5',
  'blue.5',
  'teal.6',
  'orange.6',
  'indigo.7',
  'grape.6',
  'cyan.6',
  'lime.7',
  'red.6',
  'yellow.6',
];

const when = (iso: string) => formatDayTime(iso);

/** "Run on networks" for the journey's stages (the ad-networks feature's panel), given by the route. */
export type StageNetworksComponent = ComponentType<{
  clientId: string;
  stages: readonly { id: string; name: string }[];
  canWrite: boolean;
}>;

/** /cohorts/{id}/journey/view: accounts by stage now and over time (a funnel), and the stage moves. */
export function JourneyViewScreen({ StageNetworks }: { StageNetworks?: StageNetworksComponent } = {}) {
  const auth = useAuth();
  const { id = '' } = useParams();
  const clientId = auth.currentClient;
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  return (
    <JourneyView
      clientId={clientId}
      cohortId={id}
      canWrite={auth.currentRole.permissions.includes('cohort.write')}
      StageNetworks={StageNetworks}
    />
  );
}

function JourneyView({
  clientId,
  cohortId,
  canWrite,
  StageNetworks,
}: {
  clientId: string;
  cohortId: string;
  canWrite: boolean;
  StageNetworks?: StageNetworksComponent;
}) {
  const [days, setDays] = useState('30');
  const view = useJourneyView(clientId, cohortId, Number(days));
  const back = (
    <Anchor component={Link} to={`/cohorts/${cohortId}?client_id=${clientId}`} size="sm">
      ← Cohort
    </Anchor>
  );
  const builder = canWrite && (
    <Button
      component={Link}
      to={`/cohorts/${cohortId}/journey?client_id=${clientId}`}
      variant="light"
      size="xs"
    >
      Edit the journey
    </Button>
  );
  if (view.isPending) return <PanelLoading label="Loading the journey view" />;
  if (view.isError) {
    if (view.error instanceof ApiError && view.error.status === 404)
      return (
        <Stack>
          {back}
          <Title order={1}>Journey view</Title>
          <Alert color="gray" title="No journey yet" icon={<IconRoute size={18} />}>
            This cohort has no journey.{' '}
            {canWrite ? (
              <Anchor component={Link} to={`/cohorts/${cohortId}/journey?client_id=${clientId}`}>
                Build one
              </Anchor>
            ) : (
              'Someone with the cohort permission can build one.'
            )}
          </Alert>
        </Stack>
      );
    return <PanelError error={view.error} what="the journey view" onRetry={() => void view.refetch()} />;
  }
  const v = view.data;
  const total = v.stages.reduce((n, s) => n + s.accounts, 0);
  return (
    <Stack gap="lg">
      <div>
        {back}
        <Group justify="space-between" align="flex-start">
          <div>
            <Title order={1}>{v.name}</Title>
            <Text c="dimmed" size="sm" aria-live="polite">
              {total} accounts ·{' '}
              {v.evaluated_at ? `rules last run ${when(v.evaluated_at)}` : 'rules not run yet'} · updates
              every few seconds
            </Text>
          </div>
          {builder}
        </Group>
      </div>
      <Paper withBorder radius="md" p="md">
        <Title order={2} size="h4" mb="sm">
          Accounts by stage
        </Title>
        <Stack
          gap="xs"
          component="ol"
          style={{ listStyle: 'none', padding: 0, margin: 0 }}
          aria-label="Funnel"
        >
          {v.stages.map((s, i) => (
            <li key={s.id} data-stage={s.name}>
              <Group justify="space-between" gap="xs">
                <Text size="sm" fw={500}>
                  {i + 1}. {s.name}
                </Text>
                <Text size="sm" fw={700} data-testid={`stage-count-${s.name}`}>
                  {s.accounts}
                </Text>
              </Group>
              <Progress
                value={total ? (s.accounts / total) * 100 : 0}
                color={COLORS[i % COLORS.length]?.split('.')[0]}
                aria-label={`${s.name}: ${s.accounts} of ${total} accounts`}
              />
            </li>
          ))}
        </Stack>
      </Paper>
      {StageNetworks && <StageNetworks clientId={clientId} stages={v.stages} canWrite={canWrite} />}
      <FunnelOverTime view={v} days={days} setDays={setDays} />
      <MovesPanel clientId={clientId} cohortId={cohortId} />
    </Stack>
  );
}

function FunnelOverTime({
  view,
  days,
  setDays,
}: {
  view: JourneyViewReply;
  days: string;
  setDays: (d: string) => void;
}) {
  const data = view.by_date.map((d) =>
    Object.fromEntries([['date', d.date], ...view.stages.map((s, i) => [s.name, d.accounts[i] ?? 0])]),
  );
  const colors = view.stages.map((_, i) => COLORS[i % COLORS.length] ?? 'gray.5');
  const empty = view.by_date.every((d) => d.accounts.every((n) => n === 0));
  return (
    <Paper withBorder radius="md" p="md">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          Accounts by stage over time
        </Title>
        <SegmentedControl
          size="xs"
          aria-label="Period"
          value={days}
          onChange={setDays}
          data={[
            { value: '30', label: '30 days' },
            { value: '60', label: '60 days' },
            { value: '90', label: '90 days' },
          ]}
        />
      </Group>
      {empty ? (
        <Paper withBorder radius="md" p="lg" data-testid="journey-chart-empty">
          <Text size="sm" c="dimmed" ta="center">
            No account was in the journey in this period yet: the chart fills in as accounts join.
          </Text>
        </Paper>
      ) : (
        <>
          {/* Issue 42 item 10: the legend and the tooltip follow the stages' order, and the tooltip
              gives each stage its own count (the chart's stacked value is the running total). */}
          <StageLegend stages={view.stages} colors={colors} />
          <AreaChart
            h={240}
            data={data}
            dataKey="date"
            type="stacked"
            series={view.stages.map((s, i) => ({ name: s.name, color: colors[i] ?? 'gray.5' }))}
            curveType="step"
            xAxisProps={{ tickFormatter: (v: string) => formatShortDay(v) }}
            tooltipProps={{
              content: ({ label, payload }) => (
                <JourneyStagesTooltip
                  label={typeof label === 'string' ? formatDay(label) : ''}
                  row={(payload?.[0]?.payload as Record<string, number> | undefined) ?? null}
                  stages={view.stages}
                  colors={colors}
                />
              ),
            }}
            // The table below carries the numbers for screen readers and copying.
            areaChartProps={{ accessibilityLayer: false }}
            aria-hidden
          />
        </>
      )}
      <details>
        <summary>
          <Text span size="sm">
            Show the numbers
          </Text>
        </summary>
        <Table.ScrollContainer minWidth={480} type="native">
          <Table mt="xs" fz="sm" verticalSpacing={4} aria-label="Accounts by stage per day">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Day</Table.Th>
                {view.stages.map((s) => (
                  <Table.Th key={s.id} ta="right">
                    {s.name}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {view.by_date.map((d) => (
                <Table.Tr key={d.date}>
                  <Table.Td>{formatDay(d.date)}</Table.Td>
                  {d.accounts.map((n, i) => (
                    <Table.Td key={view.stages[i]?.id ?? i} ta="right">
                      {n}
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </details>
    </Paper>
  );
}

function MovesPanel({ clientId, cohortId }: { clientId: string; cohortId: string }) {
  const [page, setPage] = useState(1);
  const q = useJourneyMoves(clientId, cohortId, page, MOVES_PAGE);
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        Stage moves
      </Title>
      {q.isPending ? (
        <Skeleton height={120} role="status" aria-label="Loading the stage moves" />
      ) : q.isError ? (
        <PanelError error={q.error} what="the stage moves" onRetry={() => void q.refetch()} />
      ) : q.data.items.length === 0 ? (
        <Paper withBorder radius="md" p="lg">
          <Text size="sm" c="dimmed" ta="center">
            No account has moved stage yet. Moves appear here as accounts meet the stages&apos; rules.
          </Text>
        </Paper>
      ) : (
        <Paper withBorder radius="md">
          <Table.ScrollContainer
            minWidth={560}
            type="native"
            tabIndex={0}
            role="region"
            aria-label="Stage moves table"
          >
            <Table verticalSpacing="xs" aria-label="Stage moves">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>When</Table.Th>
                  <Table.Th>Account</Table.Th>
                  <Table.Th>From</Table.Th>
                  <Table.Th>To</Table.Th>
                  <Table.Th>Because</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {q.data.items.map((m) => (
                  <Table.Tr key={m.id}>
                    <Table.Td>{when(m.moved_at)}</Table.Td>
                    <Table.Td>{m.company_name ?? '—'}</Table.Td>
                    <Table.Td>{m.from_stage ?? '—'}</Table.Td>
                    <Table.Td>{m.to_stage}</Table.Td>
                    <Table.Td>
                      <Text size="xs" c="dimmed">
                        {m.reason ? m.reason.split(',').map(reasonText).join(', ') : '—'}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
      {q.data && q.data.total > MOVES_PAGE && (
        <Group justify="flex-end">
          <Pagination
            total={Math.ceil(Math.min(q.data.total, 10_000 * MOVES_PAGE) / MOVES_PAGE)}
            value={page}
            onChange={setPage}
            getControlProps={(control) => ({ 'aria-label': `${control} page of moves` })}
            getItemProps={(p) => ({ 'aria-label': `Moves page ${p}` })}
          />
        </Group>
      )}
    </Stack>
  );
}

const REASONS: Record<string, string> = {
  impressions_gte: 'impressions',
  clicks_gte: 'clicks',
  views_gte: 'landing page views',
  days_in_stage_gte: 'days in stage',
  opportunity_created: 'opportunity created',
  crm_stage_reached: 'CRM stage reached',
  network_impressions_gte: 'company impressions reported by LinkedIn',
  network_clicks_gte: 'company clicks reported by LinkedIn',
};
const reasonText = (r: string) => REASONS[r] ?? r;
