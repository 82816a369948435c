import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Group,
  Modal,
  Paper,
  PasswordInput,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconAlertTriangle, IconPlugConnected, IconRefresh } from '@tabler/icons-react';
import { relativeTime } from '@rally/shared/utils/dates';
import { SOURCE_LABELS } from '@rally/shared/schemas/integrations';
import type { CrmSettings, CrmSourceName, CrmStage } from '@rally/shared/schemas/crm';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { SyncProgress } from './sync-progress.tsx';
import { SalesforceLoginPicker } from './salesforce-login.tsx';
import type { SalesforceLoginChoice } from './salesforce-login.tsx';
import { ActivityDefinitionsPanel, OwnersPanel, WriteBackPanel } from './crm-more-panels.tsx';
import {
  useCrmDisconnect,
  useCrmRedirect,
  useCrmSettings,
  useCrmStages,
  useCrmSyncNow,
  useMarketoConnect,
  useMarketoConnection,
  useSaveStageSet,
  useStageSet,
} from '../api/crm.ts';
import { NOT_AVAILABLE_HERE, canConnectHere, useRuntimeConfig } from '../../../lib/runtime-config.ts';
import { DemoBadge, DemoNote } from './demo-connection.tsx';
import { formatCount } from '@rally/shared';
import { ConnectionHealth } from './connection-health.tsx';
import { ReadOnlyNote } from '../../../components/read-only-note.tsx';

type Perms = { canConnect: boolean; canEditStages: boolean };

/**
 * /settings/integrations/{salesforce|hubspot|marketo}: the CRM connection's state (with the reason
 * when inactive), the last sync and a running one's progress, sync now, the stages with which are
 * selected for reports and which count as valuable, and disconnect.
 */
export function CrmSettingsPanel({
  clientId,
  source,
  canConnect,
  canEditStages,
}: { clientId: string; source: CrmSourceName } & Perms) {
  const settings = useCrmSettings(clientId, source);
  const label = SOURCE_LABELS[source] ?? source;
  // A sync that finished brings new stages, owners and activity types: read them again.
  const syncedAt = settings.data?.integration?.last_synced_at ?? null;
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!syncedAt) return;
    void queryClient.invalidateQueries({ queryKey: ['crm-stages', clientId] });
    void queryClient.invalidateQueries({ queryKey: ['crm-owners', clientId, source] });
    void queryClient.invalidateQueries({ queryKey: ['crm-activity', clientId, source] });
  }, [syncedAt, clientId, source, queryClient]);
  if (settings.isPending) return <PanelLoading label={`Loading ${label}`} />;
  if (settings.isError)
    return <PanelError error={settings.error} what={label} onRetry={() => void settings.refetch()} />;
  const s = settings.data;
  const connected = s.integration !== null && s.integration.is_active;
  return (
    <Stack gap="lg">
      <ConnectionPanel settings={s} clientId={clientId} canConnect={canConnect} />
      {source === 'marketo' && canConnect && !connected && <MarketoForm clientId={clientId} />}
      {source !== 'marketo' && s.integration && (
        <StagesPanel clientId={clientId} integrationId={s.integration.id} canEdit={canEditStages} />
      )}
      {source !== 'marketo' && s.integration && (
        <OwnersPanel clientId={clientId} source={source} canEdit={canConnect} />
      )}
      {source !== 'marketo' && s.integration && (
        <ActivityDefinitionsPanel clientId={clientId} source={source} canEdit={canConnect} />
      )}
      {s.integration && <WriteBackPanel clientId={clientId} settings={s} canEdit={canConnect} />}
    </Stack>
  );
}

function ConnectionPanel({
  settings: s,
  clientId,
  canConnect,
}: {
  settings: CrmSettings;
  clientId: string;
  canConnect: boolean;
}) {
  const source = s.source;
  const label = SOURCE_LABELS[source] ?? source;
  const i = s.integration;
  const redirect = useCrmRedirect(clientId);
  const syncNow = useCrmSyncNow(clientId, source);
  const disconnect = useCrmDisconnect(clientId, source);
  const [confirm, setConfirm] = useState(false);
  const [login, setLogin] = useState<SalesforceLoginChoice>({ login: 'production', myDomain: '' });
  // The demo's sample connection has none: it offers Connect, never Sync now (issue 42 item 4).
  const demo = i?.is_demo ?? false;
  const hasCredentials = (i?.is_active ?? false) && !demo;
  const available = canConnectHere(useRuntimeConfig(), source);
  const pickLogin = source === 'salesforce' && canConnect && !hasCredentials && available;

  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label={`${label} connection`}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="sm">
          <div>
            <Group gap={8}>
              <Title order={2} size="h4">
                Connection
              </Title>
              {demo ? (
                <DemoBadge />
              ) : (
                <Badge color={i?.is_active ? 'teal' : 'gray'} variant="light">
                  {!i ? 'Not connected' : i.is_active ? 'Active' : 'Inactive'}
                </Badge>
              )}
            </Group>
            <Text size="sm" c="dimmed">
              {!i
                ? `Connect ${label} to bring in its ${source === 'marketo' ? 'static lists and leads' : 'pipeline stages, opportunities, contacts and lists'}.`
                : `${i.account_name ?? label} · ${
                    i.is_syncing
                      ? 'Syncing now'
                      : i.last_synced_at
                        ? `Last synced ${relativeTime(i.last_synced_at)}`
                        : 'Not synced yet'
                  }`}
            </Text>
          </div>
          <Group gap="xs">
            {hasCredentials && canConnect && (
              <Button
                size="xs"
                variant="light"
                leftSection={<IconRefresh size={14} />}
                loading={syncNow.isPending}
                disabled={i?.is_syncing}
                onClick={() => syncNow.mutate()}
              >
                Sync now
              </Button>
            )}
            {source !== 'marketo' && canConnect && !hasCredentials && available && (
              <Button
                size="xs"
                leftSection={<IconPlugConnected size={14} />}
                loading={redirect.isPending}
                onClick={() =>
                  redirect.mutate({
                    source,
                    returnTo: 'integration',
                    ...(pickLogin ? { login: login.login, myDomain: login.myDomain } : {}),
                  })
                }
              >
                {demo ? `Connect your ${label}` : i ? `Reconnect ${label}` : `Connect ${label}`}
              </Button>
            )}
            {hasCredentials && canConnect && (
              <Button size="xs" variant="subtle" color="red" onClick={() => setConfirm(true)}>
                Disconnect
              </Button>
            )}
          </Group>
        </Group>
        {pickLogin && <SalesforceLoginPicker value={login} onChange={setLogin} error={redirect.error} />}
        {demo && <DemoNote label={label} />}
        {source !== 'marketo' && canConnect && !hasCredentials && !available && (
          <Alert color="gray" variant="light" icon={<IconAlertTriangle size={16} />} p="xs">
            <Text size="sm">{NOT_AVAILABLE_HERE}</Text>
          </Alert>
        )}
        {i?.is_syncing && <SyncProgress integration={i} />}
        {i && (
          <SimpleGrid cols={{ base: 2, sm: 3, md: 6 }} spacing="xs">
            {(
              [
                ['Stages', s.counts.stages],
                ['Owners', s.counts.owners],
                ['Accounts', s.counts.accounts],
                ['Contacts', s.counts.contacts],
                ['Opportunities', s.counts.opportunities],
                ['Lists', s.counts.lists],
              ] as const
            ).map(([what, n]) => (
              <div key={what}>
                <Text size="xs" c="dimmed">
                  {what}
                </Text>
                <Text fw={600}>{formatCount(n)}</Text>
              </div>
            ))}
          </SimpleGrid>
        )}
        {i && <ConnectionHealth integration={i} label={label} />}
        {redirect.isError && Object.keys(fieldErrorsOf(redirect.error)).length === 0 && (
          <FormError error={redirect.error} />
        )}
        {syncNow.isError && <FormError error={syncNow.error} />}
      </Stack>
      <Modal opened={confirm} onClose={() => setConfirm(false)} title={`Disconnect ${label}?`}>
        <Stack>
          <Text size="sm">
            Rally revokes its access at {label} and stops syncing. What was synced stays; connect again to
            resume.
          </Text>
          {disconnect.isError && <FormError error={disconnect.error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirm(false)}>
              Cancel
            </Button>
            <Button
              color="red"
              loading={disconnect.isPending}
              onClick={() => disconnect.mutate(undefined, { onSuccess: () => setConfirm(false) })}
            >
              Disconnect
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}

/** Marketo connects with an API user's credentials, checked against Marketo before they are stored. */
function MarketoForm({ clientId }: { clientId: string }) {
  const current = useMarketoConnection(clientId);
  const connect = useMarketoConnect(clientId);
  const [form, setForm] = useState({ client_id: '', client_secret: '', rest_base_url: '' });
  const set = (k: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) =>
    setForm((f) => ({ ...f, [k]: e.currentTarget.value }));
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Marketo credentials">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          connect.mutate(form);
        }}
      >
        <Stack gap="sm" maw={520}>
          <Title order={2} size="h4">
            API credentials
          </Title>
          <Text size="sm" c="dimmed">
            In Marketo, Admin › LaunchPoint shows the API user&apos;s client id and secret; Admin › Web
            Services shows the REST API endpoint.
          </Text>
          <TextInput
            label="REST API endpoint"
            placeholder={current.data?.rest_base_url ?? 'https://123-ABC-456.mktorest.com/rest'}
            required
            value={form.rest_base_url}
            onChange={set('rest_base_url')}
          />
          <TextInput label="Client id" required value={form.client_id} onChange={set('client_id')} />
          <PasswordInput
            label="Client secret"
            required
            value={form.client_secret}
            onChange={set('client_secret')}
          />
          {connect.isError && <FormError error={connect.error} />}
          <Group>
            <Button type="submit" loading={connect.isPending}>
              Connect Marketo
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

/**
 * The CRM's stages: which count as pipeline progressed (docs/reports.md "Progressed": a forward move
 * into a selected or valuable stage). Issue 42 item 6: the text once said the reports show only the
 * selected stages, which they never did.
 */
function StagesPanel({
  clientId,
  integrationId,
  canEdit,
}: {
  clientId: string;
  integrationId: number;
  canEdit: boolean;
}) {
  const stages = useCrmStages(clientId, integrationId);
  const selected = useStageSet(clientId, 'selected');
  const valuable = useStageSet(clientId, 'valuable');
  const saveSelected = useSaveStageSet(clientId, 'selected');
  const saveValuable = useSaveStageSet(clientId, 'valuable');

  const head = (
    <div>
      <Title order={2} size="h4">
        Stages
      </Title>
      <Text size="sm" c="dimmed">
        A move forward into a selected or valuable stage counts as pipeline progressed (with none ticked, any
        move forward but into a lost stage counts). The reports list every opportunity, whatever its stage.
      </Text>
    </div>
  );
  if (stages.isPending || selected.isPending || valuable.isPending)
    return (
      <Stack gap="sm">
        {head}
        <PanelLoading label="Loading stages" />
      </Stack>
    );
  if (stages.isError || selected.isError || valuable.isError)
    return (
      <Stack gap="sm">
        {head}
        <PanelError
          error={stages.error ?? selected.error ?? valuable.error}
          what="the stages"
          onRetry={() => void Promise.all([stages.refetch(), selected.refetch(), valuable.refetch()])}
        />
      </Stack>
    );
  const list = stages.data;
  if (list.length === 0)
    return (
      <Stack gap="sm">
        {head}
        <Paper withBorder radius="md" p="lg">
          <Text size="sm" c="dimmed" ta="center">
            No stages yet: they arrive with the first sync.
          </Text>
        </Paper>
      </Stack>
    );

  // The sets span every CRM of the client: keep the other CRMs' stages when saving this one's.
  const toggle = (set: 'selected' | 'valuable', stage: CrmStage, on: boolean) => {
    const current = (set === 'selected' ? selected.data : valuable.data).stage_ids;
    const next = on ? [...new Set([...current, stage.id])] : current.filter((id) => id !== stage.id);
    (set === 'selected' ? saveSelected : saveValuable).mutate(next);
  };
  const isIn = (set: 'selected' | 'valuable', id: string) =>
    (set === 'selected' ? selected.data : valuable.data).stage_ids.includes(id);
  const pipelines = [...new Set(list.map((s) => s.pipeline_label))];

  return (
    <Stack gap="sm">
      {head}
      {(saveSelected.isError || saveValuable.isError) && (
        <FormError error={saveSelected.error ?? saveValuable.error} />
      )}
      <Paper withBorder radius="md">
        <Table.ScrollContainer minWidth={560}>
          <Table verticalSpacing="xs" aria-label="Pipeline stages">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Stage</Table.Th>
                {pipelines.length > 1 && <Table.Th>Pipeline</Table.Th>}
                <Table.Th>Probability</Table.Th>
                <Table.Th>Kind</Table.Th>
                <Table.Th>Selected</Table.Th>
                <Table.Th>Valuable</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((s) => (
                <Table.Tr key={s.id}>
                  <Table.Td>
                    <Text size="sm" fw={500}>
                      {s.label}
                    </Text>
                  </Table.Td>
                  {pipelines.length > 1 && <Table.Td>{s.pipeline_label}</Table.Td>}
                  <Table.Td>{s.probability === null ? '—' : `${s.probability}%`}</Table.Td>
                  <Table.Td>
                    {s.is_won ? (
                      <Badge color="teal" variant="light">
                        Won
                      </Badge>
                    ) : s.is_closed ? (
                      <Badge color="gray" variant="light">
                        Lost
                      </Badge>
                    ) : (
                      <Badge variant="light">Open</Badge>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Checkbox
                      aria-label={`${s.label} selected`}
                      checked={isIn('selected', s.id)}
                      disabled={!canEdit || saveSelected.isPending}
                      onChange={(e) => toggle('selected', s, e.currentTarget.checked)}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Checkbox
                      aria-label={`${s.label} valuable`}
                      checked={isIn('valuable', s.id)}
                      disabled={!canEdit || saveValuable.isPending}
                      onChange={(e) => toggle('valuable', s, e.currentTarget.checked)}
                    />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
      {!canEdit && <ReadOnlyNote permission="settings.write" />}
    </Stack>
  );
}
