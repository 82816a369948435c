import { Anchor, Group, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import type { NetworkReportRow } from '@rally/shared/schemas/network-report';
import { DataTable } from '../../../components/data-table/index.ts';
import type { DataColumn } from '../../../components/data-table/index.ts';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import type { Range } from '../api/get-insights.ts';
import { useNetworkReport } from '../api/get-networks.ts';
import { whole } from './report-parts.tsx';

const NETWORKS: Record<string, string> = { meta: 'Meta', linkedin: 'LinkedIn', google: 'Google Ads' };

/** Minor units in the ad account's currency, with that currency's own decimals. */
function spend(minor: number, currency: string | null) {
  let f: Intl.NumberFormat;
  try {
    f = new Intl.NumberFormat(undefined, { style: 'currency', currency: currency ?? 'USD' });
  } catch {
    f = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD' });
  }
  return f.format(minor / 10 ** (f.resolvedOptions().maximumFractionDigits ?? 2));
}

const columns = (clientId: string): DataColumn<NetworkReportRow>[] => [
  {
    id: 'name',
    label: 'Campaign',
    key: true,
    csv: (r) => r.name,
    render: (r) => (
      <>
        <Anchor
          component={Link}
          to={`/network-campaigns/${r.campaign_id}?client_id=${clientId}`}
          fw={600}
          size="sm"
        >
          {r.name}
        </Anchor>
        <Text size="xs" c="dimmed">
          {NETWORKS[r.network] ?? r.network} · audience “{r.audience_name}” ·{' '}
          {r.status === 'active' ? 'Running' : 'Paused'}
        </Text>
      </>
    ),
  },
  {
    id: 'impressions',
    label: 'Impressions',
    align: 'right',
    csv: (r) => r.impressions,
    render: (r) => whole(r.impressions),
  },
  {
    id: 'clicks',
    label: 'Clicks',
    align: 'right',
    key: true,
    csv: (r) => r.clicks,
    render: (r) => whole(r.clicks),
  },
  {
    id: 'spend',
    label: 'Spend',
    align: 'right',
    key: true,
    csv: (r) => Number((r.spend_minor / 100).toFixed(2)),
    sortValue: (r) => r.spend_minor,
    render: (r) => spend(r.spend_minor, r.currency),
  },
  {
    id: 'days',
    label: 'Days with delivery',
    align: 'right',
    csv: (r) => r.days,
    render: (r) => whole(r.days),
  },
];

/**
 * The ad networks' rows beside the tags' (issue 39): what each network campaign's network reported on
 * the range's days. Per-person counts and superprospects come only from Rally's own tags, above.
 */
export function NetworkRows({ clientId, range }: { clientId: string; range: Range }) {
  const q = useNetworkReport(clientId, range);
  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2} size="h4">
            Paid networks
          </Title>
          <Text size="xs" c="dimmed">
            As each network reports its campaigns. Per-person counts and superprospects come only from
            Rally&apos;s own tags.
          </Text>
        </div>
        {q.data && q.data.totals.length > 0 && (
          <Text size="sm">
            Spend in this period:{' '}
            <b>{q.data.totals.map((t) => spend(t.spend_minor, t.currency)).join(' + ')}</b>
          </Text>
        )}
      </Group>
      {q.isPending ? (
        <PanelLoading label="Loading the network campaigns" />
      ) : q.isError ? (
        <PanelError error={q.error} what="the network campaigns" onRetry={() => void q.refetch()} />
      ) : q.data.rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          No campaign on an ad network yet. Run a cohort, a journey stage or a cadence on Meta, LinkedIn or
          Google Ads from its page; its results show here.
        </Text>
      ) : (
        <DataTable
          tableId="report-networks"
          label="Network campaigns"
          rows={q.data.rows}
          rowId={(r) => r.campaign_id}
          rowName={(r) => r.name}
          columns={columns(clientId)}
          exportName="network-campaigns-shown.csv"
          minWidth={640}
        />
      )}
    </Stack>
  );
}
