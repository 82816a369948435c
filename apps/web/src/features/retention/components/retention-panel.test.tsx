import { notifications } from '@mantine/notifications';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RetentionSettings } from '@rally/shared/schemas/retention';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import type { Routes } from '../../../testing/fixtures.ts';
import { RetentionPanel } from './retention-panel.tsx';

/**
 * The data retention panel (issue 44: "Per client settings with safe defaults: raw engagement events
 * older than N months (default 25) …; export files 7 days; delivery logs 30 days; the audit log 1
 * year"): shows the current values, saves what changed, and shows loading and error states.
 */
const ACME = CLIENT_IDS.acme;
const URL = `/v1/rest/client/${ACME}/retention`;
const defaults: RetentionSettings = {
  events_months: 25,
  export_files_days: 7,
  delivery_logs_days: 30,
  audit_log_days: 365,
  updated_at: null,
};

async function signIn(routes: Routes) {
  const server = fakeServer({ ...acmeSession('purple_owner'), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

const render = () =>
  renderRoutes(
    [{ path: '/settings/audit-log', element: <RetentionPanel clientId={ACME} /> }],
    `/settings/audit-log`,
  );

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('Retention panel', () => {
  it('shows the current values and saves only what changed', async () => {
    const user = userEvent.setup();
    const server = await signIn({
      [`GET ${URL}`]: { body: defaults },
      [`PATCH ${URL}`]: (init) => ({
        body: { ...defaults, ...JSON.parse(String(init?.body)), updated_at: '2026-12-06T02:00:00.000Z' },
      }),
    });
    render();
    expect(screen.getByRole('status', { name: 'Loading retention settings' })).toBeInTheDocument();
    const events = await screen.findByLabelText('Raw engagement events (months)');
    expect(events).toHaveValue('25');
    expect(screen.getByLabelText('Export files (days)')).toHaveValue('7');
    expect(screen.getByLabelText('Delivery logs (days)')).toHaveValue('30');
    expect(screen.getByLabelText('Audit log (days)')).toHaveValue('365');
    const save = screen.getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();

    await user.clear(events);
    await user.type(events, '13');
    await user.click(save);
    await waitFor(() => expect(server.calls.some((c) => c.init?.method === 'PATCH')).toBe(true));
    const patch = server.calls.find((c) => c.init?.method === 'PATCH')!;
    expect(JSON.parse(String(patch.init?.body))).toEqual({ events_months: 13 });
    expect(await screen.findByText('The retention settings have been saved.')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Save' })).toBeDisabled());
    expect(screen.getByLabelText('Raw engagement events (months)')).toHaveValue('13');
  }, 30_000);

  it("shows the server's refusal on its field", async () => {
    const user = userEvent.setup();
    await signIn({
      [`GET ${URL}`]: { body: defaults },
      [`PATCH ${URL}`]: {
        status: 422,
        body: {
          message: 'body.audit_log_days: must be a whole number from 30 to 3650',
          errors: [{ field: 'body.audit_log_days', message: 'must be a whole number from 30 to 3650' }],
        },
      },
    });
    render();
    const audit = await screen.findByLabelText('Audit log (days)');
    await user.clear(audit);
    await user.type(audit, '40');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('This must be a whole number from 30 to 3650')).toBeInTheDocument();
  }, 30_000);

  it('shows a failed load with a way to try again', async () => {
    await signIn({ [`GET ${URL}`]: { status: 403, body: { message: 'You may not change the settings' } } });
    render();
    expect(await screen.findByText('Could not load retention settings')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });
});
