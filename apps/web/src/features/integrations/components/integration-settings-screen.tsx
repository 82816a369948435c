import { Alert, Anchor, Button, Group, Stack, Text, Title } from '@mantine/core';
import { IconAlertTriangle, IconArrowLeft, IconCircleCheck, IconPlugConnectedX } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { SOURCE_LABELS } from '@rally/shared/schemas/integrations';
import { CRM_SOURCES } from '@rally/shared/schemas/crm';
import type { CrmSourceName } from '@rally/shared/schemas/crm';
import { CrmSettingsPanel } from './crm-settings-panel.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useIntegrations } from '../api/integrations.ts';
import { ConnectionCard } from './connections-screen.tsx';
import { ImportHistory } from './csv-steps.tsx';
import { SourceLogo } from './source-logo.tsx';

/**
 * /settings/integrations/* (catch-all): one source's connection, and for files the import history.
 * `extra` renders what other features add for a source (the ad fields' panel), below the connection.
 */
export function IntegrationSettingsScreen({ extra }: { extra?: (source: string) => ReactNode } = {}) {
  const auth = useAuth();
  const params = useParams();
  const source = (params['*'] ?? '').split('/')[0] ?? '';
  const clientId = auth.currentClient;
  const integrations = useIntegrations(clientId ?? '');
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  const perms = auth.currentRole.permissions;
  const label = SOURCE_LABELS[source];
  const back = (
    <Anchor component={Link} to={`/settings/connections?client_id=${clientId}`} size="sm">
      <Group gap={4}>
        <IconArrowLeft size={14} /> All connections
      </Group>
    </Anchor>
  );

  if (!label) {
    return (
      <Stack gap="lg">
        {back}
        <Title order={1}>Integration settings</Title>
        <Alert color="gray" icon={<IconPlugConnectedX size={18} />} title="Unknown integration">
          There is no integration called “{source || '(none)'}”. Choose one on the connections page.
        </Alert>
      </Stack>
    );
  }

  if ((CRM_SOURCES as readonly string[]).includes(source)) {
    return (
      <Stack gap="lg">
        {back}
        <Group gap="md">
          <SourceLogo source={source} size={48} />
          <div>
            <Title order={1}>{label}</Title>
            <Text c="dimmed">Settings of the {label} CRM connection.</Text>
          </div>
        </Group>
        <ConnectResult />
        <CrmSettingsPanel
          clientId={clientId}
          source={source as CrmSourceName}
          canConnect={perms.includes('integration.write')}
          canEditStages={perms.includes('settings.write')}
        />
        {extra?.(source)}
      </Stack>
    );
  }

  const integration = integrations.data?.find((i) => i.source === source);
  return (
    <Stack gap="lg">
      {back}
      <Group gap="md">
        <SourceLogo source={source} size={48} />
        <div>
          <Title order={1}>{label}</Title>
          <Text c="dimmed">Settings of the {label} connection.</Text>
        </div>
      </Group>
      {integrations.isPending ? (
        <PanelLoading label={`Loading ${label}`} />
      ) : integrations.isError ? (
        <PanelError error={integrations.error} what={label} onRetry={() => void integrations.refetch()} />
      ) : !integration ? (
        <Alert color="gray" icon={<IconPlugConnectedX size={18} />} title={`${label} is not connected`}>
          <Stack gap="xs" align="flex-start">
            <Text size="sm">Connect it to bring in cadences, sales reps and prospects.</Text>
            <Button size="xs" component={Link} to={`/onboarding?client_id=${clientId}&source=${source}`}>
              Connect {label}
            </Button>
          </Stack>
        </Alert>
      ) : (
        <ConnectionCard
          integration={integration}
          clientId={clientId}
          canWrite={perms.includes('integration.write')}
          canSync={perms.includes('cadence.write')}
          health
        />
      )}
      {source === 'fileforce' && integration && (
        <ImportHistory clientId={clientId} canWrite={perms.includes('integration.write')} />
      )}
      {integration && extra?.(source)}
    </Stack>
  );
}

/** The CRM's OAuth callback lands here with ?connected= or ?connect_error=. */
function ConnectResult() {
  const [params, setParams] = useSearchParams();
  const connected = params.get('connected');
  const error = params.get('connect_error');
  if (!connected && !error) return null;
  const dismiss = () => {
    const next = new URLSearchParams(params);
    next.delete('connected');
    next.delete('connect_error');
    setParams(next, { replace: true });
  };
  return error ? (
    <Alert
      color="red"
      icon={<IconAlertTriangle size={18} />}
      title="The connection did not complete"
      withCloseButton
      onClose={dismiss}
    >
      {error}
    </Alert>
  ) : (
    <Alert
      color="teal"
      icon={<IconCircleCheck size={18} />}
      title={`${SOURCE_LABELS[connected ?? ''] ?? connected} is connected`}
      withCloseButton
      onClose={dismiss}
    >
      The first sync has started; its progress shows below.
    </Alert>
  );
}
