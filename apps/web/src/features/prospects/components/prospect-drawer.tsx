import {
  ActionIcon,
  Anchor,
  Avatar,
  Badge,
  CopyButton,
  Drawer,
  Group,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { IconCheck, IconCopy, IconExternalLink, IconMail, IconWorld } from '@tabler/icons-react';
import { Fragment } from 'react';
import { formatDay, relativeTime } from '@rally/shared';
import { uncountedLines } from '@rally/shared/schemas/tracking';
import type { Prospect, ProspectCadence } from '@rally/shared/schemas/prospects';
import { PanelError } from '../../../components/panel-states.tsx';
import { UncountedNote } from '../../../components/uncounted-note.tsx';
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
                  <Fragment key={c.target_id}>
                    <Table.Tr>
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
                        <Tooltip label="Ad clicks and landing page views">
                          <Text size="sm" span>
                            {c.engagements}
                          </Text>
                        </Tooltip>
                      </Table.Td>
                      <Table.Td ta="right">{c.impressions}</Table.Td>
                      <Table.Td>
                        {c.super_date ? (
                          <Tooltip label={relativeTime(c.super_date)}>
                            <Badge
                              color="indigo"
                              variant="light"
                              size="sm"
                              tt="none"
                              style={{ whiteSpace: 'nowrap' }}
                            >
                              {formatDay(c.super_date)}
                            </Badge>
                          </Tooltip>
                        ) : (
                          <Text size="sm" c="dimmed">
                            Not yet
                          </Text>
                        )}
                      </Table.Td>
                    </Table.Tr>
                    {c.uncounted && uncountedLines(c.uncounted).length > 0 && (
                      <Table.Tr>
                        <Table.Td colSpan={5} pt={0} style={{ borderTop: 0 }}>
                          <UncountedNote summary={c.uncounted} ariaLabel={`Not counted, ${c.cadence_name}`} />
                        </Table.Td>
                      </Table.Tr>
                    )}
                  </Fragment>
                ))}
              </Table.Tbody>
            </Table>
          </Paper>
        )}
      </Stack>

      {p.cadences.length > 0 && (
        <Stack gap="xs">
          <Stack gap={2}>
            <Text fw={600}>Ad and click tags</Text>
            <Text size="xs" c="dimmed">
              For an e-mail, a signature or an ad network. Each load of the ad counts an impression, each
              visit of the click tag a click.
            </Text>
          </Stack>
          {p.cadences.map((c) => (
            <EntryTags key={c.target_id} entry={c} />
          ))}
        </Stack>
      )}
    </Stack>
  );
}

/** One cadence entry's ad tag (the 300x250 ad) and click tag, each with a copy button. */
function EntryTags({ entry }: { entry: ProspectCadence }) {
  return (
    <Paper withBorder radius="md" p="sm" aria-label={`Tags for ${entry.cadence_name}`} component="section">
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Text size="sm" fw={500} truncate>
            {entry.cadence_name}
          </Text>
          <Tooltip label="Opens the 300x250 ad in a new tab (counts an impression)">
            <Anchor
              href={entry.ad_tag_url}
              target="_blank"
              rel="noreferrer"
              size="xs"
              style={{ flexShrink: 0 }}
            >
              Open ad <IconExternalLink size={12} style={{ verticalAlign: 'middle' }} />
            </Anchor>
          </Tooltip>
        </Group>
        <TagRow label="Ad tag" cadence={entry.cadence_name} value={entry.ad_tag_url} />
        <TagRow label="Click tag" cadence={entry.cadence_name} value={entry.click_url} />
      </Stack>
    </Paper>
  );
}

function TagRow({ label, cadence, value }: { label: string; cadence: string; value: string }) {
  const name = `${label}, ${cadence}`;
  return (
    <Group gap="xs" wrap="nowrap">
      <Text size="xs" c="dimmed" w={58} style={{ flexShrink: 0 }}>
        {label}
      </Text>
      <TextInput
        readOnly
        size="xs"
        value={value}
        // A long host can hide the end of the URL: hovering shows it whole.
        title={value}
        aria-label={name}
        onFocus={(e) => e.currentTarget.select()}
        style={{ flex: 1, minWidth: 0 }}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
      />
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? 'Copied' : `Copy the ${label.toLowerCase()}`}>
            <ActionIcon
              variant="subtle"
              color={copied ? 'teal' : 'gray'}
              onClick={copy}
              aria-label={`Copy ${name}`}
            >
              {copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}
