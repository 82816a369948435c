import { Anchor, Avatar, Button, Group, Paper, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { IconRoute } from '@tabler/icons-react';
import type { ComponentType } from 'react';
import { Link } from 'react-router';
import { SOURCE_LABELS } from '@rally/shared/schemas/integrations';
import type { CadenceListItem } from '@rally/shared/schemas/cadences';
import type { SalesRep } from '@rally/shared/schemas/integrations';
import { sortSalesReps } from '@rally/shared';
import { AbbreviatedNumber } from '../../../components/abbreviated-number.tsx';
import { MetricInfo } from '../../../components/metric-info.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useCadences } from '../api/get-cadences.ts';
import { useClientReps } from '../api/get-cadence-reps.ts';
import { AdsBadge, CadenceStatusBadge } from './status-badge.tsx';
import { CadenceSyncState } from './sync-state.tsx';

export type SourceLogoComponent = ComponentType<{ source: string; size?: number }>;

export const repName = (r: Pick<SalesRep, 'first_name' | 'last_name' | 'email'>) =>
  `${r.first_name} ${r.last_name}`.trim() || r.email || 'Unnamed rep';

export const cadenceHref = (clientId: string, c: Pick<CadenceListItem, 'id' | 'integration_id'>) =>
  `/cadence/${c.id}?client_id=${clientId}&integration_id=${c.integration_id}`;

/** /cadence: every cadence of the client with its status, ads, reps, days, counts and sync state. */
export function CadencesScreen({ SourceLogo }: { SourceLogo: SourceLogoComponent }) {
  const auth = useAuth();
  const clientId = auth.currentClient;
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  const canSync = auth.currentRole.permissions.includes('cadence.write');
  return (
    <Stack gap="lg">
      <div>
        <Title order={1}>Cadences</Title>
        <Text c="dimmed">
          The sequences your reps run. Switch ads on for a cadence and its prospects see your content day by
          day.
        </Text>
      </div>
      <CadenceTable clientId={clientId} canSync={canSync} SourceLogo={SourceLogo} />
    </Stack>
  );
}

function CadenceTable({
  clientId,
  canSync,
  SourceLogo,
}: {
  clientId: string;
  canSync: boolean;
  SourceLogo: SourceLogoComponent;
}) {
  const cadences = useCadences(clientId);
  const reps = useClientReps(clientId);
  if (cadences.isPending) return <PanelLoading label="Loading cadences" />;
  if (cadences.isError)
    return <PanelError error={cadences.error} what="cadences" onRetry={() => void cadences.refetch()} />;
  if (cadences.data.length === 0)
    return (
      <Paper withBorder radius="md" p="xl">
        <Stack align="center" gap="xs">
          <IconRoute size={32} stroke={1.5} />
          <Text fw={600}>No cadences yet</Text>
          <Text size="sm" c="dimmed" ta="center">
            Cadences arrive from your sequence platform or a CSV import. Once a sync has run they show here.
          </Text>
          <Button component={Link} to={`/settings/connections?client_id=${clientId}`} mt="xs" variant="light">
            Go to connections
          </Button>
        </Stack>
      </Paper>
    );
  const repsById = new Map((reps.data ?? []).map((r) => [r.id, r]));

  return (
    <Paper withBorder radius="md">
      <Table.ScrollContainer minWidth={1080}>
        <Table
          verticalSpacing="sm"
          highlightOnHover
          aria-label="Cadences"
          styles={{ th: { whiteSpace: 'nowrap' } }}
        >
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Cadence</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Ads</Table.Th>
              <Table.Th>Sales reps</Table.Th>
              <Table.Th ta="right">Days</Table.Th>
              <Table.Th ta="right">Prospects</Table.Th>
              <Table.Th ta="right">Active</Table.Th>
              <Table.Th ta="right">
                Contacted <MetricInfo term="contacted" label="Contacted" />
              </Table.Th>
              <Table.Th ta="right">
                Super <MetricInfo term="superprospects" label="Superprospects" />
              </Table.Th>
              <Table.Th>Sync</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {cadences.data.map((c) => (
              <Table.Tr key={c.id}>
                <Table.Td>
                  <Group gap="sm" wrap="nowrap">
                    <SourceLogo source={c.source} size={28} />
                    <div>
                      <Anchor component={Link} to={cadenceHref(clientId, c)} fw={600} size="sm">
                        {c.name}
                      </Anchor>
                      <Text size="xs" c="dimmed">
                        {SOURCE_LABELS[c.source] ?? c.source}
                        {c.owner ? ` · ${repName({ ...c.owner, email: null })}` : ''}
                      </Text>
                    </div>
                  </Group>
                </Table.Td>
                <Table.Td>
                  <CadenceStatusBadge status={c.status} />
                </Table.Td>
                <Table.Td>
                  <AdsBadge on={c.is_super} />
                </Table.Td>
                <Table.Td>
                  <SelectedReps ids={c.selected_sdrs} repsById={repsById} />
                </Table.Td>
                <Table.Td ta="right">{c.day_count}</Table.Td>
                <Table.Td ta="right">
                  <AbbreviatedNumber value={c.counts.total} />
                </Table.Td>
                <Table.Td ta="right">{c.counts.active}</Table.Td>
                <Table.Td ta="right">{c.counts.contacted}</Table.Td>
                <Table.Td ta="right">
                  <Text
                    size="sm"
                    fw={c.counts.super ? 600 : undefined}
                    c={c.counts.super ? 'indigo' : undefined}
                  >
                    {c.counts.super}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <CadenceSyncState clientId={clientId} cadence={c} canSync={canSync} size="xs" />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

/** Faces of the reps chosen for a cadence; none chosen means every rep. */
function SelectedReps({ ids, repsById }: { ids: string[]; repsById: Map<string, SalesRep> }) {
  if (ids.length === 0)
    return (
      <Text size="sm" c="dimmed">
        All reps
      </Text>
    );
  const known = sortSalesReps(ids.flatMap((id) => repsById.get(id) ?? []));
  const shown = known.slice(0, 4);
  return (
    <Tooltip label={known.map(repName).join(', ') || `${ids.length} reps`} withArrow>
      <Avatar.Group spacing="sm" aria-label={`${ids.length} sales reps`}>
        {shown.map((r) => (
          <Avatar key={r.id} src={r.photo_url} name={repName(r)} color="initials" size={28} />
        ))}
        {ids.length > shown.length && <Avatar size={28}>+{ids.length - shown.length}</Avatar>}
      </Avatar.Group>
    </Tooltip>
  );
}
