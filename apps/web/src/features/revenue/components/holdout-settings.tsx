import { useState } from 'react';
import { Button, Group, NativeSelect, Stack, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { UseQueryResult } from '@tanstack/react-query';
import { formatCount } from '@rally/shared';
import { HOLDOUT_MAX_PERCENT } from '@rally/shared/schemas/lift';
import type { Holdout } from '@rally/shared/schemas/lift';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useSetHoldout } from '../api/lift.ts';

/** The shares offered: a few round steps up to the most a holdout may take. */
const SHARES = [0, 5, 10, 15, 20, 25, 30, 40, HOLDOUT_MAX_PERCENT].map((p) => ({
  value: String(p),
  label: `${p} %`,
}));

function Row({ clientId, h, canChange }: { clientId: string; h: Holdout; canChange: boolean }) {
  const [value, setValue] = useState<number>(h.holdout_percent);
  const save = useSetHoldout(clientId);
  const label = `${h.kind === 'cohort' ? 'Cohort' : 'Cadence'}: ${h.name}`;
  return (
    <Table.Tr>
      <Table.Td>{label}</Table.Td>
      <Table.Td>
        {h.exposed + h.held_out === 0
          ? 'None yet'
          : `${formatCount(h.exposed)} shown ads, ${formatCount(h.held_out)} held out`}
      </Table.Td>
      <Table.Td>
        {canChange ? (
          <Group gap="xs" wrap="nowrap">
            <NativeSelect
              aria-label={`Holdout share for ${label}`}
              data={SHARES}
              value={String(value)}
              onChange={(e) => setValue(Number(e.currentTarget.value))}
              w={96}
              size="xs"
            />
            <Button
              size="xs"
              variant="default"
              disabled={value === h.holdout_percent}
              loading={save.isPending}
              onClick={() =>
                save.mutate(
                  { cadenceId: h.cadence_id, body: { holdout_percent: value } },
                  {
                    onSuccess: () =>
                      notifications.show({
                        color: 'teal',
                        message: `${label}: ${value} % of the prospects entering from now on are held out.`,
                      }),
                    onError: () =>
                      notifications.show({
                        color: 'red',
                        message: 'The holdout could not be saved. Please try again.',
                      }),
                  },
                )
              }
            >
              Save
            </Button>
          </Group>
        ) : (
          <Text size="sm">{h.holdout_percent} %</Text>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * Each cadence's and cohort's holdout share (0–50 %). Owners change it; it applies to prospects who
 * enter from then on, and those already assigned keep their group (issue 45).
 */
export function HoldoutSettings({
  clientId,
  holdouts,
}: {
  clientId: string;
  holdouts: UseQueryResult<{ items: Holdout[] }>;
}) {
  const auth = useAuth();
  // The server refuses others (owners only, as for single sign-on); the screen says so first.
  const canChange = auth.currentRole?.colour === 'purple' && auth.currentRole.name === 'owner';
  return (
    <details>
      <summary>
        <Text component="span" size="sm" fw={500}>
          Holdout settings
        </Text>
      </summary>
      <Stack gap="xs" mt="xs">
        <Text size="sm" c="dimmed">
          {canChange
            ? 'A new share applies to prospects who enter from now on; those already assigned keep their group. Held-out prospects see no ads and are never billed.'
            : 'Only owners can change a holdout, because held-out prospects are shown no ads.'}
        </Text>
        {holdouts.isError ? (
          <PanelError error={holdouts.error} what="the holdouts" onRetry={() => void holdouts.refetch()} />
        ) : !holdouts.data ? (
          <PanelLoading label="Loading the holdouts" />
        ) : holdouts.data.items.length === 0 ? (
          <Text size="sm">No cadences or cohorts yet.</Text>
        ) : (
          <Table.ScrollContainer minWidth={520}>
            <Table verticalSpacing={4} aria-label="Holdout share per cadence and cohort">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Cadence or cohort</Table.Th>
                  <Table.Th>Assigned so far</Table.Th>
                  <Table.Th>Held out</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {holdouts.data.items.map((h) => (
                  <Row key={h.cadence_id} clientId={clientId} h={h} canChange={canChange} />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
    </details>
  );
}
