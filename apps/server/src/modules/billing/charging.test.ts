import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { invoiceLines, invoices } from '../../db/schema/index.ts';
import { createTestApp, sendWhenIdle, waitFor } from '../../../test/helpers.ts';
import { makeBillingClient, makeSupers, providerCharges, testClock } from '../../../test/billing.ts';
import { BILLING_JOB } from './index.ts';

const HOUR = 3_600_000;
const card = (number: string) => ({ number, exp_month: 12, exp_year: 2031, cvc: '123' });

const invoicesOf = (app: Awaited<ReturnType<typeof createTestApp>>, clientId: string) =>
  app.db.select().from(invoices).where(eq(invoices.clientId, clientId)).orderBy(invoices.number);

describe('billing run (ARCHITECTURE.md §6: 500 cents per superprospect, at 40 or on the last day of the month)', async () => {
  const clock = testClock('2026-03-10T12:00:00Z');
  const app = await createTestApp({ workers: false, billingClock: clock.now });
  const { charging, service } = app.billing;

  it('"charged when 40 accumulate": 39 wait, the 40th triggers one invoice of 40 × 500 paid by the card', async () => {
    clock.set('2026-03-10T12:00:00Z');
    const clientId = await makeBillingClient(app.db);
    await service.setCard(clientId, card('4242424242424242'));
    await makeSupers(app.db, clientId, 39, new Date('2026-03-09T10:00:00Z'));
    expect(await charging.run()).toMatchObject({ invoiced: 0, paid: 0 });
    expect(await invoicesOf(app, clientId)).toEqual([]);
    expect((await service.balance(clientId)).amount).toBe(39 * 500);

    await makeSupers(app.db, clientId, 1, new Date('2026-03-10T11:00:00Z'));
    const result = await charging.run();
    expect(result).toMatchObject({ invoiced: 1, paid: 1 });
    const [invoice] = await invoicesOf(app, clientId);
    expect(invoice).toMatchObject({
      status: 'paid',
      amountCents: 40 * 500,
      reason: 'threshold',
      period: '2026-03',
    });
    expect(
      await app.db.select().from(invoiceLines).where(eq(invoiceLines.invoiceId, invoice!.id)),
    ).toHaveLength(40);
    const charges = await providerCharges(app.db, clientId);
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({
      amountCents: 20_000,
      status: 'succeeded',
      idempotencyKey: `${invoice!.idempotencyKey}/a1`,
    });
    expect((await service.balance(clientId)).amount).toBe(0);
  });

  it('81 uncharged make two invoices of 40; the one left waits for the month end', async () => {
    clock.set('2026-03-12T12:00:00Z');
    const clientId = await makeBillingClient(app.db);
    await service.setCard(clientId, card('4242424242424242'));
    await makeSupers(app.db, clientId, 81, new Date('2026-03-11T10:00:00Z'));
    expect(await charging.run()).toMatchObject({ invoiced: 2, paid: 2 });
    const rows = await invoicesOf(app, clientId);
    expect(rows.map((r) => r.amountCents)).toEqual([20_000, 20_000]);
    expect((await service.balance(clientId)).amount).toBe(500);
  });

  it('"or on the last day of the month": the remainder is charged on the 31st in the client\'s time zone, not before', async () => {
    const clientId = await makeBillingClient(app.db);
    await service.setCard(clientId, card('4242424242424242'));
    await service.setBillingInfo(clientId, {
      billing_email: 'ap@example.com',
      company_name: '',
      tax_id: '',
      po_number: '',
      time_zone: 'America/Los_Angeles',
    });
    await makeSupers(app.db, clientId, 3, new Date('2026-03-20T10:00:00Z'));
    // 05:00 UTC on the 31st is still the 30th in Los Angeles.
    clock.set('2026-03-31T05:00:00Z');
    await charging.run();
    expect(await invoicesOf(app, clientId)).toEqual([]);
    // 08:00 UTC is 01:00 on the 31st there.
    clock.set('2026-03-31T08:00:00Z');
    await charging.run();
    const [invoice] = await invoicesOf(app, clientId);
    expect(invoice).toMatchObject({
      reason: 'month_end',
      period: '2026-03',
      amountCents: 1500,
      status: 'paid',
    });
    // Later the same day a new superprospect waits: one month-end charge per month.
    await makeSupers(app.db, clientId, 1, new Date('2026-03-31T09:00:00Z'));
    clock.set('2026-03-31T10:00:00Z');
    await charging.run();
    expect(await invoicesOf(app, clientId)).toHaveLength(1);
  });

  it('a month-end missed (no run on the last day) is charged on the next run', async () => {
    const clientId = await makeBillingClient(app.db);
    await service.setCard(clientId, card('4242424242424242'));
    await makeSupers(app.db, clientId, 2, new Date('2026-01-15T10:00:00Z'));
    clock.set('2026-02-03T10:00:00Z');
    await charging.run();
    expect(await invoicesOf(app, clientId)).toMatchObject([
      { reason: 'month_end', period: '2026-01', amountCents: 1000 },
    ]);
  });

  it("a plan set to cancel at the period end ends on the month's last day, still billing its superprospects", async () => {
    const clientId = await makeBillingClient(app.db);
    await service.setCard(clientId, card('4242424242424242'));
    await service.updateSubscription(clientId, true);
    await makeSupers(app.db, clientId, 2, new Date('2026-08-20T10:00:00Z'));
    clock.set('2026-08-30T12:00:00Z');
    await charging.run();
    expect(await service.subscription(clientId)).toMatchObject({
      status: 'active',
      cancel_at_period_end: true,
    });
    clock.set('2026-08-31T12:00:00Z');
    await charging.run();
    expect(await service.subscription(clientId)).toMatchObject({
      status: 'canceled',
      cancel_at_period_end: false,
    });
    expect(await invoicesOf(app, clientId)).toMatchObject([
      { reason: 'month_end', amountCents: 1000, status: 'paid' },
    ]);
    // Restarting it makes it active again.
    expect(await service.updateSubscription(clientId, false)).toMatchObject({ status: 'active' });
  });

  it('a month with no superprospects charges nothing', async () => {
    const clientId = await makeBillingClient(app.db);
    await service.setCard(clientId, card('4242424242424242'));
    clock.set('2026-04-30T12:00:00Z');
    await charging.run();
    expect(await invoicesOf(app, clientId)).toEqual([]);
    expect(await providerCharges(app.db, clientId)).toEqual([]);
    expect((await service.balance(clientId)).amount).toBe(0);
  });

  it('running the job twice (one after the other, or at once) makes one invoice and one charge', async () => {
    clock.set('2026-05-10T12:00:00Z');
    const clientId = await makeBillingClient(app.db);
    await service.setCard(clientId, card('4242424242424242'));
    await makeSupers(app.db, clientId, 40, new Date('2026-05-09T10:00:00Z'));
    await Promise.all([charging.run(), charging.run()]);
    await charging.run();
    expect(await invoicesOf(app, clientId)).toHaveLength(1);
    expect(await providerCharges(app.db, clientId)).toHaveLength(1);
  });

  it('a declined card leaves the invoice failed with the reason, retried later with backoff, paid after a new card', async () => {
    clock.set('2026-06-10T12:00:00Z');
    const clientId = await makeBillingClient(app.db);
    await service.setCard(clientId, card('4000000000000002'));
    await makeSupers(app.db, clientId, 40, new Date('2026-06-09T10:00:00Z'));
    expect(await charging.run()).toMatchObject({ invoiced: 1, failed: 1 });
    let [invoice] = await invoicesOf(app, clientId);
    expect(invoice).toMatchObject({
      status: 'failed',
      failureReason: 'Your card was declined.',
      attempts: 1,
    });
    expect(invoice!.nextAttemptAt?.toISOString()).toBe('2026-06-10T13:00:00.000Z');
    expect((await service.balance(clientId)).amount).toBe(20_000);

    // Not before the retry time.
    clock.advance(30 * 60_000);
    await charging.run();
    expect(await providerCharges(app.db, clientId)).toHaveLength(1);
    // After it: a second attempt, declined again, next one 6 hours later.
    clock.advance(31 * 60_000);
    expect(await charging.run()).toMatchObject({ failed: 1 });
    [invoice] = await invoicesOf(app, clientId);
    expect(invoice).toMatchObject({ status: 'failed', attempts: 2 });
    expect(invoice!.nextAttemptAt!.getTime() - clock.now().getTime()).toBe(6 * HOUR);

    // A new card: failed invoices are due at once.
    await service.setCard(clientId, card('4242424242424242'));
    expect(await charging.run()).toMatchObject({ paid: 1 });
    [invoice] = await invoicesOf(app, clientId);
    expect(invoice).toMatchObject({ status: 'paid', attempts: 3, failureReason: null });
    const charges = await providerCharges(app.db, clientId);
    expect(charges.map((c) => [c.idempotencyKey.split('/')[1], c.status])).toEqual([
      ['a1', 'failed'],
      ['a2', 'failed'],
      ['a3', 'succeeded'],
    ]);
  });

  it('no card on file: the invoice is unpaid with "No card on file", and charged once a card is added', async () => {
    clock.set('2026-06-12T12:00:00Z');
    const clientId = await makeBillingClient(app.db);
    await makeSupers(app.db, clientId, 40, new Date('2026-06-11T10:00:00Z'));
    await charging.run();
    expect(await invoicesOf(app, clientId)).toMatchObject([
      { status: 'failed', failureReason: 'No card on file: add a card to pay this invoice.', attempts: 0 },
    ]);
    await service.setCard(clientId, card('5555555555554444'));
    await charging.run();
    expect(await invoicesOf(app, clientId)).toMatchObject([{ status: 'paid', attempts: 1 }]);
  });

  it('a charge made at the provider but not recorded (the recording step fails) is reconciled by key, not made again', async () => {
    clock.set('2026-07-10T12:00:00Z');
    const clientId = await makeBillingClient(app.db);
    await service.setCard(clientId, card('4242424242424242'));
    await makeSupers(app.db, clientId, 40, new Date('2026-07-09T10:00:00Z'));
    const { createCharging } = await import('./charging.ts');
    const crashing = createCharging({
      db: app.db,
      provider: app.billing.provider,
      now: clock.now,
      log: app.log,
      afterProviderCharge: () => {
        throw new Error('the process died here');
      },
    });
    await crashing.run();
    let [invoice] = await invoicesOf(app, clientId);
    expect(invoice).toMatchObject({ status: 'open', attempts: 1 });
    expect(invoice!.chargingAt).not.toBeNull();
    expect(await providerCharges(app.db, clientId)).toHaveLength(1);

    // Within the lease nobody touches it; after, the run asks the provider and records the payment.
    await charging.run();
    expect(await providerCharges(app.db, clientId)).toHaveLength(1);
    clock.advance(3 * 60_000);
    await charging.run();
    [invoice] = await invoicesOf(app, clientId);
    expect(invoice).toMatchObject({ status: 'paid', attempts: 1, chargingAt: null });
    expect(await providerCharges(app.db, clientId)).toHaveLength(1);
  });
});

describe('billing run through the queue', async () => {
  const clock = testClock('2026-03-10T12:00:00Z');
  const app = await createTestApp({ billingClock: clock.now });

  it('the billing-run job invoices and charges; a second job adds nothing', async () => {
    const clientId = await makeBillingClient(app.db);
    await app.billing.service.setCard(clientId, card('4242424242424242'));
    await makeSupers(app.db, clientId, 40, new Date('2026-03-09T10:00:00Z'));
    // The runs asked for at start and by setCard may still be queued or running from before the
    // supers were written (CI saw the job dropped on PGlite).
    await sendWhenIdle(app, BILLING_JOB);
    const [invoice] = await waitFor(async () => {
      const rows = await invoicesOf(app, clientId);
      return rows[0]?.status === 'paid' ? rows : null;
    });
    expect(invoice!.amountCents).toBe(20_000);
    await app.queue.send(BILLING_JOB, {});
    await new Promise((r) => setTimeout(r, 1500));
    expect(await invoicesOf(app, clientId)).toHaveLength(1);
    expect(await providerCharges(app.db, clientId)).toHaveLength(1);
  });
});
