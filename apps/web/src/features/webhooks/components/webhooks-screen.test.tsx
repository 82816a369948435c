import { notifications } from '@mantine/notifications';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BUILT_IN_ROLES } from '@rally/shared';
import type { WebhookDelivery, WebhookEndpoint } from '@rally/shared/schemas/hookly';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { WebhooksScreen } from './webhooks-screen.tsx';

const ACME = CLIENT_IDS.acme;
const BASE = `/v1/hookly/client/${ACME}/settings`;
const EVENTS = ['superprospect', 'click', 'landing_page_view', 'sync_finished', 'import_finished', 'invoice'];
const ENDPOINT_ID = '00000000-0000-4000-8000-0000000000e1';
const endpoint: WebhookEndpoint = {
  id: ENDPOINT_ID,
  url: 'https://hooks.example.com/rally',
  description: 'CRM bridge',
  events: ['click', 'invoice'],
  enabled: true,
  secret_hint: '…abcd',
  previous_secret_expires_at: null,
  disabled_reason: null,
  created_at: '2026-11-25T10:00:00.000Z',
  updated_at: '2026-11-25T10:00:00.000Z',
  last_delivery: null,
};
const delivery: WebhookDelivery = {
  id: '00000000-0000-4000-8000-0000000000d1',
  endpoint_id: ENDPOINT_ID,
  event_type: 'invoice',
  webhook_id: 'msg_1',
  is_test: false,
  status: 'failed',
  attempts: 5,
  last_error: 'The endpoint answered HTTP 500: try later',
  last_status_code: 500,
  next_attempt_at: null,
  delivered_at: null,
  created_at: '2026-11-25T10:05:00.000Z',
};

async function signIn(role: keyof typeof BUILT_IN_ROLES, routes: Parameters<typeof fakeServer>[0]) {
  const server = fakeServer({ ...acmeSession(role), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

/** Chooses events in the shared multiselect: open it, then click each option (the list is in a portal). */
async function pickEvents(user: ReturnType<typeof userEvent.setup>, form: HTMLElement, names: RegExp[]) {
  for (const name of names) {
    fireEvent.click(within(form).getByRole('combobox', { name: /Events/ }));
    // jsdom never ends the dropdown's opening transition, so the options count as hidden there.
    await user.click(await screen.findByRole('option', { name, hidden: true }));
  }
}

const render = () =>
  renderRoutes(
    [{ path: '/settings/integrations/*', element: <WebhooksScreen /> }],
    `/settings/integrations/webhooks?client_id=${ACME}`,
  );

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('WebhooksScreen', () => {
  it('empty: says so; an owner adds an endpoint, checked in the form first, and sees the secret once', async () => {
    let created = false;
    const server = await signIn('purple_owner', {
      [`GET ${BASE}`]: () => ({ body: { endpoints: created ? [endpoint] : [], events: EVENTS } }),
      [`POST ${BASE}`]: () => {
        created = true;
        return { status: 201, body: { endpoint, secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTE=' } };
      },
      [`GET ${BASE}/${ENDPOINT_ID}/deliveries`]: { body: { deliveries: [] } },
    });
    const user = userEvent.setup();
    render();
    expect(await screen.findByText('No webhook endpoints yet')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Add endpoint' }));
    const form = screen.getByRole('form', { name: 'Add endpoint' });
    await user.click(within(form).getByRole('button', { name: 'Add endpoint' }));
    expect(within(form).getByText('Enter the URL Rally should post to.')).toBeInTheDocument();
    expect(within(form).getByText('Choose at least one event.')).toBeInTheDocument();
    expect(server.calls.some((c) => c.init?.method === 'POST')).toBe(false);

    await user.type(within(form).getByRole('textbox', { name: /Endpoint URL/ }), endpoint.url);
    await pickEvents(user, form, [/Ad click/, /Invoice/]);
    await user.click(within(form).getByRole('button', { name: 'Add endpoint' }));
    const secret = await screen.findByRole('textbox', { name: 'Signing secret' });
    expect(secret).toHaveValue('whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTE=');
    const post = server.calls.find((c) => c.init?.method === 'POST');
    expect(JSON.parse(String(post!.init!.body))).toEqual({ url: endpoint.url, events: ['click', 'invoice'] });
    expect(await screen.findByRole('region', { name: `Endpoint ${endpoint.url}` })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Hide the secret' }));
    expect(screen.queryByRole('textbox', { name: 'Signing secret' })).toBeNull();
  });

  it('a 422 naming body.url shows under the URL field', async () => {
    await signIn('purple_owner', {
      [`GET ${BASE}`]: { body: { endpoints: [], events: EVENTS } },
      [`POST ${BASE}`]: {
        status: 422,
        body: {
          message: 'body.url: must point to a public internet address',
          errors: [{ field: 'body.url', message: 'must point to a public internet address' }],
        },
      },
    });
    const user = userEvent.setup();
    render();
    await user.click(await screen.findByRole('button', { name: 'Add endpoint' }));
    const form = screen.getByRole('form', { name: 'Add endpoint' });
    await user.type(within(form).getByRole('textbox', { name: /Endpoint URL/ }), 'https://10.0.0.1/x');
    await pickEvents(user, form, [/Ad click/]);
    await user.click(within(form).getByRole('button', { name: 'Add endpoint' }));
    expect(await within(form).findByText('This must point to a public internet address')).toBeInTheDocument();
  });

  it.each(['yellow_sdr', 'grey_viewer'] as const)(
    'a %s (no integration.write) is told who sees webhooks, and nothing is asked of the server',
    async (role) => {
      const server = await signIn(role, {});
      render();
      expect(await screen.findByText('Only owners and admins see webhooks')).toBeInTheDocument();
      expect(server.calls.some((c) => c.url.includes('/hookly/'))).toBe(false);
      for (const name of ['Add endpoint', 'Send test', 'Delete', 'New secret']) {
        expect(screen.queryByRole('button', { name })).toBeNull();
      }
    },
  );

  it('an owner sees each endpoint with its delivery log', async () => {
    await signIn('purple_owner', {
      [`GET ${BASE}`]: { body: { endpoints: [endpoint], events: EVENTS } },
      [`GET ${BASE}/${ENDPOINT_ID}/deliveries`]: { body: { deliveries: [delivery] } },
    });
    render();
    const log = await screen.findByRole('table', { name: 'Delivery log' });
    const row = within(log).getAllByRole('row')[1]!;
    expect(within(row).getByText('Invoice')).toBeInTheDocument();
    expect(within(row).getByText('Failed')).toBeInTheDocument();
    expect(within(row).getByText('5')).toBeInTheDocument();
    expect(within(row).getByText(/HTTP 500: try later/)).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: 'Enabled' })).toBeChecked();
  });

  it('a failed load shows the error with a retry', async () => {
    let fail = true;
    await signIn('purple_owner', {
      [`GET ${BASE}`]: () =>
        fail
          ? { status: 403, body: { message: 'Access Denied: you are not a member of this client.' } }
          : { body: { endpoints: [], events: EVENTS } },
    });
    const user = userEvent.setup();
    render();
    expect(await screen.findByText('Could not load your webhooks')).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(screen.getByText('No webhook endpoints yet')).toBeInTheDocument());
  });
});
