import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { invoices } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeSupers, testClock } from '../../../test/billing.ts';
import { startFakeStripe } from '../../../test/fakes/stripe.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import type { Browser } from '../../../test/http.ts';
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

  /** What the card form does: a SetupIntent from us, confirmed by Stripe.js, its id back to us. */
  async function addCard(browser: Browser, url: string, number: string) {
    const setup = await browser.post(`${url}/card/setup_intent`, {});
    expect(setup.statusCode).toBe(200);
    const pm = stripe.confirmCardSetup(setup.json().client_secret, number);
    const res = await browser.post(`${url}/card`, { setup_intent_id: setup.json().setup_intent_id });
    return { pm, res, setupIntentId: setup.json().setup_intent_id as string };
  }

  it("the card is confirmed through a SetupIntent for off-session use; its payment method becomes the customer's default; card numbers and bare payment methods are refused", async () => {
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
    // Before: a Stripe.js payment method id was attached as is (paymentMethods.attach).
    const bare = await browser.post(`${url}/card`, {
      payment_method_id: stripe.createPaymentMethod('4242424242424242'),
    });
    expect(bare.statusCode).toBe(422);
    expect(bare.json().errors[0]).toMatchObject({
      field: 'body.payment_method_id',
      message: expect.stringMatching(/SetupIntent/),
    });
    const unknown = await browser.post(`${url}/card`, { setup_intent_id: 'seti_doesnotexist' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors[0].field).toBe('body.setup_intent_id');

    const { pm, res, setupIntentId } = await addCard(browser, url, '4242424242424242');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      provider: 'stripe',
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2031 },
    });
    const setup = stripe.setupIntents.get(setupIntentId)!;
    expect(setup).toMatchObject({ usage: 'off_session', status: 'succeeded', payment_method: pm });
    expect(stripe.customers.get(setup.customer)).toMatchObject({
      name: 'Stripe Co',
      metadata: { client_id: clientId },
      invoice_settings: { default_payment_method: pm },
    });
    expect(stripe.requests.filter((r) => r.endsWith('/attach'))).toEqual([]);
    // No card number ever went from our server to Stripe, nor into our database.
    expect(stripe.bodies.join('\n')).not.toMatch(/4242424242424242/);
  });

  it('a SetupIntent not yet confirmed, or made for another client, is refused and changes nothing', async () => {
    const a = await ownerOf('Setup A');
    const b = await ownerOf('Setup B');
    const pending = (await a.browser.post(`${a.url}/card/setup_intent`, {})).json();
    let res = await a.browser.post(`${a.url}/card`, { setup_intent_id: pending.setup_intent_id });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({
      field: 'body.setup_intent_id',
      message: expect.stringMatching(/not confirmed/),
    });
    // B confirms a card on A's SetupIntent id: B's customer does not own it.
    stripe.confirmCardSetup(pending.client_secret, '4242424242424242');
    await b.browser.post(`${b.url}/card/setup_intent`, {});
    res = await b.browser.post(`${b.url}/card`, { setup_intent_id: pending.setup_intent_id });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe('body.setup_intent_id');
    expect((await b.browser.get(`${b.url}/card`)).json().card).toBeNull();
    // Permission: a viewer cannot start a setup.
    const { browser: viewer } = await signedIn(app, { [a.clientId]: 'grey_viewer' });
    expect((await viewer.post(`${a.url}/card/setup_intent`, {})).statusCode).toBe(403);
  });

  it('4000 0025 0000 3155 set up through a SetupIntent is charged off-session without the payer (before, attached bare: the bank asked for authentication)', async () => {
    const { clientId, browser, url } = await ownerOf('SCA Co');
    await addCard(browser, url, '4000002500003155');
    await makeSupers(app.db, clientId, 40, new Date('2026-03-09T10:00:00Z'));
    await app.billing.charging.run();
    expect((await invoicesOf(clientId))[0]).toMatchObject({ status: 'paid', actionRequired: false });
  });

  it('charges are off-session payment intents under our idempotency key: the job run twice makes one', async () => {
    const { clientId, browser, url } = await ownerOf('Charged Co');
    await addCard(browser, url, '4242424242424242');
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
    await addCard(browser, url, '4242424242424242');
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
    await addCard(browser, url, '4000000000000002');
    await makeSupers(app.db, clientId, 40, new Date('2026-03-09T10:00:00Z'));
    await app.billing.charging.run();
    expect((await invoicesOf(clientId))[0]).toMatchObject({
      status: 'failed',
      failureReason: 'Your card was declined.',
      attempts: 1,
    });
  });

  it('a bank asking for authentication on every payment (4000 0027 6000 3184): the payment waits; Stripe.js confirms it with the client secret, then it is recorded paid', async () => {
    const { clientId, browser, url } = await ownerOf('3DS Co');
    await addCard(browser, url, '4000002760003184');
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
    expect(config.stripe).toEqual({ secretKey: 'sk_test_x', apiUrl: null, webhookSecret: null });
    expect(() =>
      loadConfig({
        STRIPE_SECRET_KEY: 'sk_test_x',
        STRIPE_PUBLISHABLE_KEY: 'pk_test_x',
        STRIPE_WEBHOOK_SECRET: 'sk_wrong',
        DATA_DIR: 'memory://',
      }),
    ).toThrow(/STRIPE_WEBHOOK_SECRET: must start with whsec_/);
    expect(loadConfig({ DATA_DIR: 'memory://' }).stripe).toBeNull();
  });
});
