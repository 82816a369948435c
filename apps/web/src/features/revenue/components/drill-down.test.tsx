import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { OpportunityDetail } from '@rally/shared/schemas/reports';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderWithRouter } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { EngagedAccountsDrawer } from './engaged-accounts-drawer.tsx';
import { OpportunityDrawer } from './opportunity-drawer.tsx';

const ACME = CLIENT_IDS.acme;
const OPP = '00000000-0000-4000-8000-00000000b001';
const P = '00000000-0000-4000-8000-00000000c001';
const A = '00000000-0000-4000-8000-00000000d001';
const range = { from: 1_790_000_000, to: 1_796_000_000 };

const detail: OpportunityDetail = {
  opportunity: {
    id: OPP,
    name: 'Lumen Parcel - Fleet pilot',
    account_name: 'Lumen Parcel',
    company_id: A,
    amount_cents: 7_800_000,
    currency: 'USD',
    stage: 'Qualification',
    is_closed: false,
    is_won: false,
    created_at: '2026-11-01T10:00:00.000Z',
    close_date: null,
    generated_engaged_at: '2026-10-20T10:00:00.000Z',
    influenced: false,
    engaged_prospects: 1,
  },
  crm_record: {
    url: 'https://acme.my.salesforce.com/lightning/r/Opportunity/006A0000001/view',
    vendor: 'Salesforce',
  },
  window_days: 90,
  prospects: [
    {
      prospect_id: P,
      name: 'Noel Zeller',
      email: 'noel@lumen.example',
      title: 'VP Operations',
      impressions: 12,
      clicks: 1,
      views: 0,
      first_engaged_at: '2026-10-20T10:00:00.000Z',
      last_engaged_at: '2026-10-28T10:00:00.000Z',
    },
  ],
  stage_history: [],
};

async function serve(routes: Parameters<typeof fakeServer>[0]) {
  const server = fakeServer({ ...acmeSession('purple_owner'), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

afterEach(() => {
  resetAuth();
  vi.unstubAllGlobals();
});

describe('drill-down from Revenue (issue 42 item 7)', () => {
  it('the opportunity drawer’s engaged prospects open their prospect', async () => {
    await serve({ [`/v1/report/client/${ACME}/opportunity/${OPP}`]: { body: detail } });
    renderWithRouter(<OpportunityDrawer clientId={ACME} opportunityId={OPP} onClose={() => {}} />);
    const table = await screen.findByRole('table', { name: 'Engaged prospects' }, { timeout: 10_000 });
    expect(within(table).getByRole('link', { name: 'Noel Zeller' })).toHaveAttribute(
      'href',
      `/prospects?client_id=${ACME}&prospect=${P}`,
    );
    // …and the opportunity opens its record in the CRM, in a new tab.
    const crm = screen.getByRole('link', { name: 'Open in Salesforce' });
    expect(crm).toHaveAttribute('href', detail.crm_record!.url);
    expect(crm).toHaveAttribute('target', '_blank');
  });

  it('an opportunity with no record elsewhere (a file import) offers no CRM link', async () => {
    await serve({
      [`/v1/report/client/${ACME}/opportunity/${OPP}`]: { body: { ...detail, crm_record: null } },
    });
    renderWithRouter(<OpportunityDrawer clientId={ACME} opportunityId={OPP} onClose={() => {}} />);
    await screen.findByRole('table', { name: 'Engaged prospects' }, { timeout: 10_000 });
    expect(screen.queryByRole('link', { name: /Open in/ })).toBeNull();
  });

  it('"Engaged accounts" lists the accounts engaged with the ads over the range, each opening its account', async () => {
    const server = await serve({
      [`/v1/report/client/${ACME}/alignment`]: {
        body: {
          range,
          outreach_activity_types: ['Call'],
          counts: { both: 1, outreach_only: 0, ads_only: 0, total: 1 },
          items: [
            {
              account_id: A,
              name: 'Lumen Parcel',
              website: null,
              segment: 'both',
              outreach_activities: 3,
              outreach_contacts: 1,
              last_outreach_at: null,
              impressions: 61,
              clicks: 1,
              views: 0,
              engaged_prospects: 5,
              last_engaged_at: '2026-12-05T10:00:00.000Z',
            },
          ],
          total: 1,
          page: 1,
          page_size: 25,
        },
      },
    });
    renderWithRouter(<EngagedAccountsDrawer clientId={ACME} range={range} opened onClose={() => {}} />);
    const table = await screen.findByRole('table', { name: 'Engaged accounts' }, { timeout: 10_000 });
    expect(within(table).getByRole('link', { name: 'Lumen Parcel' })).toHaveAttribute(
      'href',
      `/reports?client_id=${ACME}&account=${A}`,
    );
    const asked = new URL(server.calls.find((c) => c.url.includes('/alignment'))!.url, 'http://x');
    expect(Object.fromEntries(asked.searchParams)).toMatchObject({
      segment: 'engaged',
      from: String(range.from),
      to: String(range.to),
    });
  });
});
