import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AdFieldsSettings } from '@rally/shared/schemas/ad-delivery';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import type { Role, Routes } from '../../../testing/fixtures.ts';
import { AdFieldsPanel } from './ad-fields-panel.tsx';

/** Issue 38: a connection's ad fields, as an owner sets them up and as an SDR reads them. */
const ACME = CLIENT_IDS.acme;
const BASE = `/v1/rest/client/${ACME}/ad_fields`;

const row = (patch: Partial<AdFieldsSettings> = {}): AdFieldsSettings => ({
  integration_id: 7,
  source: 'outreach',
  image_field: null,
  click_field: null,
  enabled: false,
  status: 'not_set_up',
  can_create_fields: false,
  instructions: 'In Outreach, an admin renames two custom fields.',
  targets_written: 0,
  targets_pending: 0,
  targets_failed: 0,
  last_written_at: null,
  last_error: null,
  ...patch,
});

async function signIn(role: Role, routes: Routes) {
  const server = fakeServer({ ...acmeSession(role), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

const render = (source: string, canWrite: boolean) =>
  renderRoutes(
    [
      {
        path: '/settings/integrations/*',
        element: <AdFieldsPanel clientId={ACME} source={source} canWrite={canWrite} />,
      },
    ],
    `/settings/integrations/${source}?client_id=${ACME}`,
  );

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('Ads in your e-mails (connection settings)', () => {
  it('shows the fields, the counts and the last error; an SDR can change nothing', async () => {
    await signIn('yellow_sdr', {
      [`GET ${BASE}`]: {
        body: {
          items: [
            row({
              image_field: 'custom149',
              click_field: 'custom150',
              enabled: true,
              status: 'error',
              targets_written: 1234,
              targets_pending: 56,
              targets_failed: 2,
              last_error: 'Outreach did not let Rally update prospects. Reconnect Outreach.',
            }),
          ],
        },
      },
    });
    render('outreach', false);
    const region = await screen.findByRole('region', { name: 'Ads in your e-mails' });
    expect(await within(region).findByText('Needs attention')).toBeInTheDocument();
    expect(within(region).getByText('custom149')).toBeInTheDocument();
    expect(
      within(region).getByText(/1,234 written · 56 waiting · 2 refused by Outreach/),
    ).toBeInTheDocument();
    expect(within(region).getByText(/Reconnect Outreach/)).toBeInTheDocument();
    expect(within(region).queryByRole('button')).toBeNull();
  });

  it('an owner asks Rally to create the fields and is told what to do where the vendor refuses', async () => {
    const user = userEvent.setup();
    await signIn('purple_owner', {
      [`GET ${BASE}`]: {
        body: { items: [row({ source: 'salesloft', can_create_fields: true, instructions: null })] },
      },
      [`POST ${BASE}/7/create`]: {
        status: 422,
        body: {
          message: 'Salesloft refused.',
          instructions: 'An admin opens Settings › Custom Fields › People.',
        },
      },
    });
    render('salesloft', true);
    const region = await screen.findByRole('region', { name: 'Ads in your e-mails' });
    await user.click(await within(region).findByRole('button', { name: 'Create the fields for me' }));
    expect(
      await within(region).findByText('An admin opens Settings › Custom Fields › People.'),
    ).toBeInTheDocument();
  });

  it('an owner picks two of the fields the vendor offers and turns writing on', async () => {
    const user = userEvent.setup();
    const server = await signIn('purple_owner', {
      [`GET ${BASE}`]: { body: { items: [row()] } },
      [`GET ${BASE}/7/available`]: {
        body: {
          items: [
            { name: 'custom149', label: 'Custom 149', object: null },
            { name: 'custom150', label: 'Custom 150', object: null },
          ],
        },
      },
      [`PUT ${BASE}/7`]: {
        body: row({ image_field: 'custom149', click_field: 'custom150', enabled: true, status: 'writing' }),
      },
    });
    render('outreach', true);
    const region = await screen.findByRole('region', { name: 'Ads in your e-mails' });
    expect(
      await within(region).findByText('In Outreach, an admin renames two custom fields.'),
    ).toBeInTheDocument();
    await user.click(within(region).getByRole('button', { name: 'Pick existing fields' }));
    // Each select's own list: both keep their options mounted (hidden) while closed.
    const pick = async (label: string, option: string) => {
      const input = await within(region).findByLabelText(label);
      await user.click(input);
      const list = document.getElementById(input.getAttribute('aria-controls') ?? '')!;
      await user.click(within(list).getByRole('option', { name: option, hidden: true }));
    };
    await pick('Ad image link goes in', 'Custom 149 — custom149');
    await pick('Click link goes in', 'Custom 150 — custom150');
    await user.click(within(region).getByRole('button', { name: 'Save and write' }));
    await waitFor(() => {
      const put = server.calls.find((c) => c.init?.method === 'PUT');
      expect(JSON.parse(String(put?.init?.body))).toEqual({
        image_field: 'custom149',
        click_field: 'custom150',
        enabled: true,
      });
    });
  });
});
