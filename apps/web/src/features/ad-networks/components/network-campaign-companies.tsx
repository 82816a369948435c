import { Badge, Paper, Stack, Table, Text } from '@mantine/core';
import { formatDay } from '@rally/shared';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useNetworkCampaignCompanies } from '../api/campaigns.ts';

const count = new Intl.NumberFormat();
const ctr = (clicks: number, impressions: number) =>
  impressions > 0 ? `${((clicks / impressions) * 100).toFixed(2)}%` : '—';

/**
 * "Companies engaged" (issue 39): the companies a LinkedIn campaign reached, as LinkedIn reports
 * them per company, with the CRM account each was matched to by website domain.
 */
export function NetworkCampaignCompanies({
  clientId,
  id,
  network,
}: {
  clientId: string;
  id: string;
  network: string;
}) {
  const q = useNetworkCampaignCompanies(clientId, id);
  return (
    <Paper withBorder radius="md" p="md">
      <Stack gap="xs">
        <Text fw={600} size="sm">
          Companies engaged
        </Text>
        <Text size="xs" c="dimmed">
          Reported by {network} per company, not counted by Rally. {network} leaves out companies under its
          privacy minimum
          {q.data?.privacy_minimum ? ` (fewer than ${q.data.privacy_minimum} impressions on a day)` : ''} and
          approximates the rest, so these rows do not add up to the campaign&apos;s totals. Per-person counts
          and superprospects come only from Rally&apos;s own tags.
        </Text>
        {q.isPending ? (
          <PanelLoading label="Loading the companies" />
        ) : q.isError ? (
          <PanelError error={q.error} what="the companies" onRetry={() => void q.refetch()} />
        ) : q.data.items.length === 0 ? (
          <Text size="sm" c="dimmed">
            {network} has reported no company yet. Companies appear once the campaign has delivered and the
            results are pulled (every hour; {network} reports companies 12–24 hours late).
          </Text>
        ) : (
          <Table fz="sm" verticalSpacing={6} aria-label="Companies engaged">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Company (per {network})</Table.Th>
                <Table.Th>CRM account</Table.Th>
                <Table.Th ta="right">Impressions</Table.Th>
                <Table.Th ta="right">Clicks</Table.Th>
                <Table.Th ta="right">CTR</Table.Th>
                <Table.Th>Last day</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {q.data.items.map((r) => (
                <Table.Tr key={r.organization_id}>
                  <Table.Td>
                    <Text size="sm" fw={600}>
                      {r.name ?? `Organisation ${r.organization_id}`}
                    </Text>
                    {r.domain && (
                      <Text size="xs" c="dimmed">
                        {r.domain}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    {r.account_name ? (
                      <Text size="sm">{r.account_name}</Text>
                    ) : (
                      <Badge color="gray" variant="light">
                        Not matched
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td ta="right">{count.format(r.impressions)}</Table.Td>
                  <Table.Td ta="right">{count.format(r.clicks)}</Table.Td>
                  <Table.Td ta="right">{ctr(r.clicks, r.impressions)}</Table.Td>
                  <Table.Td>{formatDay(r.last_day)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Stack>
    </Paper>
  );
}
