import { Button, Menu } from '@mantine/core';
import { IconChevronDown, IconSettings } from '@tabler/icons-react';
import { Link, Outlet, useLocation } from 'react-router';
import { currentSettingsPage, settingsFor } from '../../lib/app-pages.ts';
import type { SettingsGroup } from '../../lib/app-pages.ts';
import { useAuth } from '../../lib/auth/store.ts';
import { ScreenSuspense } from './screen-suspense.tsx';
import classes from './settings-layout.module.css';

/**
 * Every settings route (issue 42 item 2): a side navigation grouped Workspace, Client and
 * Integrations with only the pages the role may open, beside the page. Below the md breakpoint the
 * navigation is a menu above the page. Signed out (the gate sends the user to /login) only the page.
 */
export function SettingsLayout() {
  const auth = useAuth();
  const { pathname } = useLocation();
  const client = auth.loggedIn && auth.status === 'ready' ? auth.currentClient : null;
  if (!client) return <Outlet />;
  const role = auth.currentRole;
  const groups = settingsFor(role?.permissions ?? [], role ? `${role.colour}_${role.name}` : undefined);
  const q = (to: string) => `${to}?client_id=${client}`;
  const current = currentSettingsPage(pathname);
  return (
    <div className={classes.layout}>
      <nav aria-label="Settings" className={classes.side}>
        <SideNav groups={groups} q={q} currentTo={current?.to} />
      </nav>
      <div className={classes.phone}>
        <Menu position="bottom-start" width="target" withinPortal>
          <Menu.Target>
            <Button
              variant="default"
              fullWidth
              justify="space-between"
              // The page's name reads from the left, the chevron at the far right.
              styles={{ label: { flex: 1 } }}
              leftSection={<IconSettings size={16} />}
              rightSection={<IconChevronDown size={14} />}
              aria-label={`Settings: ${current?.label ?? 'choose a page'}`}
            >
              Settings{current ? ` · ${current.label}` : ''}
            </Button>
          </Menu.Target>
          <Menu.Dropdown>
            {groups.map((g) => (
              <div key={g.title}>
                <Menu.Label>{g.title}</Menu.Label>
                {g.pages.map((p) => (
                  <Menu.Item
                    key={p.to}
                    component={Link}
                    to={q(p.to)}
                    aria-current={p.to === current?.to ? 'page' : undefined}
                    fw={p.to === current?.to ? 700 : undefined}
                  >
                    {p.label}
                  </Menu.Item>
                ))}
              </div>
            ))}
          </Menu.Dropdown>
        </Menu>
      </div>
      <div>
        <ScreenSuspense>
          <Outlet />
        </ScreenSuspense>
      </div>
    </div>
  );
}

function SideNav({
  groups,
  q,
  currentTo,
}: {
  groups: SettingsGroup[];
  q: (to: string) => string;
  currentTo: string | undefined;
}) {
  return groups.map((g) => (
    <div key={g.title} role="group" className={classes.section} aria-labelledby={`settings-group-${g.title}`}>
      <div id={`settings-group-${g.title}`} className={classes.group}>
        {g.title}
      </div>
      {g.pages.map((p) => (
        // Current for its sub-pages too (a connection's settings are under /settings/integrations),
        // which NavLink's path matching would miss.
        <Link
          key={p.to}
          to={q(p.to)}
          className={classes.link}
          aria-current={p.to === currentTo ? 'page' : undefined}
        >
          {p.label}
        </Link>
      ))}
    </div>
  ));
}
