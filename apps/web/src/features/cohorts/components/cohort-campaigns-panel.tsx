import { Anchor, Badge, Button, Group, Paper, Table, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { Link } from 'react-router';
import { CAMPAIGN_STATUS_LABELS } from '@rally/shared/schemas/campaigns';
import type { CampaignStatus } from '@rally/shared/schemas/campaigns';
import type { Cohort } from '@rally/shared/schemas/cohorts';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useCohortCampaigns } from '../api/get-cohort-campaigns.ts';

const COLORS: Record<CampaignStatus, string> = {
  draft: 'gray',
  active: 'teal',
  paused: 'yellow',
  ended: 'dark',
};

/** The cohort's campaigns (flights on an ad network), each opening the campaign screen. */
export function CohortCampaignsPanel({
  clientId,
  cohort,
  canWrite,
}: {
  clientId: string;
  cohort: Cohort;
  canWrite: boolean;
}) {
  const campaigns = useCohortCampaigns(clientId, cohort.id);
  return (
    <Paper withBorder radius="md" p="md">
      <Group justify="space-between" mb="sm">
        <div>
          <Text fw={600} size="sm" component="h2">
            Campaigns
          </Text>
          <Text size="xs" c="dimmed">
            Flights of this cohort&apos;s ads on an ad network, with the download of the ads.
          </Text>
        </div>
        {canWrite && cohort.status !== 'archived' && (
          <Button
            size="xs"
            variant="light"
            leftSection={<IconPlus size={14} />}
            component={Link}
            to={`/cohorts/${cohort.id}/campaigns/new?client_id=${clientId}`}
          >
            New campaign
          </Button>
        )}
      </Group>
      {campaigns.isPending ? (
        <PanelLoading label="Loading the campaigns" />
      ) : campaigns.isError ? (
        <PanelError error={campaigns.error} what="the campaigns" onRetry={() => void campaigns.refetch()} />
      ) : campaigns.data.items.length === 0 ? (
        <Text size="sm" c="dimmed">
          No campaigns yet.{canWrite && cohort.status !== 'archived' ? ' Plan one with New campaign.' : ''}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={480}>
          <Table verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Campaign</Table.Th>
                <Table.Th>Flight</Table.Th>
                <Table.Th>Ads</Table.Th>
                <Table.Th>Status</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {campaigns.data.items.map((c) => (
                <Table.Tr key={c.id}>
                  <Table.Td>
                    <Anchor
                      component={Link}
                      to={`/campaigns/${c.id}?client_id=${clientId}`}
                      fw={600}
                      size="sm"
                    >
                      {c.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">
                      {c.starts_on} to {c.ends_on}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{c.content_name ?? '—'}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4} wrap="nowrap">
                      <Badge color={COLORS[c.status]} variant="light">
                        {CAMPAIGN_STATUS_LABELS[c.status]}
                      </Badge>
                      {c.live && (
                        <Badge color="teal" variant="filled">
                          Live
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Paper>
  );
}
