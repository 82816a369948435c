import { useState } from 'react';
import { Alert, Group, Stack, Switch, Text } from '@mantine/core';
import { IconAlertTriangle, IconCheck } from '@tabler/icons-react';
import type { Cadence } from '@rally/shared/schemas/cadences';
import { useUpdateCadence } from '../api/update-cadence.ts';

export const NO_AD_CONTENT_WARNING =
  'No day of this cadence shows an ad yet: prospects will see nothing. Add an ad to a day first.';

/** True when no day of the cadence (as saved) has any content to show. */
export function hasNoAdContent(cadence: Pick<Cadence, 'days'>): boolean {
  return cadence.days.every((d) => d.content_days.length === 0);
}

/**
 * is_super: ads on or off for the whole cadence. It saves at once (like the status buttons) and says
 * so; the reps and days below have their own "Save changes". Ads on with no content on any day is
 * allowed — a user may switch on first and fill the days next — but warned about beside the switch.
 */
export function AdsSwitch({ clientId, cadence }: { clientId: string; cadence: Cadence }) {
  const update = useUpdateCadence(clientId);
  // The switch follows the click at once: React state set in the click's own handler renders before
  // the event ends, while the mutation's pending state reaches the screen a tick later — in that tick
  // the controlled switch showed the old value again (the "snap back" the e2e walk saw under load).
  const [clicked, setClicked] = useState<boolean | null>(null);
  const [saved, setSaved] = useState(false);
  const on = clicked ?? cadence.is_super;
  return (
    <Stack gap="xs">
      <Group gap="sm" align="flex-start" wrap="nowrap">
        <Switch
          size="md"
          label="Show ads"
          description={`${
            on ? "Prospects on this cadence see its days' content." : 'No ads are shown for this cadence.'
          } Saved as soon as you switch it.`}
          checked={on}
          disabled={update.isPending}
          onChange={(e) => {
            const next = e.currentTarget.checked;
            setClicked(next);
            setSaved(false);
            update.mutate(
              { id: cadence.id, integrationId: cadence.integration_id, body: { is_super: next } },
              // Saved: the cadence now holds the value. Refused: it shows what the server holds.
              { onSuccess: () => setSaved(true), onSettled: () => setClicked(null) },
            );
          }}
        />
        {saved && !update.isPending && (
          <Group gap={4} c="teal" role="status" wrap="nowrap">
            <IconCheck size={14} />
            <Text size="sm" c="teal">
              Saved
            </Text>
          </Group>
        )}
      </Group>
      {on && hasNoAdContent(cadence) && (
        <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={16} />} p="xs" role="alert">
          <Text size="sm">{NO_AD_CONTENT_WARNING}</Text>
        </Alert>
      )}
    </Stack>
  );
}
