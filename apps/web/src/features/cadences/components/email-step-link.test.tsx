import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CadenceListItem } from '@rally/shared/schemas/cadences';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { EmailStepLink, firstEmailCadence } from './email-step-link.tsx';

/** Onboarding's "Add ads to your e-mails" item (issue 38) links to a cadence's e-mail step. */
const ACME = CLIENT_IDS.acme;
const item = (id: number, patch: Partial<CadenceListItem> = {}): CadenceListItem => ({
  id,
  client_id: ACME,
  integration_id: 3,
  source: 'salesloft',
  name: `Cadence ${id}`,
  status: 'active',
  is_super: false,
  is_syncing: false,
  last_synced_at: null,
  owner_id: null,
  owner: null,
  selected_sdrs: [],
  counts: { total: 10, active: 5, contacted: 0, super: 0 },
  day_count: 3,
  ...patch,
});

afterEach(() => {
  resetAuth();
  vi.unstubAllGlobals();
});

const show = async (list: CadenceListItem[]) => {
  const server = fakeServer({ ...acmeSession('purple_owner'), 'GET /sc/cadence': { body: list } });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  renderRoutes([{ path: '/onboarding', element: <EmailStepLink clientId={ACME} /> }], '/onboarding');
};

describe('the e-mail step in onboarding', () => {
  it('picks a running cadence with ads, else the largest', () => {
    expect(
      firstEmailCadence([item(1, { counts: { ...item(1).counts, total: 99 } }), item(2, { is_super: true })])
        ?.id,
    ).toBe(2);
    expect(firstEmailCadence([item(1), item(2, { counts: { ...item(2).counts, total: 50 } })])?.id).toBe(2);
    expect(firstEmailCadence([])).toBeUndefined();
  });

  it("links to that cadence's step", async () => {
    await show([item(4, { name: 'Enterprise Outbound' })]);
    expect(
      await screen.findByRole('link', { name: 'Open the e-mail step of “Enterprise Outbound”' }),
    ).toHaveAttribute('href', `/cadence/4?client_id=${ACME}&integration_id=3#email-ads`);
  });

  it('links to the cadence list while there is no cadence', async () => {
    await show([]);
    expect(await screen.findByRole('link', { name: 'Choose a cadence' })).toHaveAttribute(
      'href',
      `/cadence?client_id=${ACME}`,
    );
  });
});
