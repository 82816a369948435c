import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CrmSettings } from '@rally/shared/schemas/crm';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, EVERYTHING_SET_UP, acmeSession } from '../../../testing/fixtures.ts';
import { ConnectionsScreen } from './connections-screen.tsx';
import { IntegrationSettingsScreen } from './integration-settings-screen.tsx';
import { OnboardingScreen } from './onboarding-screen.tsx';

/**
 * Issue 42 item 3 on an installation where only HubSpot's and Outreach's apps are set up: Salesloft
 * and Salesforce are not offered, and where a person meets one anyway they read plain words.
 * (The configuration is fetched once per page load, so one installation per file.)
 */
const ACME = CLIENT_IDS.acme;
const HERE = {
  ...EVERYTHING_SET_UP,
  connect: { salesloft: false, outreach: true, salesforce: false, hubspot: true },
};
const NOT_HERE = 'Not available on this installation — ask your administrator.';

const salesforceSettings: CrmSettings = {
  source: 'salesforce',
  integration: null,
  write_back: false,
  outreach_activity_types: [],
  meeting_activity_types: [],
  counts: { stages: 0, owners: 0, accounts: 0, contacts: 0, opportunities: 0, lists: 0 },
};

async function signIn() {
  const server = fakeServer({
    ...acmeSession('purple_owner'),
    '/v1/api/config': { body: HERE },
    [`GET /v1/integration/crm/salesforce/client/${ACME}/settings`]: { body: salesforceSettings },
  });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
}

afterEach(() => {
  resetAuth();
  vi.unstubAllGlobals();
});

describe('offer only what this installation is set up for (issue 42 item 3)', () => {
  it('onboarding offers Outreach, Apollo and a CSV file, not Salesloft', async () => {
    await signIn();
    renderRoutes([{ path: '/onboarding', element: <OnboardingScreen /> }], `/onboarding?client_id=${ACME}`);
    await screen.findByText('Where do your cadences live?');
    // The configuration's first fetch loads its schema too: slow on a busy machine.
    await waitFor(() => expect(screen.queryByText('Salesloft', { exact: false })).toBeNull(), {
      timeout: 10_000,
    });
    const names = screen.getAllByRole('button').map((b) => b.textContent ?? '');
    expect(names.some((n) => n.includes('Connect Outreach'))).toBe(true);
    expect(names.some((n) => n.includes('Connect Apollo'))).toBe(true);
    expect(names.some((n) => n.startsWith('Upload a CSV file'))).toBe(true);
  });

  it('a Salesloft connect step opened by its address says it is not available, with no Continue', async () => {
    await signIn();
    renderRoutes(
      [{ path: '/onboarding', element: <OnboardingScreen /> }],
      `/onboarding?client_id=${ACME}&source=salesloft&step=connect`,
    );
    expect(await screen.findByText(NOT_HERE)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Continue to Salesloft' })).toBeNull();
    expect(document.body.textContent).not.toContain('CLIENT_ID');
  });

  it('connections offer HubSpot and Marketo as CRMs, Outreach and Apollo as platforms; not Salesforce or Salesloft', async () => {
    await signIn();
    renderRoutes(
      [{ path: '/settings/connections', element: <ConnectionsScreen /> }],
      `/settings/connections?client_id=${ACME}`,
    );
    const crm = (await screen.findByRole('heading', { name: 'Add a CRM' })).parentElement!;
    await waitFor(() => expect(within(crm).queryByText('Salesforce')).toBeNull(), { timeout: 10_000 });
    expect(within(crm).getByText('HubSpot')).toBeInTheDocument();
    expect(within(crm).getByText('Marketo')).toBeInTheDocument();
    expect(within(crm).queryByText('Salesforce')).toBeNull();
    const add = screen.getByRole('heading', { name: 'Add a connection' }).parentElement!;
    expect(within(add).getByText('Outreach')).toBeInTheDocument();
    expect(within(add).queryByText('Salesloft')).toBeNull();
  });

  it('the Salesforce page reached by its address says it is not available instead of Connect', async () => {
    await signIn();
    renderRoutes(
      [{ path: '/settings/integrations/*', element: <IntegrationSettingsScreen /> }],
      `/settings/integrations/salesforce?client_id=${ACME}`,
    );
    const region = await screen.findByRole('region', { name: 'Salesforce connection' });
    expect(await within(region).findByText(NOT_HERE)).toBeInTheDocument();
    expect(within(region).queryByRole('button', { name: 'Connect Salesforce' })).toBeNull();
  });
});
