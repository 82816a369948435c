import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AdAudience, AdAudiencePreview, AdNetworkInfo } from '@rally/shared/schemas/ad-networks';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { RunOnNetworks } from './run-on-networks.tsx';

/**
 * Issue 39: "The networks' minimum sizes … are shown before launch, and an audience under the
 * minimum is pooled (stage with its cohort, cadence with its rep's other cadences) or held with a
 * clear reason" (decision 0034).
 */
const ACME = CLIENT_IDS.acme;
const meta: AdNetworkInfo = {
  network: 'meta',
  label: 'Meta (Facebook and Instagram)',
  available: true,
  minimum_audience: 100,
  connection: {
    id: 'c1',
    account_name: 'Ana Marketer',
    ad_account_id: 'act_1001',
    ad_account_name: 'Acme Ads',
    page_id: null,
    page_name: null,
    is_active: true,
    inactive_reason: null,
    connected_at: '2026-12-01T10:00:00.000Z',
  },
};
const proposal: AdAudiencePreview = {
  network: 'meta',
  minimum_audience: 100,
  minimum_note: null,
  count: 40,
  pool: { kind: 'cohort', name: 'cohort “Q1 buyers”', count: 240 },
  proposal: 'pool',
  explanation:
    'stage “Engaged” has 40 people; Meta needs 100. Pooled with cohort “Q1 buyers” (240 people), its ads reach the whole pool until stage “Engaged” reaches 100 on its own; then it stops pooling.',
};
const pooled: AdAudience = {
  id: 'a1',
  network: 'meta',
  source_kind: 'journey_stage',
  source_id: 's2',
  name: 'Engaged',
  network_audience_id: '2385',
  state: 'ready',
  held_reason: null,
  push_error: null,
  member_count: 240,
  matched_lower: 240,
  matched_upper: 288,
  minimum_audience: 100,
  last_pushed_at: '2026-12-05T10:00:00.000Z',
  last_push: { added: 240, removed: 0, requests: 1 },
  pool_when_small: true,
  pooled_with: {
    kind: 'cohort',
    name: 'cohort “Q1 buyers”',
    source_count: 40,
    pool_count: 240,
    minimum: 100,
  },
  pool_note:
    'Pooled with cohort “Q1 buyers” (240 people) because stage “Engaged” has 40 people; Meta needs 100.',
};

async function signIn(role: 'purple_owner' | 'yellow_sdr', routes: Parameters<typeof fakeServer>[0]) {
  const server = fakeServer({ ...acmeSession(role), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}
const render = () =>
  renderRoutes(
    [
      {
        path: '/j',
        element: <RunOnNetworks clientId={ACME} source={{ kind: 'journey_stage', id: 's2' }} canWrite />,
      },
    ],
    `/j?client_id=${ACME}`,
  );

afterEach(() => {
  resetAuth();
  vi.unstubAllGlobals();
});

describe('Run on networks: the minimum and pooling before launch', () => {
  it('shows the stage’s count beside Meta’s minimum, proposes its cohort, and sends the choice', async () => {
    const server = await signIn('purple_owner', {
      'GET /v1/ad-networks': { body: [meta] },
      'GET /v1/ad-networks/audiences': { body: [] },
      'GET /v1/ad-networks/audiences/preview': { body: [proposal] },
      'POST /v1/ad-networks/audiences': {
        status: 201,
        body: { ...pooled, state: 'queued', pooled_with: null },
      },
    });
    render();
    const panel = await screen.findByRole('region', { name: 'Run on networks' });
    expect(
      await within(panel).findByText(/40 people with an e-mail · Meta needs at least 100 matched people/),
    ).toBeTruthy();
    expect(within(panel).getByText('Under Meta’s minimum: pool it')).toBeTruthy();
    expect(
      within(panel).getByText(/stage “Engaged” has 40 people; Meta needs 100\. Pooled with cohort/),
    ).toBeTruthy();
    await userEvent.click(within(panel).getByRole('button', { name: 'Run pooled with cohort “Q1 buyers”' }));
    const post = server.calls.find((c) => c.init?.method === 'POST');
    expect(JSON.parse(String(post?.init?.body))).toEqual({
      network: 'meta',
      source_kind: 'journey_stage',
      source_id: 's2',
      pool: true,
    });
    expect(server.calls.map((c) => c.url)).toContain(
      '/v1/ad-networks/audiences/preview?source_kind=journey_stage&source_id=s2',
    );
  });

  it('says what a pooled audience pools and why, and lets the owner stop pooling', async () => {
    const server = await signIn('purple_owner', {
      'GET /v1/ad-networks': { body: [meta] },
      'GET /v1/ad-networks/audiences': { body: [pooled] },
      'GET /v1/ad-networks/audiences/preview': { body: [proposal] },
      'POST /v1/ad-networks/audiences': { body: { ...pooled, pool_when_small: false } },
    });
    render();
    expect(await screen.findByText('Pooled with cohort “Q1 buyers”')).toBeTruthy();
    expect(screen.getByText(pooled.pool_note!)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Stop pooling' }));
    const post = server.calls.find((c) => c.init?.method === 'POST');
    expect(JSON.parse(String(post?.init?.body))).toMatchObject({ pool: false });
  });

  it('a pool still short is shown as held with both counts; an SDR sees no button', async () => {
    await signIn('yellow_sdr', {
      'GET /v1/ad-networks': { body: [meta] },
      'GET /v1/ad-networks/audiences': { body: [] },
      'GET /v1/ad-networks/audiences/preview': {
        body: [
          {
            ...proposal,
            count: 20,
            pool: { kind: 'cohort', name: 'cohort “Tiny”', count: 60 },
            proposal: 'hold',
            explanation:
              'stage “Engaged” has 20 people and cohort “Tiny” 60; Meta needs 100. It will be held until one of them reaches it.',
          },
        ],
      },
    });
    renderRoutes(
      [
        {
          path: '/j',
          element: (
            <RunOnNetworks clientId={ACME} source={{ kind: 'journey_stage', id: 's2' }} canWrite={false} />
          ),
        },
      ],
      `/j?client_id=${ACME}`,
    );
    expect(await screen.findByText(/has 20 people and cohort “Tiny” 60; Meta needs 100/)).toBeTruthy();
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('says when the members cannot be counted', async () => {
    await signIn('purple_owner', {
      'GET /v1/ad-networks': { body: [meta] },
      'GET /v1/ad-networks/audiences': { body: [] },
      'GET /v1/ad-networks/audiences/preview': { status: 500, body: { message: 'The database is busy.' } },
    });
    render();
    expect(
      await screen.findByText(/Could not count the members: The database is busy\./, {}, { timeout: 5000 }),
    ).toBeTruthy();
  });
});
