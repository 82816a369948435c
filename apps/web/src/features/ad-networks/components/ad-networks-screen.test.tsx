import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AdAudience, AdNetworkInfo } from '@rally/shared/schemas/ad-networks';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { AdNetworksScreen } from './ad-networks-screen.tsx';
import { RunOnNetworks } from './run-on-networks.tsx';
import { RunStagesOnNetworks } from './run-stages-on-networks.tsx';

const ACME = CLIENT_IDS.acme;
const meta = (over: Partial<AdNetworkInfo> = {}): AdNetworkInfo => ({
  network: 'meta',
  label: 'Meta (Facebook and Instagram)',
  available: true,
  minimum_audience: 100,
  connection: null,
  ...over,
});
const connection = {
  id: 'c1',
  account_name: 'Ana Marketer',
  ad_account_id: 'act_1001',
  ad_account_name: 'Acme Ads',
  page_id: null,
  page_name: null,
  is_active: true,
  inactive_reason: null,
  connected_at: '2026-12-01T10:00:00.000Z',
};

async function signIn(role: 'purple_owner' | 'yellow_sdr', routes: Parameters<typeof fakeServer>[0]) {
  const server = fakeServer({ ...acmeSession(role), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

afterEach(() => {
  resetAuth();
  vi.unstubAllGlobals();
});

describe('Settings › Ad networks', () => {
  it('says Meta is not available on an installation without a Meta app, and offers no button', async () => {
    await signIn('purple_owner', { 'GET /v1/ad-networks': { body: [meta({ available: false })] } });
    renderRoutes(
      [{ path: '/settings/ad-networks', element: <AdNetworksScreen /> }],
      `/settings/ad-networks?client_id=${ACME}`,
    );
    expect(
      await screen.findByText('Not available on this installation — ask your administrator.'),
    ).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Connect Meta/ })).toBeNull();
  });

  it('shows a revoked connection with Meta’s reason and offers to reconnect', async () => {
    await signIn('purple_owner', {
      'GET /v1/ad-networks': {
        body: [
          meta({
            connection: {
              ...connection,
              is_active: false,
              inactive_reason: 'Meta refused Rally’s access: session expired. Connect Meta again.',
            },
          }),
        ],
      },
    });
    renderRoutes(
      [{ path: '/settings/ad-networks', element: <AdNetworksScreen /> }],
      `/settings/ad-networks?client_id=${ACME}`,
    );
    expect(await screen.findByText(/session expired\. Connect Meta again/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Reconnect Meta' })).toBeTruthy();
    expect(screen.getByText('Needs reconnecting')).toBeTruthy();
  });

  it('shows a LinkedIn connection whose token was revoked with LinkedIn’s reason and offers to reconnect', async () => {
    await signIn('purple_owner', {
      'GET /v1/ad-networks': {
        body: [
          meta({ available: false }),
          {
            network: 'linkedin',
            label: 'LinkedIn',
            available: true,
            minimum_audience: 300,
            connection: {
              ...connection,
              ad_account_id: '5001',
              is_active: false,
              // The adapter's words for LinkedIn's 401 (65601 REVOKED_ACCESS_TOKEN).
              inactive_reason:
                'LinkedIn refused Rally’s access: The token used in the request has been revoked by the user. Connect LinkedIn again.',
            },
          },
        ],
      },
    });
    renderRoutes(
      [{ path: '/settings/ad-networks', element: <AdNetworksScreen /> }],
      `/settings/ad-networks?client_id=${ACME}`,
    );
    const card = await screen.findByRole('region', { name: 'LinkedIn' });
    expect(
      await within(card).findByText(/has been revoked by the user\. Connect LinkedIn again/),
    ).toBeTruthy();
    expect(within(card).getByText('Needs reconnecting')).toBeTruthy();
    expect(within(card).getByRole('button', { name: 'Reconnect LinkedIn' })).toBeTruthy();
  });

  it('shows LinkedIn beside Meta with its own words and sends the owner to LinkedIn’s consent', async () => {
    const linkedin = (over: Partial<AdNetworkInfo> = {}): AdNetworkInfo => ({
      network: 'linkedin',
      label: 'LinkedIn',
      available: true,
      minimum_audience: 300,
      connection: null,
      ...over,
    });
    const assign = vi.fn();
    vi.stubGlobal('location', { ...window.location, assign });
    const server = await signIn('purple_owner', {
      'GET /v1/ad-networks': { body: [meta({ available: false }), linkedin()] },
      'GET /v1/ad-networks/linkedin/redirect': {
        body: { redirect_url: 'https://www.linkedin.com/oauth/v2/authorization?state=s' },
      },
    });
    renderRoutes(
      [{ path: '/settings/ad-networks', element: <AdNetworksScreen /> }],
      `/settings/ad-networks?client_id=${ACME}`,
    );
    const card = await screen.findByRole('region', { name: 'LinkedIn' });
    expect(within(card).getByText('Matched audiences of at least 300 matched people')).toBeTruthy();
    const metaCard = screen.getByRole('region', { name: 'Meta (Facebook and Instagram)' });
    expect(within(metaCard).queryByRole('button')).toBeNull();
    await userEvent.click(within(card).getByRole('button', { name: 'Connect LinkedIn' }));
    expect(server.calls.map((c) => c.url)).toContain('/v1/ad-networks/linkedin/redirect');
    expect(assign).toHaveBeenCalledWith('https://www.linkedin.com/oauth/v2/authorization?state=s');
  });

  it('after LinkedIn’s consent, says LinkedIn is connected and asks for the ad account and company page', async () => {
    await signIn('purple_owner', {
      'GET /v1/ad-networks': {
        body: [
          {
            network: 'linkedin',
            label: 'LinkedIn',
            available: true,
            minimum_audience: 300,
            connection: {
              ...connection,
              account_name: 'Lena Marketer',
              ad_account_id: null,
              ad_account_name: null,
            },
          },
        ],
      },
      'GET /v1/ad-networks/linkedin/accounts': {
        body: {
          ad_accounts: [{ id: '5001', name: 'Acme LinkedIn Ads', currency: 'USD', is_active: true }],
          pages: [{ id: '7001', name: 'Acme Corp' }],
        },
      },
    });
    renderRoutes(
      [{ path: '/settings/ad-networks', element: <AdNetworksScreen /> }],
      `/settings/ad-networks?client_id=${ACME}&connected=linkedin`,
    );
    expect(await screen.findByText('LinkedIn is connected')).toBeTruthy();
    const card = await screen.findByRole('region', { name: 'LinkedIn' });
    expect(within(card).getByText('Lena Marketer')).toBeTruthy();
    expect(await within(card).findByLabelText(/Company page/)).toBeTruthy();
    expect(within(card).getByLabelText(/Ad account/)).toBeTruthy();
  });

  it('an SDR sees the connection but no connect button', async () => {
    await signIn('yellow_sdr', { 'GET /v1/ad-networks': { body: [meta()] } });
    renderRoutes(
      [{ path: '/settings/ad-networks', element: <AdNetworksScreen /> }],
      `/settings/ad-networks?client_id=${ACME}`,
    );
    expect(await screen.findByText('An owner or admin of this client can connect it.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Connect Meta/ })).toBeNull();
  });
});

describe('Settings › Ad networks: Google Ads', () => {
  const google = (over: Partial<AdNetworkInfo> = {}): AdNetworkInfo => ({
    network: 'google',
    label: 'Google Ads (Customer Match)',
    available: true,
    minimum_audience: 100,
    connection: null,
    ...over,
  });

  it('offers to connect Google Ads beside Meta, in Google’s words', async () => {
    await signIn('purple_owner', { 'GET /v1/ad-networks': { body: [meta(), google()] } });
    renderRoutes(
      [{ path: '/settings/ad-networks', element: <AdNetworksScreen /> }],
      `/settings/ad-networks?client_id=${ACME}`,
    );
    const card = await screen.findByRole('region', { name: 'Google Ads (Customer Match)' });
    expect(within(card).getByText('Customer Match lists of at least 100 matched people')).toBeTruthy();
    expect(within(card).getByRole('button', { name: 'Connect Google Ads' })).toBeTruthy();
  });

  it('asks for the Google Ads account only (no page) and saves it without one', async () => {
    const server = await signIn('purple_owner', {
      'GET /v1/ad-networks': {
        body: [
          google({
            connection: {
              ...connection,
              account_name: 'Google Ads login with 2 accounts',
              ad_account_id: null,
              ad_account_name: null,
            },
          }),
        ],
      },
      'GET /v1/ad-networks/google/accounts': {
        body: {
          ad_accounts: [{ id: '1234567890', name: 'Acme Search', currency: 'USD', is_active: true }],
          pages: [],
        },
      },
      'PUT /v1/ad-networks/google': { body: { message: 'Google Ads ad account set to Acme Search.' } },
    });
    renderRoutes(
      [{ path: '/settings/ad-networks', element: <AdNetworksScreen /> }],
      `/settings/ad-networks?client_id=${ACME}&connected=google`,
    );
    expect(await screen.findByText('Google Ads is connected')).toBeTruthy();
    expect((await screen.findAllByText('Google Ads account')).length).toBeGreaterThan(0);
    await userEvent.click(screen.getByPlaceholderText('Choose an ad account'));
    await userEvent.click(await screen.findByText('Acme Search (USD)'));
    expect(screen.queryByText('Facebook page')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Google Ads ad account set to Acme Search.')).toBeTruthy();
    const put = server.calls.find((c) => c.init?.method === 'PUT');
    expect(JSON.parse(String(put?.init?.body))).toEqual({ ad_account_id: '1234567890', page_id: null });
  });
});

describe('Run on networks (cohort)', () => {
  const audience: AdAudience = {
    id: 'a1',
    network: 'meta',
    source_kind: 'cohort',
    source_id: 'co1',
    name: 'Q1',
    network_audience_id: '2385',
    state: 'held',
    held_reason:
      'Meta matched about 40 of 60 people; it shows ads only to audiences of at least 100 matched people.',
    push_error: null,
    member_count: 60,
    matched_lower: 40,
    matched_upper: 48,
    minimum_audience: 100,
    last_pushed_at: '2026-12-05T10:00:00.000Z',
    last_push: { added: 60, removed: 0, requests: 1 },
    pool_when_small: false,
    pooled_with: null,
    pool_note: null,
  };

  it('shows the matched size beside the minimum and why the audience is held', async () => {
    await signIn('purple_owner', {
      'GET /v1/ad-networks': { body: [meta({ connection })] },
      'GET /v1/ad-networks/audiences': { body: [audience] },
    });
    renderRoutes(
      [
        {
          path: '/c',
          element: <RunOnNetworks clientId={ACME} source={{ kind: 'cohort', id: 'co1' }} canWrite />,
        },
      ],
      `/c?client_id=${ACME}`,
    );
    const panel = await screen.findByRole('region', { name: 'Run on networks' });
    expect(within(panel).getByText(/Matched about 40 of 60 members · minimum 100/)).toBeTruthy();
    expect(within(panel).getByText(/at least 100 matched people/)).toBeTruthy();
    expect(within(panel).getByText('Held')).toBeTruthy();
  });

  it('creates the audience when a person clicks Run on Meta', async () => {
    const server = await signIn('purple_owner', {
      'GET /v1/ad-networks': { body: [meta({ connection })] },
      'GET /v1/ad-networks/audiences': { body: [] },
      'POST /v1/ad-networks/audiences': {
        status: 201,
        body: { ...audience, state: 'queued', held_reason: null },
      },
    });
    renderRoutes(
      [
        {
          path: '/c',
          element: <RunOnNetworks clientId={ACME} source={{ kind: 'cohort', id: 'co1' }} canWrite />,
        },
      ],
      `/c?client_id=${ACME}`,
    );
    await userEvent.click(await screen.findByRole('button', { name: 'Run on Meta' }));
    const post = server.calls.find((c) => c.init?.method === 'POST');
    expect(JSON.parse(String(post?.init?.body))).toEqual({
      network: 'meta',
      source_kind: 'cohort',
      source_id: 'co1',
    });
  });
});

describe('Run on networks (journey stages)', () => {
  it('asks for the chosen stage’s audience, and for another when a person picks it', async () => {
    const server = await signIn('purple_owner', {
      'GET /v1/ad-networks': { body: [meta({ connection })] },
      'GET /v1/ad-networks/audiences': { body: [] },
    });
    const stages = [
      { id: 's1', name: 'Aware' },
      { id: 's2', name: 'Engaged' },
    ];
    renderRoutes(
      [{ path: '/j', element: <RunStagesOnNetworks clientId={ACME} stages={stages} canWrite /> }],
      `/j?client_id=${ACME}`,
    );
    expect(await screen.findByText(/the members of the accounts in “Aware”/)).toBeTruthy();
    await userEvent.click(screen.getByText('Engaged'));
    expect(await screen.findByText(/the members of the accounts in “Engaged”/)).toBeTruthy();
    const asked = server.calls.filter((c) => c.url.startsWith('/v1/ad-networks/audiences')).map((c) => c.url);
    expect(asked).toContain('/v1/ad-networks/audiences?source_kind=journey_stage&source_id=s1');
    expect(asked).toContain('/v1/ad-networks/audiences?source_kind=journey_stage&source_id=s2');
  });
});
