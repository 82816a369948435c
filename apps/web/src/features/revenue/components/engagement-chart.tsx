import { LineChart } from '@mantine/charts';
import { Paper, Stack, Text } from '@mantine/core';
import { IconChartLine } from '@tabler/icons-react';
import { abbreviateNumber, formatDay, formatMonth, formatWeekOf } from '@rally/shared';
import type { ReportView } from '../api/get-reports.ts';

export type EngagementRow = {
  date: string;
  impressions: number;
  clicks: number;
  views: number;
  new_superprospects: number;
};

/**
 * A period's name in the reader's locale through the shared date helpers (issue 42 item 10): "9 Nov
 * 2026" for a day, "Week of 9 Nov" for a week, "Nov 2026" for a month — never the bare ISO date.
 */
export function periodLabel(date: string, view: ReportView, locale?: string): string {
  if (view === 'weekly') return formatWeekOf(date, locale);
  if (view === 'monthly') return formatMonth(date, locale);
  return formatDay(date, locale);
}

/** True when the period has nothing to draw: every count of every row is 0 (or there is no row). */
export function isEmptyEngagement(rows: readonly EngagementRow[]): boolean {
  return rows.every((r) => r.impressions + r.clicks + r.views + r.new_superprospects === 0);
}

/** Impressions on the left axis; the small counts on the right one (named so in the legend). */
export const ENGAGEMENT_SERIES = [
  { name: 'impressions', label: 'Impressions (left axis)', color: 'indigo.6' },
  { name: 'clicks', label: 'Clicks (right axis)', color: 'teal.7', yAxisId: 'right' },
  { name: 'views', label: 'Landing page views (right axis)', color: 'orange.7', yAxisId: 'right' },
  {
    name: 'new_superprospects',
    label: 'New superprospects (right axis)',
    color: 'grape.7',
    yAxisId: 'right',
  },
];

/**
 * Engagement over time. Impressions run in the hundreds while clicks, views and new superprospects
 * run in ones and tens: on one axis the small ones lie flat on zero (issue 42 item 10), so they have
 * their own axis on the right, named in the legend. A period with nothing says so instead of drawing
 * flat lines.
 */
export function EngagementChart({ rows, view }: { rows: readonly EngagementRow[]; view: ReportView }) {
  if (isEmptyEngagement(rows))
    return (
      <Paper withBorder radius="md" p="lg" data-testid="engagement-empty">
        <Stack align="center" gap={4}>
          <IconChartLine size={28} stroke={1.5} aria-hidden />
          <Text fw={600} size="sm">
            No engagement in this period
          </Text>
          <Text size="sm" c="dimmed" ta="center" maw={420}>
            Impressions, clicks, landing page views and new superprospects appear here once prospects see your
            ads. Try a longer period, or switch ads on for a cadence.
          </Text>
        </Stack>
      </Paper>
    );
  const data = rows.map((r) => ({ ...r, label: periodLabel(r.date, view) }));
  return (
    <LineChart
      h={240}
      data={data}
      dataKey="label"
      series={ENGAGEMENT_SERIES}
      withRightYAxis
      // The legend names each line's axis; axis titles were cut off at a phone's width.
      // A week's tick is its first day; the tooltip says "Week of …".
      xAxisProps={{ tickFormatter: (v: string) => v.replace(/^Week of /, '') }}
      withLegend
      curveType="monotone"
      valueFormatter={(v) => abbreviateNumber(v)}
      lineChartProps={{ accessibilityLayer: false }}
      aria-hidden
    />
  );
}
