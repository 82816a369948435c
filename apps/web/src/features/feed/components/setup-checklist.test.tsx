import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SetupChecklist as Checklist, SetupStep } from '@rally/shared/schemas/setup';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderWithRouter } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { SetupChecklist } from './setup-checklist.tsx';

const ACME = CLIENT_IDS.acme;
const step = (key: SetupStep['key'], done: boolean, patch: Partial<SetupStep> = {}): SetupStep => ({
  key,
  done,
  title: `Title of ${key}`,
  detail: `What no ${key} blocks`,
  link: { path: `/${key}`, label: `Do ${key}` },
  ask_owner: false,
  ...patch,
});

afterEach(() => {
  resetAuth();
  vi.unstubAllGlobals();
});

async function show(body: Checklist) {
  const server = fakeServer({ ...acmeSession('purple_owner'), [`/v1/rest/client/${ACME}/setup`]: { body } });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return renderWithRouter(<SetupChecklist clientId={ACME} />);
}

describe('the setup checklist (issue 42 item 5)', () => {
  it('says "3 of 6 done" and, for each open step, what it blocks and a link with the client', async () => {
    await show({
      steps: [
        step('source', true),
        step('ad', true),
        step('ads_on', false, { link: { path: '/cadence', label: 'Open cadences' } }),
        step('card', false, { ask_owner: true }),
        step('crm', true),
        step('photo', false),
      ],
      done: 3,
      total: 6,
    });
    const panel = await screen.findByRole('region', { name: 'Finish setting up' });
    expect(within(panel).getByText('3 of 6 done')).toBeInTheDocument();
    expect(within(panel).getByRole('progressbar', { name: 'Setup: 3 of 6 steps done' })).toBeInTheDocument();
    expect(within(panel).getByText('What no ads_on blocks')).toBeInTheDocument();
    expect(within(panel).getByRole('link', { name: 'Open cadences' })).toHaveAttribute(
      'href',
      `/cadence?client_id=${ACME}`,
    );
    // Done steps say so without their detail; a step the role cannot do says whom to ask.
    expect(within(panel).queryByText('What no ad blocks')).not.toBeInTheDocument();
    expect(
      within(panel).getByText((_, el) => el?.tagName === 'P' && el.textContent === 'Title of ad: done'),
    ).toBeInTheDocument();
    expect(within(panel).queryByRole('link', { name: 'Do card' })).not.toBeInTheDocument();
    expect(within(panel).getByText('Your role cannot do this: ask an owner or admin.')).toBeInTheDocument();
  });

  it('shows nothing once every step is done', async () => {
    const { container } = await show({
      steps: (['source', 'ad', 'ads_on', 'card', 'crm', 'photo'] as const).map((k) => step(k, true)),
      done: 6,
      total: 6,
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByRole('region', { name: 'Finish setting up' })).not.toBeInTheDocument();
    expect(container.textContent).not.toContain('of 6 done');
  });
});
