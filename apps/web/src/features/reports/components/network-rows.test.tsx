import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { NetworkReport } from '@rally/shared/schemas/network-report';
import { fakeServer, renderWithRouter } from '../../../testing/render.tsx';
import { CLIENT_IDS } from '../../../testing/fixtures.ts';
import { NetworkRows } from './network-rows.tsx';

const ACME = CLIENT_IDS.acme;
const range = { from: 1_764_547_200, to: 1_765_152_000 };
const path = `/v1/report/client/${ACME}/networks`;
const report = (over: Partial<NetworkReport> = {}): NetworkReport => ({
  range,
  rows: [],
  totals: [],
  ...over,
});
const show = (reply: { status?: number; body?: unknown }) => {
  const server = fakeServer({ [`GET ${path}`]: reply });
  vi.stubGlobal('fetch', server.fetchFn);
  renderWithRouter(<NetworkRows clientId={ACME} range={range} />);
  return server;
};
afterEach(() => vi.unstubAllGlobals());

describe('the paid networks rows of the reports (issue 39)', () => {
  it('lists each network campaign with what its network reported, linked to its page, and the period’s spend', async () => {
    const server = show({
      body: report({
        rows: [
          {
            campaign_id: '11111111-1111-4111-8111-111111111111',
            network: 'meta',
            name: 'Q1 buyers on Meta',
            audience_name: 'Q1 buyers',
            status: 'active',
            currency: 'USD',
            impressions: 12_400,
            clicks: 310,
            spend_minor: 45_678,
            days: 7,
          },
        ],
        totals: [{ currency: 'USD', impressions: 12_400, clicks: 310, spend_minor: 45_678 }],
      }),
    });
    const table = await screen.findByRole('table', { name: 'Network campaigns' });
    const link = within(table).getByRole('link', { name: 'Q1 buyers on Meta' });
    expect(link.getAttribute('href')).toBe(
      `/network-campaigns/11111111-1111-4111-8111-111111111111?client_id=${ACME}`,
    );
    expect(within(table).getByText(/Meta · audience “Q1 buyers” · Running/)).toBeTruthy();
    expect(within(table).getAllByText('$456.78').length).toBeGreaterThan(0);
    expect(screen.getByText(/Spend in this period/).textContent).toContain('$456.78');
    expect(screen.getByText(/only from Rally.s own tags/)).toBeTruthy();
    expect(server.calls[0]?.url).toBe(`${path}?from=${range.from}&to=${range.to}`);
  });

  it('says how to start when there is no network campaign', async () => {
    show({ body: report() });
    expect(await screen.findByText(/No campaign on an ad network yet/)).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('says it could not load, with a retry', async () => {
    show({ status: 500, body: { message: 'boom' } });
    expect(await screen.findByText(/Could not load the network campaigns/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
  });
});
