import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { invoices } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeSupers, testClock } from '../../../test/billing.ts';
import { startFakeStripe } from '../../../test/fakes/stripe.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import { loadConfig } from '../../config/env.ts';
import { createCharging } from './charging.ts';

describe('stripe provider (ARCHITECTURE.md §6), against a fake of the Stripe API on loopback', async () => {
  const stripe = await startFakeStripe();
  afterAll(() => stripe.close());
  const clock = testClock('2026-03-10T12:00:00Z');
  const app = await createTestApp({
    workers: false,
    billingClock: clock.now,
    env: {
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_PUBLISHABLE_KEY: 'pk_test_fake',
      STRIPE_API_URL: stripe.url,
    },
  });

  async function ownerOf(name: string) {
    const clientId = await makeClient(app, name);
    const { browser } = await signedIn(app, { [clientId]: 'purple_owner' });
    return { clientId, browser, url: `/biller/client/${clientId}` };
  }
  const invoicesOf = (clientId: string) =>
    app.db.select().from(invoices).where(eq(invoices.clientId, clientId));
  const intentsOf = (customer: unknown) =>
    [...stripe.intents.values()].filter((i) => i.customer === customer);

  it("the card is a Stripe.js payment method: attached to the client's customer, made default; card numbers are refused", async () => {
    const { clientId, browser, url } = await ownerOf('Stripe Co');
    expect((await browser.get(`${url}/card`)).json()).toEqual({ provider: 'stripe', card: null });

    const refused = await browser.post(`${url}/card`, {
      number: '4242424242424242',
      exp_month: 12,
      exp_year: 2031,
      cvc: '123',
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().errors[0]).toMatchObject({
      field: 'body.number',
      message: expect.stringMatching(/Stripe\.js/),
    });
    const unknown = await browser.post(`${url}/card`, { payment_method_id: 'pm_doesnotexist' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors[0].field).toBe('body.payment_method_id');

    const pm = stripe.createPaymentMethod('4242424242424242');
    const res = await browser.post(`${url}/card`, { payment_method_id: pm });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      provider: 'stripe',
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2031 },
    });
    const customer = stripe.paymentMethods.get(pm)!.customer;
    expect(stripe.customers.get(customer!)).toMatchObject({
      name: 'Stripe Co',
      metadata: { client_id: clientId },
      invoice_settings: { default_payment_method: pm },
    });
    // No card number ever went from our server to Stripe, nor into our database.
    expect(stripe.bodies.join('\n')).not.toMatch(/4242424242424242/);
  });

  it('charges are off-session payment intents under our idempotency key: the job run twice makes one', async () => {
    const { clientId, browser, url } = await ownerOf('Charged Co');
    await browser.post(`${url}/card`, { payment_method_id: stripe.createPaymentMethod('4242424242424242') });
    await makeSupers(app.db, clientId, 40, new Date('2026-03-09T10:00:00Z'));
    await app.billing.charging.run();
    await app.billing.charging.run();
    const [invoice] = await invoicesOf(clientId);
    expect(invoice).toMatchObject({ status: 'paid', amountCents: 20_000 });
    const [account] = await app.database
      .execute(`select provider_customer_id from billing_accounts where client_id = '${clientId}'`)
      .then((r) => r.rows as { provider_customer_id: string }[]);
    const intents = intentsOf(account!.provider_customer_id);
    expect(intents).toHaveLength(1);
    expect(intents[0]).toMatchObject({
      amount: 20_000,
      currency: 'usd',
      status: 'succeeded',
      metadata: { rally_key: `${invoice!.idempotencyKey}/a1`, client_id: clientId },
    });
    expect(invoice!.providerChargeId).toBe(intents[0]!.id);
  });

  it("a charge Stripe made but we did not record is found again by its key (listing the customer's intents), not made twice", async () => {
    const { clientId, browser, url } = await ownerOf('Crash Co');
    await browser.post(`${url}/card`, { payment_method_id: stripe.createPaymentMethod('4242424242424242') });
    await makeSupers(app.db, clientId, 40, new Date('2026-03-09T10:00:00Z'));
    const crashing = createCharging({
      db: app.db,
      provider: app.billing.provider,
      now: clock.now,
      log: app.log,
      afterProviderCharge: () => {
        throw new Error('died before recording');
      },
    });
    await crashing.run({ clientId });
    expect((await invoicesOf(clientId))[0]).toMatchObject({ status: 'open' });
    clock.advance(5 * 60_000);
    await app.billing.charging.run();
    const [invoice] = await invoicesOf(clientId);
    expect(invoice).toMatchObject({ status: 'paid', chargingAt: null });
    const customer = stripe.intents.get(invoice!.providerChargeId!)!.customer;
    expect(intentsOf(customer)).toHaveLength(1);
  });

  it("a declined card: the invoice fails with Stripe's message", async () => {
    const { clientId, browser, url } = await ownerOf('Declined Co');
    await browser.post(`${url}/card`, { payment_method_id: stripe.createPaymentMethod('4000000000000002') });
    await makeSupers(app.db, clientId, 40, new Date('2026-03-09T10:00:00Z'));
    await app.billing.charging.run();
    expect((await invoicesOf(clientId))[0]).toMatchObject({
      status: 'failed',
      failureReason: 'Your card was declined.',
      attempts: 1,
    });
  });

  it('a bank asking for authentication: the payment waits; Stripe.js confirms it with the client secret, then it is recorded paid', async () => {
    const { clientId, browser, url } = await ownerOf('3DS Co');
    await browser.post(`${url}/card`, { payment_method_id: stripe.createPaymentMethod('4000002500003155') });
    await makeSupers(app.db, clientId, 40, new Date('2026-03-09T10:00:00Z'));
    await app.billing.charging.run();
    const [invoice] = await invoicesOf(clientId);
    expect(invoice).toMatchObject({ status: 'open', actionRequired: true });

    let res = await browser.post(`${url}/payment_intent`, { invoice_id: invoice!.id });
    expect(res.json()).toMatchObject({ status: 'requires_action', id: invoice!.providerChargeId });
    const secret = res.json().client_secret as string;
    expect(secret).toBe(stripe.intents.get(invoice!.providerChargeId!)!.client_secret);

    stripe.completeAction(invoice!.providerChargeId!);
    res = await browser.post(`${url}/payment_intent`, { invoice_id: invoice!.id, confirm: true });
    expect(res.json()).toMatchObject({ status: 'succeeded', invoice: { status: 'paid' } });
    expect(intentsOf(stripe.intents.get(invoice!.providerChargeId!)!.customer)).toHaveLength(1);
  });
});

describe('stripe configuration', () => {
  it('STRIPE_SECRET_KEY needs STRIPE_PUBLISHABLE_KEY (the browser collects cards with Stripe.js), and must look like a key', () => {
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'sk_test_x', DATA_DIR: 'memory://' })).toThrow(
      /STRIPE_PUBLISHABLE_KEY: is required when STRIPE_SECRET_KEY is set/,
    );
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'pk_oops', DATA_DIR: 'memory://' })).toThrow(
      /STRIPE_SECRET_KEY: must start with sk_/,
    );
    const config = loadConfig({
      STRIPE_SECRET_KEY: 'sk_test_x',
      STRIPE_PUBLISHABLE_KEY: 'pk_test_x',
      DATA_DIR: 'memory://',
    });
    expect(config.stripe).toEqual({ secretKey: 'sk_test_x', apiUrl: null });
    expect(loadConfig({ DATA_DIR: 'memory://' }).stripe).toBeNull();
  });
});
