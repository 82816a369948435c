import { notifications } from '@mantine/notifications';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BUILT_IN_ROLES } from '@rally/shared';
import type { Invoice } from '@rally/shared/schemas/billing';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import { balanceQueryOptions } from '../api/billing.ts';
import { BillingScreen } from './billing-screen.tsx';

const ACME = CLIENT_IDS.acme;
const B = `/biller/client/${ACME}`;
const invoice = (over: Partial<Invoice> = {}): Invoice => ({
  id: '00000000-0000-4000-8000-0000000000a1',
  number: 'R-00001',
  status: 'paid',
  amount_cents: 20_000,
  currency: 'usd',
  period: '2026-03',
  reason: 'threshold',
  superprospects: 40,
  failure_reason: null,
  action_required: false,
  attempts: 1,
  next_attempt_at: null,
  paid_at: '2026-03-10T12:00:00.000Z',
  created_at: '2026-03-10T12:00:00.000Z',
  ...over,
});
const usage = {
  from: '2026-03-01',
  to: '2026-03-31',
  time_zone: 'UTC',
  total: { active: 0, estimated_payment: 0, estimated_supers: 0, super: 0 },
  by_date: [{ date: '2026-03-01', active: 0, super: 0 }],
};

async function signIn(role: keyof typeof BUILT_IN_ROLES, routes: Parameters<typeof fakeServer>[0] = {}) {
  const server = fakeServer({
    ...acmeSession(role),
    [`${B}/balance`]: {
      body: {
        amount: 21_500,
        currency: 'usd',
        updated_at: new Date().toISOString(),
        uncharged_supers: 3,
        unpaid_invoices_cents: 20_000,
      },
    },
    [`GET ${B}/card`]: { body: { provider: 'local', card: null } },
    [`${B}/subscription`]: {
      body: {
        plan: 'pay_as_you_go',
        plan_name: 'Pay as you go',
        status: 'active',
        unit_amount_cents: 500,
        currency: 'usd',
        charge_threshold: 40,
        current_period_start: '2026-03-01',
        current_period_end: '2026-03-31',
        cancel_at_period_end: false,
        started_at: '2026-01-01T00:00:00.000Z',
      },
    },
    [`${B}/chargebee/billing_address`]: { body: { billing_address: null } },
    [`/biller/biller/client/${ACME}/billing_info`]: { body: { billing_info: null, time_zone: 'UTC' } },
    [`${B}/invoices`]: { body: { invoices: [] } },
    [`${B}/usage`]: { body: usage },
    ...routes,
  });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

const render = () =>
  renderRoutes(
    [{ path: '/settings/billing', element: <BillingScreen /> }],
    `/settings/billing?client_id=${ACME}`,
  );

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('BillingScreen', () => {
  it('"Balance in cents, divided by 100", kept 10 minutes ("Cached balance valid 10 minutes")', async () => {
    await signIn('purple_owner');
    render();
    expect(await screen.findByTestId('balance-amount')).toHaveTextContent('$215.00');
    expect(balanceQueryOptions(ACME).staleTime).toBe(10 * 60_000);
  }, 20_000);

  it('empty states: no card, no invoices, no superprospects this month; an owner may add a card', async () => {
    await signIn('purple_owner');
    render();
    expect(await screen.findByText(/No card on file yet/)).toBeInTheDocument();
    expect(await screen.findByText(/No invoices yet/)).toBeInTheDocument();
    // The usage panel (and its chart library) loads lazily.
    expect(
      await screen.findByText(/No superprospects yet this month/, undefined, { timeout: 10_000 }),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Add a card' })).toBeInTheDocument();
    expect(screen.queryByText('Read-only')).toBeNull();
  }, 20_000);

  it('a blue_admin (no billing_details.write) sees everything read-only, with why', async () => {
    await signIn('blue_admin', { [`${B}/invoices`]: { body: { invoices: [invoice()] } } });
    render();
    expect(await screen.findByText('Read-only')).toBeInTheDocument();
    expect(screen.getByText(/billing_details\.write/)).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Invoice R-00001' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Add a card|Replace card/ })).toBeNull();
    expect(screen.queryByRole('button', { name: /Save/ })).toBeNull();
    expect(await screen.findByLabelText(/Invoice e-mail/)).toHaveAttribute('readonly');
  }, 20_000);

  it('an error loading invoices shows what failed and a way to try again', async () => {
    await signIn('purple_owner', { [`${B}/invoices`]: { status: 404, body: { message: 'Gone fishing' } } });
    render();
    const region = await screen.findByRole('region', { name: 'Invoices' });
    expect(await within(region).findByText('Could not load the invoices')).toBeInTheDocument();
    expect(within(region).getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  }, 20_000);

  it('a declined invoice says why, when it is tried again, and offers "Pay now"', async () => {
    await signIn('purple_owner', {
      [`${B}/invoices`]: {
        body: {
          invoices: [
            invoice({
              status: 'failed',
              paid_at: null,
              failure_reason: 'Your card was declined.',
              next_attempt_at: '2026-03-10T13:00:00.000Z',
            }),
          ],
        },
      },
    });
    render();
    const alert = await screen.findByRole('alert', { name: 'Invoice R-00001 could not be paid' });
    expect(alert).toHaveTextContent('$200.00 for 40 superprospects. Your card was declined.');
    expect(alert).toHaveTextContent('We will try again on Mar 10, 2026.');
    expect(within(alert).getByRole('button', { name: 'Pay now' })).toBeInTheDocument();
  }, 20_000);

  it('the local card form checks the number (Luhn) and sends only what the API takes', async () => {
    const visa = { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, updated_at: null };
    let onFile: typeof visa | null = null;
    const server = await signIn('purple_owner', {
      [`GET ${B}/card`]: () => ({ body: { provider: 'local', card: onFile } }),
      [`POST ${B}/card`]: () => {
        onFile = visa;
        return { body: { provider: 'local', card: visa } };
      },
    });
    const user = userEvent.setup({ delay: null });
    render();
    await user.click(await screen.findByRole('button', { name: 'Add a card' }));
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByLabelText('Card number'), '4242 4242 4242 4241');
    await user.type(within(dialog).getByLabelText('Expiry (MM/YY)'), '12/30');
    await user.type(within(dialog).getByLabelText('CVC'), '123');
    await user.click(within(dialog).getByRole('button', { name: 'Save card' }));
    expect(await within(dialog).findByText('Enter a valid card number')).toBeInTheDocument();
    expect(server.calls.some((c) => c.init?.method === 'POST')).toBe(false);

    await user.clear(within(dialog).getByLabelText('Card number'));
    await user.type(within(dialog).getByLabelText('Card number'), '4242 4242 4242 4242');
    await user.click(within(dialog).getByRole('button', { name: 'Save card' }));
    expect(await screen.findByText('Visa ending in 4242')).toBeInTheDocument();
    const post = server.calls.find((c) => c.init?.method === 'POST' && c.url === `${B}/card`);
    expect(JSON.parse(String(post?.init?.body))).toEqual({
      number: '4242424242424242',
      exp_month: 12,
      exp_year: 2030,
      cvc: '123',
    });
  }, 20_000);
});
