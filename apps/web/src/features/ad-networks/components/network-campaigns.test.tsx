import { screen, within } from '@testing-library/react';
import { formatDay } from '@rally/shared';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AdCampaign, AdCampaignStats } from '@rally/shared/schemas/ad-network-campaigns';
import type { AdAudience, AdNetworkInfo } from '@rally/shared/schemas/ad-networks';
import type { ContentItem } from '@rally/shared/schemas/content';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { NetworkCampaignScreen } from './network-campaign-screen.tsx';
import { RunOnNetworks } from './run-on-networks.tsx';

const ACME = CLIENT_IDS.acme;
const campaign = (over: Partial<AdCampaign> = {}): AdCampaign => ({
  id: '11111111-1111-4111-8111-111111111111',
  network: 'meta',
  audience_id: 'a1',
  audience_name: 'Q1 buyers',
  content_id: 'c1',
  name: 'Q1 buyers on Meta',
  objective: 'traffic',
  budget_kind: 'daily',
  budget_minor: 2_500,
  currency: null,
  starts_at: '2026-12-06T00:00:00.000Z',
  ends_at: '2026-12-20T23:59:59.000Z',
  link: 'https://acme.test/offer?rly_a=tok&utm_source=meta&utm_medium=paid_social',
  status: 'paused',
  sync_state: 'synced',
  sync_error: null,
  network_campaign_id: '2385',
  effective_status: 'PAUSED',
  issues: null,
  status_read_at: '2026-12-05T10:00:00.000Z',
  ads: [
    {
      size: '1080x1080',
      label: 'Feed (square)',
      ad_id: '2386',
      effective_status: 'CAMPAIGN_PAUSED',
      issues: null,
      preview_url: '/content/preview/abc/1080x1080.png',
    },
    {
      size: '1200x628',
      label: 'Feed link and right column',
      ad_id: '2387',
      effective_status: 'CAMPAIGN_PAUSED',
      issues: null,
      preview_url: '/content/preview/abc/1200x628.png',
    },
  ],
  created_at: '2026-12-05T09:00:00.000Z',
  ...over,
});
const path = `/network-campaigns/${campaign().id}`;
const stats = (over: Partial<AdCampaignStats> = {}): AdCampaignStats => ({
  campaign_id: campaign().id,
  network: 'meta',
  currency: 'USD',
  pulled_at: null,
  error: null,
  totals: { impressions: 0, clicks: 0, spend_minor: 0 },
  days: [],
  ads: [],
  ...over,
});
const ran = stats({
  pulled_at: '2026-12-05T11:00:00.000Z',
  totals: { impressions: 4_200, clicks: 63, spend_minor: 12_345 },
  days: [
    { day: '2026-12-03', impressions: 2_000, reach: 1_500, clicks: 30, spend_minor: 6_000 },
    { day: '2026-12-04', impressions: 2_200, reach: 1_600, clicks: 33, spend_minor: 6_345 },
  ],
  ads: [
    { ad_id: '2386', label: 'Feed (square) (1080x1080)', impressions: 3_000, clicks: 50, spend_minor: 9_000 },
    {
      ad_id: '2387',
      label: 'Feed link and right column (1200x628)',
      impressions: 1_200,
      clicks: 13,
      spend_minor: 3_345,
    },
  ],
});

async function signIn(
  role: 'purple_owner' | 'green_manager' | 'yellow_sdr',
  routes: Parameters<typeof fakeServer>[0],
) {
  const server = fakeServer({ ...acmeSession(role), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}
const showCampaign = () =>
  renderRoutes(
    [{ path: '/network-campaigns/:id', element: <NetworkCampaignScreen /> }],
    `${path}?client_id=${ACME}`,
  );

afterEach(() => {
  resetAuth();
  vi.unstubAllGlobals();
});

describe('the network campaign page', () => {
  it('shows a paused campaign, its ads per placement and no results yet; Launch asks the server', async () => {
    const server = await signIn('green_manager', {
      [`GET /v1/ad-networks/campaigns/${campaign().id}`]: { body: campaign() },
      [`GET /v1/ad-networks/campaigns/${campaign().id}/stats`]: { body: stats() },
      [`POST /v1/ad-networks/campaigns/${campaign().id}/launch`]: {
        body: campaign({ status: 'active', sync_state: 'queued' }),
      },
    });
    showCampaign();
    expect(await screen.findByRole('heading', { name: 'Q1 buyers on Meta' })).toBeTruthy();
    expect(screen.getByText('Paused')).toBeTruthy();
    expect(screen.getByText(/25\.00 a day/)).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Feed (square) (1080x1080)' }).getAttribute('src')).toBe(
      '/content/preview/abc/1080x1080.png',
    );
    expect(screen.getAllByText(/CAMPAIGN_PAUSED/)).toHaveLength(2);
    expect(await screen.findByText(/No results yet/)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Launch' }));
    expect(server.calls.some((c) => c.init?.method === 'POST' && c.url.endsWith('/launch'))).toBe(true);
  });

  it('shows what the network reported: totals, per ad and per day in the account currency; Pull results now asks the server', async () => {
    const server = await signIn('green_manager', {
      [`GET /v1/ad-networks/campaigns/${campaign().id}`]: { body: campaign({ status: 'active' }) },
      [`GET /v1/ad-networks/campaigns/${campaign().id}/stats`]: { body: ran },
      [`POST /v1/ad-networks/campaigns/${campaign().id}/stats/pull`]: { body: ran },
    });
    showCampaign();
    const results = await screen.findByRole('region', { name: 'Results' });
    expect(await within(results).findByText('4,200')).toBeTruthy();
    expect(within(results).getByText('$123.45')).toBeTruthy();
    expect(within(results).getByText('1.50%')).toBeTruthy();
    const perAd = within(results).getByRole('table', { name: 'Results per ad' });
    expect(within(perAd).getByText('Feed (square) (1080x1080)')).toBeTruthy();
    expect(within(perAd).getByText('$90.00')).toBeTruthy();
    const perDay = within(results).getByRole('table', { name: 'Results per day' });
    // Newest day first.
    expect(within(perDay).getAllByRole('row')[1]?.textContent).toContain(formatDay('2026-12-04'));
    // Meta reports reach per day.
    expect(within(perDay).getByText('1,600')).toBeTruthy();
    expect(within(results).getByText(/only from Rally.s own tags/)).toBeTruthy();
    expect(within(results).getByRole('button', { name: /Export days \(CSV\)/ })).toBeTruthy();
    await userEvent.click(within(results).getByRole('button', { name: 'Pull results now' }));
    expect(server.calls.some((c) => c.init?.method === 'POST' && c.url.endsWith('/stats/pull'))).toBe(true);
  });

  it('a Google Ads campaign’s days leave Reach empty: Google reports no reach per day for its ads', async () => {
    await signIn('green_manager', {
      [`GET /v1/ad-networks/campaigns/${campaign().id}`]: { body: campaign({ network: 'google' }) },
      [`GET /v1/ad-networks/campaigns/${campaign().id}/stats`]: {
        body: { ...ran, network: 'google', days: ran.days.map((d) => ({ ...d, reach: 0 })) },
      },
    });
    showCampaign();
    const results = await screen.findByRole('region', { name: 'Results' });
    expect(await within(results).findByText(/Google Ads reports no reach per day/)).toBeTruthy();
    const perDay = within(results).getByRole('table', { name: 'Results per day' });
    expect(within(perDay).getAllByRole('row')[1]?.textContent).toContain('—');
  });

  it('the results say when the last pull failed, and offer a retry when they cannot load', async () => {
    await signIn('yellow_sdr', {
      [`GET /v1/ad-networks/campaigns/${campaign().id}`]: { body: campaign() },
      [`GET /v1/ad-networks/campaigns/${campaign().id}/stats`]: {
        body: stats({ error: 'Meta refused the results: Error validating access token.' }),
      },
    });
    showCampaign();
    expect(await screen.findByText('The last pull did not work')).toBeTruthy();
    expect(screen.getByText(/Error validating access token/)).toBeTruthy();
    // An SDR reads the results but does not spend network quota on pulling them.
    expect(screen.queryByRole('button', { name: 'Pull results now' })).toBeNull();
  });

  it('results that cannot load say so with a retry, and the rest of the page stays', async () => {
    await signIn('green_manager', {
      [`GET /v1/ad-networks/campaigns/${campaign().id}`]: { body: campaign() },
      [`GET /v1/ad-networks/campaigns/${campaign().id}/stats`]: { status: 500, body: { message: 'boom' } },
    });
    showCampaign();
    const results = await screen.findByRole('region', { name: 'Results' });
    expect(await within(results).findByText(/Could not load the results/)).toBeTruthy();
    expect(within(results).getByRole('button', { name: /Try again|Retry/ })).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Q1 buyers on Meta' })).toBeTruthy();
  });

  it('a running campaign offers Pause; the network’s issues are shown in its words', async () => {
    await signIn('purple_owner', {
      [`GET /v1/ad-networks/campaigns/${campaign().id}`]: {
        body: campaign({
          status: 'active',
          effective_status: 'ACTIVE',
          issues: 'The landing page does not load.',
        }),
      },
    });
    showCampaign();
    expect(await screen.findByRole('button', { name: 'Pause' })).toBeTruthy();
    expect(screen.getByText('Issues')).toBeTruthy();
    expect(screen.getByText('The landing page does not load.')).toBeTruthy();
  });

  it('an SDR sees the campaign but cannot launch or pause it', async () => {
    await signIn('yellow_sdr', {
      [`GET /v1/ad-networks/campaigns/${campaign().id}`]: { body: campaign() },
    });
    showCampaign();
    expect(await screen.findByText(/but not launch, pause or spend on it/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Launch' })).toBeNull();
  });

  it('says why the network refused it, and when the campaign cannot be loaded', async () => {
    await signIn('purple_owner', {
      [`GET /v1/ad-networks/campaigns/${campaign().id}`]: {
        body: campaign({ sync_state: 'failed', sync_error: 'Meta refused: Your budget is too low.' }),
      },
    });
    const view = showCampaign();
    expect(await screen.findByText('Meta refused: Your budget is too low.')).toBeTruthy();
    view.unmount();
    resetAuth();
    await signIn('purple_owner', {
      [`GET /v1/ad-networks/campaigns/${campaign().id}`]: {
        status: 404,
        body: { message: 'Campaign not found.' },
      },
    });
    showCampaign();
    expect(await screen.findByText('Campaign not found')).toBeTruthy();
  });
});

describe('a new campaign from Run on networks', () => {
  const meta: AdNetworkInfo = {
    network: 'meta',
    label: 'Meta (Facebook and Instagram)',
    available: true,
    minimum_audience: 100,
    connection: {
      id: 'c1',
      account_name: 'Ana',
      ad_account_id: 'act_1001',
      ad_account_name: 'Acme Ads',
      page_id: '2001',
      page_name: 'Acme on Facebook',
      is_active: true,
      inactive_reason: null,
      connected_at: '2026-12-01T10:00:00.000Z',
    },
  };
  const audience: AdAudience = {
    id: 'a1',
    network: 'meta',
    source_kind: 'cohort',
    source_id: 'co1',
    name: 'Q1 buyers',
    network_audience_id: '2385',
    state: 'ready',
    held_reason: null,
    push_error: null,
    member_count: 400,
    matched_lower: 380,
    matched_upper: 456,
    minimum_audience: 100,
    last_pushed_at: '2026-12-05T10:00:00.000Z',
    last_push: { added: 400, removed: 0, requests: 1 },
    pool_when_small: false,
    pooled_with: null,
    pool_note: null,
  };
  const ad: ContentItem = {
    id: '22222222-2222-4222-8222-222222222222',
    client_id: ACME,
    name: 'Spring ad',
    status: 'published',
    is_archived: false,
    template_id: 1,
    title: 'Ship faster',
    image_text: 'Robots that pick',
    primary_text: '',
    sdr_img_url: '',
    colors: { background: '#ffffff', text: '#000000', accent: '#000000', primary: null },
    assignee: null,
    landing_page_payload: { content_html: '', footer_html: '', hero_html: '', hero_img: '' },
    landing_page_url: 'https://acme.test/offer',
    landing_page_id: null,
    preview_paths: {
      '1080x1080': '/content/preview/xyz/1080x1080',
      '1200x628': '/content/preview/xyz/1200x628',
    },
    created_at: '2026-11-01T09:00:00.000Z',
    updated_at: '2026-11-02T09:00:00.000Z',
  };

  it('previews the creatives per placement, names a refused field, and sends budget, days and objective', async () => {
    let tries = 0;
    const server = await signIn('green_manager', {
      'GET /v1/ad-networks': { body: [meta] },
      'GET /v1/ad-networks/audiences': { body: [audience] },
      'GET /v1/ad-networks/campaigns': { body: [] },
      'GET /v1/ad-networks/meta/campaign-options': {
        body: {
          network: 'meta',
          minimum_daily_budget_minor: 100,
          currency: null,
          page_name: 'Acme on Facebook',
          placements: [
            { size: '1080x1080', label: 'Feed (square)' },
            { size: '1200x628', label: 'Feed link and right column' },
          ],
        },
      },
      'GET /sc/content': { body: { items: [ad], total: 1 } },
      'POST /v1/ad-networks/campaigns': () =>
        ++tries === 1
          ? {
              status: 422,
              body: {
                message: 'Invalid request',
                errors: [{ field: 'body.budget_minor', message: 'must be at least 1.00 a day on Meta' }],
              },
            }
          : { status: 201, body: campaign() },
    });
    renderRoutes(
      [
        {
          path: '/c',
          element: <RunOnNetworks clientId={ACME} source={{ kind: 'cohort', id: 'co1' }} canWrite />,
        },
        { path: '/network-campaigns/:id', element: <p>campaign page</p> },
      ],
      `/c?client_id=${ACME}`,
    );
    expect(await screen.findByText(/No campaign yet/)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'New campaign on Meta' }));
    const form = await screen.findByRole('form', { name: 'New network campaign' });
    expect(
      within(form).getByRole('img', { name: 'Feed (square) (1080x1080) preview' }).getAttribute('src'),
    ).toBe('/content/preview/xyz/1080x1080.png');
    expect(within(form).getByText(/Meta needs at least 1\.00 a day/)).toBeTruthy();
    const amount = within(form).getByRole('textbox', { name: 'Budget amount' });
    await userEvent.clear(amount);
    await userEvent.type(amount, '0.5');
    await userEvent.click(within(form).getByRole('button', { name: 'Create paused' }));
    expect(await within(form).findByText('This must be at least 1.00 a day on Meta')).toBeTruthy();
    await userEvent.clear(amount);
    await userEvent.type(amount, '30');
    await userEvent.click(within(form).getByRole('button', { name: 'Create paused' }));
    expect(await screen.findByText('campaign page')).toBeTruthy();
    const posts = server.calls.filter((c) => c.init?.method === 'POST');
    const sent = JSON.parse(String(posts.at(-1)?.init?.body)) as Record<string, unknown>;
    expect(sent).toMatchObject({
      audience_id: 'a1',
      content_id: ad.id,
      objective: 'traffic',
      budget_kind: 'daily',
      budget_minor: 3_000,
      name: 'Q1 buyers on Meta',
    });
    expect(Date.parse(String(sent.ends_at))).toBeGreaterThan(Date.parse(String(sent.starts_at)));
  });

  it('offers LinkedIn once its adapter runs campaigns: its $10 minimum, its sizes and the organisation page', async () => {
    const linkedin: AdNetworkInfo = {
      ...meta,
      network: 'linkedin',
      label: 'LinkedIn',
      minimum_audience: 300,
      connection: { ...meta.connection!, ad_account_id: '5001', page_id: '7001', page_name: 'Acme Corp' },
    };
    const server = await signIn('green_manager', {
      'GET /v1/ad-networks': { body: [linkedin] },
      'GET /v1/ad-networks/audiences': {
        body: [{ ...audience, network: 'linkedin', minimum_audience: 300, matched_lower: 400 }],
      },
      'GET /v1/ad-networks/campaigns': { body: [] },
      'GET /v1/ad-networks/linkedin/campaign-options': {
        body: {
          network: 'linkedin',
          minimum_daily_budget_minor: 1_000,
          currency: null,
          page_name: 'Acme Corp',
          placements: [
            { size: '1200x628', label: 'Feed (landscape)' },
            { size: '1080x1080', label: 'Feed (square)' },
          ],
        },
      },
      'GET /sc/content': { body: { items: [ad], total: 1 } },
      'POST /v1/ad-networks/campaigns': { status: 201, body: campaign({ network: 'linkedin' }) },
    });
    renderRoutes(
      [
        {
          path: '/c',
          element: <RunOnNetworks clientId={ACME} source={{ kind: 'cohort', id: 'co1' }} canWrite />,
        },
        { path: '/network-campaigns/:id', element: <p>campaign page</p> },
      ],
      `/c?client_id=${ACME}`,
    );
    await userEvent.click(await screen.findByRole('button', { name: 'New campaign on LinkedIn' }));
    const form = await screen.findByRole('form', { name: 'New network campaign' });
    expect(within(form).getByText(/LinkedIn needs at least 10\.00 a day/)).toBeTruthy();
    expect(within(form).getByText(/Shown as Acme Corp/)).toBeTruthy();
    expect(
      within(form).getByRole('img', { name: 'Feed (landscape) (1200x628) preview' }).getAttribute('src'),
    ).toBe('/content/preview/xyz/1200x628.png');
    await userEvent.click(within(form).getByRole('button', { name: 'Create paused' }));
    expect(await screen.findByText('campaign page')).toBeTruthy();
    const sent = JSON.parse(
      String(server.calls.filter((c) => c.init?.method === 'POST').at(-1)?.init?.body),
    ) as Record<string, unknown>;
    expect(sent).toMatchObject({ audience_id: 'a1', budget_minor: 2_000, name: 'Q1 buyers on LinkedIn' });
  });
  it('offers Google Ads: one responsive display ad with both images, a daily budget only, no page', async () => {
    const google: AdNetworkInfo = {
      ...meta,
      network: 'google',
      label: 'Google Ads (Customer Match)',
      minimum_audience: 100,
      connection: { ...meta.connection!, ad_account_id: '1234567890', page_id: null, page_name: null },
    };
    const server = await signIn('green_manager', {
      'GET /v1/ad-networks': { body: [google] },
      'GET /v1/ad-networks/audiences': { body: [{ ...audience, network: 'google' }] },
      'GET /v1/ad-networks/campaigns': { body: [] },
      'GET /v1/ad-networks/google/campaign-options': {
        body: {
          network: 'google',
          minimum_daily_budget_minor: 100,
          currency: null,
          page_name: null,
          placements: [{ size: '1200x628', label: 'Responsive display ad', also: ['1080x1080'] }],
          needs_page: false,
          budget_kinds: ['daily'],
        },
      },
      'GET /sc/content': { body: { items: [ad], total: 1 } },
      'POST /v1/ad-networks/campaigns': { status: 201, body: campaign({ network: 'google' }) },
    });
    renderRoutes(
      [
        {
          path: '/c',
          element: <RunOnNetworks clientId={ACME} source={{ kind: 'cohort', id: 'co1' }} canWrite />,
        },
        { path: '/network-campaigns/:id', element: <p>campaign page</p> },
      ],
      `/c?client_id=${ACME}`,
    );
    await userEvent.click(await screen.findByRole('button', { name: 'New campaign on Google Ads' }));
    const form = await screen.findByRole('form', { name: 'New network campaign' });
    expect(within(form).getByText(/shows your ad account's name as the advertiser/)).toBeTruthy();
    for (const size of ['1200x628', '1080x1080'])
      expect(
        within(form)
          .getByRole('img', { name: `Responsive display ad (${size}) preview` })
          .getAttribute('src'),
      ).toBe(`/content/preview/xyz/${size}.png`);
    // Google takes a daily budget only: no choice of kind is offered.
    expect(within(form).queryByRole('radiogroup', { name: 'Budget kind' })).toBeNull();
    expect(within(form).queryByText('For the whole schedule')).toBeNull();
    expect(within(form).getByText(/A budget per day\..*Google Ads needs at least 1\.00 a day/)).toBeTruthy();
    await userEvent.click(within(form).getByRole('button', { name: 'Create paused' }));
    expect(await screen.findByText('campaign page')).toBeTruthy();
    const sent = JSON.parse(
      String(server.calls.filter((c) => c.init?.method === 'POST').at(-1)?.init?.body),
    ) as Record<string, unknown>;
    expect(sent).toMatchObject({ audience_id: 'a1', budget_kind: 'daily', name: 'Q1 buyers on Google Ads' });
  });
});
