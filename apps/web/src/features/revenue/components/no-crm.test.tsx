import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReportSummary } from '@rally/shared/schemas/reports';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderWithRouter } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { NoCrmNote, emptyWithoutCrm } from './no-crm.tsx';

const ACME = CLIENT_IDS.acme;

afterEach(() => {
  resetAuth();
  vi.unstubAllGlobals();
});

describe('Revenue without a CRM (issue 42 item 5)', () => {
  const zero = {
    opportunities_created: 0,
    won: 0,
    progressed: 0,
    pipeline_generated_cents: 0,
    revenue_influenced_cents: 0,
  } as ReportSummary;

  it('replaces the $0 cards only when no CRM is connected and nothing came in', () => {
    expect(emptyWithoutCrm(false, zero)).toBe(true);
    expect(emptyWithoutCrm(true, zero)).toBe(false);
    // Revenue imported from a file: the cards show it.
    expect(emptyWithoutCrm(false, { ...zero, opportunities_created: 3 })).toBe(false);
    expect(emptyWithoutCrm(false, undefined)).toBe(false);
  });

  it('says what to connect, with the connections page and the revenue import', async () => {
    vi.stubGlobal('fetch', fakeServer(acmeSession('purple_owner')).fetchFn);
    await loadSession();
    renderWithRouter(<NoCrmNote clientId={ACME} />);
    expect(
      await screen.findByRole('heading', { name: 'Connect your CRM to see revenue' }),
    ).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Connect a CRM' })).toHaveAttribute(
      'href',
      `/settings/connections?client_id=${ACME}`,
    );
    expect(screen.getByRole('link', { name: 'Import revenue (CSV)' })).toHaveAttribute(
      'href',
      `/onboarding?client_id=${ACME}&source=fileforce&step=connect&kind=revenue`,
    );
  });

  it('tells a role that cannot connect whom to ask', async () => {
    vi.stubGlobal('fetch', fakeServer(acmeSession('yellow_sdr')).fetchFn);
    await loadSession();
    renderWithRouter(<NoCrmNote clientId={ACME} />);
    expect(
      await screen.findByText('Ask an owner or admin of this client to connect your CRM.'),
    ).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Connect a CRM' })).not.toBeInTheDocument();
  });
});
