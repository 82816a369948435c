import '@mantine/charts/styles.css';
import { useMemo } from 'react';
import { CompositeChart } from '@mantine/charts';
import { Group, Paper, SimpleGrid, Skeleton, Stack, Text } from '@mantine/core';
import type { UsageReport } from '@rally/shared/schemas/billing';
import { AbbreviatedNumber } from '../../../components/abbreviated-number.tsx';
import { PanelError } from '../../../components/panel-states.tsx';
import { useUsage } from '../api/billing.ts';
import { money } from '../format.ts';
import { SettingsBox } from './settings-box.tsx';

type Point = { date: string; label: string; supers: number; total: number | null; estimate: number | null };

/**
 * Daily superprospects (bars), the month's running total (line) and, from today, the running total
 * projected to the month's end at the rate so far (dashed): the report's `estimated_supers`.
 */
export function chartPoints(report: UsageReport, today: string): Point[] {
  let running = 0;
  const days = report.by_date;
  const todayIndex = days.findIndex((d) => d.date === today);
  const remaining = todayIndex < 0 ? 0 : days.length - 1 - todayIndex;
  return days.map((d, i) => {
    running += d.super;
    const past = todayIndex < 0 || i <= todayIndex;
    let estimate: number | null = null;
    if (todayIndex >= 0 && i >= todayIndex) {
      const sofar = days.slice(0, todayIndex + 1).reduce((s, x) => s + x.super, 0);
      const step = remaining > 0 ? (report.total.estimated_supers - sofar) / remaining : 0;
      estimate = Math.round((sofar + step * (i - todayIndex)) * 10) / 10;
    }
    return {
      date: d.date,
      label: String(Number(d.date.slice(8, 10))),
      supers: past ? d.super : 0,
      total: past ? running : null,
      estimate,
    };
  });
}

function Stat({ label, value, hint }: { label: string; value: React.ReactNode; hint?: string }) {
  return (
    <Paper withBorder radius="md" p="sm">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fz="xl" fw={700}>
        {value}
      </Text>
      {hint && (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      )}
    </Paper>
  );
}

/** SPEC.md §3 "Usage report" for the current billing month, with its estimate. */
export function UsagePanel({ clientId }: { clientId: string }) {
  const usage = useUsage(clientId);
  const report = usage.data;
  const today = useMemo(() => {
    if (!report) return '';
    return new Intl.DateTimeFormat('en-CA', { timeZone: report.time_zone }).format(new Date());
  }, [report]);
  const points = useMemo(() => (report ? chartPoints(report, today) : []), [report, today]);
  const month = report
    ? new Date(`${report.from}T12:00:00Z`).toLocaleDateString(undefined, {
        month: 'long',
        year: 'numeric',
        timeZone: 'UTC',
      })
    : '';

  return (
    <SettingsBox
      title="Usage"
      description={
        report
          ? `${month}, by day in ${report.time_zone}. The estimate projects this month's superprospects to its end at the rate so far.`
          : 'Superprospects by day this month, with the estimate to the month end.'
      }
    >
      {usage.isPending ? (
        <Skeleton height={280} role="status" aria-label="Loading the usage report" />
      ) : usage.isError ? (
        <PanelError error={usage.error} what="the usage report" onRetry={() => void usage.refetch()} />
      ) : report ? (
        <Stack gap="md">
          <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm">
            <Stat
              label="Superprospects"
              value={<AbbreviatedNumber value={report.total.super} />}
              hint="this month so far"
            />
            <Stat
              label="Active targets"
              value={<AbbreviatedNumber value={report.total.active} />}
              hint="shown an ad this month"
            />
            <Stat
              label="Superprospects expected"
              value={<AbbreviatedNumber value={report.total.estimated_supers} />}
              hint="by the month end"
            />
            <Stat
              label="Estimated charge"
              value={
                <AbbreviatedNumber
                  value={report.total.estimated_payment / 100}
                  prefix="$"
                  full={money(report.total.estimated_payment)}
                />
              }
              hint="for this month"
            />
          </SimpleGrid>
          {report.total.super === 0 && report.total.estimated_supers === 0 ? (
            <Text size="sm" c="dimmed">
              No superprospects yet this month. They appear here as prospects click an ad or see it 15 times.
            </Text>
          ) : (
            <div
              role="img"
              aria-label={`Superprospects by day in ${month}: ${report.total.super} so far, about ${report.total.estimated_supers} expected by the month end`}
            >
              <CompositeChart
                h={260}
                data={points}
                dataKey="label"
                withLegend
                withDots={false}
                curveType="linear"
                connectNulls={false}
                maxBarWidth={14}
                series={[
                  { name: 'supers', label: 'Superprospects that day', color: 'blue.4', type: 'bar' },
                  { name: 'total', label: 'Month so far', color: 'indigo.7', type: 'line' },
                  {
                    name: 'estimate',
                    label: 'Estimate',
                    color: 'orange.6',
                    type: 'line',
                    strokeDasharray: '5 5',
                  },
                ]}
              />
            </div>
          )}
          <Group gap="xs">
            <Text size="xs" c="dimmed">
              $5.00 per superprospect. A superprospect is a prospect who clicked an ad, or saw it 15 times, in
              a cadence.
            </Text>
          </Group>
        </Stack>
      ) : null}
    </SettingsBox>
  );
}
