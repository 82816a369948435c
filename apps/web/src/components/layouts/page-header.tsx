import {
  ActionIcon,
  Avatar,
  Box,
  Burger,
  Button,
  Container,
  Divider,
  Drawer,
  Group,
  Menu,
  Stack,
  Text,
  TextInput,
  Tooltip,
  UnstyledButton,
  VisuallyHidden,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  IconBuildingSkyscraper,
  IconCheck,
  IconChevronDown,
  IconSearch,
  IconLogout,
  IconSettings,
  IconUser,
  IconUsers,
  IconWorldCheck,
} from '@tabler/icons-react';
import { useState } from 'react';
import type { ReactNode } from 'react';
import { Link, NavLink, useNavigate } from 'react-router';
import type { Client } from '@rally/shared/schemas/auth';
import { paths } from '../../config/paths.ts';
import { logout, useAuth } from '../../lib/auth/store.ts';
import { useScheduledPrefetch } from '../../lib/link-prefetch.ts';
import { Brand } from '../brand.tsx';
import { Icon } from '../icon.tsx';
import type { IconName } from '../icon.tsx';
import classes from './page-header.module.css';

const NAV: readonly { label: string; to: string; icon: IconName }[] = [
  { label: 'Feed', to: '/feed', icon: 'feed' },
  { label: 'Cadences', to: '/cadence', icon: 'cadences' },
  { label: 'Prospects', to: '/prospects', icon: 'prospects' },
  { label: 'Revenue', to: '/revenue', icon: 'revenue' },
  // Issue 18: marketing audiences (SPEC.md §1 "cohorts and journeys").
  { label: 'Cohorts', to: '/cohorts', icon: 'cohorts' },
  // Not in SPEC.md §2's list: the content studio (issue 8) needs a way in from every screen.
  { label: 'Content', to: '/content', icon: 'content' },
];
const CLIENTS_LINK = { label: 'Clients', to: '/clients', icon: 'clients' } as const;
/** Issue 17: the account, content, signal and priority reports, for roles that may read reports. */
const REPORTS_LINK = { label: 'Reports', to: '/reports', icon: 'reports' } as const;

/**
 * The client switcher for users with several clients: the client's name on wide screens, an icon on
 * narrow ones (the drawer names the current client there). A search field on top narrows the list
 * (issue 42 item 13: an agency has many clients).
 */
function ClientSwitcher({
  clients,
  current,
  compact,
}: {
  clients: Client[];
  current: string | null;
  compact: boolean;
}) {
  const navigate = useNavigate();
  const [query, setQuery] = useState('');
  const name = clients.find((c) => c.id === current)?.name ?? 'Choose a client';
  const q = query.trim().toLowerCase();
  const shown = q ? clients.filter((c) => c.name.toLowerCase().includes(q)) : clients;
  const go = (id: string) => navigate(`/feed?client_id=${id}`);
  return (
    <Menu position="bottom-end" width={280} withinPortal onClose={() => setQuery('')}>
      <Menu.Target>
        {compact ? (
          <ActionIcon variant="default" size="lg" aria-label="Switch client" title={name}>
            <IconBuildingSkyscraper size={18} />
          </ActionIcon>
        ) : (
          <Button
            variant="default"
            size="sm"
            leftSection={<IconBuildingSkyscraper size={16} />}
            rightSection={<IconChevronDown size={14} />}
          >
            {/* Named by its content, so the name holds the visible client name (WCAG 2.5.3). */}
            <Text size="sm" truncate maw={160}>
              {name}
            </Text>
            <VisuallyHidden>, switch client</VisuallyHidden>
          </Button>
        )}
      </Menu.Target>
      <Menu.Dropdown>
        <TextInput
          size="xs"
          m={4}
          placeholder="Search clients"
          aria-label="Search clients"
          leftSection={<IconSearch size={14} />}
          value={query}
          onChange={(e) => setQuery(e.currentTarget.value)}
          onKeyDown={(e) => {
            // Keys typed here are the search's, not the menu's (Space, Home, End…).
            if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp' && e.key !== 'Escape' && e.key !== 'Tab')
              e.stopPropagation();
          }}
        />
        <Menu.Label>Switch client</Menu.Label>
        {shown.map((c) => (
          <Menu.Item
            key={c.id}
            onClick={() => go(c.id)}
            rightSection={c.id === current ? <IconCheck size={14} /> : null}
          >
            {c.name}
          </Menu.Item>
        ))}
        {shown.length === 0 && (
          <Text size="sm" c="dimmed" px="sm" py={6}>
            No client matches
          </Text>
        )}
      </Menu.Dropdown>
    </Menu>
  );
}

/**
 * SPEC.md §2 "Header and navigation": Feed, Cadences, Prospects and Revenue (then Cohorts and Content) with
 * client_id; Clients when any of the user's roles has client.read (issue 42 item 13); the cog to billing or connections; the user's name with
 * Log out. Logged out: Sign Up and Sign In. Below the md breakpoint the links move into a drawer behind a burger.
 * `search` is the global search the app puts beside the settings (components do not import features).
 */
export function PageHeader({ search }: { search?: ReactNode }) {
  const auth = useAuth();
  const navigate = useNavigate();
  const [drawerOpened, drawer] = useDisclosure(false);
  const client = auth.currentClient;
  const q = (to: string) => (client ? `${to}?client_id=${client}` : to);
  const perms = auth.currentRole?.permissions ?? [];
  const user = auth.loggedIn && auth.status === 'ready' ? auth.user : null;
  const currentName = auth.clients.find((c) => c.id === client)?.name;

  const links =
    user && client
      ? [
          ...NAV.slice(0, 4),
          ...(perms.includes('reports.read') ? [REPORTS_LINK] : []),
          ...NAV.slice(4),
          // Any membership with client.read (issue 42 item 13): the agency's owner keeps Clients in a
          // client where they are only a manager.
          ...(user.clients.some((m) => m.permissions.includes('client.read')) ? [CLIENTS_LINK] : []),
        ].map((n) => ({ ...n, to: q(n.to) }))
      : [];
  const settingsTo = q(
    perms.includes('billing_details.read') ? '/settings/billing' : '/settings/connections',
  );
  // SPEC.md §9: the code of the pages the header links to is fetched 1000 ms after it shows them.
  useScheduledPrefetch(user ? [...links.map((l) => l.to), settingsTo] : []);

  return (
    <Box component="header" bg="white" className={classes.header}>
      <Container size={1200} h={60}>
        <Group h="100%" justify="space-between" wrap="nowrap" gap="sm">
          <Group gap="lg" wrap="nowrap">
            <Group gap="xs" wrap="nowrap">
              {links.length > 0 && (
                <Burger
                  opened={drawerOpened}
                  onClick={drawer.toggle}
                  hiddenFrom="md"
                  size="sm"
                  aria-label="Open navigation"
                />
              )}
              <Brand />
            </Group>
            {links.length > 0 && (
              <Group component="nav" aria-label="Main" gap={4} wrap="nowrap" visibleFrom="md">
                {links.map((n) => (
                  <NavLink key={n.label} to={n.to} className={classes.link}>
                    {n.label}
                  </NavLink>
                ))}
              </Group>
            )}
          </Group>
          {user ? (
            <Group gap="xs" wrap="nowrap">
              {client && search}
              {auth.clients.length > 1 && (
                <>
                  {/* The name beside the burger (sm-md) and from lg; an icon where the inline
                      links need the room (md-lg) and on phones. */}
                  <Box visibleFrom="sm" hiddenFrom="md">
                    <ClientSwitcher clients={auth.clients} current={client} compact={false} />
                  </Box>
                  <Box visibleFrom="lg">
                    <ClientSwitcher clients={auth.clients} current={client} compact={false} />
                  </Box>
                  <Box hiddenFrom="sm">
                    <ClientSwitcher clients={auth.clients} current={client} compact />
                  </Box>
                  <Box visibleFrom="md" hiddenFrom="lg">
                    <ClientSwitcher clients={auth.clients} current={client} compact />
                  </Box>
                </>
              )}
              <Tooltip label="Settings">
                <ActionIcon
                  component={Link}
                  to={settingsTo}
                  variant="subtle"
                  color="gray"
                  size="lg"
                  aria-label="Settings"
                >
                  <IconSettings size={20} />
                </ActionIcon>
              </Tooltip>
              <Menu position="bottom-end" width={200} withinPortal>
                <Menu.Target>
                  <UnstyledButton className={classes.user}>
                    <Group gap={8} wrap="nowrap">
                      <Avatar size={28} radius="xl" color="indigo">
                        {`${user.first_name[0] ?? ''}${user.last_name[0] ?? ''}`.toUpperCase()}
                      </Avatar>
                      <Text size="sm" fw={500} visibleFrom="sm" truncate maw={180}>
                        {user.first_name} {user.last_name}
                      </Text>
                      <IconChevronDown size={14} />
                    </Group>
                    {/* Named by its content: the user's name (shown from sm) and these words. */}
                    <VisuallyHidden>Account menu</VisuallyHidden>
                  </UnstyledButton>
                </Menu.Target>
                <Menu.Dropdown>
                  <Menu.Label hiddenFrom="sm">
                    {user.first_name} {user.last_name}
                  </Menu.Label>
                  <Menu.Item
                    component={Link}
                    to={q('/settings/profile')}
                    leftSection={<IconUser size={16} />}
                  >
                    Profile
                  </Menu.Item>
                  {perms.includes('users.read') && (
                    <Menu.Item
                      component={Link}
                      to={q('/settings/users')}
                      leftSection={<IconUsers size={16} />}
                    >
                      Users
                    </Menu.Item>
                  )}
                  {/* Every member may read the domains; what they can change is said on the page. */}
                  <Menu.Item
                    component={Link}
                    to={q('/settings/domain')}
                    leftSection={<IconWorldCheck size={16} />}
                  >
                    Domains
                  </Menu.Item>
                  <Menu.Divider />
                  <Menu.Item
                    color="red"
                    leftSection={<IconLogout size={16} />}
                    onClick={async () => {
                      await logout();
                      navigate(paths.login);
                    }}
                  >
                    Log out
                  </Menu.Item>
                </Menu.Dropdown>
              </Menu>
            </Group>
          ) : (
            <Group gap="xs" wrap="nowrap">
              <Button component={Link} to={paths.register} variant="subtle">
                Sign Up
              </Button>
              <Button component={Link} to={paths.login}>
                Sign In
              </Button>
            </Group>
          )}
        </Group>
      </Container>
      {links.length > 0 && (
        <Drawer
          opened={drawerOpened}
          onClose={drawer.close}
          size={300}
          padding="md"
          title={<Brand />}
          closeButtonProps={{ 'aria-label': 'Close navigation' }}
          hiddenFrom="md"
        >
          <Stack gap="xs">
            {currentName && (
              <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
                {currentName}
              </Text>
            )}
            <Stack component="nav" aria-label="Main" gap={2}>
              {links.map((n) => (
                <NavLink key={n.label} to={n.to} className={classes.drawerLink} onClick={drawer.close}>
                  <Icon name={n.icon} />
                  {n.label}
                </NavLink>
              ))}
            </Stack>
            <Divider />
            <NavLink to={settingsTo} className={classes.drawerLink} onClick={drawer.close}>
              <Icon name="settings" />
              Settings
            </NavLink>
          </Stack>
        </Drawer>
      )}
    </Box>
  );
}
