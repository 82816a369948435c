import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { InvoiceDetail, InvoiceLine } from '@rally/shared/schemas/billing';
import { formatDayRange } from '@rally/shared';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { InvoicePage, coveredDays, lineSource, repeatedPeople } from './invoice-page.tsx';

const ACME = CLIENT_IDS.acme;
const ID = '00000000-0000-4000-8000-0000000000a2';
const line = (n: number, over: Partial<InvoiceLine> = {}): InvoiceLine => ({
  target_id: `00000000-0000-4000-8000-00000000010${n}`,
  cadence_id: 1,
  cadence_name: 'Q3 Outbound',
  prospect: `Person ${n} <p${n}@example.com>`,
  super_date: `2026-11-2${n}T12:00:00.000Z`,
  amount_cents: 500,
  ...over,
});
const detail = (lines: InvoiceLine[]): InvoiceDetail => ({
  invoice: {
    id: ID,
    number: 'R-00002',
    status: 'open',
    amount_cents: lines.length * 500,
    currency: 'usd',
    period: '2026-12',
    reason: 'month_end',
    superprospects: lines.length,
    failure_reason: null,
    action_required: false,
    attempts: 0,
    next_attempt_at: null,
    paid_at: null,
    created_at: '2026-12-01T00:10:00.000Z',
  },
  lines,
  client_name: 'Acme Robotics',
  billing_address: null,
  billing_info: null,
  card: null,
});

afterEach(() => {
  resetAuth();
  vi.unstubAllGlobals();
});

describe('invoice lines say what they cover (issue 42 item 6)', () => {
  it('lineSource tells a cohort from a cadence; coveredDays spans first to last; repeatedPeople', () => {
    expect(lineSource({ cadence_name: 'Cohort: Engaged prospects' })).toEqual({
      kind: 'Cohort',
      name: 'Engaged prospects',
    });
    expect(lineSource({ cadence_name: 'Webinar' })).toEqual({ kind: 'Cadence', name: 'Webinar' });
    const lines = [line(6), line(3), line(9)];
    expect(coveredDays(lines)).toBe(formatDayRange('2026-11-23T12:00:00.000Z', '2026-11-29T12:00:00.000Z'));
    expect(coveredDays([])).toBeNull();
    expect([...repeatedPeople([line(1), line(2), line(1, { target_id: 'x' })])]).toEqual([line(1).prospect]);
  });

  it('the page shows the month charged, the days covered, each line’s cadence or cohort and why a person is twice', async () => {
    const twice = line(4, {
      cadence_name: 'Cohort: Engaged prospects',
      target_id: '00000000-0000-4000-8000-000000000199',
      prospect: line(3).prospect,
    });
    const server = fakeServer({
      ...acmeSession('purple_owner'),
      [`/biller/client/${ACME}/invoices/${ID}`]: { body: detail([line(3), twice, line(9)]) },
    });
    vi.stubGlobal('fetch', server.fetchFn);
    await loadSession();
    renderRoutes(
      [{ path: '/settings/billing/invoices/:id', element: <InvoicePage /> }],
      `/settings/billing/invoices/${ID}?client_id=${ACME}`,
    );
    const covers = await screen.findByTestId('invoice-covers');
    // textContent: Intl's range puts thin spaces around the dash, which toHaveTextContent folds.
    expect(covers.textContent).toBe(
      `Superprospects of ${formatDayRange('2026-11-23T12:00:00.000Z', '2026-11-29T12:00:00.000Z')}`,
    );
    expect(screen.getByText(/Charged in/)).toBeInTheDocument();
    expect(screen.queryByText(/Period:/)).toBeNull();
    const rows = within(screen.getByRole('table')).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.textContent)).toEqual([
      expect.stringMatching(/Person 3.*Billed once for each cadence or cohort.*Cadence Q3 Outbound/),
      expect.stringMatching(/Person 3.*Billed once for each cadence or cohort.*Cohort Engaged prospects/),
      expect.not.stringContaining('Billed once'),
    ]);
  });
});
