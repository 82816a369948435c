import {
  Alert,
  Badge,
  Box,
  Button,
  Grid,
  Group,
  NativeSelect,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconAlertTriangle, IconLock, IconShieldCheck } from '@tabler/icons-react';
import { useState } from 'react';
import { AUDIT_ACTIONS, AUDIT_ACTION_LABELS } from '@rally/shared/schemas/audit';
import type { AuditAction, AuditEntry } from '@rally/shared/schemas/audit';
import { DownloadButton } from '../../../components/download-button.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuditActors, useAuditLog, useAuditVerify, downloadAuditCsv } from '../api/audit-log.ts';
import type { AuditFilters } from '../api/audit-log.ts';

const when = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** "fields: website_url, logo_url; source: hubspot" from an entry's details. */
function detailText(details: Record<string, unknown>): string {
  return (
    Object.entries(details)
      // A SCIM token as the actor is shown in the actor's column (actorText).
      .filter(([k, v]) => !(k === 'actor' && (v as { kind?: unknown } | null)?.kind === 'scim'))
      .map(
        ([k, v]) =>
          `${k.replace(/_/g, ' ')}: ${Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v)}`,
      )
      .join('; ')
  );
}

/** Who acted: a person's address; a SCIM token by its name (issue 44); else the system. */
function actorText(e: AuditEntry): string {
  if (e.actor_email) return e.actor_email;
  const a = e.details.actor as { kind?: unknown; name?: unknown } | undefined;
  return a?.kind === 'scim' && typeof a.name === 'string' ? `SCIM token “${a.name}”` : 'System';
}

/** A person's own account reads as such; other targets by kind and a short id. */
const targetText = (e: AuditEntry) =>
  e.target_kind === 'user' && e.target_id !== null && e.target_id === e.actor_user_id
    ? 'their own account'
    : targetOf(e);
const targetOf = (e: AuditEntry) =>
  e.target_kind ? `${e.target_kind.replace(/_/g, ' ')} ${e.target_id ?? ''}`.trim() : '—';

/** A short name for a user agent: the browser and system a person would recognise. */
function agentText(ua: string | null): string {
  if (!ua) return '';
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /Chrome\//.test(ua)
      ? 'Chrome'
      : /Firefox\//.test(ua)
        ? 'Firefox'
        : /Safari\//.test(ua)
          ? 'Safari'
          : (ua.split(/[\s/]/)[0] ?? ua);
  const system = /Windows/.test(ua)
    ? 'Windows'
    : /iPhone|iPad/.test(ua)
      ? 'iOS'
      : /Mac OS X/.test(ua)
        ? 'macOS'
        : /Android/.test(ua)
          ? 'Android'
          : /Linux/.test(ua)
            ? 'Linux'
            : '';
  return system ? `${browser} on ${system}` : browser;
}

/**
 * Settings › Audit log (issue 44): who did what and from where in this client, newest first, with
 * filters, CSV export and the hash chain's check. Owners only: others are told who can see it.
 */
export function AuditLogScreen({ clientId, isOwner }: { clientId: string; isOwner: boolean }) {
  return (
    <Stack gap="lg" maw={1100}>
      <div>
        <Title order={1}>Audit log</Title>
        <Text c="dimmed" maw={720}>
          Every sign-in, change of settings, roles, connections and billing, export and shared link in this
          client: who did it, when and from where. Each entry is chained to the one before it, so a change
          made behind the product&apos;s back shows up below.
        </Text>
      </div>
      {isOwner ? (
        <AuditLogBody clientId={clientId} />
      ) : (
        <Alert color="gray" variant="light" icon={<IconLock size={18} />} role="note">
          Only owners of this client can read its audit log, because it shows what every member did and from
          where.
        </Alert>
      )}
    </Stack>
  );
}

function AuditLogBody({ clientId }: { clientId: string }) {
  const [filters, setFilters] = useState<AuditFilters>({});
  const set = (patch: Partial<AuditFilters>) => setFilters((f) => ({ ...f, ...patch }));
  const log = useAuditLog(clientId, filters);
  const actors = useAuditActors(clientId);
  const entries = log.data?.pages.flatMap((p) => p.items) ?? [];
  const filtered = Object.values(filters).some(Boolean);
  return (
    <>
      <ChainStatus clientId={clientId} />
      <Paper withBorder radius="md" p={{ base: 'sm', xs: 'md' }} component="section" aria-label="Filters">
        <Grid>
          <Grid.Col span={{ base: 12, xs: 6, md: 3 }}>
            <NativeSelect
              label="Action"
              value={filters.action ?? ''}
              onChange={(e) =>
                set({ action: (e.currentTarget.value || undefined) as AuditAction | undefined })
              }
              data={[
                { value: '', label: 'Any action' },
                ...AUDIT_ACTIONS.map((a) => ({ value: a, label: AUDIT_ACTION_LABELS[a] })),
              ]}
            />
          </Grid.Col>
          <Grid.Col span={{ base: 12, xs: 6, md: 3 }}>
            <NativeSelect
              label="Who"
              value={filters.actor ?? ''}
              onChange={(e) => set({ actor: e.currentTarget.value || undefined })}
              data={[
                { value: '', label: 'Anyone' },
                ...(actors.data ?? []).map((m) => ({
                  value: m.id,
                  label: `${m.first_name} ${m.last_name}`.trim() || m.email,
                })),
              ]}
            />
          </Grid.Col>
          {/* The dates side by side even on a phone: each needs only a short field. */}
          <Grid.Col span={{ base: 6, md: 3 }}>
            <TextInput
              label="From"
              type="date"
              value={filters.from ?? ''}
              max={filters.to}
              onChange={(e) => set({ from: e.currentTarget.value || undefined })}
            />
          </Grid.Col>
          <Grid.Col span={{ base: 6, md: 3 }}>
            <TextInput
              label="To"
              type="date"
              value={filters.to ?? ''}
              min={filters.from}
              onChange={(e) => set({ to: e.currentTarget.value || undefined })}
            />
          </Grid.Col>
        </Grid>
        <Group justify="space-between" mt="sm" gap="xs">
          <Button variant="subtle" size="xs" disabled={!filtered} onClick={() => setFilters({})}>
            Clear filters
          </Button>
          <DownloadButton
            label="Export CSV"
            ariaLabel="Export CSV of the entries shown"
            failMessage="The audit log could not be exported. Please try again."
            onDownload={() => downloadAuditCsv(clientId, filters)}
          />
        </Group>
      </Paper>
      {log.isPending ? (
        <PanelLoading label="Loading the audit log" />
      ) : log.isError ? (
        <PanelError error={log.error} what="the audit log" onRetry={() => void log.refetch()} />
      ) : entries.length === 0 ? (
        <Paper withBorder radius="md" p="xl">
          <Text ta="center" c="dimmed">
            {filtered ? 'No entries match these filters.' : 'Nothing has been recorded in this client yet.'}
          </Text>
        </Paper>
      ) : (
        <>
          <EntryTable entries={entries} />
          <EntryCards entries={entries} />
          {log.hasNextPage && (
            <Group justify="center">
              <Button
                variant="default"
                loading={log.isFetchingNextPage}
                onClick={() => void log.fetchNextPage()}
              >
                Show older entries
              </Button>
            </Group>
          )}
        </>
      )}
    </>
  );
}

function ChainStatus({ clientId }: { clientId: string }) {
  const v = useAuditVerify(clientId);
  if (v.isPending)
    return (
      <Text size="sm" c="dimmed" role="status">
        Checking the chain…
      </Text>
    );
  if (v.isError)
    return <PanelError error={v.error} what="the chain check" onRetry={() => void v.refetch()} />;
  const r = v.data;
  if (r.ok) {
    return (
      <Group gap="xs" role="status" wrap="wrap">
        <Badge color="green" variant="light" leftSection={<IconShieldCheck size={14} />}>
          Chain verified
        </Badge>
        <Text size="sm" c="dimmed">
          {r.checked.toLocaleString()} {r.checked === 1 ? 'entry' : 'entries'} checked
          {r.anchor_seq > 0
            ? `, from entry ${r.anchor_seq + 1} (older entries were removed after a year)`
            : ''}
          .
        </Text>
      </Group>
    );
  }
  return (
    <Alert
      color="red"
      variant="light"
      icon={<IconAlertTriangle size={18} />}
      title="The chain is broken"
      role="alert"
    >
      Entry {r.first_broken?.seq}: {r.first_broken?.reason}. Entries from there on may have been changed
      outside the product. {r.checked.toLocaleString()} earlier{' '}
      {r.checked === 1 ? 'entry checks' : 'entries check'} out.
    </Alert>
  );
}

function EntryTable({ entries }: { entries: AuditEntry[] }) {
  return (
    <Paper withBorder radius="md" visibleFrom="sm">
      <Table.ScrollContainer minWidth={760}>
        <Table verticalSpacing="sm" highlightOnHover aria-label="Audit log entries">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>When</Table.Th>
              <Table.Th>Who</Table.Th>
              <Table.Th>What</Table.Th>
              <Table.Th>Target and details</Table.Th>
              <Table.Th>From</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {entries.map((e) => (
              <Table.Tr key={e.id}>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  <Text size="sm">{when(e.created_at)}</Text>
                  <Text size="xs" c="dimmed">
                    #{e.seq}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" style={{ wordBreak: 'break-word' }}>
                    {actorText(e)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" fw={500}>
                    {AUDIT_ACTION_LABELS[e.action]}
                  </Text>
                </Table.Td>
                <Table.Td maw={320}>
                  <Text size="sm" style={{ wordBreak: 'break-word' }}>
                    {targetText(e)}
                  </Text>
                  {Object.keys(e.details).length > 0 && (
                    <Text size="xs" c="dimmed" style={{ wordBreak: 'break-word' }}>
                      {detailText(e.details)}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{e.ip ?? '—'}</Text>
                  <Text size="xs" c="dimmed" title={e.user_agent ?? undefined}>
                    {agentText(e.user_agent)}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

/** On a phone each entry is a card: a five-column table would not fit 390 px. */
function EntryCards({ entries }: { entries: AuditEntry[] }) {
  return (
    <Box hiddenFrom="sm">
      <Box
        component="ul"
        p={0}
        m={0}
        style={{
          listStyle: 'none',
          display: 'flex',
          flexDirection: 'column',
          gap: 'var(--mantine-spacing-xs)',
        }}
        aria-label="Audit log entries"
      >
        {entries.map((e) => (
          <Box component="li" key={e.id}>
            <Paper withBorder radius="md" p="sm">
              <Group justify="space-between" gap="xs" wrap="nowrap" align="flex-start">
                <Text size="sm" fw={600}>
                  {AUDIT_ACTION_LABELS[e.action]}
                </Text>
                <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
                  {when(e.created_at)}
                </Text>
              </Group>
              <Text size="sm" style={{ wordBreak: 'break-word' }}>
                {actorText(e)}
              </Text>
              <Text size="xs" c="dimmed" style={{ wordBreak: 'break-word' }}>
                {targetText(e)}
                {Object.keys(e.details).length > 0 ? ` · ${detailText(e.details)}` : ''}
              </Text>
              <Text size="xs" c="dimmed">
                {[e.ip, agentText(e.user_agent)].filter(Boolean).join(' · ')} · #{e.seq}
              </Text>
            </Paper>
          </Box>
        ))}
      </Box>
    </Box>
  );
}
