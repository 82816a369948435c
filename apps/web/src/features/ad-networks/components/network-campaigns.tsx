import { useState } from 'react';
import { Anchor, Badge, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { Link, useNavigate } from 'react-router';
import type { AdCampaign } from '@rally/shared/schemas/ad-network-campaigns';
import type { AdAudience, AdNetworkKey } from '@rally/shared/schemas/ad-networks';
import { networkCampaignHref, useAudienceCampaigns } from '../api/campaigns.ts';
import { NetworkCampaignForm, money } from './network-campaign-form.tsx';

/** Rally's wish and the network's word on it, as one badge. */
export function campaignBadge(c: AdCampaign): { label: string; color: string } {
  if (c.sync_state === 'failed') return { label: 'Needs attention', color: 'red' };
  if (c.sync_state === 'queued' || c.sync_state === 'pushing')
    return { label: c.network_campaign_id ? 'Updating' : 'Creating', color: 'blue' };
  if (c.issues) return { label: 'Issues', color: 'orange' };
  return c.status === 'active' ? { label: 'Running', color: 'teal' } : { label: 'Paused', color: 'yellow' };
}

export const budgetText = (c: AdCampaign) =>
  `${money(c.budget_minor)}${c.currency ? ` ${c.currency}` : ''} ${c.budget_kind === 'daily' ? 'a day' : 'in total'}`;

/** An audience's campaigns on its network, and a new one (paused until launched). */
export function NetworkCampaigns({
  clientId,
  network,
  networkLabel,
  audience,
  canWrite,
}: {
  clientId: string;
  network: AdNetworkKey;
  networkLabel: string;
  audience: AdAudience;
  canWrite: boolean;
}) {
  const campaigns = useAudienceCampaigns(clientId, audience.id);
  const [open, setOpen] = useState(false);
  const navigate = useNavigate();
  const usable = audience.state === 'ready' || audience.network_audience_id !== null;
  return (
    <Stack gap={4} pl="lg">
      <Group justify="space-between">
        <Text size="sm" fw={500}>
          Campaigns on {networkLabel}
        </Text>
        {canWrite && (
          <Button size="xs" variant="default" disabled={!usable} onClick={() => setOpen(true)}>
            New campaign on {networkLabel}
          </Button>
        )}
      </Group>
      {campaigns.isPending ? (
        <Text size="sm" c="dimmed">
          Loading campaigns…
        </Text>
      ) : campaigns.isError ? (
        <Text size="sm" c="red.8">
          Could not load the campaigns.{' '}
          <Anchor component="button" size="sm" onClick={() => void campaigns.refetch()}>
            Try again
          </Anchor>
        </Text>
      ) : campaigns.data.length === 0 ? (
        <Text size="sm" c="dimmed">
          {usable
            ? 'No campaign yet: plan one with a budget, days and one of your ads.'
            : 'A campaign can be planned once the audience has reached the network.'}
        </Text>
      ) : (
        campaigns.data.map((c) => {
          const badge = campaignBadge(c);
          return (
            <Group key={c.id} gap="xs" wrap="wrap">
              <Anchor component={Link} to={networkCampaignHref(clientId, c.id)} size="sm">
                {c.name}
              </Anchor>
              <Badge size="sm" variant="light" color={badge.color}>
                {badge.label}
              </Badge>
              <Text size="xs" c="dimmed">
                {budgetText(c)}
              </Text>
            </Group>
          );
        })
      )}
      <Modal opened={open} onClose={() => setOpen(false)} title={`New campaign on ${networkLabel}`} size="lg">
        <NetworkCampaignForm
          clientId={clientId}
          network={network}
          networkLabel={networkLabel}
          audienceId={audience.id}
          audienceName={audience.name}
          onDone={(made) => {
            setOpen(false);
            void navigate(networkCampaignHref(clientId, made.id));
          }}
        />
      </Modal>
    </Stack>
  );
}
