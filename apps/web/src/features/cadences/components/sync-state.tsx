import { Button, Group, Loader, Text, Tooltip } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { relativeTime } from '@rally/shared/utils/dates';
import { useSyncCadence } from '../api/sync-cadence.ts';

type Props = {
  clientId: string;
  cadence: {
    id: number;
    integration_id: number;
    source: string;
    is_syncing: boolean;
    last_synced_at: string | null;
  };
  canSync: boolean;
  size?: 'xs' | 'sm';
};

/**
 * The sync line of a cadence: 'Syncing…' while its platform is read again, else when it last was,
 * and 'Sync now' for those who may (file imports are updated by importing the file again).
 */
export function CadenceSyncState({ clientId, cadence, canSync, size = 'sm' }: Props) {
  const sync = useSyncCadence(clientId);
  const fromFile = cadence.source === 'fileforce';
  const syncing = cadence.is_syncing || sync.isPending;
  if (fromFile)
    return (
      <Tooltip label="This cadence comes from a file import: import the file again to update it." withArrow>
        <Text size={size} c="dimmed" tabIndex={0}>
          From a file import
        </Text>
      </Tooltip>
    );
  return (
    <Group gap="xs" wrap="nowrap">
      {syncing ? (
        <Group gap={6} wrap="nowrap" role="status">
          <Loader size={12} />
          <Text size={size} c="dimmed">
            Syncing…
          </Text>
        </Group>
      ) : (
        <Text size={size} c="dimmed">
          {cadence.last_synced_at ? `Synced ${relativeTime(cadence.last_synced_at)}` : 'Never synced'}
        </Text>
      )}
      {canSync && (
        <Button
          size="compact-xs"
          variant="light"
          leftSection={<IconRefresh size={12} />}
          disabled={syncing}
          onClick={() => sync.mutate({ id: cadence.id, integrationId: cadence.integration_id })}
        >
          Sync now
        </Button>
      )}
    </Group>
  );
}
