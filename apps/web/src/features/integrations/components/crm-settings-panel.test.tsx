import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Integration } from '@rally/shared/schemas/auth';
import type { CrmSettings, CrmStage } from '@rally/shared/schemas/crm';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import type { Role, Routes } from '../../../testing/fixtures.ts';
import { IntegrationSettingsScreen } from './integration-settings-screen.tsx';

/**
 * Issue 16, /settings/integrations/hubspot: the connection's state and a running sync's progress bar,
 * the reason of an inactive connection, what an owner may do (sync now, disconnect) and what an SDR
 * may not.
 */
const ACME = CLIENT_IDS.acme;
const BASE = `/v1/integration/crm/hubspot/client/${ACME}`;

const integration = (patch: Partial<Integration> = {}): Integration => ({
  client_id: ACME,
  created_at: '2026-11-20T10:00:00.000Z',
  id: 41,
  is_active: true,
  source: 'hubspot',
  updated_at: '2026-11-25T10:00:00.000Z',
  account_name: 'acme.hubspot.example',
  last_error: null,
  access_note: null,
  is_syncing: false,
  last_synced_at: '2026-11-25T10:00:00.000Z',
  sync_progress: null,
  ...patch,
});
const settings = (i: Integration | null): CrmSettings => ({
  source: 'hubspot',
  integration: i,
  write_back: false,
  outreach_activity_types: [],
  meeting_activity_types: [],
  counts: { stages: 1, owners: 0, accounts: 3, contacts: 5, opportunities: 4, lists: 2 },
});
const stage: CrmStage = {
  id: '00000000-0000-4000-8000-0000000000a1',
  integration_id: 41,
  source: 'hubspot',
  pipeline_key: 'default',
  pipeline_label: 'Sales Pipeline',
  key: 'closedwon',
  label: 'Closed Won',
  order: 4,
  probability: 100,
  is_closed: true,
  is_won: true,
  is_active: true,
};

/** The panels beside the connection, answered empty (their own screens are tested through the API). */
const panels: Routes = {
  [`/v1/rest/client/${ACME}/crm/opportunity/stage`]: { body: [stage] },
  [`/v1/rest/client/${ACME}/opportunity/selected_stages`]: { body: { stage_ids: [], stages: [] } },
  [`/v1/rest/client/${ACME}/pipeline/stages/valuable`]: { body: { stage_ids: [], stages: [] } },
  [`${BASE}/owners/active`]: { body: [] },
  [`${BASE}/outreach`]: { body: { activity_types: [], available: [] } },
  [`${BASE}/meeting_activity`]: { body: { activity_types: [], available: [] } },
  'GET /sc/sdr': { body: [] },
};

async function signIn(role: Role, routes: Routes) {
  const server = fakeServer({ ...acmeSession(role), ...panels, ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

const render = () =>
  renderRoutes(
    [{ path: '/settings/integrations/*', element: <IntegrationSettingsScreen /> }],
    `/settings/integrations/hubspot?client_id=${ACME}`,
  );

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('CRM settings (HubSpot)', () => {
  it('a running sync shows its phase, page and a progress bar with the percent', async () => {
    // Contacts own 25–50% of the bar; page 1 of 2 is half of that slice.
    const syncing = integration({
      is_syncing: true,
      sync_progress: { phase: 'contacts', done: 1, total: 2 },
    });
    await signIn('purple_owner', { [`GET ${BASE}/settings`]: { body: settings(syncing) } });
    render();
    const region = await screen.findByRole('region', { name: 'HubSpot connection' });
    const bar = within(region).getByRole('progressbar', { name: 'Sync progress 38%' });
    expect(bar).toHaveAttribute('aria-valuenow', '38');
    expect(within(region).getByText('Reading contacts (page 1 of 2)')).toBeInTheDocument();
    expect(within(region).getByText(/Syncing now/)).toBeInTheDocument();
    expect(within(region).getByRole('button', { name: 'Sync now' })).toBeDisabled();
  });

  it("shows the vendor's API calls used against its allocation when the vendor tells (issue 40 item 7)", async () => {
    const usage = { used: 12_800, max: 15_000, at: '2026-11-25T10:00:00.000Z' };
    await signIn('purple_owner', {
      [`GET ${BASE}/settings`]: { body: settings(integration({ api_usage: usage })) },
    });
    render();
    const region = await screen.findByRole('region', { name: 'HubSpot connection' });
    expect(within(region).getByTestId('api-usage')).toHaveTextContent(
      'HubSpot API calls in the last 24 hours: 12,800 of 15,000 (85 %)',
    );
  });

  it('no API usage line when the vendor told nothing', async () => {
    await signIn('purple_owner', { [`GET ${BASE}/settings`]: { body: settings(integration()) } });
    render();
    const region = await screen.findByRole('region', { name: 'HubSpot connection' });
    expect(within(region).queryByTestId('api-usage')).toBeNull();
  });

  it('an inactive connection says why and offers Reconnect, not Sync now or Disconnect', async () => {
    const reason = 'The Rally app was uninstalled from HubSpot: connect HubSpot again.';
    await signIn('purple_owner', {
      [`GET ${BASE}/settings`]: { body: settings(integration({ is_active: false, last_error: reason })) },
    });
    render();
    const region = await screen.findByRole('region', { name: 'HubSpot connection' });
    expect(within(region).getByText('Inactive', { exact: true })).toBeInTheDocument();
    expect(within(region).getByText('Why it is inactive')).toBeInTheDocument();
    expect(within(region).getByText(reason)).toBeInTheDocument();
    expect(within(region).getByRole('button', { name: 'Reconnect HubSpot' })).toBeInTheDocument();
    expect(within(region).queryByRole('button', { name: 'Sync now' })).toBeNull();
    expect(within(region).queryByRole('button', { name: 'Disconnect' })).toBeNull();
  });

  it('an owner syncs now and disconnects after confirming', async () => {
    const user = userEvent.setup();
    const server = await signIn('purple_owner', {
      [`GET ${BASE}/settings`]: { body: settings(integration()) },
      [`POST ${BASE}/settings`]: { body: settings(integration({ is_syncing: true })) },
      [`DELETE ${BASE}/settings`]: { status: 204 },
    });
    render();
    const region = await screen.findByRole('region', { name: 'HubSpot connection' });
    expect(within(region).getByText(/Last synced/)).toBeInTheDocument();
    expect(within(region).getByText('Opportunities')).toBeInTheDocument();
    await user.click(within(region).getByRole('button', { name: 'Sync now' }));
    await waitFor(() => {
      const post = server.calls.find((c) => c.init?.method === 'POST' && c.url === `${BASE}/settings`);
      expect(JSON.parse(String(post?.init?.body))).toEqual({ sync_now: true });
    });
    await user.click(within(region).getByRole('button', { name: 'Disconnect' }));
    const dialog = await screen.findByRole('dialog', { name: 'Disconnect HubSpot?' });
    await user.click(within(dialog).getByRole('button', { name: 'Disconnect' }));
    await waitFor(() =>
      expect(server.calls.some((c) => c.init?.method === 'DELETE' && c.url === `${BASE}/settings`)).toBe(
        true,
      ),
    );
  });

  it('an SDR sees the connection and its stages but can change nothing', async () => {
    await signIn('yellow_sdr', { [`GET ${BASE}/settings`]: { body: settings(integration()) } });
    render();
    const region = await screen.findByRole('region', { name: 'HubSpot connection' });
    expect(within(region).getByText('Active', { exact: true })).toBeInTheDocument();
    for (const name of ['Sync now', 'Disconnect', 'Connect HubSpot', 'Reconnect HubSpot']) {
      expect(within(region).queryByRole('button', { name })).toBeNull();
    }
    const stages = await screen.findByRole('table', { name: 'Pipeline stages' });
    expect(within(stages).getByRole('checkbox', { name: 'Closed Won selected' })).toBeDisabled();
    expect(within(stages).getByRole('checkbox', { name: 'Closed Won valuable' })).toBeDisabled();
  });
});

describe('Connecting Salesforce: where the org logs in (issue 40 item 2)', () => {
  const SF = `/v1/integration/crm/salesforce/client/${ACME}`;
  const sfPanels: Routes = {
    [`${SF}/owners/active`]: { body: [] },
    [`${SF}/outreach`]: { body: { activity_types: [], available: [] } },
    [`${SF}/meeting_activity`]: { body: { activity_types: [], available: [] } },
  };

  it('offers production, sandbox or My Domain; a refused My Domain is said under the field', async () => {
    const user = userEvent.setup();
    const message =
      "must be the org's My Domain, like https://acme.my.salesforce.com (Setup › My Domain shows it)";
    const server = await signIn('purple_owner', {
      ...sfPanels,
      [`GET ${SF}/settings`]: { body: { ...settings(null), source: 'salesforce' } },
      [`GET ${SF}/redirect`]: {
        status: 422,
        body: { message: 'Invalid request', errors: [{ field: 'querystring.my_domain', message }] },
      },
    });
    renderRoutes(
      [{ path: '/settings/integrations/*', element: <IntegrationSettingsScreen /> }],
      `/settings/integrations/salesforce?client_id=${ACME}`,
    );
    const region = await screen.findByRole('region', { name: 'Salesforce connection' });
    const group = within(region).getByRole('radiogroup', { name: 'Where does your org log in?' });
    expect(within(group).getByRole('radio', { name: /Production/ })).toBeChecked();
    expect(within(group).getByRole('radio', { name: /Sandbox/ })).toBeInTheDocument();
    await user.click(within(group).getByRole('radio', { name: /My Domain/ }));
    await user.type(within(region).getByRole('textbox', { name: 'My Domain' }), 'evil.example.com');
    await user.click(within(region).getByRole('button', { name: 'Connect Salesforce' }));
    expect(await within(region).findByText(`This ${message}`)).toBeInTheDocument();
    const call = server.calls.find((c) => c.url.startsWith(`${SF}/redirect`));
    const query = new URL(call!.url, 'http://x').searchParams;
    expect(query.get('login')).toBe('my_domain');
    expect(query.get('my_domain')).toBe('evil.example.com');
  });
});
