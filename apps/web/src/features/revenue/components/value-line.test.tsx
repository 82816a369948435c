import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ValueReport } from '@rally/shared/schemas/reports';
import { fakeServer, renderWithRouter } from '../../../testing/render.tsx';
import { CLIENT_IDS } from '../../../testing/fixtures.ts';
import { ValueLine } from './value-line.tsx';

const ACME = CLIENT_IDS.acme;
const range = { from: 1_764_547_200, to: 1_765_152_000 };
const value = (over: Partial<ValueReport> = {}): ValueReport => ({
  range,
  window_days: 90,
  currency: 'USD',
  superprospects_billed: 0,
  spend_cents: 0,
  spend_currency: 'USD',
  network_spend_cents: 0,
  network_spend_other: [],
  pipeline_generated_cents: 9_000_000,
  pipeline_progressed_cents: 0,
  revenue_influenced_cents: 3_000_000,
  pipeline_per_spend: null,
  revenue_per_spend: null,
  ...over,
});
const show = (v: ValueReport) => {
  const server = fakeServer({ [`GET /v1/report/client/${ACME}/value_report`]: { body: v } });
  vi.stubGlobal('fetch', server.fetchFn);
  renderWithRouter(<ValueLine clientId={ACME} range={range} />);
};
afterEach(() => vi.unstubAllGlobals());

/** Issue 39: "the ROI line uses both ('$X spend and $Y Rally fee were behind …')". */
describe('the Revenue screen’s return line', () => {
  it('names the network spend and Rally’s fee together, and weighs the results against both', async () => {
    show(
      value({
        superprospects_billed: 4,
        spend_cents: 2_000,
        network_spend_cents: 88_000,
        pipeline_per_spend: 100,
        revenue_per_spend: 33.3,
      }),
    );
    const line = (await screen.findByText(/Attributed:/)).closest('p')!;
    expect(line.textContent).toBe(
      'Attributed: $880 network spend and $20 Rally fee (4 superprospects) in this period were behind 100× their cost in pipeline generated and 33.3× in revenue influenced.',
    );
  });

  it('with Rally’s fee only, says so as before', async () => {
    show(
      value({
        superprospects_billed: 1,
        spend_cents: 500,
        pipeline_per_spend: 18_000,
        revenue_per_spend: 6_000,
      }),
    );
    const line = (await screen.findByText(/Attributed:/)).closest('p')!;
    expect(line.textContent).toMatch(
      /^Attributed: \$5 Rally fee \(1 superprospect\) in this period was behind 18K× its cost/,
    );
  });

  it('says when nothing was spent, and that spend in another currency is not weighed', async () => {
    show(value({ network_spend_other: [{ currency: 'EUR', cents: 12_300 }] }));
    const line = (await screen.findByText(/Attributed:/)).closest('p')!;
    expect(line.textContent).toContain('Nothing was spent in this period');
    expect(line.textContent).toContain('Network spend in other currencies (€123) is not weighed in.');
  });
});
