import { useState } from 'react';
import { Alert, Badge, Button, Group, Paper, Select, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconPlugConnected } from '@tabler/icons-react';
import { useSearchParams } from 'react-router';
import type { AdNetworkInfo } from '@rally/shared/schemas/ad-networks';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { FormError } from '../../../components/form-error.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { NOT_AVAILABLE_HERE } from '../../../lib/runtime-config.ts';
import {
  useAdAccounts,
  useAdNetworks,
  useChooseAdAccount,
  useConnectAdNetwork,
  useDisconnectAdNetwork,
} from '../api/ad-networks.ts';
import { lookOf, NETWORK_LOOK } from './network-look.ts';
import { ReadOnlyNote } from '../../../components/read-only-note.tsx';

/** /settings/ad-networks: connect each network, choose the ad account and page audiences and ads go to. */
export function AdNetworksScreen() {
  const auth = useAuth();
  const [params, setParams] = useSearchParams();
  const clientId = auth.currentClient;
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  const canWrite = auth.currentRole.permissions.includes('integration.write');
  const connected = params.get('connected');
  const connectError = params.get('connect_error');
  const dismiss = () => {
    const next = new URLSearchParams(params);
    next.delete('connected');
    next.delete('connect_error');
    setParams(next, { replace: true });
  };
  return (
    <Stack gap="lg" maw={860}>
      <div>
        <Title order={1}>Ad networks</Title>
        <Text c="dimmed">
          Run cohorts, journey stages and cadences as matched audiences on ad networks. Rally sends only
          SHA-256 hashes of your members&apos; e-mail addresses, never the addresses.
        </Text>
      </div>
      {connected && (
        <Alert
          color="teal"
          icon={<IconCircleCheck size={18} />}
          title={`${lookOf(connected)?.name ?? 'The network'} is connected`}
          withCloseButton
          onClose={dismiss}
        >
          Choose the ad account your audiences are created in.
        </Alert>
      )}
      {connectError && (
        <Alert
          color="red"
          icon={<IconAlertTriangle size={18} />}
          title="Not connected"
          withCloseButton
          onClose={dismiss}
        >
          {connectError}
        </Alert>
      )}
      {!canWrite && <ReadOnlyNote permission="integration.write" />}
      <NetworkList clientId={clientId} canWrite={canWrite} />
    </Stack>
  );
}

function NetworkList({ clientId, canWrite }: { clientId: string; canWrite: boolean }) {
  const networks = useAdNetworks(clientId);
  if (networks.isPending) return <PanelLoading label="Loading the ad networks" />;
  if (networks.isError)
    return (
      <PanelError error={networks.error} what="the ad networks" onRetry={() => void networks.refetch()} />
    );
  return (
    <Stack>
      {networks.data.map((n) => (
        <NetworkCard key={n.network} clientId={clientId} info={n} canWrite={canWrite} />
      ))}
    </Stack>
  );
}

function NetworkCard({
  clientId,
  info,
  canWrite,
}: {
  clientId: string;
  info: AdNetworkInfo;
  canWrite: boolean;
}) {
  const connect = useConnectAdNetwork(clientId);
  const disconnect = useDisconnectAdNetwork(clientId, info.network);
  const c = info.connection;
  const look = NETWORK_LOOK[info.network];
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label={info.label}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Group gap="sm">
            <look.Icon size={28} aria-hidden />
            <div>
              <Text fw={600}>{info.label}</Text>
              <Text size="sm" c="dimmed">
                {look.audiences} of at least {info.minimum_audience} matched people
              </Text>
            </div>
          </Group>
          {c ? (
            <Badge color={c.is_active ? 'teal' : 'red'} variant="light">
              {c.is_active ? 'Connected' : 'Needs reconnecting'}
            </Badge>
          ) : (
            <Badge color="gray" variant="light">
              Not connected
            </Badge>
          )}
        </Group>
        {c && (
          <Text size="sm">
            Connected as <strong>{c.account_name ?? 'unknown'}</strong>
            {c.ad_account_name ? (
              <>
                {' '}
                · ad account <strong>{c.ad_account_name}</strong>
              </>
            ) : null}
            {c.page_name ? (
              <>
                {' '}
                · page <strong>{c.page_name}</strong>
              </>
            ) : null}
          </Text>
        )}
        {c && !c.is_active && (
          <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />}>
            {c.inactive_reason ?? `${look.name} stopped accepting Rally. Connect it again.`}
          </Alert>
        )}
        {!info.available ? (
          <Text size="sm" c="dimmed">
            {NOT_AVAILABLE_HERE}
          </Text>
        ) : canWrite ? (
          <Group gap="sm">
            {(!c || !c.is_active) && (
              <Button
                leftSection={<IconPlugConnected size={16} />}
                loading={connect.isPending}
                onClick={() => connect.mutate(info.network)}
              >
                {c ? `Reconnect ${look.name}` : `Connect ${look.name}`}
              </Button>
            )}
            {c && (
              <Button
                variant="subtle"
                color="red"
                loading={disconnect.isPending}
                onClick={() => disconnect.mutate()}
              >
                Disconnect
              </Button>
            )}
          </Group>
        ) : (
          !c && (
            <Text size="sm" c="dimmed">
              An owner or admin of this client can connect it.
            </Text>
          )
        )}
        <FormError error={connect.error} />
        {c?.is_active && <AccountChoice clientId={clientId} info={info} canWrite={canWrite} />}
      </Stack>
    </Paper>
  );
}

function AccountChoice({
  clientId,
  info,
  canWrite,
}: {
  clientId: string;
  info: AdNetworkInfo;
  canWrite: boolean;
}) {
  const c = info.connection;
  const look = NETWORK_LOOK[info.network];
  const accounts = useAdAccounts(clientId, info.network, Boolean(c?.is_active));
  const choose = useChooseAdAccount(clientId, info.network);
  const [account, setAccount] = useState<string | null>(c?.ad_account_id ?? null);
  const [page, setPage] = useState<string | null>(c?.page_id ?? null);
  if (accounts.isPending) return <PanelLoading label="Loading the ad accounts" />;
  if (accounts.isError)
    return (
      <PanelError error={accounts.error} what="the ad accounts" onRetry={() => void accounts.refetch()} />
    );
  const { ad_accounts, pages } = accounts.data;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (account) choose.mutate({ ad_account_id: account, page_id: look.page ? page : null });
      }}
    >
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Select
            label={look.account ?? 'Ad account'}
            placeholder="Choose an ad account"
            description="Audiences are created here"
            data={ad_accounts.map((a) => ({
              value: a.id,
              label: `${a.name}${a.currency ? ` (${a.currency})` : ''}${a.is_active ? '' : ' — not active'}`,
              disabled: !a.is_active,
            }))}
            value={account}
            onChange={setAccount}
            disabled={!canWrite}
          />
          {look.page && (
            <Select
              label={look.page}
              placeholder="No page yet"
              description={look.pageHelp}
              data={pages.map((p) => ({ value: p.id, label: p.name }))}
              value={page}
              onChange={setPage}
              clearable
              disabled={!canWrite}
            />
          )}
        </SimpleGrid>
        {canWrite && (
          <Group>
            <Button type="submit" variant="light" loading={choose.isPending} disabled={!account}>
              Save
            </Button>
            {choose.isSuccess && (
              <Text size="sm" c="teal.8" role="status">
                {choose.data.message}
              </Text>
            )}
          </Group>
        )}
        <FormError error={choose.error} />
      </Stack>
    </form>
  );
}
