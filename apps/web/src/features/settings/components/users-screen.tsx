import { Alert, Stack, Tabs, Text, Title } from '@mantine/core';
import { IconLock, IconMailForward, IconUsers } from '@tabler/icons-react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { MembersPanel } from './members-panel.tsx';
import { PendingPanel } from './pending-panel.tsx';

const TABS = { members: '/settings/users', pending: '/settings/users/pending' } as const;
type Tab = keyof typeof TABS;

/**
 * /settings/users and /settings/users/:slug (SPEC.md §2 "users (child index and child pending)"):
 * slug 'pending' is the invitations tab, anything else the members tab.
 */
export function UsersScreen() {
  const { slug } = useParams();
  const { search } = useLocation();
  const navigate = useNavigate();
  const auth = useAuth();
  const tab: Tab = slug === 'pending' ? 'pending' : 'members';

  const clientId = auth.currentClient;
  if (!clientId || !auth.user || !auth.currentRole) return <ScreenLoader />;
  const clientName =
    auth.clients.find((c) => c.id === clientId)?.name ??
    auth.user.clients.find((c) => c.client_id === clientId)?.client_name ??
    'this client';
  const perms = auth.currentRole.permissions;
  const myRole = auth.user.clients.find((c) => c.client_id === clientId)?.role ?? '';
  const canWrite = perms.includes('users.write');

  return (
    <Stack gap="lg">
      <div>
        <Title order={1}>Users</Title>
        <Text c="dimmed">
          People who can work in <b>{clientName}</b>, and the invitations waiting for an answer.
        </Text>
      </div>
      {!perms.includes('users.read') ? (
        <Alert
          color="gray"
          variant="light"
          icon={<IconLock size={18} />}
          title="You cannot see the users here"
        >
          Your role in {clientName} ({auth.currentRole.name}) does not include seeing its users. Ask an owner
          or an admin if you need access.
        </Alert>
      ) : (
        <Tabs
          value={tab}
          onChange={(v) => {
            if (v === 'members' || v === 'pending') navigate({ pathname: TABS[v], search });
          }}
          keepMounted={false}
        >
          <Tabs.List mb="md">
            <Tabs.Tab value="members" leftSection={<IconUsers size={16} />}>
              Members
            </Tabs.Tab>
            <Tabs.Tab value="pending" leftSection={<IconMailForward size={16} />}>
              Pending invitations
            </Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="members">
            <MembersPanel
              clientId={clientId}
              clientName={clientName}
              selfId={auth.user.id}
              myRole={myRole}
              canWrite={canWrite}
            />
          </Tabs.Panel>
          <Tabs.Panel value="pending">
            <PendingPanel
              clientId={clientId}
              clientName={clientName}
              canWrite={canWrite}
              canGrantOwner={myRole === 'purple_owner'}
            />
          </Tabs.Panel>
        </Tabs>
      )}
    </Stack>
  );
}
