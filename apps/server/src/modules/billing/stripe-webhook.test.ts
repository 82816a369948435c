import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { invoices } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeSupers, testClock } from '../../../test/billing.ts';
import { startFakeStripe, stripeSignature } from '../../../test/fakes/stripe.ts';
import type { SignedEvent } from '../../../test/fakes/stripe.ts';
import { makeClient, signedIn } from '../../../test/http.ts';

/**
 * Stripe's signed webhooks settle payments that were `processing` (docs.stripe.com/payments/
 * payment-intents/verifying-status: "processing" is not paid; payment_intent.succeeded or
 * payment_intent.payment_failed follows). Before: `processing` was recorded as paid at once and no
 * Stripe event was read.
 */
describe('stripe webhooks: payment_intent.succeeded / payment_failed settle processing payments', async () => {
  const clock = testClock('2026-03-10T12:00:00Z');
  const stripe = await startFakeStripe({ now: clock.now });
  afterAll(() => stripe.close());
  const app = await createTestApp({
    workers: false,
    billingClock: clock.now,
    env: {
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_PUBLISHABLE_KEY: 'pk_test_fake',
      STRIPE_API_URL: stripe.url,
      STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
    },
  });

  const invoiceOf = async (clientId: string) =>
    (await app.db.select().from(invoices).where(eq(invoices.clientId, clientId)))[0]!;
  const deliver = (event: Pick<SignedEvent, 'body' | 'signature'>) =>
    app.inject({
      method: 'POST',
      url: '/biller/stripe/webhook',
      headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': event.signature },
      payload: event.body,
    });

  /** A client whose card payments stay processing at the bank, with one invoice charged. */
  async function processingInvoice(name: string) {
    const clientId = await makeClient(app, name);
    const { browser } = await signedIn(app, { [clientId]: 'purple_owner' });
    const url = `/biller/client/${clientId}`;
    const setup = (await browser.post(`${url}/card/setup_intent`, {})).json();
    stripe.holdProcessing(stripe.confirmCardSetup(setup.client_secret, '4242424242424242'));
    expect((await browser.post(`${url}/card`, { setup_intent_id: setup.setup_intent_id })).statusCode).toBe(
      200,
    );
    await makeSupers(app.db, clientId, 40, new Date('2026-03-09T10:00:00Z'));
    expect(await app.billing.charging.run({ clientId })).toMatchObject({ paid: 0, processing: 1 });
    const invoice = await invoiceOf(clientId);
    return { clientId, browser, url, invoice, intentId: invoice.providerChargeId! };
  }

  it('processing is not paid: the invoice waits (still owed, no "Pay now"); payment_intent.succeeded pays it', async () => {
    const { clientId, browser, url, invoice, intentId } = await processingInvoice('Slow Bank Co');
    expect(invoice).toMatchObject({ status: 'processing', paidAt: null, nextAttemptAt: null });
    expect((await browser.get(`${url}/balance`)).json()).toMatchObject({ unpaid_invoices_cents: 20_000 });
    const pay = await browser.post(`${url}/payment_intent`, { invoice_id: invoice.id });
    expect(pay.statusCode).toBe(409);
    expect(pay.json().message).toMatch(/processing/);
    // The run does not charge it again while the bank has it.
    await app.billing.charging.run({ clientId });
    expect(
      [...stripe.intents.values()].filter((i) => i.customer === stripe.intents.get(intentId)!.customer),
    ).toHaveLength(1);

    const res = await deliver(stripe.finishProcessing(intentId, 'succeeded'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true, settled: true });
    expect(await invoiceOf(clientId)).toMatchObject({ status: 'paid', providerChargeId: intentId });
  });

  it("processing, then payment_intent.payment_failed: the invoice fails with the bank's reason and is retried on the schedule", async () => {
    const { clientId, intentId } = await processingInvoice('Poor Co');
    const res = await deliver(stripe.finishProcessing(intentId, 'failed'));
    expect(res.json()).toEqual({ received: true, settled: true });
    const invoice = await invoiceOf(clientId);
    expect(invoice).toMatchObject({
      status: 'failed',
      failureReason: 'Your card has insufficient funds.',
      attempts: 1,
    });
    expect(invoice.nextAttemptAt!.getTime()).toBe(clock.now().getTime() + 3_600_000);
  });

  it('a bad signature is refused (422 naming the header) and changes nothing: wrong secret, altered body, no header, older than 5 minutes', async () => {
    const { clientId, intentId } = await processingInvoice('Forged Co');
    stripe.intents.get(intentId)!.status = 'succeeded';
    const genuine = stripe.eventFor('payment_intent.succeeded', intentId);
    const forged = [
      stripe.eventFor('payment_intent.succeeded', intentId, { secret: 'whsec_someone_else' }),
      { body: genuine.body.replace('"amount": 20000', '"amount": 1'), signature: genuine.signature },
      stripe.eventFor('payment_intent.succeeded', intentId, {
        timestamp: Math.floor(clock.now().getTime() / 1000) - 301,
      }),
    ];
    for (const [i, event] of forged.entries()) {
      const res = await deliver(event);
      expect(res.statusCode, `forged #${i}`).toBe(422);
      expect(res.json().errors[0].field).toBe('headers.stripe-signature');
    }
    const none = await app.inject({
      method: 'POST',
      url: '/biller/stripe/webhook',
      headers: { 'content-type': 'application/json' },
      payload: genuine.body,
    });
    expect(none.statusCode).toBe(422);
    expect(none.json().errors[0].field).toBe('headers.stripe-signature');
    expect(await invoiceOf(clientId)).toMatchObject({ status: 'processing' });

    // Within the tolerance (4 minutes old) the genuine event is taken.
    const recent = stripe.eventFor('payment_intent.succeeded', intentId, {
      timestamp: Math.floor(clock.now().getTime() / 1000) - 240,
    });
    expect((await deliver(recent)).json()).toEqual({ received: true, settled: true });
    expect(await invoiceOf(clientId)).toMatchObject({ status: 'paid' });
  });

  it('a replayed event is settled once: two deliveries at the same time, one writes; a late payment_failed cannot undo the payment', async () => {
    const { clientId, intentId } = await processingInvoice('Replay Co');
    const event = stripe.finishProcessing(intentId, 'succeeded');
    const replies = await Promise.all([deliver(event), deliver(event), deliver(event)]);
    expect(replies.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(replies.filter((r) => r.json().settled)).toHaveLength(1);
    const paid = await invoiceOf(clientId);
    expect(paid.status).toBe('paid');

    // An out-of-order failure for the same payment (signed, so genuine in form) changes nothing.
    const late = {
      body: event.body.replace('payment_intent.succeeded', 'payment_intent.payment_failed'),
      signature: '',
    };
    late.signature = stripeSignature(
      late.body,
      stripe.webhookSecret,
      Math.floor(clock.now().getTime() / 1000),
    );
    expect((await deliver(late)).json()).toEqual({ received: true, settled: false });
    expect(await invoiceOf(clientId)).toMatchObject({ status: 'paid', paidAt: paid.paidAt });
  });

  it("an event naming another client than the payment's invoice changes nothing (tenant)", async () => {
    const { clientId, intentId } = await processingInvoice('Victim Co');
    const other = await makeClient(app, 'Other Co');
    const event = JSON.parse(stripe.finishProcessing(intentId, 'succeeded').body);
    event.data.object.metadata.client_id = other;
    const body = JSON.stringify(event);
    const signature = stripeSignature(body, stripe.webhookSecret, Math.floor(clock.now().getTime() / 1000));
    expect((await deliver({ body, signature })).json()).toEqual({ received: true, settled: false });
    expect(await invoiceOf(clientId)).toMatchObject({ status: 'processing' });
  });

  it('a webhook that never arrives: the billing run looks the processing payment up and settles it', async () => {
    const { clientId, intentId } = await processingInvoice('Missed Co');
    stripe.finishProcessing(intentId, 'succeeded'); // the event is lost
    await app.billing.charging.run({ clientId });
    expect(await invoiceOf(clientId)).toMatchObject({ status: 'paid' });
  });

  it('events that settle nothing of ours are acknowledged (200), so Stripe does not retry them', async () => {
    const { intentId } = await processingInvoice('Other Events Co');
    const res = await deliver(stripe.eventFor('payment_intent.created', intentId));
    expect(res.json()).toEqual({ received: true, settled: false });
  });
});
