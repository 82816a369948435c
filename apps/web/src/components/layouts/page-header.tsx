import {
  ActionIcon,
  Avatar,
  Box,
  Button,
  Container,
  Group,
  Menu,
  Text,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import {
  IconBuildingSkyscraper,
  IconCheck,
  IconChevronDown,
  IconLogout,
  IconSettings,
  IconUser,
  IconUsers,
} from '@tabler/icons-react';
import { Link, NavLink, useNavigate } from 'react-router';
import { paths } from '../../config/paths.ts';
import { logout, useAuth } from '../../lib/auth/store.ts';
import { Brand } from '../brand.tsx';
import classes from './page-header.module.css';

const NAV = [
  { label: 'Feed', to: '/feed' },
  { label: 'Cadences', to: '/cadence' },
  { label: 'Prospects', to: '/prospects' },
  { label: 'Revenue', to: '/revenue' },
] as const;

/**
 * SPEC.md §2 "Header and navigation": Feed, Cadences, Prospects and Revenue with client_id; Clients
 * only with client.read; the cog to billing or connections; the user's name with Log out. Logged
 * out: Sign Up and Sign In.
 */
export function PageHeader() {
  const auth = useAuth();
  const navigate = useNavigate();
  const client = auth.currentClient;
  const q = (to: string) => (client ? `${to}?client_id=${client}` : to);
  const perms = auth.currentRole?.permissions ?? [];
  const user = auth.loggedIn && auth.status === 'ready' ? auth.user : null;
  const current = auth.clients.find((c) => c.id === client);

  return (
    <Box component="header" bg="white" className={classes.header}>
      <Container size={1200} h={60}>
        <Group h="100%" justify="space-between" wrap="nowrap">
          <Group gap="xl" wrap="nowrap">
            <Brand />
            {user && client && (
              <Group component="nav" aria-label="Main" gap={4} wrap="nowrap">
                {NAV.map((n) => (
                  <NavLink key={n.to} to={q(n.to)} className={classes.link}>
                    {n.label}
                  </NavLink>
                ))}
                {perms.includes('client.read') && (
                  <NavLink to={q('/clients')} className={classes.link}>
                    Clients
                  </NavLink>
                )}
              </Group>
            )}
          </Group>
          {user ? (
            <Group gap="xs" wrap="nowrap">
              {auth.clients.length > 1 && (
                <Menu position="bottom-end" width={260} withinPortal>
                  <Menu.Target>
                    <Button
                      variant="default"
                      size="sm"
                      leftSection={<IconBuildingSkyscraper size={16} />}
                      rightSection={<IconChevronDown size={14} />}
                      aria-label="Switch client"
                    >
                      <Text size="sm" truncate maw={160}>
                        {current?.name ?? 'Choose a client'}
                      </Text>
                    </Button>
                  </Menu.Target>
                  <Menu.Dropdown>
                    <Menu.Label>Switch client</Menu.Label>
                    {auth.clients.map((c) => (
                      <Menu.Item
                        key={c.id}
                        onClick={() => navigate(`/feed?client_id=${c.id}`)}
                        rightSection={c.id === client ? <IconCheck size={14} /> : null}
                      >
                        {c.name}
                      </Menu.Item>
                    ))}
                  </Menu.Dropdown>
                </Menu>
              )}
              <Tooltip label="Settings" openDelay={200}>
                <ActionIcon
                  component={Link}
                  to={q(
                    perms.includes('billing_details.read') ? '/settings/billing' : '/settings/connections',
                  )}
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
                  <UnstyledButton className={classes.user} aria-label="Account menu">
                    <Group gap={8} wrap="nowrap">
                      <Avatar size={28} radius="xl" color="indigo">
                        {`${user.first_name[0] ?? ''}${user.last_name[0] ?? ''}`.toUpperCase()}
                      </Avatar>
                      <Text size="sm" fw={500}>
                        {user.first_name} {user.last_name}
                      </Text>
                      <IconChevronDown size={14} />
                    </Group>
                  </UnstyledButton>
                </Menu.Target>
                <Menu.Dropdown>
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
            <Group gap="xs">
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
    </Box>
  );
}
