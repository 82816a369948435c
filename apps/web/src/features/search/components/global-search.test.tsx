import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { acmeSession, CLIENT_IDS } from '../../../testing/fixtures.ts';
import type { Role, Routes } from '../../../testing/fixtures.ts';
import { fakeServer, renderWithRouter } from '../../../testing/render.tsx';
import { GlobalSearch } from './global-search.tsx';

const ACME = CLIENT_IDS.acme;
const SEARCH = `/v1/report/client/${ACME}/search`;
const AVERY = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c00d001';
const ACME_ALPHA = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c00d002';
const AD = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c00d003';

const found = (search: string) => ({
  search,
  prospects: [
    {
      prospect_id: AVERY,
      name: 'Avery Stone',
      email: 'avery@acme.example',
      title: 'VP Sales',
      company_name: 'Acme Alpha',
      target_id: null,
    },
  ],
  companies: [{ account_id: ACME_ALPHA, name: 'Acme Alpha', website: 'https://alpha.example' }],
  cadences: [{ cadence_id: 7, name: 'Acme outbound', status: 'active' }],
  content: [{ content_id: AD, name: 'Acme spring ad', title: 'Meet us', status: 'published' }],
});
const nothing = (search: string) => ({ search, prospects: [], companies: [], cadences: [], content: [] });
async function open(routes: Routes, role: Role = 'yellow_sdr') {
  const server = fakeServer({ ...acmeSession(role), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  const view = renderWithRouter(<GlobalSearch />, `/feed?client_id=${ACME}`);
  return { server, ...view };
}

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('GlobalSearch (issue 17)', () => {
  it('Ctrl+K opens it; typing asks once, debounced; results are grouped by kind; Enter opens the highlighted one', async () => {
    const { server, router } = await open({
      [SEARCH]: () => ({ body: found('acme') }),
    });
    await userEvent.keyboard('{Control>}k{/Control}');
    const dialog = await screen.findByRole('dialog', { name: 'Search' });
    const box = within(dialog).getByRole('combobox', { name: /Search prospects/ });
    await waitFor(() => expect(box).toHaveFocus());
    expect(within(dialog).getByText(/Type at least 2 characters/)).toBeInTheDocument();
    await userEvent.type(box, 'acme');
    const list = await within(dialog).findByRole('listbox', { name: 'Search results' });
    // One call for the settled text, not one per keystroke.
    const calls = server.calls.filter((c) => c.url.startsWith(`${SEARCH}?`));
    expect(calls.map((c) => c.url)).toEqual([`${SEARCH}?search=acme`]);
    expect(within(list).getByRole('group', { name: 'Prospects' })).toBeInTheDocument();
    const groups = within(list).getAllByRole('group');
    const titleOf = (g: HTMLElement) =>
      document.getElementById(g.getAttribute('aria-labelledby') ?? '')?.textContent;
    expect(groups.map(titleOf)).toEqual(['Prospects', 'Companies', 'Cadences', 'Content']);
    expect(within(groups[0]!).getByRole('option', { name: /Avery Stone/ })).toHaveAttribute(
      'aria-selected',
      'true',
    );
    expect(within(groups[0]!).getByText('VP Sales · Acme Alpha')).toBeInTheDocument();
    expect(box).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByText('4 results')).toBeInTheDocument();

    // ↓ ↓ moves to the cadence; ↑ back to the company; ↓ again and Enter opens the cadence.
    await userEvent.keyboard('{ArrowDown}{ArrowDown}');
    const cadence = within(list).getByRole('option', { name: /Acme outbound/ });
    expect(cadence).toHaveAttribute('aria-selected', 'true');
    expect(box).toHaveAttribute('aria-activedescendant', cadence.id);
    await userEvent.keyboard('{ArrowUp}');
    expect(within(list).getByRole('option', { name: /^Acme Alpha/ })).toHaveAttribute(
      'aria-selected',
      'true',
    );
    await userEvent.keyboard('{ArrowDown}{Enter}');
    await waitFor(() => expect(router.state.location.pathname).toBe('/cadence/7'));
    expect(router.state.location.search).toBe(`?client_id=${ACME}`);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('each kind opens its screen: prospect drawer, buying group, content editor', async () => {
    const { router } = await open({ [SEARCH]: () => ({ body: found('acme') }) });
    const where = async (name: RegExp) => {
      await userEvent.click(screen.getAllByRole('button', { name: /^Search/ })[0]!);
      const dialog = await screen.findByRole('dialog', { name: 'Search' });
      await userEvent.type(within(dialog).getByRole('combobox'), 'acme');
      await userEvent.click(await within(dialog).findByRole('option', { name }));
      await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
      return `${router.state.location.pathname}${router.state.location.search}`;
    };
    expect(await where(/Avery Stone/)).toBe(`/prospects?client_id=${ACME}&prospect=${AVERY}`);
    expect(await where(/^Acme Alpha/)).toBe(
      `/reports?client_id=${ACME}&tab=engagement&account=${ACME_ALPHA}`,
    );
    expect(await where(/Acme spring ad/)).toBe(`/content/${AD}?client_id=${ACME}`);
  });

  it('"/" opens it; nothing found says so; Escape closes it', async () => {
    await open({ [SEARCH]: () => ({ body: nothing('zzz') }) });
    await userEvent.keyboard('/');
    const dialog = await screen.findByRole('dialog', { name: 'Search' });
    await userEvent.type(within(dialog).getByRole('combobox'), 'zzz');
    expect(await within(dialog).findByText('No results for “zzz”')).toBeInTheDocument();
    expect(within(dialog).getByRole('combobox')).toHaveAttribute('aria-expanded', 'false');
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('a failed search shows the error in the box, without a toast, and Try again asks again', async () => {
    let fail = true;
    const { server } = await open({
      [SEARCH]: () =>
        fail
          ? {
              status: 422,
              body: {
                message: 'search must be at most 100 characters',
                errors: [{ field: 'querystring.search', message: 'must be at most 100 characters' }],
              },
            }
          : { body: found('acme') },
    });
    await userEvent.keyboard('{Control>}k{/Control}');
    const dialog = await screen.findByRole('dialog', { name: 'Search' });
    await userEvent.type(within(dialog).getByRole('combobox'), 'acme');
    const alert = await within(dialog).findByText('Search failed');
    expect(within(dialog).getByText('search must be at most 100 characters')).toBeInTheDocument();
    expect(alert).toBeInTheDocument();
    expect(screen.queryByText('Validation Error')).not.toBeInTheDocument();
    fail = false;
    await userEvent.click(within(dialog).getByRole('button', { name: 'Try again' }));
    expect(await within(dialog).findByRole('option', { name: /Avery Stone/ })).toBeInTheDocument();
    expect(server.calls.filter((c) => c.url.startsWith(`${SEARCH}?`))).toHaveLength(2);
  });

  it('the box keeps to the server bounds: at most 100 characters, nothing asked below 2', async () => {
    const { server } = await open({ [SEARCH]: () => ({ body: nothing('a') }) });
    await userEvent.keyboard('{Control>}k{/Control}');
    const box = within(await screen.findByRole('dialog', { name: 'Search' })).getByRole('combobox');
    expect(box).toHaveAttribute('maxlength', '100');
    await userEvent.type(box, ' a ');
    await new Promise((r) => setTimeout(r, 400));
    expect(server.calls.some((c) => c.url.startsWith(SEARCH))).toBe(false);
  });

  it('finds screens and settings by name at once (issue 42 item 2), only those the role may open', async () => {
    const { router } = await open({ [SEARCH]: () => ({ body: nothing('webhooks') }) });
    await userEvent.keyboard('{Control>}k{/Control}');
    const dialog = await screen.findByRole('dialog', { name: 'Search' });
    await userEvent.type(within(dialog).getByRole('combobox'), 'webhooks');
    const list = await within(dialog).findByRole('listbox', { name: 'Search results' });
    const hook = within(list).getByRole('option', { name: /Webhooks/ });
    expect(within(list).getByRole('group', { name: 'Settings' })).toContainElement(hook);
    expect(hook).toHaveAttribute('aria-selected', 'true');
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(router.state.location.pathname).toBe('/settings/integrations/webhooks'));
    expect(router.state.location.search).toBe(`?client_id=${ACME}`);
  });

  it('an SDR’s search offers no Billing (it would show the error page)', async () => {
    await open({ [SEARCH]: () => ({ body: nothing('billing') }) });
    await userEvent.keyboard('{Control>}k{/Control}');
    const dialog = await screen.findByRole('dialog', { name: 'Search' });
    await userEvent.type(within(dialog).getByRole('combobox'), 'billing');
    expect(await within(dialog).findByText('No results for “billing”')).toBeInTheDocument();
  });

  it('finds a screen of the main navigation among the screens', async () => {
    await open({ [SEARCH]: () => ({ body: nothing('revenue') }) });
    await userEvent.keyboard('{Control>}k{/Control}');
    const dialog = await screen.findByRole('dialog', { name: 'Search' });
    await userEvent.type(within(dialog).getByRole('combobox'), 'revenue');
    const screens = await within(dialog).findByRole('group', { name: 'Screens' });
    expect(within(screens).getByRole('option', { name: /Revenue/ })).toBeInTheDocument();
  });

  it('a role without reports.read gets no search', async () => {
    await open({}, 'grey_viewer');
    await userEvent.keyboard('{Control>}k{/Control}');
    expect(screen.queryByRole('button', { name: /^Search/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});
