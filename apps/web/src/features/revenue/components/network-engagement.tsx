import { Anchor, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { formatDay } from '@rally/shared';
import { useCompanyNetworkEngagement } from '../api/network-engagement.ts';

const NETWORKS: Record<string, string> = { linkedin: 'LinkedIn', meta: 'Meta', google: 'Google Ads' };
const count = new Intl.NumberFormat();

/**
 * The account's engagement as ad networks report it for its whole company (LinkedIn's company-level
 * results, matched by website domain): beside Rally's per-person counts, never mixed into them.
 */
export function NetworkEngagement({ clientId, companyId }: { clientId: string; companyId: string | null }) {
  const q = useCompanyNetworkEngagement(clientId, companyId);
  if (companyId === null || q.isPending) return null;
  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        Company engagement reported by ad networks
      </Title>
      {q.isError ? (
        <Text size="sm" c="dimmed">
          The engagement ad networks report for this company could not be loaded.
        </Text>
      ) : q.data.items.length === 0 ? (
        <Text size="sm" c="dimmed">
          No ad network reported engagement from this company in the last {q.data.days} days.
        </Text>
      ) : (
        <>
          <Text size="xs" c="dimmed">
            Reported by the network for the whole company in the last {q.data.days} days (LinkedIn leaves out
            companies under its privacy minimum). These are not Rally&apos;s counts: the prospects above and
            superprospects come only from Rally&apos;s tags.
          </Text>
          <Table fz="sm" verticalSpacing={6} aria-label="Company engagement reported by ad networks">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Campaign</Table.Th>
                <Table.Th>Reported by</Table.Th>
                <Table.Th ta="right">Impressions</Table.Th>
                <Table.Th ta="right">Clicks</Table.Th>
                <Table.Th>Last day</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {q.data.items.map((r) => (
                <Table.Tr key={r.campaign_id}>
                  <Table.Td>
                    <Anchor
                      component={Link}
                      to={`/network-campaigns/${r.campaign_id}?client_id=${clientId}`}
                      size="sm"
                    >
                      {r.campaign_name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{NETWORKS[r.network] ?? r.network}</Table.Td>
                  <Table.Td ta="right">{count.format(r.impressions)}</Table.Td>
                  <Table.Td ta="right">{count.format(r.clicks)}</Table.Td>
                  <Table.Td>{formatDay(r.last_day)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </>
      )}
    </Stack>
  );
}
