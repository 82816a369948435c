import { useState } from 'react';
import { Badge, Group, Paper, Select, Stack, Table, Text, Title } from '@mantine/core';
import { formatCount } from '@rally/shared';
import type { LiftReport } from '@rally/shared/schemas/lift';
import { DownloadButton } from '../../../components/download-button.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { downloadAssignments, useHoldouts, useLift } from '../api/lift.ts';
import type { LiftScope } from '../api/lift.ts';
import { HoldoutSettings } from './holdout-settings.tsx';

const money = (amount: number, currency: string) =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency, maximumFractionDigits: 0 }).format(amount);
const signed = (v: number, fmt: (n: number) => string) =>
  v > 0 ? `+${fmt(v)}` : v < 0 ? `−${fmt(-v)}` : fmt(0);
const people = (v: number) => new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 }).format(v);

type Diff = LiftReport['lift']['meetings'];

function DiffCell({ d, fmt }: { d: Diff; fmt: (n: number) => string }) {
  if (!d) return <Table.Td c="dimmed">—</Table.Td>;
  return (
    <Table.Td>
      <Text size="sm" fw={d.excludes_zero ? 600 : 400}>
        {signed(d.difference, fmt)}
      </Text>
      <Text size="xs" c="dimmed">
        95 % interval {signed(d.low, fmt)} to {signed(d.high, fmt)}
      </Text>
    </Table.Td>
  );
}

const STATUS: Record<LiftReport['status'], { label: string; color: string }> = {
  no_holdout: { label: 'No holdout yet', color: 'gray' },
  not_enough_data: { label: 'Not enough data yet', color: 'yellow' },
  measured: { label: 'Measured', color: 'teal' },
};

function LiftTable({ r }: { r: LiftReport }) {
  const m = (v: number) => money(v, r.currency);
  const rate = (v: number | null, fmt: (n: number) => string) => (v === null ? '—' : fmt(v));
  const rows = [
    { name: 'People with a meeting', key: 'meetings' as const, fmt: people },
    { name: 'People with an opportunity created', key: 'with_opportunity' as const, fmt: people },
    { name: 'Pipeline created', key: 'pipeline' as const, fmt: m },
    { name: 'Revenue won', key: 'won' as const, fmt: m },
  ];
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table verticalSpacing="xs" aria-label="Exposed and held-out targets, per 100">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Per 100 targets</Table.Th>
            <Table.Th>Shown ads ({formatCount(r.groups.exposed.targets)})</Table.Th>
            <Table.Th>Held out ({formatCount(r.groups.held_out.targets)})</Table.Th>
            <Table.Th>What the ads changed</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={row.key}>
              <Table.Td>{row.name}</Table.Td>
              <Table.Td>{rate(r.per_100.exposed[row.key], row.fmt)}</Table.Td>
              <Table.Td>{rate(r.per_100.held_out[row.key], row.fmt)}</Table.Td>
              <DiffCell d={r.lift[row.key]} fmt={row.fmt} />
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/**
 * The lift report (issue 45): targets shown the ads against a randomised holdout shown none, per 100
 * targets, with 95 % intervals; beside the attributed figures, and labelled as the other way of
 * counting. docs/reports.md "Lift" explains both.
 */
export function LiftPanel({ clientId }: { clientId: string }) {
  const [scopeKey, setScopeKey] = useState('client');
  const holdouts = useHoldouts(clientId);
  const scope: LiftScope =
    scopeKey === 'client'
      ? { scope: 'client' }
      : { scope: scopeKey.startsWith('cohort:') ? 'cohort' : 'cadence', id: scopeKey.split(':')[1] ?? '' };
  const lift = useLift(clientId, scope);
  const options = [
    { value: 'client', label: 'Every cadence and cohort' },
    ...(holdouts.data?.items ?? [])
      .filter((h) => h.exposed + h.held_out > 0 || h.holdout_percent > 0)
      .map((h) => ({
        value: h.kind === 'cohort' && h.cohort_id ? `cohort:${h.cohort_id}` : `cadence:${h.cadence_id}`,
        label: `${h.kind === 'cohort' ? 'Cohort' : 'Cadence'}: ${h.name}`,
      })),
  ];
  const r = lift.data;
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="lift-title">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
          <div>
            <Title order={2} size="h4" id="lift-title">
              Incremental: what the ads caused
            </Title>
            <Text size="sm" c="dimmed" maw={640}>
              A randomised share of each cadence&apos;s and cohort&apos;s prospects is held out and shown no
              ads. Comparing them with the prospects shown ads tells what the ads changed, unlike the
              attributed figures above, which credit the ads with everything that followed an engagement.
            </Text>
          </div>
          <Group gap="xs">
            <Select
              aria-label="Compare"
              data={options}
              value={scopeKey}
              onChange={(v) => setScopeKey(v ?? 'client')}
              allowDeselect={false}
              w={260}
            />
            <DownloadButton
              label="Assignments (CSV)"
              ariaLabel="Assignments (CSV): every assigned prospect with its group and outcomes"
              onDownload={() => downloadAssignments(clientId, scope)}
            />
          </Group>
        </Group>
        {lift.isError ? (
          <PanelError error={lift.error} what="the lift report" onRetry={() => void lift.refetch()} />
        ) : !r ? (
          <PanelLoading label="Loading the lift report" />
        ) : (
          <>
            <Group gap="xs">
              <Badge color={STATUS[r.status].color} variant="light">
                {STATUS[r.status].label}
              </Badge>
              <Text size="sm">{r.message}</Text>
            </Group>
            {r.status !== 'no_holdout' && <LiftTable r={r} />}
            {r.status !== 'no_holdout' && (
              <Text size="xs" c="dimmed">
                Each prospect is followed for {r.window_days} days after entering;{' '}
                {Math.round(r.held_out_share * 100)} % are held out. Rally fee for the prospects shown ads:{' '}
                {money(r.cost.rally_fee, 'USD')}
                {r.cost.per_incremental_meeting !== null
                  ? `, ${money(r.cost.per_incremental_meeting, 'USD')} per extra meeting`
                  : ''}
                {r.cost.per_incremental_opportunity !== null
                  ? `, ${money(r.cost.per_incremental_opportunity, 'USD')} per extra opportunity`
                  : ''}
                . Intervals: Newcombe&apos;s for people, Welch&apos;s for amounts.
              </Text>
            )}
          </>
        )}
        <HoldoutSettings clientId={clientId} holdouts={holdouts} />
      </Stack>
    </Paper>
  );
}

/**
 * The incremental half of the return sentence: the extra pipeline per 100 targets when its interval
 * excludes zero, else "not yet measurable" (issue 45).
 */
export function LiftSentence({ clientId }: { clientId: string }) {
  const lift = useLift(clientId, { scope: 'client' });
  const r = lift.data;
  if (!r) return null;
  const d = r.lift.pipeline;
  if (r.status === 'measured' && d?.excludes_zero) {
    const m = (v: number) => money(v, r.currency);
    return (
      <Text size="sm" mt={6}>
        <b>Incremental:</b> against a randomised holdout, the ads {d.difference > 0 ? 'added' : 'removed'}{' '}
        <b>{m(Math.abs(d.difference))}</b> of pipeline per 100 prospects (95 % interval {m(d.low)} to{' '}
        {m(d.high)}).
      </Text>
    );
  }
  return (
    <Text size="sm" mt={6}>
      <b>Incremental:</b> what the ads caused is not yet measurable.{' '}
      {r.status === 'no_holdout'
        ? 'No prospects have been held out yet.'
        : r.status === 'not_enough_data'
          ? r.message.replace(/^Not enough data yet: /, 'Not enough data yet: ')
          : 'The difference in pipeline cannot be told from chance yet.'}
    </Text>
  );
}
