import type { ReactNode } from 'react';
import { Alert, Anchor, Badge, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { AdAudience, AdNetworkInfo } from '@rally/shared/schemas/ad-networks';
import { FormError } from '../../../components/form-error.tsx';
import {
  useAdAudiences,
  useAdNetworks,
  useAudiencePreview,
  usePushAudience,
  useRunOnNetwork,
} from '../api/ad-networks.ts';
import type { AudienceSource } from '../api/ad-networks.ts';
import { NETWORK_LOOK } from './network-look.ts';
import { formatCount } from '@rally/shared';
import { NetworkCampaigns } from './network-campaigns.tsx';
import { NetworkSize, PoolingState } from './network-size.tsx';

const STATE_TEXT: Record<AdAudience['state'], { label: string; color: string }> = {
  new: { label: 'Waiting', color: 'gray' },
  queued: { label: 'Queued', color: 'gray' },
  pushing: { label: 'Sending', color: 'blue' },
  ready: { label: 'Ready', color: 'teal' },
  held: { label: 'Held', color: 'yellow' },
  failed: { label: 'Failed', color: 'red' },
};

const number = (n: number) => formatCount(n);

/**
 * "Run on networks" on a cohort (stage or cadence): each connected network's audience with its
 * matched size beside the network's minimum, or the button that creates it.
 */
export function RunOnNetworks({
  clientId,
  source,
  canWrite,
  members = 'this cohort’s members',
  picker,
}: {
  clientId: string;
  source: AudienceSource;
  canWrite: boolean;
  /** Who the audience is made of, in words ("this cadence’s active prospects"). */
  members?: string;
  /** A choice of source shown under the description (a journey's stages). */
  picker?: ReactNode;
}) {
  const networks = useAdNetworks(clientId);
  const audiences = useAdAudiences(clientId, source);
  const settings = `/settings/ad-networks?client_id=${clientId}`;
  if (networks.isPending || audiences.isPending || networks.isError || audiences.isError) return null;
  // An installation with no network set up offers none (decision 0023): the panel is left out.
  if (!networks.data.some((n) => n.available)) return null;
  const usable = networks.data.filter((n) => n.connection?.is_active);
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Run on networks">
      <Stack gap="sm">
        <div>
          <Text fw={600} size="sm">
            Run on networks
          </Text>
          <Text size="sm" c="dimmed">
            A matched audience of {members} on each network, kept in sync. Networks report results per
            campaign or company, never per person: superprospects still come from Rally&apos;s own tags.
          </Text>
        </div>
        {picker}
        {usable.length === 0 ? (
          <Text size="sm">
            No ad network is connected.{' '}
            <Anchor component={Link} to={settings}>
              Connect one in Settings › Ad networks
            </Anchor>
            .
          </Text>
        ) : (
          usable.map((n) => (
            <NetworkRow
              key={n.network}
              clientId={clientId}
              source={source}
              info={n}
              audience={audiences.data.find((a) => a.network === n.network) ?? null}
              canWrite={canWrite}
              settings={settings}
            />
          ))
        )}
      </Stack>
    </Paper>
  );
}

function NetworkRow({
  clientId,
  source,
  info,
  audience,
  canWrite,
  settings,
}: {
  clientId: string;
  source: AudienceSource;
  info: AdNetworkInfo;
  audience: AdAudience | null;
  canWrite: boolean;
  settings: string;
}) {
  const run = useRunOnNetwork(clientId, source);
  const push = usePushAudience(clientId);
  const preview = useAudiencePreview(clientId, source);
  const name = info.label.replace(/ \(.*\)$/, '');
  const proposal = preview.data?.find((p) => p.network === info.network) ?? null;
  const busy = audience && ['new', 'queued', 'pushing'].includes(audience.state);
  const Look = NETWORK_LOOK[info.network].Icon;
  return (
    <Stack gap={6}>
      <Group justify="space-between" wrap="wrap">
        <Group gap="xs">
          <Look size={20} aria-hidden />
          <Text size="sm" fw={600}>
            {info.label}
          </Text>
          {audience && (
            <Badge color={STATE_TEXT[audience.state].color} variant="light">
              {STATE_TEXT[audience.state].label}
            </Badge>
          )}
        </Group>
        {canWrite &&
          (!info.connection?.ad_account_id ? (
            <Anchor component={Link} to={settings} size="sm">
              Choose an ad account first
            </Anchor>
          ) : audience ? (
            <Button
              size="xs"
              variant="light"
              loading={push.isPending || Boolean(busy)}
              onClick={() => push.mutate(audience.id)}
            >
              Sync now
            </Button>
          ) : (
            <Button size="xs" loading={run.isPending} onClick={() => run.mutate({ network: info.network })}>
              Run on {name}
            </Button>
          ))}
      </Group>
      {audience ? (
        <Text size="sm" aria-live="polite">
          {audience.matched_lower !== null
            ? `Matched about ${number(audience.matched_lower)} of ${number(audience.member_count)} members`
            : `${number(audience.member_count)} members with an e-mail`}{' '}
          · minimum {number(audience.minimum_audience)}
          {audience.last_push
            ? ` · last sync added ${number(audience.last_push.added)}, removed ${number(audience.last_push.removed)}`
            : ''}
        </Text>
      ) : (
        <>
          <Text size="sm" c="dimmed">
            Not running yet
          </Text>
          <NetworkSize
            preview={preview}
            network={info.network}
            networkName={name}
            canWrite={canWrite && Boolean(info.connection?.ad_account_id)}
            running={run.isPending}
            onPool={() => run.mutate({ network: info.network, pool: true })}
          />
        </>
      )}
      {audience && (
        <PoolingState
          audience={audience}
          proposal={proposal}
          canWrite={canWrite}
          running={run.isPending}
          onChoose={(pool) => run.mutate({ network: info.network, pool })}
        />
      )}
      {audience?.state === 'held' && audience.held_reason && (
        <Alert color="yellow" variant="light" p="xs">
          {audience.held_reason}
        </Alert>
      )}
      {audience?.state === 'failed' && audience.push_error && (
        <Alert color="red" variant="light" p="xs">
          {audience.push_error}
        </Alert>
      )}
      <FormError error={run.error ?? push.error} />
      {audience && (
        <NetworkCampaigns
          clientId={clientId}
          network={info.network}
          networkLabel={info.label.replace(/ \(.*\)$/, '')}
          audience={audience}
          canWrite={canWrite}
        />
      )}
    </Stack>
  );
}
