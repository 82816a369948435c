import { APP_ROUTES, BUILT_IN_ROLES, matchAppRoute } from '@rally/shared';
import { describe, expect, it } from 'vitest';
import { currentSettingsPage, findPages, SCREENS, SETTINGS_GROUPS, settingsFor } from './app-pages.ts';

const perms = (role: keyof typeof BUILT_IN_ROLES) => [...BUILT_IN_ROLES[role]];

describe('app pages (issue 42 item 2)', () => {
  it('every page is a route of the table, and its permission is the route’s own', () => {
    for (const page of [...SCREENS, ...SETTINGS_GROUPS.flatMap((g) => g.pages)]) {
      const match = matchAppRoute(page.to);
      expect(match, page.to).not.toBeNull();
      const route = match!.route;
      if ('permission' in route && route.permission) expect(page.permission, page.to).toBe(route.permission);
    }
    expect(APP_ROUTES.length).toBeGreaterThan(0);
  });

  it('SPEC.md §2 cog targets are offered to the roles the cog sends there', () => {
    const ownerPages = settingsFor(perms('purple_owner')).flatMap((g) => g.pages.map((p) => p.to));
    expect(ownerPages).toContain('/settings/billing');
    const sdrPages = settingsFor(perms('yellow_sdr')).flatMap((g) => g.pages.map((p) => p.to));
    expect(sdrPages).toContain('/settings/connections');
    expect(sdrPages).not.toContain('/settings/billing');
  });

  it('finds the page a sub-path belongs to, the longest path winning', () => {
    expect(currentSettingsPage('/settings/users/pending')?.label).toBe('Users');
    expect(currentSettingsPage('/settings/integrations/hubspot')?.label).toBe('Connections');
    expect(currentSettingsPage('/settings/integrations/webhooks')?.label).toBe('Webhooks');
    expect(currentSettingsPage('/settings/domain')?.label).toBe('Domains & sign-in');
    expect(currentSettingsPage('/feed')).toBeUndefined();
  });

  it('finds screens and settings by name or a word for them, only those the role may open', () => {
    expect(findPages('bill', perms('purple_owner')).settings.map((p) => p.label)).toEqual(['Billing']);
    expect(findPages('bill', perms('yellow_sdr')).settings).toEqual([]);
    // The audit log is for owners (issue 44): an admin has the permission but not the role.
    expect(findPages('audit', perms('purple_owner'), 'purple_owner').settings.map((p) => p.label)).toEqual([
      'Audit log',
    ]);
    expect(findPages('audit', perms('blue_admin'), 'blue_admin').settings).toEqual([]);
    expect(findPages('sso', perms('yellow_sdr')).settings.map((p) => p.label)).toEqual(['Domains & sign-in']);
    expect(findPages('REV', perms('yellow_sdr')).screens.map((p) => p.label)).toEqual(['Revenue']);
    expect(findPages('salesforce', perms('yellow_sdr')).settings.map((p) => p.label)).toEqual([
      'Connections',
    ]);
    expect(findPages('clients', perms('yellow_sdr')).screens).toEqual([]);
    expect(findPages('   ', perms('purple_owner'))).toEqual({ screens: [], settings: [] });
  });
});
