import { notifications } from '@mantine/notifications';
import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JourneyMovesReply, JourneyViewReply } from '@rally/shared/schemas/journeys';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import type { Role } from '../../../testing/fixtures.ts';
import { formatDay } from '@rally/shared';
import { JourneyViewScreen } from './journey-view-screen.tsx';
import { JourneyStagesTooltip } from './journey-chart-parts.tsx';
import { renderWithRouter } from '../../../testing/render.tsx';

const ACME = CLIENT_IDS.acme;
const COHORT = '00000000-0000-4000-8000-00000000c001';
const stage = (n: number) => `00000000-0000-4000-8000-0000000051${String(n).padStart(2, '0')}`;
const VIEW = `/v1/report/client/${ACME}/cohort/${COHORT}/journey/view`;
const MOVES = `${VIEW}/moves`;

const view: JourneyViewReply = {
  journey_id: '00000000-0000-4000-8000-00000000a001',
  cohort_id: COHORT,
  name: 'Directors journey',
  from: 1_793_000_000,
  to: 1_795_600_000,
  evaluated_at: '2026-11-26T09:00:00.000Z',
  stages: [
    { id: stage(1), position: 1, name: 'Aware', accounts: 6 },
    { id: stage(2), position: 2, name: 'Engaged', accounts: 3 },
    { id: stage(3), position: 3, name: 'Pipeline', accounts: 1 },
  ],
  by_date: [
    { date: '2026-11-24', accounts: [9, 1, 0] },
    { date: '2026-11-25', accounts: [6, 3, 1] },
  ],
  moves_in_range: 4,
};
const moves: JourneyMovesReply = {
  items: [
    {
      id: 7,
      account_id: '00000000-0000-4000-8000-00000000e001',
      company_name: 'Tagwalk Freight',
      from_stage_id: stage(1),
      from_stage: 'Aware',
      to_stage_id: stage(2),
      to_stage: 'Engaged',
      reason: 'impressions_gte,clicks_gte',
      moved_at: '2026-11-25T12:00:00.000Z',
    },
  ],
  total: 1,
  page: 1,
  page_size: 15,
};

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

async function open(role: Role, routes: Parameters<typeof fakeServer>[0]) {
  const server = fakeServer({ ...acmeSession(role), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  renderRoutes(
    [{ path: '/cohorts/:id/journey/view', element: <JourneyViewScreen /> }],
    `/cohorts/${COHORT}/journey/view?client_id=${ACME}`,
  );
  return server;
}

// The screen renders a chart and two panels at once; a loaded machine takes its time.
const wait = { timeout: 10_000 };

describe('JourneyViewScreen (issue 18)', () => {
  it('shows accounts by stage, the numbers per day and the moves with their reasons in words', async () => {
    await open('purple_owner', { [VIEW]: { body: view }, [MOVES]: { body: moves } });
    expect(await screen.findByRole('heading', { name: 'Directors journey', level: 1 }, wait)).toBeVisible();
    expect(screen.getByText(/^10 accounts · rules last run/)).toBeInTheDocument();
    const funnel = screen.getByRole('list', { name: 'Funnel' });
    expect(within(funnel).getByTestId('stage-count-Aware')).toHaveTextContent('6');
    expect(
      within(funnel).getByRole('progressbar', { name: 'Engaged: 3 of 10 accounts' }),
    ).toBeInTheDocument();
    const perDay = screen.getByRole('table', { name: 'Accounts by stage per day' });
    // Days in the reader's locale (issue 42 item 10), not the bare ISO date.
    expect(within(perDay).getByRole('row', { name: `${formatDay('2026-11-24')} 9 1 0` })).toBeInTheDocument();
    // The chart's legend in the stages' order, not alphabetical.
    expect(
      within(screen.getByTestId('journey-legend'))
        .getAllByText(/./)
        .map((e) => e.textContent),
    ).toEqual(['Aware', 'Engaged', 'Pipeline']);
    const table = await screen.findByRole('table', { name: 'Stage moves' }, wait);
    const row = within(table).getByRole('row', { name: /Tagwalk Freight/ });
    expect(row).toHaveTextContent('Aware');
    expect(row).toHaveTextContent('impressions, clicks');
    expect(screen.getByRole('link', { name: 'Edit the journey' })).toHaveAttribute(
      'href',
      `/cohorts/${COHORT}/journey?client_id=${ACME}`,
    );
  });

  it('asks for a longer period when one is chosen', async () => {
    const server = await open('purple_owner', { [VIEW]: { body: view }, [MOVES]: { body: moves } });
    await screen.findByRole('heading', { name: 'Directors journey', level: 1 }, wait);
    const range = (url: string) => {
      const q = new URL(url, 'http://x').searchParams;
      return (Number(q.get('to')) - Number(q.get('from'))) / 86_400;
    };
    const views = () => server.calls.filter((c) => c.url.startsWith(`${VIEW}?`)).map((c) => range(c.url));
    expect(views()).toContain(30);
    fireEvent.click(screen.getByRole('radio', { name: '90 days' }));
    await vi.waitFor(() => expect(views()).toContain(90), wait);
  });

  it('a cohort without a journey says so, and only someone who may build one gets the link', async () => {
    const missing = { status: 404, body: { message: 'This cohort has no journey.' } };
    await open('purple_owner', { [VIEW]: missing, [MOVES]: missing });
    expect(await screen.findByText('No journey yet', undefined, wait)).toBeVisible();
    expect(screen.getByRole('link', { name: 'Build one' })).toBeInTheDocument();
    resetAuth();
    document.body.innerHTML = '';

    await open('yellow_sdr', { [VIEW]: missing, [MOVES]: missing });
    expect(
      await screen.findByText(/Someone with the cohort permission can build one/, undefined, wait),
    ).toBeVisible();
    expect(screen.queryByRole('link', { name: 'Build one' })).toBeNull();
  });

  it(
    'no moves yet is an empty state; a failed read of the moves offers a retry',
    { timeout: 40_000 },
    async () => {
      await open('yellow_sdr', {
        [VIEW]: { body: view },
        [MOVES]: { body: { items: [], total: 0, page: 1, page_size: 15 } },
      });
      expect(await screen.findByText(/No account has moved stage yet/, undefined, wait)).toBeVisible();
      // An SDR reads the view but may not edit the journey.
      expect(screen.queryByRole('link', { name: 'Edit the journey' })).toBeNull();
      resetAuth();
      document.body.innerHTML = '';

      let failing = true;
      await open('purple_owner', {
        [VIEW]: { body: view },
        [MOVES]: () =>
          failing ? { status: 500, body: { message: 'Internal Server Error' } } : { body: moves },
      });
      const retry = await screen.findByRole('button', { name: 'Try again' }, { timeout: 20_000 });
      failing = false;
      fireEvent.click(retry);
      expect(await screen.findByRole('table', { name: 'Stage moves' }, wait)).toBeInTheDocument();
    },
  );
});

describe('the stacked chart reads right (issue 42 item 10)', () => {
  it('the tooltip gives each stage its own count, last stage on top, and the total', () => {
    renderWithRouter(
      <JourneyStagesTooltip
        label="25 Nov 2026"
        row={{ Aware: 0, Opportunity: 6, Customer: 6 }}
        stages={[
          { id: 'a', name: 'Aware' },
          { id: 'o', name: 'Opportunity' },
          { id: 'c', name: 'Customer' },
        ]}
        colors={['gray.5', 'blue.5', 'teal.6']}
      />,
    );
    const tip = screen.getByTestId('journey-tooltip');
    expect(tip.textContent).toBe('25 Nov 2026Customer6Opportunity6Aware0All stages12');
  });

  it('a period without accounts shows an empty state, not flat lines', async () => {
    await open('purple_owner', {
      [VIEW]: { body: { ...view, by_date: view.by_date.map((d) => ({ ...d, accounts: [0, 0, 0] })) } },
      [MOVES]: { body: moves },
    });
    expect(await screen.findByTestId('journey-chart-empty', undefined, wait)).toHaveTextContent(
      /No account was in the journey in this period yet/,
    );
  });
});
