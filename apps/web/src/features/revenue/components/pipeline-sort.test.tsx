import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { acmeSession, CLIENT_IDS } from '../../../testing/fixtures.ts';
import { fakeServer, renderWithRouter } from '../../../testing/render.tsx';
import { GeneratedPanel } from './generated-panel.tsx';
import { ProgressedPanel } from './progressed-panel.tsx';

/** Issue 42 item 11: the pipeline tables paged by the server ask it for a header's sort. */
const ACME = CLIENT_IDS.acme;
const base = `/v1/report/client/${ACME}`;
const range = { from: 1_790_000_000, to: 1_797_776_000 };
const id = (n: number) => `6f1c2a8e-4b1d-4c3a-9e51-0a7d2c00c${String(n).padStart(3, '0')}`;
const moves = {
  range,
  window_days: 90,
  total: 40,
  page: 1,
  page_size: 25,
  items: [1, 2].map((n) => ({
    opportunity_id: id(n),
    name: `Deal ${n}`,
    account_name: 'Acme',
    amount_cents: n * 100_000,
    currency: 'USD',
    from_stage: 'Prospecting',
    to_stage: 'Proposal',
    moved_at: '2026-11-20T10:00:00.000Z',
    engaged_at: '2026-11-10T10:00:00.000Z',
  })),
};
const generated = {
  range,
  window_days: 90,
  currency: 'USD',
  total: 30,
  amount_cents: 300_000,
  by_month: [],
  page: 1,
  page_size: 25,
  items: [1, 2].map((n) => ({
    id: id(n),
    name: `Deal ${n}`,
    account_name: 'Acme',
    company_id: null,
    amount_cents: n * 100_000,
    currency: 'USD',
    stage: 'Proposal',
    is_closed: false,
    is_won: false,
    created_at: '2026-11-20T10:00:00.000Z',
    close_date: null,
    generated_engaged_at: '2026-11-10T10:00:00.000Z',
    influenced: false,
    engaged_prospects: 1,
  })),
};

async function render(ui: React.ReactElement, routes: Record<string, { body: unknown }>) {
  const server = fakeServer({ ...acmeSession('purple_owner'), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  renderWithRouter(ui, `/revenue?client_id=${ACME}`);
  return server;
}
const last = (server: { calls: { url: string }[] }, path: string) =>
  new URL(server.calls.filter((c) => c.url.startsWith(`${base}/${path}?`)).at(-1)?.url ?? '/', 'http://x')
    .searchParams;

afterEach(() => {
  resetAuth();
  vi.unstubAllGlobals();
});

describe('pipeline tables sorted by the server when paged (issue 42 item 11)', () => {
  it('progressed: a header asks for sort and order from the first page', async () => {
    const server = await render(<ProgressedPanel clientId={ACME} range={range} onOpen={() => {}} />, {
      [`${base}/pipeline/progressed`]: { body: moves },
    });
    const table = await screen.findByRole('table', { name: 'Pipeline progressed' });
    expect(last(server, 'pipeline/progressed').has('sort')).toBe(false);
    await userEvent.click(within(table).getByRole('button', { name: 'Sort by amount' }));
    await waitFor(() => expect(last(server, 'pipeline/progressed').get('sort')).toBe('amount'));
    expect(last(server, 'pipeline/progressed').get('order')).toBe('desc');
    expect(last(server, 'pipeline/progressed').get('page')).toBe('1');
  });

  it('generated: a header asks for the opportunity report’s sort (a name A to Z first)', async () => {
    const server = await render(<GeneratedPanel clientId={ACME} range={range} onOpen={() => {}} />, {
      [`${base}/pipeline/generated`]: { body: generated },
    });
    const table = await screen.findByRole('table', { name: 'Pipeline generated' });
    await userEvent.click(within(table).getByRole('button', { name: 'Sort by opportunity' }));
    await waitFor(() => expect(last(server, 'pipeline/generated').get('sort')).toBe('name'));
    expect(last(server, 'pipeline/generated').get('order')).toBe('asc');
  });
});
