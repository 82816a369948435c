import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CadenceListItem } from '@rally/shared/schemas/cadences';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderWithRouter } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { OpenNewCadenceButton, newestCadenceOf } from './open-new-cadence.tsx';

const ACME = CLIENT_IDS.acme;
const item = (id: number, source: string, name = `Cadence ${id}`): CadenceListItem => ({
  id,
  client_id: ACME,
  integration_id: source === 'fileforce' ? 9 : 3,
  source,
  name,
  status: 'active',
  is_super: false,
  is_syncing: false,
  last_synced_at: null,
  owner_id: null,
  owner: null,
  selected_sdrs: [],
  counts: { total: 10, active: 5, contacted: 0, super: 0 },
  day_count: 3,
});

afterEach(() => {
  resetAuth();
  vi.unstubAllGlobals();
});

describe('"Done" after an import opens the new cadence (issue 42 item 15)', () => {
  it('picks the newest cadence of the source just set up', () => {
    const list = [item(4, 'fileforce'), item(9, 'salesloft'), item(7, 'fileforce')];
    expect(newestCadenceOf(list, 'fileforce')?.id).toBe(7);
    expect(newestCadenceOf(list, 'salesloft')?.id).toBe(9);
    expect(newestCadenceOf(list, 'outreach')).toBeUndefined();
  });

  it('names the cadence and opens its page', async () => {
    const server = fakeServer({
      ...acmeSession('purple_owner'),
      'GET /sc/cadence': { body: [item(2, 'salesloft'), item(5, 'fileforce', 'Spring Push')] },
    });
    vi.stubGlobal('fetch', server.fetchFn);
    await loadSession();
    const onOpen = vi.fn();
    renderWithRouter(<OpenNewCadenceButton clientId={ACME} source="fileforce" onOpen={onOpen} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Open “Spring Push”' }));
    expect(onOpen).toHaveBeenCalledWith(`/cadence/5?client_id=${ACME}&integration_id=9`);
  });
});
