import { Anchor, Avatar, Badge, Drawer, Group, Paper, Stack, Table, Text, Tooltip } from '@mantine/core';
import { IconMail, IconWorld } from '@tabler/icons-react';
import { formatDate, relativeTime } from '@rally/shared';
import type { Prospect } from '@rally/shared/schemas/prospects';
import { PanelError } from '../../../components/panel-states.tsx';
import { useProspect } from '../api/get-prospect.ts';

const nameOf = (p: Pick<Prospect, 'first_name' | 'last_name' | 'email'>) =>
  `${p.first_name} ${p.last_name}`.trim() || p.email || 'Unnamed prospect';

/** One prospect and each of its cadence entries (SPEC.md §3 "Prospect"), beside the list. */
export function ProspectDrawer({
  clientId,
  prospect,
  onClose,
}: {
  clientId: string;
  prospect: Prospect | null;
  onClose: () => void;
}) {
  return (
    <Drawer
      opened={prospect !== null}
      onClose={onClose}
      position="right"
      size="lg"
      title={prospect ? nameOf(prospect) : ''}
    >
      {prospect && <Details key={prospect.id} clientId={clientId} initial={prospect} />}
    </Drawer>
  );
}

function Details({ clientId, initial }: { clientId: string; initial: Prospect }) {
  const query = useProspect(clientId, initial.id, initial);
  if (query.isError)
    return <PanelError error={query.error} what="this prospect" onRetry={() => void query.refetch()} />;
  const p = query.data ?? initial;
  return (
    <Stack gap="lg">
      <Group gap="md" wrap="nowrap" align="flex-start">
        <Avatar src={p.photo_url} name={nameOf(p)} color="initials" size={56} />
        <Stack gap={4}>
          <Text fw={600}>{p.title || 'No title'}</Text>
          <Text size="sm">
            {p.company_name ?? 'No company'}
            {p.company_website && (
              <Anchor href={p.company_website} target="_blank" rel="noreferrer" size="sm" ml={8}>
                <IconWorld size={14} style={{ verticalAlign: 'middle' }} /> website
              </Anchor>
            )}
          </Text>
          {p.email && (
            <Anchor href={`mailto:${p.email}`} size="sm">
              <IconMail size={14} style={{ verticalAlign: 'middle' }} /> {p.email}
            </Anchor>
          )}
          <Group gap={6}>
            <Badge color={p.is_active ? 'teal' : 'gray'} variant="light" size="sm">
              {p.is_active ? 'Active' : 'Inactive'}
            </Badge>
            {p.cadences.some((c) => c.super_date) && (
              <Badge color="indigo" variant="light" size="sm">
                Superprospect
              </Badge>
            )}
          </Group>
        </Stack>
      </Group>

      <Stack gap="xs">
        <Text fw={600}>Cadences</Text>
        {p.cadences.length === 0 ? (
          <Paper withBorder radius="md" p="md">
            <Text size="sm" c="dimmed">
              Not in any cadence now.
            </Text>
          </Paper>
        ) : (
          <Paper withBorder radius="md">
            <Table verticalSpacing="xs" aria-label="Cadence entries">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Cadence</Table.Th>
                  <Table.Th>Assignee</Table.Th>
                  <Table.Th ta="right">Engagements</Table.Th>
                  <Table.Th ta="right">Impressions</Table.Th>
                  <Table.Th>Super date</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {p.cadences.map((c) => (
                  <Table.Tr key={c.target_id}>
                    <Table.Td>
                      <Text size="sm" fw={500}>
                        {c.cadence_name}
                      </Text>
                      <Text size="xs" c="dimmed">
                        Day {c.day_number}
                        {c.is_active ? '' : ' · finished'}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" c={c.assignee_name ? undefined : 'dimmed'}>
                        {c.assignee_name ?? 'Unassigned'}
                      </Text>
                    </Table.Td>
                    <Table.Td ta="right">
                      <Tooltip label="Ad clicks and landing page views" openDelay={200}>
                        <Text size="sm" span>
                          {c.engagements}
                        </Text>
                      </Tooltip>
                    </Table.Td>
                    <Table.Td ta="right">{c.impressions}</Table.Td>
                    <Table.Td>
                      {c.super_date ? (
                        <Tooltip label={relativeTime(c.super_date)} openDelay={200}>
                          <Badge
                            color="indigo"
                            variant="light"
                            size="sm"
                            tt="none"
                            style={{ whiteSpace: 'nowrap' }}
                          >
                            {formatDate(c.super_date, 'd MMM yyyy')}
                          </Badge>
                        </Tooltip>
                      ) : (
                        <Text size="sm" c="dimmed">
                          Not yet
                        </Text>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Paper>
        )}
      </Stack>
    </Stack>
  );
}
