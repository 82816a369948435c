import { useState } from 'react';
import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Modal,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import {
  IconAlertTriangle,
  IconCircleCheck,
  IconPlugConnected,
  IconRefresh,
  IconWebhook,
} from '@tabler/icons-react';
import { Link, useSearchParams } from 'react-router';
import { relativeTime } from '@rally/shared/utils/dates';
import { SEQUENCE_SOURCES, SOURCE_LABELS } from '@rally/shared/schemas/integrations';
import type { SequenceSourceName } from '@rally/shared/schemas/integrations';
import { CRM_SOURCES } from '@rally/shared/schemas/crm';
import type { Integration } from '@rally/shared/schemas/auth';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { FormError } from '../../../components/form-error.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useConnect, useDisconnect, useIntegrations, useSyncAll } from '../api/integrations.ts';
import { NOT_AVAILABLE_HERE, canConnectHere, useRuntimeConfig } from '../../../lib/runtime-config.ts';
import { DemoBadge, DemoNote } from './demo-connection.tsx';
import { ApiKeyForm } from './api-key-form.tsx';
import { SourceLogo } from './source-logo.tsx';
import { SyncProgress } from './sync-progress.tsx';
import { ConnectionHealth } from './connection-health.tsx';

const isSequence = (source: string): source is SequenceSourceName =>
  (SEQUENCE_SOURCES as readonly string[]).includes(source);

/** /settings/connections: each integration with its state, last sync, and what can be done to it. */
export function ConnectionsScreen() {
  const auth = useAuth();
  const [params, setParams] = useSearchParams();
  const clientId = auth.currentClient;
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  const canWrite = auth.currentRole.permissions.includes('integration.write');
  const canSync = auth.currentRole.permissions.includes('cadence.write');
  const connected = params.get('connected');
  const connectError = params.get('connect_error');
  const dismiss = () => {
    const next = new URLSearchParams(params);
    next.delete('connected');
    next.delete('connect_error');
    setParams(next, { replace: true });
  };

  return (
    <Stack gap="lg">
      <div>
        <Title order={1}>Connections</Title>
        <Text c="dimmed">
          The sequence platforms, CRMs and files Rally reads your cadences, prospects and pipeline from.
        </Text>
      </div>
      {connected && (
        <Alert
          color="teal"
          icon={<IconCircleCheck size={18} />}
          title={`${SOURCE_LABELS[connected] ?? connected} is connected`}
          withCloseButton
          onClose={dismiss}
        >
          The first sync has started; its progress shows below.
        </Alert>
      )}
      {connectError && (
        <Alert
          color="red"
          icon={<IconAlertTriangle size={18} />}
          title="The connection did not complete"
          withCloseButton
          onClose={dismiss}
        >
          {connectError}
        </Alert>
      )}
      <ConnectionList clientId={clientId} canWrite={canWrite} canSync={canSync} />
      <Stack gap="sm">
        <Title order={2} size="h4">
          Webhooks
        </Title>
        <Card withBorder radius="md" padding="md">
          <Group justify="space-between" wrap="wrap" gap="sm">
            <Group gap="sm" wrap="nowrap">
              <IconWebhook size={32} stroke={1.5} aria-hidden />
              <Text size="sm">
                Send Rally’s events (superprospects, clicks, landing page views, finished syncs and imports,
                invoices) to your own systems.
              </Text>
            </Group>
            {canWrite ? (
              <Button
                size="xs"
                variant="light"
                component={Link}
                to={`/settings/integrations/webhooks?client_id=${clientId}`}
              >
                Manage webhooks
              </Button>
            ) : (
              <Text size="sm" c="dimmed">
                Owners and admins manage webhooks.
              </Text>
            )}
          </Group>
        </Card>
      </Stack>
    </Stack>
  );
}

function ConnectionList({
  clientId,
  canWrite,
  canSync,
}: {
  clientId: string;
  canWrite: boolean;
  canSync: boolean;
}) {
  const integrations = useIntegrations(clientId);
  const syncAll = useSyncAll(clientId);
  const config = useRuntimeConfig();
  if (integrations.isPending) return <PanelLoading label="Loading connections" />;
  if (integrations.isError)
    return (
      <PanelError
        error={integrations.error}
        what="your connections"
        onRetry={() => void integrations.refetch()}
      />
    );
  const list = integrations.data;
  // Issue 42 item 3: only what this installation can connect is offered.
  const missing = SEQUENCE_SOURCES.filter(
    (s) => !list.some((i) => i.source === s) && canConnectHere(config, s),
  );
  const missingCrm = CRM_SOURCES.filter(
    (s) => !list.some((i) => i.source === s && i.is_active) && canConnectHere(config, s),
  );
  const hasFile = list.some((i) => i.source === 'fileforce');

  return (
    <Stack gap="lg">
      {list.length === 0 ? (
        <Paper withBorder radius="md" p="xl">
          <Stack align="center" gap="xs">
            <IconPlugConnected size={32} stroke={1.5} />
            <Text fw={600}>Nothing is connected yet</Text>
            <Text size="sm" c="dimmed" ta="center">
              Connect a sequence platform or upload a CSV file to bring in your cadences and prospects.
            </Text>
            <Button component={Link} to={`/onboarding?client_id=${clientId}`} mt="xs">
              Set up a connection
            </Button>
          </Stack>
        </Paper>
      ) : (
        <Stack gap="sm">
          <Group justify="space-between">
            <Title order={2} size="h4">
              Connected
            </Title>
            {canSync && list.some((i) => isSequence(i.source) && i.is_active && !i.is_demo) && (
              <Button
                size="xs"
                variant="light"
                leftSection={<IconRefresh size={14} />}
                loading={syncAll.isPending}
                disabled={list.some((i) => i.is_syncing)}
                onClick={() => syncAll.mutate()}
              >
                Sync all now
              </Button>
            )}
          </Group>
          {list.map((i) => (
            <ConnectionCard
              key={i.id}
              integration={i}
              clientId={clientId}
              canWrite={canWrite}
              canSync={canSync}
            />
          ))}
        </Stack>
      )}
      {canWrite && missingCrm.length > 0 && (
        <Stack gap="sm">
          <Title order={2} size="h4">
            Add a CRM
          </Title>
          <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
            {missingCrm.map((s) => (
              <Card key={s} withBorder radius="md" padding="md">
                <Stack gap="xs" align="flex-start" h="100%" justify="space-between">
                  <Group gap="sm">
                    <SourceLogo source={s} size={32} />
                    <Text fw={600}>{SOURCE_LABELS[s]}</Text>
                  </Group>
                  <Button
                    size="xs"
                    variant="light"
                    component={Link}
                    to={`/settings/integrations/${s}?client_id=${clientId}`}
                  >
                    Connect
                  </Button>
                </Stack>
              </Card>
            ))}
          </SimpleGrid>
        </Stack>
      )}
      {canWrite && (missing.length > 0 || !hasFile) && (
        <Stack gap="sm">
          <Title order={2} size="h4">
            Add a connection
          </Title>
          <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
            {missing.map((s) => (
              <AddSourceCard key={s} source={s} clientId={clientId} />
            ))}
            {!hasFile && (
              <Card withBorder radius="md" padding="md">
                <Stack gap="xs" align="flex-start" h="100%" justify="space-between">
                  <Group gap="sm">
                    <SourceLogo source="fileforce" size={32} />
                    <Text fw={600}>CSV file</Text>
                  </Group>
                  <Button
                    size="xs"
                    variant="light"
                    component={Link}
                    to={`/onboarding?client_id=${clientId}&source=fileforce`}
                  >
                    Upload a file
                  </Button>
                </Stack>
              </Card>
            )}
          </SimpleGrid>
        </Stack>
      )}
    </Stack>
  );
}

function AddSourceCard({ source, clientId }: { source: SequenceSourceName; clientId: string }) {
  const connect = useConnect(clientId);
  const [askKey, setAskKey] = useState(false);
  return (
    <Card withBorder radius="md" padding="md">
      <Stack gap="xs" align="flex-start" h="100%" justify="space-between">
        <Group gap="sm">
          <SourceLogo source={source} size={32} />
          <Text fw={600}>{SOURCE_LABELS[source]}</Text>
        </Group>
        {source === 'apolloio' ? (
          <Button size="xs" variant="light" onClick={() => setAskKey(true)}>
            Connect
          </Button>
        ) : (
          <Button
            size="xs"
            variant="light"
            loading={connect.isPending}
            onClick={() => connect.mutate({ source, returnTo: 'connections' })}
          >
            Connect
          </Button>
        )}
        {connect.isError && <FormError error={connect.error} />}
      </Stack>
      <Modal opened={askKey} onClose={() => setAskKey(false)} title="Connect Apollo">
        <ApiKeyForm clientId={clientId} returnTo="connections" onDone={() => setAskKey(false)} />
      </Modal>
    </Card>
  );
}

export function ConnectionCard({
  integration: i,
  clientId,
  canWrite,
  canSync,
  health = false,
}: {
  integration: Integration;
  clientId: string;
  canWrite: boolean;
  canSync: boolean;
  /** On the connection's settings page: the health panel in place of the error and access notes. */
  health?: boolean;
}) {
  const label = SOURCE_LABELS[i.source] ?? i.source;
  const syncAll = useSyncAll(clientId);
  const connect = useConnect(clientId);
  const disconnect = useDisconnect(clientId);
  const [confirm, setConfirm] = useState(false);
  const [askKey, setAskKey] = useState(false);
  const sequence = isSequence(i.source);
  const available = canConnectHere(useRuntimeConfig(), i.source);
  const reconnect = () => {
    if (!isSequence(i.source)) return;
    if (i.source === 'apolloio') setAskKey(true);
    else connect.mutate({ source: i.source, returnTo: 'connections' });
  };

  return (
    <Paper withBorder radius="md" p="md" aria-label={`${label} connection`} component="section">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="sm">
          <Group gap="md" wrap="nowrap">
            <SourceLogo source={i.source} />
            <div>
              <Group gap={8}>
                <Text fw={600}>{label}</Text>
                {i.is_demo ? (
                  <DemoBadge />
                ) : (
                  <Badge color={i.is_active ? 'teal' : 'gray'} variant="light">
                    {i.is_active ? 'Active' : 'Inactive'}
                  </Badge>
                )}
              </Group>
              <Text size="sm" c="dimmed">
                {i.account_name ? `${i.account_name} · ` : ''}
                {i.is_syncing
                  ? 'Syncing now'
                  : i.last_synced_at
                    ? `Last synced ${relativeTime(i.last_synced_at)}`
                    : sequence
                      ? 'Not synced yet'
                      : `Added ${relativeTime(i.created_at)}`}
              </Text>
            </div>
          </Group>
          <Group gap="xs">
            <Button
              size="xs"
              variant="subtle"
              component={Link}
              to={`/settings/integrations/${i.source}?client_id=${clientId}`}
            >
              Settings
            </Button>
            {/* The demo's one way forward (issue 42 item 4): a CRM connects on its own page. */}
            {i.is_demo && canWrite && available && sequence && (
              <Button
                size="xs"
                leftSection={<IconPlugConnected size={14} />}
                loading={connect.isPending}
                onClick={reconnect}
              >
                Connect your {label}
              </Button>
            )}
            {i.is_demo && canWrite && available && !sequence && (
              <Button
                size="xs"
                leftSection={<IconPlugConnected size={14} />}
                component={Link}
                to={`/settings/integrations/${i.source}?client_id=${clientId}`}
              >
                Connect your {label}
              </Button>
            )}
            {sequence && i.is_active && !i.is_demo && canSync && (
              <Button
                size="xs"
                variant="light"
                leftSection={<IconRefresh size={14} />}
                loading={syncAll.isPending}
                disabled={i.is_syncing}
                onClick={() => syncAll.mutate()}
              >
                Sync now
              </Button>
            )}
            {sequence && canWrite && !i.is_demo && (
              <Button
                size="xs"
                variant={i.is_active ? 'default' : 'filled'}
                loading={connect.isPending}
                onClick={reconnect}
              >
                Reconnect
              </Button>
            )}
            {sequence && canWrite && i.is_active && !i.is_demo && (
              <Button size="xs" variant="subtle" color="red" onClick={() => setConfirm(true)}>
                Disconnect
              </Button>
            )}
          </Group>
        </Group>
        {i.is_demo && <DemoNote label={label} />}
        {i.is_demo && canWrite && !available && (
          <Text size="sm" c="dimmed">
            {NOT_AVAILABLE_HERE}
          </Text>
        )}
        {i.is_syncing && <SyncProgress integration={i} />}
        {health && <ConnectionHealth integration={i} label={label} />}
        {!health && i.last_error && (
          <Alert
            color={i.is_active ? 'yellow' : 'red'}
            variant="light"
            icon={<IconAlertTriangle size={16} />}
            p="xs"
          >
            <Text size="sm">{i.last_error}</Text>
          </Alert>
        )}
        {!health && i.is_active && i.access_note && (
          <Alert
            color="yellow"
            variant="light"
            icon={<IconAlertTriangle size={16} />}
            p="xs"
            title="This connection sees part of the team"
          >
            <Text size="sm">{i.access_note}</Text>
          </Alert>
        )}
        {connect.isError && <FormError error={connect.error} />}
      </Stack>
      <Modal opened={confirm} onClose={() => setConfirm(false)} title={`Disconnect ${label}?`}>
        <Stack>
          <Text size="sm">
            Rally forgets its access to {label} and stops syncing. Cadences, prospects and their engagement
            stay; connect again to resume.
          </Text>
          {disconnect.isError && <FormError error={disconnect.error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirm(false)}>
              Cancel
            </Button>
            <Button
              color="red"
              loading={disconnect.isPending}
              onClick={() =>
                isSequence(i.source) && disconnect.mutate(i.source, { onSuccess: () => setConfirm(false) })
              }
            >
              Disconnect
            </Button>
          </Group>
        </Stack>
      </Modal>
      <Modal opened={askKey} onClose={() => setAskKey(false)} title="Reconnect Apollo">
        <ApiKeyForm clientId={clientId} returnTo="connections" onDone={() => setAskKey(false)} />
      </Modal>
    </Paper>
  );
}
