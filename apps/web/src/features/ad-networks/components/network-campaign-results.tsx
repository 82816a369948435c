import '@mantine/charts/styles.css';
import { LineChart } from '@mantine/charts';
import { Alert, Button, Group, Paper, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { abbreviateNumber, formatDay, formatDayTime } from '@rally/shared';
import type { AdCampaignStats } from '@rally/shared/schemas/ad-network-campaigns';
import { DownloadButton } from '../../../components/download-button.tsx';
import { FormError } from '../../../components/form-error.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import {
  downloadNetworkCampaignStats,
  useNetworkCampaignStats,
  usePullNetworkCampaignStats,
} from '../api/campaigns.ts';

const count = new Intl.NumberFormat();

/** Minor units (cents) in the ad account's currency, with that currency's own decimals. */
export function spendText(minor: number, currency: string | null): string {
  const code = currency ?? 'USD';
  let f: Intl.NumberFormat;
  try {
    f = new Intl.NumberFormat(undefined, { style: 'currency', currency: code });
  } catch {
    f = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD' });
  }
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  return f.format(minor / 10 ** digits);
}

const ctr = (clicks: number, impressions: number) =>
  impressions > 0 ? `${((clicks / impressions) * 100).toFixed(2)}%` : '—';

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={700} size="lg">
        {value}
      </Text>
    </div>
  );
}

/**
 * A network campaign's results (issue 39 "Results"): what the network reports per day and per ad,
 * pulled hourly by a job (or now, for those who may spend), with a CSV of the days.
 */
export function NetworkCampaignResults({
  clientId,
  id,
  network,
  reportsReach,
  atNetwork,
  canSpend,
}: {
  clientId: string;
  id: string;
  network: string;
  /** Whether the network reports reach per day (Meta); LinkedIn and Google Ads do not. */
  reportsReach: boolean;
  atNetwork: boolean;
  canSpend: boolean;
}) {
  const stats = useNetworkCampaignStats(clientId, id);
  const pull = usePullNetworkCampaignStats(clientId, id);
  const header = (s: AdCampaignStats | undefined) => (
    <Group justify="space-between" wrap="wrap" gap="xs">
      <div>
        <Text fw={600} size="sm">
          Results
        </Text>
        <Text size="xs" c="dimmed">
          As {network} reports them
          {s?.pulled_at ? `, last pulled ${formatDayTime(s.pulled_at)}` : ''}. Per-person counts and
          superprospects still come only from Rally&apos;s own tags.
        </Text>
      </div>
      <Group gap="xs">
        {canSpend && atNetwork && (
          <Button size="xs" variant="default" loading={pull.isPending} onClick={() => pull.mutate()}>
            Pull results now
          </Button>
        )}
        {s && s.days.length > 0 && (
          <DownloadButton
            label="Export days (CSV)"
            onDownload={() =>
              downloadNetworkCampaignStats(clientId, id, `campaign-results-${id.slice(0, 8)}.csv`)
            }
          />
        )}
      </Group>
    </Group>
  );

  if (stats.isPending)
    return (
      <Paper component="section" withBorder radius="md" p="md" aria-label="Results">
        <PanelLoading label="Loading the results" />
      </Paper>
    );
  if (stats.isError)
    return (
      <Paper component="section" withBorder radius="md" p="md" aria-label="Results">
        <PanelError error={stats.error} what="the results" onRetry={() => void stats.refetch()} />
      </Paper>
    );
  const s = stats.data;
  return (
    <Paper component="section" withBorder radius="md" p="md" aria-label="Results">
      <Stack gap="md">
        {header(s)}
        <FormError error={pull.error} />
        {s.error && (
          <Alert color="yellow" title="The last pull did not work">
            {s.error}
          </Alert>
        )}
        {s.days.length === 0 ? (
          <Text size="sm" c="dimmed" ta="center" py="md">
            No results yet. {network} reports impressions,{reportsReach ? ' reach,' : ''} clicks and spend per
            day once the campaign has run
            {atNetwork ? '; Rally pulls them every hour.' : ' (it is not at the network yet).'}
          </Text>
        ) : (
          <>
            <SimpleGrid cols={{ base: 2, sm: 4 }}>
              <Figure label="Impressions" value={count.format(s.totals.impressions)} />
              <Figure label="Clicks" value={count.format(s.totals.clicks)} />
              <Figure label="Click-through rate" value={ctr(s.totals.clicks, s.totals.impressions)} />
              <Figure label="Spend" value={spendText(s.totals.spend_minor, s.currency)} />
            </SimpleGrid>
            <LineChart
              h={200}
              data={s.days.map((d) => ({ ...d, label: formatDay(d.day) }))}
              dataKey="label"
              series={[
                { name: 'impressions', label: 'Impressions', color: 'indigo.6' },
                ...(reportsReach ? [{ name: 'reach', label: 'Reach', color: 'orange.7' }] : []),
                // Clicks are a hundredth of impressions: on their own axis, else they flatten to zero.
                { name: 'clicks', label: 'Clicks (right axis)', color: 'teal.7', yAxisId: 'right' },
              ]}
              withRightYAxis
              valueFormatter={(v) => abbreviateNumber(v)}
              withLegend
              curveType="monotone"
              // The tables below carry the numbers for screen readers and copying.
              lineChartProps={{ accessibilityLayer: false }}
              aria-hidden
            />
            <Table.ScrollContainer minWidth={480}>
              <Table striped aria-label="Results per ad">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Ad</Table.Th>
                    <Table.Th ta="right">Impressions</Table.Th>
                    <Table.Th ta="right">Clicks</Table.Th>
                    <Table.Th ta="right">Spend</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {s.ads.map((a) => (
                    <Table.Tr key={a.ad_id}>
                      <Table.Td>{a.label}</Table.Td>
                      <Table.Td ta="right">{count.format(a.impressions)}</Table.Td>
                      <Table.Td ta="right">{count.format(a.clicks)}</Table.Td>
                      <Table.Td ta="right">{spendText(a.spend_minor, s.currency)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <Table.ScrollContainer minWidth={480} mah={320}>
              {!reportsReach && (
                <Text size="xs" c="dimmed" mb={4}>
                  {network} reports no reach per day for its ads: the Reach column is left empty rather than
                  guessed.
                </Text>
              )}
              <Table striped stickyHeader aria-label="Results per day">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Day</Table.Th>
                    <Table.Th ta="right">Impressions</Table.Th>
                    <Table.Th ta="right">Reach</Table.Th>
                    <Table.Th ta="right">Clicks</Table.Th>
                    <Table.Th ta="right">Spend</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {[...s.days].reverse().map((d) => (
                    <Table.Tr key={d.day}>
                      <Table.Td>{formatDay(d.day)}</Table.Td>
                      <Table.Td ta="right">{count.format(d.impressions)}</Table.Td>
                      <Table.Td ta="right">{reportsReach ? count.format(d.reach) : '—'}</Table.Td>
                      <Table.Td ta="right">{count.format(d.clicks)}</Table.Td>
                      <Table.Td ta="right">{spendText(d.spend_minor, s.currency)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </>
        )}
      </Stack>
    </Paper>
  );
}
