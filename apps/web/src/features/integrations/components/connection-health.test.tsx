import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Integration } from '@rally/shared/schemas/auth';
import { renderWithRouter } from '../../../testing/render.tsx';
import { ConnectionHealth } from './connection-health.tsx';

/** Issue 40: a connection's health on its settings page — budget, last error, last sync, what it sees. */
const integration = (patch: Partial<Integration> = {}): Integration => ({
  client_id: '00000000-0000-4000-8000-000000000001',
  created_at: '2026-11-20T10:00:00.000Z',
  id: 7,
  is_active: true,
  source: 'salesforce',
  updated_at: '2026-11-25T10:00:00.000Z',
  account_name: 'acme.my.salesforce.com',
  last_error: null,
  access_note: null,
  is_syncing: false,
  last_synced_at: new Date(Date.now() - 5 * 60_000).toISOString(),
  sync_progress: null,
  ...patch,
});

const panel = () => screen.getByRole('region', { name: 'Connection health' });

describe('ConnectionHealth', () => {
  it("Salesforce: the org's calls against its allocation, no errors, when it synced, no limits", () => {
    const usage = { used: 1234, max: 15_000, at: '2026-12-05T10:00:00.000Z' };
    renderWithRouter(<ConnectionHealth integration={integration({ api_usage: usage })} label="Salesforce" />);
    expect(within(panel()).getByTestId('api-usage')).toHaveTextContent(
      'Salesforce API calls in the last 24 hours: 1,234 of 15,000 (8 %)',
    );
    expect(within(panel()).getByText('No errors in the last sync')).toBeInTheDocument();
    expect(within(panel()).getByText(/^5 minutes ago \(/)).toBeInTheDocument();
    expect(
      within(panel()).getByText(/reported no limit on what the connecting user can read/),
    ).toBeInTheDocument();
  });

  it('Salesforce before a sync recorded its usage says it is not known yet', () => {
    renderWithRouter(
      <ConnectionHealth integration={integration({ last_synced_at: null })} label="Salesforce" />,
    );
    expect(within(panel()).getByTestId('api-usage-unknown')).toHaveTextContent(/^Not known yet/);
    expect(within(panel()).getByText('None yet')).toBeInTheDocument();
    expect(within(panel()).getByText('No errors so far')).toBeInTheDocument();
  });

  it("Marketo: Rally's calls today against the daily quota; before a sync, not known yet", () => {
    const usage = { used: 1234, max: 50_000, at: new Date().toISOString() };
    const { unmount } = renderWithRouter(
      <ConnectionHealth integration={integration({ source: 'marketo', api_usage: usage })} label="Marketo" />,
    );
    expect(within(panel()).getByTestId('api-usage')).toHaveTextContent(
      "Marketo API calls Rally made today (since midnight US Central): 1,234 of 50,000 (2 %) — Adobe's default daily quota, shared with the subscription's other integrations.",
    );
    unmount();
    renderWithRouter(<ConnectionHealth integration={integration({ source: 'marketo' })} label="Marketo" />);
    expect(within(panel()).getByTestId('api-usage-unknown')).toHaveTextContent(
      /^Not known yet: Rally counts the Marketo calls it makes each day.*error 607.*midnight US Central/,
    );
  });

  it("a Salesloft non-admin's narrower view and an inactive connection's reason", () => {
    const note = 'Connected as a non-admin: only Sam’s own prospects and steps are visible.';
    const reason = 'Salesloft no longer accepts the token: connect again.';
    renderWithRouter(
      <ConnectionHealth
        integration={integration({
          source: 'salesloft',
          access_note: note,
          last_error: reason,
          is_active: false,
        })}
        label="Salesloft"
      />,
    );
    expect(within(panel()).getByTestId('api-usage-unknown')).toHaveTextContent(
      'Rally does not track Salesloft’s API budget.',
    );
    expect(within(panel()).getByText('Why it is inactive')).toBeInTheDocument();
    expect(within(panel()).getByText(reason)).toBeInTheDocument();
    expect(within(panel()).getByText('This connection sees part of the team')).toBeInTheDocument();
    expect(within(panel()).getByText(note)).toBeInTheDocument();
  });

  it('a running sync says so', () => {
    renderWithRouter(<ConnectionHealth integration={integration({ is_syncing: true })} label="Salesforce" />);
    expect(within(panel()).getByText('Running now')).toBeInTheDocument();
  });

  it('the demo connection says it makes no calls and no user has connected', () => {
    renderWithRouter(<ConnectionHealth integration={integration({ is_demo: true })} label="Salesforce" />);
    expect(
      within(panel()).getByText(
        'Sample data: Rally makes no Salesforce calls until you connect your own account.',
      ),
    ).toBeInTheDocument();
    expect(
      within(panel()).getByText('Sample data: no Salesforce user has connected yet.'),
    ).toBeInTheDocument();
  });
});
