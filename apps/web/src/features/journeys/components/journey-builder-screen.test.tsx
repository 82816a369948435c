import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Journey } from '@rally/shared/schemas/journeys';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { JourneyBuilderScreen } from './journey-builder-screen.tsx';

const ACME = CLIENT_IDS.acme;
const COHORT = '00000000-0000-4000-8000-00000000c001';
const JOURNEY = '00000000-0000-4000-8000-00000000e001';
const stage = (
  n: number,
  name: string,
  accounts: number,
  rules: Journey['stages'][number]['rules'] = [],
) => ({
  id: `00000000-0000-4000-8000-00000000f00${n}`,
  position: n,
  name,
  content_ids: [],
  rules,
  match: 'any' as const,
  accounts,
});
const journey: Journey = {
  id: JOURNEY,
  client_id: ACME,
  cohort_id: COHORT,
  cohort_name: 'Directors',
  cohort_status: 'active',
  name: 'Directors journey',
  stages: [
    stage(1, 'Unaware', 7),
    stage(2, 'Aware', 2, [{ kind: 'impressions_gte', value: 3, crm_stage_id: null, days: null }]),
    stage(3, 'Engaged', 1, [{ kind: 'clicks_gte', value: 1, crm_stage_id: null, days: null }]),
  ],
  accounts: 10,
  moves: 3,
  evaluated_at: null,
  created_at: '2026-11-26T10:00:00.000Z',
  updated_at: '2026-11-26T10:00:00.000Z',
};

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

function serveJourney(saved: unknown[]) {
  const server = fakeServer({
    ...acmeSession('green_manager'),
    [`GET /v1/api/cohort/${COHORT}`]: {
      body: { id: COHORT, name: 'Directors', status: 'active', size: 30, accounts: 10 },
    },
    [`GET /v1/rest/client/${ACME}/journey`]: { body: { items: [journey] } },
    'GET /sc/content': { body: { items: [] } },
    [`GET /v1/rest/client/${ACME}/crm/opportunity/stage`]: { body: [] },
    [`PUT /v1/rest/client/${ACME}/journey/${JOURNEY}`]: (init) => {
      saved.push(JSON.parse(String(init?.body)));
      return { body: journey };
    },
  });
  vi.stubGlobal('fetch', server.fetchFn);
  return server;
}

describe('JourneyBuilderScreen (issue 18 "stages renameable and reorderable")', () => {
  it('renames and reorders stages, and saves them in the new order with their ids (PUT)', async () => {
    const saved: unknown[] = [];
    serveJourney(saved);
    await loadSession();
    const user = userEvent.setup();
    renderRoutes(
      [
        { path: '/cohorts/:id/journey', element: <JourneyBuilderScreen /> },
        { path: '/cohorts/:id/journey/view', element: <p>view</p> },
      ],
      `/cohorts/${COHORT}/journey?client_id=${ACME}`,
    );
    const name3 = await screen.findByLabelText(/^Stage 3 name/i, undefined, { timeout: 10_000 });
    expect(name3).toHaveValue('Engaged');
    // The first stage cannot go up, the last cannot go down.
    expect(screen.getByRole('button', { name: 'Move Unaware up' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Move Engaged down' })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: 'Move Engaged up' }));
    expect(screen.getByLabelText(/^Stage 2 name/i)).toHaveValue('Engaged');
    expect(screen.getByLabelText(/^Stage 3 name/i)).toHaveValue('Aware');
    await user.clear(screen.getByLabelText(/^Stage 3 name/i));
    await user.type(screen.getByLabelText(/^Stage 3 name/i), 'Warm');
    expect(screen.getByRole('listitem', { name: 'Stage 3: Warm' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Save journey' }));
    await waitFor(() => expect(saved).toHaveLength(1));
    const body = saved[0] as { name: string; stages: { id?: string; name: string; rules: unknown[] }[] };
    expect(body.name).toBe('Directors journey');
    // Each stage keeps its id (its accounts stay with it); the rules travel with their stage.
    expect(body.stages.map((s) => [s.id, s.name])).toEqual([
      [journey.stages[0]!.id, 'Unaware'],
      [journey.stages[2]!.id, 'Engaged'],
      [journey.stages[1]!.id, 'Warm'],
    ]);
    expect(body.stages[1]!.rules).toEqual([{ kind: 'clicks_gte', value: 1 }]);
    expect(body.stages[2]!.rules).toEqual([{ kind: 'impressions_gte', value: 3 }]);
    expect(await screen.findByText('view')).toBeInTheDocument();
  });

  it('edits a network engagement rule: the company impressions LinkedIn reports within a number of days', async () => {
    const saved: unknown[] = [];
    serveJourney(saved);
    await loadSession();
    const user = userEvent.setup();
    renderRoutes(
      [
        { path: '/cohorts/:id/journey', element: <JourneyBuilderScreen /> },
        { path: '/cohorts/:id/journey/view', element: <p>view</p> },
      ],
      `/cohorts/${COHORT}/journey?client_id=${ACME}`,
    );
    await screen.findByLabelText(/^Stage 3 name/i, undefined, { timeout: 10_000 });
    const kind = await screen.findByRole('combobox', { name: 'Rule 1 of Engaged' });
    await user.click(kind);
    // Each rule's Select has its own (portalled) list: take the option from this one's.
    await waitFor(() => expect(kind.getAttribute('aria-controls')).toBeTruthy());
    const list = document.getElementById(kind.getAttribute('aria-controls')!)!;
    // jsdom never ends the dropdown's opening transition, so the options count as hidden there.
    await user.click(
      within(list).getByRole('option', {
        name: 'Network-reported company impressions at least',
        hidden: true,
      }),
    );
    // The window starts at 30 days; the note says whose counts these are.
    const days = await screen.findByRole('textbox', { name: 'Days of rule 1 of Engaged' });
    expect(days).toHaveValue('30');
    expect(screen.getByText(/Per-person counts come only from Rally/)).toBeInTheDocument();
    const value = screen.getByRole('textbox', { name: 'Value of rule 1 of Engaged' });
    await user.clear(value);
    await user.type(value, '50');
    await user.clear(days);
    await user.type(days, '14');
    await user.click(screen.getByRole('button', { name: 'Save journey' }));
    await waitFor(() => expect(saved).toHaveLength(1));
    const body = saved[0] as { stages: { rules: unknown[] }[] };
    expect(body.stages[2]!.rules).toEqual([{ kind: 'network_impressions_gte', value: 50, days: 14 }]);
    // Other rules are sent without a window.
    expect(body.stages[1]!.rules).toEqual([{ kind: 'impressions_gte', value: 3 }]);
  });
});
