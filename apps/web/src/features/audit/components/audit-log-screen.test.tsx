import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditEntry, AuditVerifyReply } from '@rally/shared/schemas/audit';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import type { Role, Routes } from '../../../testing/fixtures.ts';
import { AuditLogScreen } from './audit-log-screen.tsx';

const ACME = CLIENT_IDS.acme;
const LOG = `/v1/rest/client/${ACME}/audit_log`;
const USERS = `/v1/rest/client/${ACME}/users`;

const entry = (seq: number, patch: Partial<AuditEntry> = {}): AuditEntry => ({
  id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
  seq,
  created_at: '2026-12-01T10:00:00.000Z',
  actor_user_id: 'u1',
  actor_email: 'dana@acme.com',
  action: 'settings.changed',
  target_kind: 'client_settings',
  target_id: ACME,
  details: { fields: ['logo_url', 'website_url'] },
  ip: '203.0.113.9',
  user_agent:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 Version/17.0 Safari/605.1.15',
  hash: 'a'.repeat(64),
  ...patch,
});
const verified: AuditVerifyReply = {
  ok: true,
  checked: 2,
  anchor_seq: 0,
  anchor_hash: '0'.repeat(64),
  first_broken: null,
  head_hash: 'a'.repeat(64),
};

async function signIn(role: Role, routes: Routes) {
  const server = fakeServer({ ...acmeSession(role), [`GET ${USERS}`]: { body: [] }, ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

const render = (isOwner = true) =>
  renderRoutes(
    [{ path: '/settings/audit-log', element: <AuditLogScreen clientId={ACME} isOwner={isOwner} /> }],
    `/settings/audit-log?client_id=${ACME}`,
  );

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('Audit log screen', () => {
  it('shows entries, the chain status, filters by action and pages to older entries', async () => {
    const user = userEvent.setup();
    const first = {
      items: [entry(3), entry(2, { action: 'auth.sign_in', details: { method: 'password' } })],
      next_cursor: 2,
    };
    const older = { items: [entry(1)], next_cursor: null };
    // The fake answers the page the cursor asks for (each call is recorded before it is answered).
    let calls: { url: string }[] = [];
    const server = await signIn('purple_owner', {
      [`GET ${LOG}`]: () => ({ body: calls.at(-1)?.url.includes('cursor=2') ? older : first }),
      [`GET ${LOG}/verify`]: { body: verified },
    });
    calls = server.calls;
    render();
    const table = await screen.findByRole('table', { name: 'Audit log entries' });
    expect(within(table).getByText('Changed settings')).toBeInTheDocument();
    expect(within(table).getByText('fields: logo_url, website_url')).toBeInTheDocument();
    expect(within(table).getByText('Signed in')).toBeInTheDocument();
    expect(within(table).getAllByText('Safari on macOS')).toHaveLength(2);
    expect(await screen.findByText('Chain verified')).toBeInTheDocument();

    await user.click(await screen.findByRole('button', { name: 'Show older entries' }));
    await waitFor(() => expect(within(table).getByText('#1')).toBeInTheDocument());
    expect(server.calls.some((c) => c.url.includes('cursor=2'))).toBe(true);
    expect(screen.queryByRole('button', { name: 'Show older entries' })).toBeNull();

    await user.selectOptions(screen.getByLabelText('Action'), 'auth.sign_in');
    await waitFor(() => expect(server.calls.some((c) => c.url.includes('action=auth.sign_in'))).toBe(true));
  }, 30_000);

  it('names a SCIM token as the actor of what provisioning changed (issue 44)', async () => {
    await signIn('purple_owner', {
      [`GET ${LOG}`]: {
        body: {
          items: [
            entry(4, {
              actor_user_id: null,
              actor_email: null,
              action: 'member.deactivated',
              target_kind: 'user',
              target_id: 'u9',
              details: { user_name: 'bjensen@example.com', actor: { kind: 'scim', id: 't1', name: 'Okta' } },
            }),
          ],
          next_cursor: null,
        },
      },
      [`GET ${LOG}/verify`]: { body: verified },
    });
    render();
    const table = await screen.findByRole('table', { name: 'Audit log entries' });
    expect(within(table).getByText('SCIM token “Okta”')).toBeInTheDocument();
    expect(within(table).getByText('Deactivated a member')).toBeInTheDocument();
    expect(within(table).getByText('user name: bjensen@example.com')).toBeInTheDocument();
  }, 30_000);

  it('says when nothing matches, and reports a broken chain at its entry', async () => {
    await signIn('purple_owner', {
      [`GET ${LOG}`]: { body: { items: [], next_cursor: null } },
      [`GET ${LOG}/verify`]: {
        body: {
          ...verified,
          ok: false,
          checked: 3,
          first_broken: { id: 'x', seq: 4, reason: 'its content does not match its hash' },
        },
      },
    });
    render();
    expect(await screen.findByText('Nothing has been recorded in this client yet.')).toBeInTheDocument();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The chain is broken');
    expect(alert).toHaveTextContent('Entry 4: its content does not match its hash');
  });

  it('shows the error with a way to try again', async () => {
    await signIn('purple_owner', {
      [`GET ${LOG}`]: { status: 422, body: { message: 'querystring.to: must not be before from' } },
      [`GET ${LOG}/verify`]: { body: verified },
    });
    render();
    expect(await screen.findByText('Could not load the audit log')).toBeInTheDocument();
    expect(screen.getAllByText('querystring.to: must not be before from').length).toBeGreaterThan(0);
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });

  it('tells a non-owner who can read it, without asking the server', async () => {
    const server = await signIn('blue_admin', {});
    render(false);
    expect(await screen.findByText(/Only owners of this client can read its audit log/)).toBeInTheDocument();
    expect(server.calls.some((c) => c.url.startsWith(LOG))).toBe(false);
  });
});
