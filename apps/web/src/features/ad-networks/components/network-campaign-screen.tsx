import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Image,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { Link, useParams } from 'react-router';
import { CAMPAIGN_OBJECTIVE_LABELS } from '@rally/shared/schemas/ad-network-campaigns';
import type { AdCampaign } from '@rally/shared/schemas/ad-network-campaigns';
import { FormError } from '../../../components/form-error.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth/store.ts';
import { useNetworkCampaign, useNetworkCampaignAction } from '../api/campaigns.ts';
import { budgetText, campaignBadge } from './network-campaigns.tsx';
import { NetworkCampaignCompanies } from './network-campaign-companies.tsx';
import { NetworkCampaignResults } from './network-campaign-results.tsx';

const NETWORK_LABELS: Record<string, string> = { meta: 'Meta', linkedin: 'LinkedIn', google: 'Google Ads' };
const when = (iso: string) =>
  new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

/** /network-campaigns/{id}: a campaign on an ad network, its ads per placement, launch and pause. */
export function NetworkCampaignScreen() {
  const auth = useAuth();
  const { id = '' } = useParams();
  const clientId = auth.currentClient;
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  return (
    <NetworkCampaignView
      clientId={clientId}
      id={id}
      canSpend={auth.currentRole.permissions.includes('cohort.write')}
    />
  );
}

function NetworkCampaignView({
  clientId,
  id,
  canSpend,
}: {
  clientId: string;
  id: string;
  canSpend: boolean;
}) {
  const campaign = useNetworkCampaign(clientId, id);
  const action = useNetworkCampaignAction(clientId, id);
  if (campaign.isPending) return <PanelLoading label="Loading the campaign" />;
  if (campaign.isError) {
    if (campaign.error instanceof ApiError && campaign.error.status === 404)
      return (
        <Alert color="gray" title="Campaign not found">
          It may have been removed, or it belongs to another client.
        </Alert>
      );
    return <PanelError error={campaign.error} what="the campaign" onRetry={() => void campaign.refetch()} />;
  }
  const c = campaign.data;
  const network = NETWORK_LABELS[c.network] ?? c.network;
  const badge = campaignBadge(c);
  const busy = action.isPending || c.sync_state === 'queued' || c.sync_state === 'pushing';
  return (
    <Stack gap="lg" maw={960}>
      <div>
        <Anchor component={Link} to={`/cohorts?client_id=${clientId}`} size="sm">
          ← Cohorts
        </Anchor>
        <Group justify="space-between" align="flex-start" wrap="wrap">
          <div>
            <Group gap="sm">
              <Title order={1}>{c.name}</Title>
              <Badge color={badge.color} variant="light">
                {badge.label}
              </Badge>
            </Group>
            <Text c="dimmed" size="sm">
              {network} · audience “{c.audience_name}” · {CAMPAIGN_OBJECTIVE_LABELS[c.objective]} ·{' '}
              {budgetText(c)} · {when(c.starts_at)}
              {c.ends_at ? ` to ${when(c.ends_at)}` : ', until paused'}
            </Text>
          </div>
          {canSpend && (
            <Group gap="xs">
              {c.status === 'active' ? (
                <Button color="yellow" loading={busy} onClick={() => action.mutate('pause')}>
                  Pause
                </Button>
              ) : (
                <Button loading={busy} onClick={() => action.mutate('launch')}>
                  Launch
                </Button>
              )}
              <Button variant="default" loading={busy} onClick={() => action.mutate('sync')}>
                Refresh status
              </Button>
            </Group>
          )}
        </Group>
      </div>
      <FormError error={action.error} />
      {!canSpend && (
        <Alert color="gray" icon={<IconInfoCircle size={18} />}>
          Your role can see this campaign but not launch, pause or spend on it.
        </Alert>
      )}
      <StatusPanel c={c} network={network} />
      <Paper withBorder radius="md" p="md">
        <Text fw={600} size="sm" mb="xs">
          Ads per placement
        </Text>
        <SimpleGrid cols={{ base: 1, sm: Math.max(1, c.ads.length) }}>
          {c.ads.map((ad) => (
            <Stack key={ad.size} gap={4}>
              <Image src={ad.preview_url} alt={`${ad.label} (${ad.size})`} fit="contain" h={180} />
              <Text size="sm">
                {ad.label} · {ad.size}
              </Text>
              <Text size="xs" c="dimmed">
                {ad.ad_id
                  ? `${network} ad ${ad.ad_id}: ${ad.effective_status ?? 'not read yet'}`
                  : 'Not at the network yet'}
              </Text>
              {ad.issues && (
                <Text size="xs" c="red.8">
                  {ad.issues}
                </Text>
              )}
            </Stack>
          ))}
        </SimpleGrid>
        {c.link && (
          <Text size="xs" c="dimmed" mt="sm" style={{ wordBreak: 'break-all' }}>
            Link (each ad adds utm_content with its size): {c.link}
          </Text>
        )}
      </Paper>
      <NetworkCampaignResults
        clientId={clientId}
        id={c.id}
        network={network}
        reportsReach={c.network === 'meta'}
        atNetwork={c.network_campaign_id !== null}
        canSpend={canSpend}
      />
      {c.network === 'linkedin' && (
        <NetworkCampaignCompanies clientId={clientId} id={c.id} network={network} />
      )}
    </Stack>
  );
}

function StatusPanel({ c, network }: { c: AdCampaign; network: string }) {
  if (c.sync_state === 'failed')
    return (
      <Alert color="red" title={`${network} did not take the campaign`}>
        {c.sync_error}
      </Alert>
    );
  if (c.sync_state === 'queued' || c.sync_state === 'pushing')
    return (
      <Alert color="blue" title={c.network_campaign_id ? `Updating on ${network}` : `Creating on ${network}`}>
        {c.sync_error ?? 'This takes a few seconds; the page updates by itself.'}
      </Alert>
    );
  return (
    <Paper withBorder radius="md" p="md">
      <Text size="sm">
        {network} says: <b>{c.effective_status ?? 'not read yet'}</b>
        {c.status_read_at ? ` (read ${new Date(c.status_read_at).toLocaleString()})` : ''}
      </Text>
      {c.issues && (
        <Text size="sm" c="red.8" mt={4}>
          {c.issues}
        </Text>
      )}
      {c.status === 'paused' && (
        <Text size="xs" c="dimmed" mt={4}>
          Created paused: nothing is spent until it is launched.
        </Text>
      )}
    </Paper>
  );
}
