import { MantineProvider } from '@mantine/core';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { Link, RouterProvider, createMemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { leavesPage, useUnsavedChangesPrompt } from './unsaved-changes.tsx';

function Form() {
  const [value, setValue] = useState('');
  const prompt = useUnsavedChangesPrompt(value !== '', 'the days');
  return (
    <>
      {prompt}
      <input aria-label="Name" value={value} onChange={(e) => setValue(e.target.value)} />
      <button onClick={() => setValue('')}>Save changes</button>
      <Link to="/elsewhere">Reports</Link>
      <Link to="#section">Jump</Link>
    </>
  );
}

function setup() {
  const router = createMemoryRouter(
    [
      { path: '/form', element: <Form /> },
      { path: '/elsewhere', element: <p>Elsewhere</p> },
    ],
    { initialEntries: ['/form'] },
  );
  render(
    <MantineProvider>
      <RouterProvider router={router} />
    </MantineProvider>,
  );
  return router;
}

const loc = (pathname: string, search = '', hash = '') => ({ pathname, search, hash, state: null, key: 'k' });

describe('useUnsavedChangesPrompt', () => {
  it('lets a clean form go without asking', async () => {
    const router = setup();
    await userEvent.click(screen.getByRole('link', { name: 'Reports' }));
    expect(await screen.findByText('Elsewhere')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/elsewhere');
  });

  it('asks before leaving a changed form: Stay keeps the page and the typing, Leave goes', async () => {
    const router = setup();
    await userEvent.type(screen.getByLabelText('Name'), 'Day 2');
    await userEvent.click(screen.getByRole('link', { name: 'Reports' }));
    const dialog = await screen.findByRole('dialog', { name: 'Leave without saving?' });
    expect(dialog.textContent).toContain('Your changes to the days will be lost.');
    await userEvent.click(screen.getByRole('button', { name: 'Stay' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(router.state.location.pathname).toBe('/form');
    expect((screen.getByLabelText('Name') as HTMLInputElement).value).toBe('Day 2');

    await userEvent.click(screen.getByRole('link', { name: 'Reports' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Leave' }));
    expect(await screen.findByText('Elsewhere')).toBeTruthy();
  });

  it('does not ask once saved, nor for a #hash on the same page', async () => {
    const router = setup();
    await userEvent.type(screen.getByLabelText('Name'), 'x');
    await userEvent.click(screen.getByRole('link', { name: 'Jump' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(router.state.location.hash).toBe('#section');
    await userEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    await userEvent.click(screen.getByRole('link', { name: 'Reports' }));
    expect(await screen.findByText('Elsewhere')).toBeTruthy();
  });

  it('asks the browser before the tab closes only while changed', async () => {
    setup();
    const unload = () => {
      const e = new Event('beforeunload', { cancelable: true });
      fireEvent(window, e);
      return e.defaultPrevented;
    };
    expect(unload()).toBe(false);
    await userEvent.type(screen.getByLabelText('Name'), 'x');
    expect(unload()).toBe(true);
    await userEvent.clear(screen.getByLabelText('Name'));
    expect(unload()).toBe(false);
  });

  it('counts another path or query as leaving, not a hash', () => {
    expect(leavesPage(loc('/cadence/7'), loc('/reports'))).toBe(true);
    expect(leavesPage(loc('/content', '?client_id=a'), loc('/content', '?client_id=b'))).toBe(true);
    expect(leavesPage(loc('/cadence/7'), loc('/cadence/7', '', '#days'))).toBe(false);
  });
});
