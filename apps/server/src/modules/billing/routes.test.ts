import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { invoices } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeSupers, testClock } from '../../../test/billing.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';

const CARD = { number: '4242 4242 4242 4242', exp_month: 12, exp_year: 2031, cvc: '123' };
const ADDRESS = { line1: '1 Main St', city: 'Springfield', zip: '12345', country: 'us' };
const INFO = { billing_email: 'ap@example.com', company_name: 'Mine Inc', time_zone: 'Europe/Paris' };

describe('Billing (/biller) calls (SPEC.md §7)', async () => {
  const clock = testClock('2026-03-20T12:00:00Z');
  const app = await createTestApp({ workers: false, billingClock: clock.now });
  const mine = await makeClient(app, 'Mine Inc');
  const other = await makeClient(app, 'Other Co');
  const { browser: owner } = await signedIn(app, { [mine]: 'purple_owner', [other]: 'grey_viewer' });
  const { browser: admin } = await signedIn(app, { [mine]: 'blue_admin' });
  const { browser: sdr } = await signedIn(app, { [mine]: 'yellow_sdr' });
  const { browser: manager } = await signedIn(app, { [mine]: 'green_manager' });
  const { browser: stranger } = await signedIn(app, { [other]: 'purple_owner' });
  const base = `/biller/client/${mine}`;

  /** The same call from someone who is not a member of `mine` (their own client in x-client-id, mine in the path). */
  const foreign = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    stranger.request({ method, url, payload: payload as never, clientId: mine });

  it('card: "GET and POST /client/{id}/card" — none at first, then a test card kept as brand/last4/expiry only', async () => {
    let res = await owner.get(`${base}/card`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ provider: 'local', card: null });

    res = await owner.post(`${base}/card`, CARD);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      provider: 'local',
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2031 },
    });
    expect(res.body).not.toContain('4242424242424242');
    // Nothing but the summary is stored anywhere.
    const dump = JSON.stringify(await app.database.execute('select * from billing_accounts'));
    const pms = JSON.stringify(await app.database.execute('select * from billing_local_payment_methods'));
    expect(dump + pms).not.toMatch(/4242424242424242|4242 4242/);
    expect((await owner.get(`/sc/client/${mine}/card`)).json()).toMatchObject({ card: { last4: '4242' } });
  });

  it('card: bad input is 422 naming the field (Luhn, expiry, CVC, non-test numbers, missing fields)', async () => {
    const cases: [unknown, string][] = [
      [{ ...CARD, number: '4242 4242 4242 4241' }, 'body.number'],
      [{ ...CARD, exp_month: 13 }, 'body.exp_month'],
      [{ ...CARD, exp_year: 2020 }, 'body.exp_year'],
      [{ ...CARD, cvc: '12' }, 'body.cvc'],
      [{ ...CARD, number: '4111 1111 1111 1111' }, 'body.number'],
      [{}, 'body.number'],
      [{ payment_method_id: 'not-a-pm' }, 'body.payment_method_id'],
      [{ payment_method_id: 'pm_123456' }, 'body.payment_method_id'],
      [{ setup_intent_id: 'not-a-seti' }, 'body.setup_intent_id'],
      // The built-in provider takes test card numbers, not Stripe SetupIntents.
      [{ setup_intent_id: 'seti_123456' }, 'body.setup_intent_id'],
    ];
    for (const [body, field] of cases) {
      const res = await owner.post(`${base}/card`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(
        res.json().errors.map((e: { field: string }) => e.field),
        JSON.stringify(body),
      ).toContain(field);
    }
  });

  it('card setup (a Stripe SetupIntent) is 409 with the built-in provider, which takes test cards directly', async () => {
    const res = await owner.post(`${base}/card/setup_intent`, {});
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toMatch(/test card/);
  });

  it('billing address: GET/PUT /client/{id}/chargebee/billing_address', async () => {
    expect((await owner.get(`${base}/chargebee/billing_address`)).json()).toEqual({ billing_address: null });
    const res = await owner.put(`${base}/chargebee/billing_address`, ADDRESS);
    expect(res.statusCode).toBe(200);
    expect(res.json().billing_address).toMatchObject({ line1: '1 Main St', country: 'US', line2: '' });
    expect((await admin.get(`${base}/chargebee/billing_address`)).json().billing_address.city).toBe(
      'Springfield',
    );
    const bad = await owner.put(`${base}/chargebee/billing_address`, {
      ...ADDRESS,
      country: 'USA',
      city: '',
    });
    expect(bad.statusCode).toBe(422);
    expect(
      bad
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['body.city', 'body.country']);
  });

  it("billing info: GET/PUT /biller/biller/client/{id}/billing_info (the spec's path, /biller twice)", async () => {
    const url = `/biller/biller/client/${mine}/billing_info`;
    expect((await owner.get(url)).json()).toEqual({ billing_info: null, time_zone: 'UTC' });
    const res = await owner.put(url, INFO);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      billing_info: { ...INFO, tax_id: '', po_number: '' },
      time_zone: 'Europe/Paris',
    });
    for (const [body, field] of [
      [{ ...INFO, billing_email: 'nope' }, 'body.billing_email'],
      [{ ...INFO, time_zone: 'Mars/Olympus' }, 'body.time_zone'],
    ] as const) {
      const bad = await owner.put(url, body);
      expect(bad.statusCode).toBe(422);
      expect(bad.json().errors[0].field).toBe(field);
    }
  });

  it('subscription: GET shows the plan and this billing month (client time zone); PUT cancels at period end or renews', async () => {
    let res = await owner.get(`${base}/subscription`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      plan: 'pay_as_you_go',
      status: 'active',
      unit_amount_cents: 500,
      charge_threshold: 40,
      current_period_start: '2026-03-01',
      current_period_end: '2026-03-31',
      cancel_at_period_end: false,
    });
    res = await owner.put(`${base}/subscription`, { cancel_at_period_end: true });
    expect(res.json().cancel_at_period_end).toBe(true);
    res = await owner.put(`${base}/subscription`, { cancel_at_period_end: false });
    expect(res.json().cancel_at_period_end).toBe(false);
    const bad = await owner.put(`${base}/subscription`, { cancel_at_period_end: 'soon' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('body.cancel_at_period_end');
  });

  it('balance, invoices and usage: uncharged superprospects × 500 plus unpaid invoices; the invoice and its lines', async () => {
    await makeSupers(app.db, mine, 40, new Date('2026-03-18T10:00:00Z'));
    await makeSupers(app.db, mine, 2, new Date('2026-03-19T22:30:00Z')); // 23:30 on the 19th in Paris
    let res = await owner.get(`${base}/balance`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      amount: 42 * 500,
      currency: 'usd',
      updated_at: '2026-03-20T12:00:00.000Z',
      uncharged_supers: 42,
      unpaid_invoices_cents: 0,
    });
    await app.billing.charging.run();
    res = await owner.get(`${base}/balance`);
    expect(res.json()).toMatchObject({ amount: 1000, uncharged_supers: 2, unpaid_invoices_cents: 0 });

    res = await owner.get(`${base}/invoices`);
    expect(res.statusCode).toBe(200);
    const [invoice] = res.json().invoices;
    expect(invoice).toMatchObject({
      status: 'paid',
      amount_cents: 20_000,
      superprospects: 40,
      reason: 'threshold',
    });
    res = await admin.get(`${base}/invoices/${invoice.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      invoice: { id: invoice.id, number: invoice.number },
      client_name: 'Mine Inc',
      billing_address: { line1: '1 Main St' },
      card: { last4: '4242' },
    });
    expect(res.json().lines).toHaveLength(40);
    expect(res.json().lines[0]).toMatchObject({ cadence_name: 'Q3 Outbound', amount_cents: 500 });

    expect((await owner.get(`${base}/invoices/not-a-uuid`)).json().errors[0].field).toBe('params.invoiceId');
    expect((await owner.get(`${base}/invoices/${crypto.randomUUID()}`)).statusCode).toBe(404);

    // Usage by date in the client's zone (Europe/Paris): the 2 made at 22:30 UTC count on the 19th.
    res = await owner.get(`${base}/usage`);
    expect(res.statusCode).toBe(200);
    const usage = res.json();
    expect(usage).toMatchObject({ from: '2026-03-01', to: '2026-03-31', time_zone: 'Europe/Paris' });
    expect(usage.by_date).toHaveLength(31);
    expect(usage.by_date.find((d: { date: string }) => d.date === '2026-03-18').super).toBe(40);
    expect(usage.by_date.find((d: { date: string }) => d.date === '2026-03-19').super).toBe(2);
    // 42 so far over 20 days, 11 days left: 42 + round(42/20 × 11) = 65; × 500 cents.
    expect(usage.total).toEqual({ active: 0, super: 42, estimated_supers: 65, estimated_payment: 65 * 500 });
    const from = Date.parse('2026-03-19T00:00:00+01:00') / 1000;
    const to = Date.parse('2026-03-19T12:00:00+01:00') / 1000;
    res = await owner.get(`${base}/usage?from=${from}&to=${to}`);
    expect(res.json().by_date).toEqual([{ date: '2026-03-19', super: 2, active: 0 }]);
    const bad = await owner.get(`${base}/usage?from=${to}&to=${from}`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('querystring.to');
    expect((await owner.get(`${base}/usage?from=yesterday`)).json().errors[0].field).toBe('querystring.from');
  });

  it('payment_intent: a declined invoice paid now with a new card; bad input; a paid invoice is 409', async () => {
    const [paid] = await app.db.select().from(invoices).where(eq(invoices.clientId, mine));
    let res = await owner.post(`${base}/payment_intent`, { invoice_id: paid!.id });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toMatch(/already paid/);
    res = await owner.post(`${base}/payment_intent`, { invoice_id: 'x' });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe('body.invoice_id');
    res = await owner.post(`${base}/payment_intent`, { invoice_id: crypto.randomUUID() });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe('body.invoice_id');
  });

  it('payment_intent: a card that needs authentication leaves the invoice waiting; confirming pays it (3-D Secure style)', async () => {
    const client = await makeClient(app, 'Auth Co');
    const { browser } = await signedIn(app, { [client]: 'purple_owner' });
    const url = `/biller/client/${client}`;
    expect((await browser.post(`${url}/card`, { ...CARD, number: '4000002500003155' })).statusCode).toBe(200);
    await makeSupers(app.db, client, 40, new Date('2026-03-19T10:00:00Z'));
    await app.billing.charging.run();
    let [invoice] = (await browser.get(`${url}/invoices`)).json().invoices;
    expect(invoice).toMatchObject({ status: 'open', action_required: true });
    expect(invoice.failure_reason).toMatch(/confirm/);
    // The job does not charge it again while it waits for the payer.
    await app.billing.charging.run();

    let res = await browser.post(`${url}/payment_intent`, { invoice_id: invoice.id });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'requires_action', amount_cents: 20_000 });
    expect(res.json().client_secret).toEqual(expect.any(String));
    res = await browser.post(`${url}/payment_intent`, { invoice_id: invoice.id, confirm: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'succeeded',
      invoice: { status: 'paid', action_required: false },
    });
    const charges = await app.database.execute(
      `select count(*)::int as n from billing_local_charges where client_id = '${client}'`,
    );
    expect(charges.rows).toEqual([{ n: 1 }]);
    [invoice] = (await browser.get(`${url}/invoices`)).json().invoices;
    expect(invoice.status).toBe('paid');
    res = await browser.post(`${url}/payment_intent`, { invoice_id: invoice.id, confirm: true });
    expect(res.statusCode).toBe(409);
  });

  it('payment_intent: "Pay now" charges a failed invoice with the card on file', async () => {
    const client = await makeClient(app, 'Declined Co');
    const { browser } = await signedIn(app, { [client]: 'purple_owner' });
    const url = `/biller/client/${client}`;
    await browser.post(`${url}/card`, { ...CARD, number: '4000000000000002' });
    await makeSupers(app.db, client, 40, new Date('2026-03-19T10:00:00Z'));
    await app.billing.charging.run();
    const [invoice] = (await browser.get(`${url}/invoices`)).json().invoices;
    expect(invoice).toMatchObject({ status: 'failed', failure_reason: 'Your card was declined.' });
    let res = await browser.post(`${url}/payment_intent`, { invoice_id: invoice.id });
    expect(res.json()).toMatchObject({ status: 'failed', invoice: { status: 'failed', attempts: 2 } });
    await browser.post(`${url}/card`, { ...CARD, number: '5555555555554444' });
    res = await browser.post(`${url}/payment_intent`, { invoice_id: invoice.id });
    expect(res.json()).toMatchObject({ status: 'succeeded', invoice: { status: 'paid' } });
  });

  it('permissions: blue_admin reads but cannot write; green_manager and yellow_sdr can do neither (403)', async () => {
    const reads = [
      `${base}/balance`,
      `${base}/card`,
      `/sc/client/${mine}/card`,
      `${base}/subscription`,
      `${base}/chargebee/billing_address`,
      `/biller/biller/client/${mine}/billing_info`,
      `${base}/invoices`,
      `${base}/invoices/${crypto.randomUUID()}`,
      `${base}/usage`,
    ];
    const writes: ['POST' | 'PUT', string, unknown][] = [
      ['POST', `${base}/card`, CARD],
      ['POST', `${base}/payment_intent`, { invoice_id: crypto.randomUUID() }],
      ['PUT', `${base}/subscription`, { cancel_at_period_end: true }],
      ['PUT', `${base}/chargebee/billing_address`, ADDRESS],
      ['PUT', `/biller/biller/client/${mine}/billing_info`, INFO],
    ];
    for (const url of reads) {
      expect((await admin.get(url)).statusCode, url).not.toBe(403);
      for (const b of [manager, sdr]) {
        const res = await b.get(url);
        expect(res.statusCode, url).toBe(403);
        expect(res.json().message).toMatch(/billing_details\.read/);
      }
    }
    for (const [method, url, payload] of writes) {
      for (const b of [admin, manager, sdr]) {
        const res = await b.request({ method, url, payload: payload as never });
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json().message).toMatch(/billing_details\.write/);
      }
    }
  });

  it('foreign tenant: a member of another client is refused (403) on every billing call, and sees nothing', async () => {
    const calls: ['GET' | 'POST' | 'PUT', string, unknown?][] = [
      ['GET', `${base}/balance`],
      ['GET', `${base}/card`],
      ['POST', `${base}/card`, CARD],
      ['GET', `/sc/client/${mine}/card`],
      ['POST', `${base}/payment_intent`, { invoice_id: crypto.randomUUID() }],
      ['GET', `${base}/subscription`],
      ['PUT', `${base}/subscription`, { cancel_at_period_end: true }],
      ['GET', `${base}/chargebee/billing_address`],
      ['PUT', `${base}/chargebee/billing_address`, ADDRESS],
      ['GET', `/biller/biller/client/${mine}/billing_info`],
      ['PUT', `/biller/biller/client/${mine}/billing_info`, INFO],
      ['GET', `${base}/invoices`],
      ['GET', `${base}/usage`],
    ];
    for (const [method, url, payload] of calls) {
      const res = await foreign(method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      // Their own client in the header, mine in the path: refused too.
      const mixed = await stranger.request({ method, url, payload: payload as never, clientId: other });
      expect(mixed.statusCode, `${method} ${url}`).toBe(403);
    }
    // Another client's invoice id under my own client is not found.
    const [mineInvoice] = await app.db.select().from(invoices).where(eq(invoices.clientId, mine));
    const res = await stranger.get(`/biller/client/${other}/invoices/${mineInvoice!.id}`, {
      clientId: other,
    });
    expect(res.statusCode).toBe(404);
    expect((await new Browser(app).get(`${base}/balance`, { clientId: mine })).statusCode).toBe(401);
  });
});
