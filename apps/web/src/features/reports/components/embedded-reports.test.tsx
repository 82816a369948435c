import { notifications } from '@mantine/notifications';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { acmeSession, CLIENT_IDS } from '../../../testing/fixtures.ts';
import type { Routes } from '../../../testing/fixtures.ts';
import { fakeServer, renderWithRouter } from '../../../testing/render.tsx';
import { EmbeddedReportPage } from './embedded-report-view.tsx';
import { ReportsScreen } from './reports-screen.tsx';

const ACME = CLIENT_IDS.acme;
const list = `/v1/rest/client/${ACME}/reports/embedded`;
const TOKEN = 'A'.repeat(43);
const LINK = {
  id: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c00e001',
  name: 'Board summary',
  report: 'summary',
  range_days: 90,
  status: 'active',
  created_at: '2026-11-20T10:00:00.000Z',
  created_by: 'Dana Reyes',
  expires_at: '2026-12-20T10:00:00.000Z',
  revoked_at: null,
  views: 3,
  last_viewed_at: null,
};
const SUMMARY = {
  range: { from: 1_790_000_000, to: 1_797_776_000 },
  window_days: 90,
  currency: 'USD',
  other_currency_opportunities: 0,
  opportunities_created: 45,
  pipeline_created_cents: 300_000_000,
  generated: 28,
  pipeline_generated_cents: 160_000_000,
  progressed: 27,
  pipeline_progressed_cents: 190_000_000,
  won: 15,
  revenue_won_cents: 110_000_000,
  influenced: 8,
  revenue_influenced_cents: 63_000_000,
  engaged_accounts: 12,
  impressions: 12_400,
  clicks: 11,
  views: 2,
  new_superprospects: 19,
};

async function openReports(routes: Routes, role: Parameters<typeof acmeSession>[0]) {
  const server = fakeServer({ ...acmeSession(role), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  renderWithRouter(<ReportsScreen />, `/reports?client_id=${ACME}&tab=shared`);
  return server;
}

function openEmbed(hash: string, reply: { status?: number; body: unknown }) {
  const server = fakeServer({ '/v1/rest/reports/embedded': reply });
  vi.stubGlobal('fetch', server.fetchFn);
  window.location.hash = hash;
  renderWithRouter(<EmbeddedReportPage />, '/embed/reports');
  return server;
}

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
  window.location.hash = '';
});

describe('Shared links on /reports (issue 17)', () => {
  it('an SDR sees the links but no way to make or revoke one', async () => {
    await openReports({ [list]: { body: { items: [LINK] } } }, 'yellow_sdr');
    const table = await screen.findByRole('table', { name: 'Shared links' });
    expect(within(table).getByText('Board summary')).toBeInTheDocument();
    expect(within(table).getByText('active')).toBeInTheDocument();
    expect(screen.queryByRole('form', { name: 'New shared link' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Revoke/ })).not.toBeInTheDocument();
  });

  it('the owner makes a link and is shown it once, with the embed code', async () => {
    const server = await openReports(
      {
        [list]: { body: { items: [] } },
        [`POST ${list}`]: {
          status: 201,
          body: { ...LINK, token: TOKEN, url: `http://rally.test/embed/reports#${TOKEN}` },
        },
      },
      'purple_owner',
    );
    expect(await screen.findByText(/No shared links yet/)).toBeInTheDocument();
    const form = screen.getByRole('form', { name: 'New shared link' });
    const nameField = within(form).getByRole('textbox', { name: /Name/ });
    await userEvent.type(nameField, '   ');
    await userEvent.click(within(form).getByRole('button', { name: 'Create link' }));
    expect(await within(form).findByText(/Give the link a name/)).toBeInTheDocument();
    await userEvent.clear(nameField);
    await userEvent.type(nameField, 'Board summary');
    await userEvent.click(within(form).getByRole('button', { name: 'Create link' }));
    expect(await screen.findByRole('textbox', { name: 'Link' })).toHaveValue(
      `http://rally.test/embed/reports#${TOKEN}`,
    );
    expect((screen.getByRole('textbox', { name: 'Embed code' }) as HTMLTextAreaElement).value).toContain(
      `<iframe src="http://rally.test/embed/reports#${TOKEN}"`,
    );
    const post = server.calls.find((c) => c.init?.method === 'POST' && c.url === list);
    expect(JSON.parse(String(post?.init?.body))).toEqual({
      name: 'Board summary',
      report: 'summary',
      range_days: 90,
      expires_in_days: 30,
    });
  });
});

describe('the embedded report page (issue 17)', () => {
  it('sends the token of the fragment in a header and shows abbreviated numbers', async () => {
    const server = openEmbed(`#${TOKEN}`, {
      body: {
        id: LINK.id,
        name: 'Board summary',
        client_name: 'Acme Robotics',
        report: 'summary',
        range_days: 90,
        expires_at: LINK.expires_at,
        generated_at: '2026-11-26T05:00:00.000Z',
        data: { kind: 'summary', summary: SUMMARY },
      },
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'Board summary' })).toBeInTheDocument();
    expect(screen.getByText('$1.6MM')).toBeInTheDocument();
    expect(screen.getByText('12.4K')).toBeInTheDocument();
    const call = server.calls[0]!;
    expect(call.url).toBe('/v1/rest/reports/embedded');
    expect(new Headers(call.init?.headers).get('x-embed-token')).toBe(TOKEN);
  });

  it('a revoked link says so', async () => {
    openEmbed(`#${TOKEN}`, { status: 410, body: { message: 'This embedded report link has been revoked.' } });
    expect(await screen.findByRole('heading', { name: 'This link no longer works' })).toBeInTheDocument();
    expect(screen.getByText(/has been revoked/)).toBeInTheDocument();
  });

  it('an unknown token is an invalid link', async () => {
    openEmbed(`#${TOKEN}`, {
      status: 404,
      body: { message: 'Invalid link: this embedded report link is not known.' },
    });
    expect(await screen.findByRole('heading', { name: 'Invalid link' })).toBeInTheDocument();
  });

  it('no token in the address: an invalid link, and no call', async () => {
    const server = openEmbed('', { body: {} });
    expect(await screen.findByRole('heading', { name: 'Invalid link' })).toBeInTheDocument();
    expect(screen.getByText(/has no report token/)).toBeInTheDocument();
    expect(server.calls).toEqual([]);
  });
});
