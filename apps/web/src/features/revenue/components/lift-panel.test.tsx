import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Holdout, LiftReport } from '@rally/shared/schemas/lift';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderWithRouter } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { LiftPanel, LiftSentence } from './lift-panel.tsx';

const ACME = CLIENT_IDS.acme;
const group = {
  targets: 0,
  meetings: 0,
  with_opportunity: 0,
  opportunities: 0,
  pipeline: 0,
  won: 0,
  superprospects: 0,
};
const noRates = { meetings: null, with_opportunity: null, pipeline: null, won: null };

const measured: LiftReport = {
  scope: { kind: 'client', id: null, name: 'Acme' },
  window_days: 90,
  min_lift_percent: 50,
  currency: 'USD',
  held_out_share: 0.1,
  groups: {
    exposed: { ...group, targets: 9000, meetings: 1800, pipeline: 900000, superprospects: 300 },
    held_out: { ...group, targets: 1000, meetings: 100, pipeline: 50000 },
  },
  per_100: {
    exposed: { meetings: 20, with_opportunity: 5, pipeline: 10000, won: 0 },
    held_out: { meetings: 10, with_opportunity: 3, pipeline: 5000, won: 0 },
  },
  lift: {
    meetings: { difference: 10, low: 7.9, high: 11.8, excludes_zero: true, method: 'newcombe' },
    with_opportunity: { difference: 2, low: -0.5, high: 3.1, excludes_zero: false, method: 'newcombe' },
    pipeline: { difference: 5000, low: 1200, high: 8800, excludes_zero: true, method: 'welch' },
    won: null,
  },
  status: 'measured',
  targets_needed: 0,
  message: 'Measured: the ads changed the meeting rate (the 95 % interval excludes zero).',
  cost: { rally_fee: 1500, ad_spend: null, per_incremental_meeting: 1.67, per_incremental_opportunity: null },
};
const notYet: LiftReport = {
  ...measured,
  status: 'not_enough_data',
  targets_needed: 2400,
  message: 'Not enough data yet: about 2,400 more prospects are needed to detect a 50 % lift in meetings.',
  per_100: { exposed: noRates, held_out: noRates },
  lift: { meetings: null, with_opportunity: null, pipeline: null, won: null },
};
const holdouts: Holdout[] = [
  {
    cadence_id: 7,
    name: 'Q3 Outbound',
    kind: 'sequence',
    cohort_id: null,
    holdout_percent: 10,
    exposed: 90,
    held_out: 10,
  },
  {
    cadence_id: 9,
    name: 'Enterprise',
    kind: 'cohort',
    cohort_id: '1f0e2d3c-4b5a-4678-9abc-def012345678',
    holdout_percent: 0,
    exposed: 0,
    held_out: 0,
  },
];

afterEach(() => {
  resetAuth();
  vi.unstubAllGlobals();
});

function serve(role: 'purple_owner' | 'blue_admin', lift: LiftReport, onPut?: (body: unknown) => void) {
  const server = fakeServer({
    ...acmeSession(role),
    [`GET /v1/report/client/${ACME}/lift`]: { body: lift },
    [`GET /v1/rest/client/${ACME}/holdouts`]: { body: { items: holdouts } },
    [`PUT /v1/rest/client/${ACME}/holdouts/7`]: (init) => {
      const body = JSON.parse(String(init?.body)) as { holdout_percent: number };
      onPut?.(body);
      return { body: { ...holdouts[0], holdout_percent: body.holdout_percent } };
    },
  });
  vi.stubGlobal('fetch', server.fetchFn);
  return server;
}

describe('the lift panel (issue 45)', () => {
  it('shows shown-ads against held-out per 100 with each difference and its interval, labelled incremental', async () => {
    serve('purple_owner', measured);
    await loadSession();
    renderWithRouter(<LiftPanel clientId={ACME} />);
    expect(
      await screen.findByRole('heading', { name: 'Incremental: what the ads caused' }),
    ).toBeInTheDocument();
    const table = await screen.findByRole('table', { name: 'Exposed and held-out targets, per 100' });
    const meetings = within(table).getByRole('row', { name: /People with a meeting/ });
    expect(meetings).toHaveTextContent('20');
    expect(meetings).toHaveTextContent('+10');
    expect(meetings).toHaveTextContent('95 % interval +7.9 to +11.8');
    expect(within(table).getByRole('row', { name: /Revenue won/ })).toHaveTextContent('—');
    expect(screen.getByText('Measured')).toBeInTheDocument();
    expect(screen.getByText(/\$2 per extra meeting/)).toBeInTheDocument();
  });

  it('says "not enough data yet" with the targets still needed, and the rates it has so far', async () => {
    serve('purple_owner', notYet);
    await loadSession();
    renderWithRouter(<LiftPanel clientId={ACME} />);
    expect(await screen.findByText(notYet.message)).toBeInTheDocument();
    expect(screen.getByText('Not enough data yet')).toBeInTheDocument();
  });

  it('lets an owner change a cadence’s holdout share; an admin reads it with the reason', async () => {
    const puts: unknown[] = [];
    serve('purple_owner', measured, (b) => puts.push(b));
    await loadSession();
    const user = userEvent.setup();
    const view = renderWithRouter(<LiftPanel clientId={ACME} />);
    await user.click(await screen.findByText('Holdout settings'));
    await user.selectOptions(
      await screen.findByRole('combobox', { name: 'Holdout share for Cadence: Q3 Outbound' }),
      '20 %',
    );
    const row = screen.getByRole('row', { name: /Cadence: Q3 Outbound/ });
    await user.click(within(row).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(puts).toEqual([{ holdout_percent: 20 }]));
    view.unmount();

    resetAuth();
    serve('blue_admin', measured);
    await loadSession();
    renderWithRouter(<LiftPanel clientId={ACME} />);
    await user.click(await screen.findByText('Holdout settings'));
    expect(
      await screen.findByText(
        'Only owners can change a holdout, because held-out prospects are shown no ads.',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Save' })).not.toBeInTheDocument();
  });

  it('the return sentence uses the incremental pipeline when its interval excludes zero, else says not yet measurable', async () => {
    serve('purple_owner', measured);
    await loadSession();
    const first = renderWithRouter(<LiftSentence clientId={ACME} />);
    expect(await screen.findByText(/of pipeline per 100 prospects/)).toHaveTextContent(
      'Incremental: against a randomised holdout, the ads added $5,000 of pipeline per 100 prospects (95 % interval $1,200 to $8,800).',
    );
    first.unmount();
    serve('purple_owner', notYet);
    renderWithRouter(<LiftSentence clientId={ACME} />);
    expect(await screen.findByText(/not yet measurable/)).toHaveTextContent(
      'Incremental: what the ads caused is not yet measurable. Not enough data yet: about 2,400 more prospects',
    );
  });
});
