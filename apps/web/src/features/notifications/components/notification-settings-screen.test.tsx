import { notifications } from '@mantine/notifications';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { acmeSession, CLIENT_IDS } from '../../../testing/fixtures.ts';
import type { Role, Routes } from '../../../testing/fixtures.ts';
import { fakeServer, renderWithRouter } from '../../../testing/render.tsx';
import { NotificationSettingsScreen } from './notification-settings-screen.tsx';

const ACME = CLIENT_IDS.acme;
const path = `/v1/rest/client/${ACME}/sdr_notifications`;
const MAYA = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c00d001';
const OMAR = '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c00d002';
const reps = (mayaSuper = false) => ({
  reps: [
    {
      sales_rep_id: MAYA,
      name: 'Maya Lindgren',
      email: 'maya@acme.example',
      super_email: mayaSuper,
      digest: 'off',
      last_digest_at: null,
    },
    {
      sales_rep_id: OMAR,
      name: 'Omar Said',
      email: null,
      super_email: false,
      digest: 'weekly',
      last_digest_at: null,
    },
  ],
});

async function open(role: Role, routes: Routes) {
  const server = fakeServer({ ...acmeSession(role), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  renderWithRouter(<NotificationSettingsScreen />, `/client-settings/notifications?client_id=${ACME}`);
  return server;
}

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('NotificationSettingsScreen (issue 17)', () => {
  it('an owner turns on a superprospect e-mail and a daily digest, and saves only that rep', async () => {
    let saved = false;
    const server = await open('purple_owner', {
      [`GET ${path}`]: () => ({ body: reps(saved) }),
      [`POST ${path}`]: () => {
        saved = true;
        return { body: reps(true) };
      },
    });
    const table = await screen.findByRole('table', { name: 'Notifications per sales rep' });
    expect(within(table).getByText('No e-mail: nothing can be sent')).toBeInTheDocument();
    const save = screen.getByRole('button', { name: 'Save notifications' });
    expect(save).toBeDisabled();
    await userEvent.click(
      screen.getByRole('switch', { name: 'E-mail Maya Lindgren about new superprospects' }),
    );
    await userEvent.click(screen.getAllByLabelText('Digest for Maya Lindgren')[0]!);
    await userEvent.click((await screen.findAllByRole('option', { name: 'Daily', hidden: true }))[0]!);
    expect(screen.getByText('1 rep changed')).toBeInTheDocument();
    await userEvent.click(save);
    expect(await screen.findByText('Notifications saved.')).toBeInTheDocument();
    const post = server.calls.find((c) => c.init?.method === 'POST');
    expect(JSON.parse(String(post?.init?.body))).toEqual({
      reps: [{ sales_rep_id: MAYA, super_email: true, digest: 'daily' }],
    });
  });

  it('an SDR sees the settings read-only', async () => {
    await open('yellow_sdr', { [`GET ${path}`]: { body: reps() } });
    await screen.findByRole('table', { name: 'Notifications per sales rep' });
    expect(screen.getByText(/needs permission to change the settings/)).toBeInTheDocument();
    expect(
      screen.getByRole('switch', { name: 'E-mail Maya Lindgren about new superprospects' }),
    ).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'Save notifications' })).not.toBeInTheDocument();
  });

  it('no reps yet, and a failed load with a way to try again', async () => {
    await open('purple_owner', { [`GET ${path}`]: { body: { reps: [] } } });
    expect(await screen.findByText(/No sales reps yet/)).toBeInTheDocument();
    resetAuth();
    vi.unstubAllGlobals();
    await open('purple_owner', { [`GET ${path}`]: { status: 500, body: { message: 'boom' } } });
    expect(
      await screen.findByText('Could not load notifications', {}, { timeout: 15_000 }),
    ).toBeInTheDocument();
  });
});
