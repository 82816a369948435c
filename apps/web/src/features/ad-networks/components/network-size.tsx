import { Alert, Button, Group, Loader, Text } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { AdAudience, AdAudiencePreview, AdNetworkKey } from '@rally/shared/schemas/ad-networks';
import { formatCount } from '@rally/shared';
import { ApiError } from '../../../lib/api-client.ts';

const number = (n: number) => formatCount(n);

/**
 * Before launch (issue 39, decision 0034): the source's people with an e-mail beside the network's
 * minimum and, under it, the pool Rally proposes with a button that runs the audience pooled.
 */
export function NetworkSize({
  preview,
  network,
  networkName,
  canWrite,
  running,
  onPool,
}: {
  preview: UseQueryResult<AdAudiencePreview[]>;
  network: AdNetworkKey;
  networkName: string;
  canWrite: boolean;
  running: boolean;
  onPool: () => void;
}) {
  if (preview.isPending)
    return (
      <Group gap={6}>
        <Loader size="xs" />
        <Text size="sm" c="dimmed">
          Counting members…
        </Text>
      </Group>
    );
  if (preview.isError)
    return (
      <Text size="sm" c="red">
        Could not count the members:{' '}
        {preview.error instanceof ApiError ? preview.error.message : 'try again in a moment.'}
      </Text>
    );
  const size = preview.data.find((p) => p.network === network) ?? null;
  return size ? (
    <SizeOf size={size} networkName={networkName} canWrite={canWrite} running={running} onPool={onPool} />
  ) : null;
}

function SizeOf({
  size,
  networkName,
  canWrite,
  running,
  onPool,
}: {
  size: AdAudiencePreview;
  networkName: string;
  canWrite: boolean;
  running: boolean;
  onPool: () => void;
}) {
  return (
    <>
      <Text size="sm" c="dimmed">
        {size.count === 0
          ? 'No member has an e-mail Rally can match yet'
          : `${number(size.count)} ${size.count === 1 ? 'person' : 'people'} with an e-mail`}{' '}
        · {networkName} needs at least {number(size.minimum_audience)} matched people
        {size.minimum_note ? ` (${size.minimum_note})` : ''}
      </Text>
      {size.proposal === 'pool' && size.pool && (
        <Alert color="blue" variant="light" p="xs" title={`Under ${networkName}’s minimum: pool it`}>
          <Text size="sm">{size.explanation}</Text>
          {canWrite && (
            <Button size="xs" mt="xs" loading={running} onClick={onPool}>
              Run pooled with {size.pool.name}
            </Button>
          )}
        </Alert>
      )}
      {size.proposal === 'hold' && (
        <Alert color="yellow" variant="light" p="xs">
          {size.explanation}
        </Alert>
      )}
    </>
  );
}

/** An audience's pooling in words: pooled with what and why, or why it stopped; and the choice. */
export function PoolingState({
  audience,
  proposal,
  canWrite,
  running,
  onChoose,
}: {
  audience: AdAudience;
  proposal: AdAudiencePreview | null;
  canWrite: boolean;
  running: boolean;
  onChoose: (pool: boolean) => void;
}) {
  const offer =
    canWrite && !audience.pool_when_small && audience.state === 'held' && proposal?.proposal === 'pool';
  return (
    <>
      {audience.pooled_with ? (
        <Alert color="teal" variant="light" p="xs" title={`Pooled with ${audience.pooled_with.name}`}>
          {audience.pool_note}
        </Alert>
      ) : (
        audience.pool_note && (
          <Text size="sm" c="dimmed">
            {audience.pool_note}
          </Text>
        )
      )}
      {offer && proposal.pool && (
        <Button
          size="xs"
          variant="light"
          loading={running}
          onClick={() => onChoose(true)}
          style={{ alignSelf: 'flex-start' }}
        >
          Pool with {proposal.pool.name}
        </Button>
      )}
      {canWrite && audience.pool_when_small && (
        <Button
          size="xs"
          variant="subtle"
          loading={running}
          onClick={() => onChoose(false)}
          style={{ alignSelf: 'flex-start' }}
        >
          Stop pooling
        </Button>
      )}
    </>
  );
}
