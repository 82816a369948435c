import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Integration } from '@rally/shared/schemas/auth';
import type { CrmSettings } from '@rally/shared/schemas/crm';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { ConnectionsScreen } from './connections-screen.tsx';
import { IntegrationSettingsScreen } from './integration-settings-screen.tsx';

/** Issue 42 item 4: the demo's Salesforce says it is sample data and offers Connect, not Sync now. */
const ACME = CLIENT_IDS.acme;
const demo: Integration = {
  client_id: ACME,
  created_at: '2026-11-20T10:00:00.000Z',
  id: 7,
  is_active: true,
  source: 'salesforce',
  updated_at: '2026-11-25T10:00:00.000Z',
  account_name: 'Salesforce demo org (sample data)',
  last_error: null,
  access_note: null,
  is_demo: true,
  is_syncing: false,
  last_synced_at: '2026-11-25T10:00:00.000Z',
  sync_progress: null,
};
const settings: CrmSettings = {
  source: 'salesforce',
  integration: demo,
  write_back: false,
  outreach_activity_types: [],
  meeting_activity_types: [],
  counts: { stages: 8, owners: 2, accounts: 30, contacts: 90, opportunities: 40, lists: 3 },
};
const EXPLAINS = /These are sample records that show what Rally does; nothing syncs from a real Salesforce/;

async function signIn() {
  vi.stubGlobal(
    'fetch',
    fakeServer({
      ...acmeSession('purple_owner'),
      [`/v1/rest/client/${ACME}/integrations`]: { body: [demo] },
      [`GET /v1/integration/crm/salesforce/client/${ACME}/settings`]: { body: settings },
    }).fetchFn,
  );
  await loadSession();
}

afterEach(() => {
  resetAuth();
  vi.unstubAllGlobals();
});

describe('demo connections (issue 42 item 4)', () => {
  it('Connections: a “Demo data” badge, a line saying what it is, and Connect your Salesforce', async () => {
    await signIn();
    renderRoutes(
      [{ path: '/settings/connections', element: <ConnectionsScreen /> }],
      `/settings/connections?client_id=${ACME}`,
    );
    const card = await screen.findByRole('region', { name: 'Salesforce connection' });
    expect(within(card).getByText('Demo data')).toBeInTheDocument();
    expect(within(card).queryByText('Active')).toBeNull();
    expect(within(card).getByText(EXPLAINS)).toBeInTheDocument();
    expect(within(card).getByRole('link', { name: 'Connect your Salesforce' })).toHaveAttribute(
      'href',
      `/settings/integrations/salesforce?client_id=${ACME}`,
    );
    expect(screen.queryByRole('button', { name: /Sync (all )?now/ })).toBeNull();
  });

  it('its page: the same badge and line, a primary Connect your Salesforce, no Sync now or Disconnect', async () => {
    await signIn();
    renderRoutes(
      [{ path: '/settings/integrations/*', element: <IntegrationSettingsScreen /> }],
      `/settings/integrations/salesforce?client_id=${ACME}`,
    );
    const region = await screen.findByRole('region', { name: 'Salesforce connection' });
    expect(within(region).getByText('Demo data')).toBeInTheDocument();
    expect(within(region).getByText(EXPLAINS)).toBeInTheDocument();
    expect(within(region).getByRole('button', { name: 'Connect your Salesforce' })).toBeInTheDocument();
    expect(within(region).queryByRole('button', { name: 'Sync now' })).toBeNull();
    expect(within(region).queryByRole('button', { name: 'Disconnect' })).toBeNull();
  });
});
