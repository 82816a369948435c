import { and, eq, gte, isNotNull, lt, sql } from 'drizzle-orm';
import { SUPERPROSPECT_PRICE_CENTS, CHARGE_THRESHOLD } from '@rally/shared/schemas/billing';
import type {
  Balance,
  BillingAddress,
  BillingInfo,
  CardReply,
  CardSetupReply,
  InvoiceDetail,
  PaymentIntent,
  SetCardBody,
  Subscription,
  UsageReport,
} from '@rally/shared/schemas/billing';
import type { Db } from '../../db/client.ts';
import { billingAccounts, clients, engagementEvents, targets } from '../../db/schema/index.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import { addDays, datesBetween, localDate, monthBounds, monthOf, startOfLocalDate } from './calendar.ts';
import type { Charging } from './charging.ts';
import { CardError } from './providers/port.ts';
import type { PaymentProvider } from './providers/port.ts';
import {
  countUncharged,
  ensureAccount,
  findInvoice,
  linesOf,
  listInvoices,
  toInvoiceReply,
  unpaidCents,
} from './repository.ts';
import type { BillingAccount } from './repository.ts';

export const PLAN_NAMES: Record<string, string> = { pay_as_you_go: 'Pay as you go' };

type Deps = {
  db: Db;
  provider: PaymentProvider;
  charging: Charging;
  now: () => Date;
  /** Asks for a billing run soon (after a new card, failed invoices are retried at once). */
  requestRun: () => void;
};

function cardOf(account: BillingAccount, provider: PaymentProvider): CardReply['card'] {
  // A card kept by another provider (the server changed providers) cannot be charged here.
  if (account.provider !== provider.name || !account.paymentMethodId || !account.cardLast4) return null;
  return {
    brand: account.cardBrand ?? 'unknown',
    last4: account.cardLast4,
    exp_month: account.cardExpMonth ?? 0,
    exp_year: account.cardExpYear ?? 0,
    updated_at: account.cardUpdatedAt?.toISOString() ?? null,
  };
}

/** The billing calls of SPEC.md §7 "Billing (/biller)" (ARCHITECTURE.md §6), scoped by client. */
export function createBillingService(deps: Deps) {
  const { db, provider, charging, now } = deps;

  async function balance(clientId: string): Promise<Balance> {
    const at = now();
    const account = await ensureAccount(db, clientId);
    const uncharged = await countUncharged(db, clientId, at);
    const unpaid = await unpaidCents(db, clientId);
    return {
      amount: uncharged * SUPERPROSPECT_PRICE_CENTS + unpaid,
      currency: account.currency,
      updated_at: at.toISOString(),
      uncharged_supers: uncharged,
      unpaid_invoices_cents: unpaid,
    };
  }

  async function card(clientId: string): Promise<CardReply> {
    return { provider: provider.name, card: cardOf(await ensureAccount(db, clientId), provider) };
  }

  async function setCard(clientId: string, body: SetCardBody): Promise<CardReply> {
    const account = await ensureAccount(db, clientId);
    const [client] = await db.select({ name: clients.name }).from(clients).where(eq(clients.id, clientId));
    const sameProvider = account.provider === provider.name;
    try {
      const customerId = await provider.ensureCustomer({
        clientId,
        existing: sameProvider ? account.providerCustomerId : null,
        name: client?.name ?? 'Client',
        email: account.billingInfo?.billing_email ?? null,
      });
      const input = body.setup_intent_id
        ? ({ kind: 'setup_intent', id: body.setup_intent_id } as const)
        : ({
            kind: 'card',
            number: body.number ?? '',
            expMonth: body.exp_month ?? 0,
            expYear: body.exp_year ?? 0,
            cvc: body.cvc ?? '',
          } as const);
      const { paymentMethodId, card: details } = await provider.attachCard({
        clientId,
        customerId,
        card: input,
      });
      const at = now();
      await db
        .update(billingAccounts)
        .set({
          provider: provider.name,
          providerCustomerId: customerId,
          paymentMethodId,
          cardBrand: details.brand,
          cardLast4: details.last4,
          cardExpMonth: details.expMonth,
          cardExpYear: details.expYear,
          cardUpdatedAt: at,
          updatedAt: at,
        })
        .where(eq(billingAccounts.clientId, clientId));
    } catch (err) {
      if (err instanceof CardError) throw fieldError(`body.${err.field}`, err.message);
      throw err;
    }
    await charging.retryFailedNow(clientId);
    deps.requestRun();
    return card(clientId);
  }

  /** Stripe: a SetupIntent for off-session use, for Stripe.js to confirm the card against. */
  async function startCardSetup(clientId: string): Promise<CardSetupReply> {
    if (!provider.startCardSetup) {
      throw httpError(409, 'The built-in payment provider takes a test card number directly; no setup step.');
    }
    const account = await ensureAccount(db, clientId);
    const [client] = await db.select({ name: clients.name }).from(clients).where(eq(clients.id, clientId));
    const sameProvider = account.provider === provider.name;
    const customerId = await provider.ensureCustomer({
      clientId,
      existing: sameProvider ? account.providerCustomerId : null,
      name: client?.name ?? 'Client',
      email: account.billingInfo?.billing_email ?? null,
    });
    if (customerId !== account.providerCustomerId || !sameProvider) {
      // Kept now so the confirmed SetupIntent is checked against this customer.
      await db
        .update(billingAccounts)
        .set({
          provider: provider.name,
          providerCustomerId: customerId,
          // Another provider's card cannot be charged here (cardOf shows none already).
          ...(sameProvider ? {} : { paymentMethodId: null, cardBrand: null, cardLast4: null }),
          updatedAt: now(),
        })
        .where(eq(billingAccounts.clientId, clientId));
    }
    const setup = await provider.startCardSetup({ clientId, customerId });
    return { setup_intent_id: setup.id, client_secret: setup.clientSecret };
  }

  /**
   * A payment outcome pushed by the provider (Stripe's signed webhook). Throws
   * WebhookSignatureError when it does not verify; answers whether an invoice changed.
   */
  async function paymentEvent(rawBody: string, signature: string): Promise<{ settled: boolean }> {
    if (!provider.readPaymentEvent) return { settled: false };
    const event = provider.readPaymentEvent({ rawBody, signature, receivedAt: now() });
    if (!event) return { settled: false };
    return { settled: await charging.settle(event.clientId, event.key, event.outcome) };
  }

  async function paymentIntent(
    clientId: string,
    invoiceId: string,
    confirm: boolean,
  ): Promise<PaymentIntent> {
    const invoice = await findInvoice(db, clientId, invoiceId);
    if (!invoice) throw fieldError('body.invoice_id', 'no such invoice');
    if (invoice.status === 'paid') throw httpError(409, `Invoice ${invoice.number} is already paid.`);
    if (invoice.status === 'processing') {
      throw httpError(
        409,
        `The payment of invoice ${invoice.number} is processing at the bank; it settles shortly.`,
      );
    }
    let outcome;
    if (confirm) {
      if (!invoice.actionRequired || !invoice.providerChargeId) {
        throw fieldError('body.confirm', 'this invoice has no payment waiting for confirmation');
      }
      outcome = await charging.confirmInvoice(invoice);
    } else if (invoice.actionRequired && invoice.providerChargeId) {
      // Already waiting for the payer: hand back the same payment to confirm, never a second one.
      outcome = await provider.retrieve({ clientId, chargeId: invoice.providerChargeId });
    } else {
      const account = await ensureAccount(db, clientId);
      if (!cardOf(account, provider)) throw httpError(409, 'Add a card before paying this invoice.');
      outcome = await charging.chargeInvoice(invoice.id, { force: true });
      if (!outcome) throw httpError(409, 'This invoice is being charged right now. Try again in a minute.');
    }
    const fresh = await findInvoice(db, clientId, invoiceId);
    const lines = (await linesOf(db, invoiceId)).length;
    return {
      id: outcome.chargeId,
      status: outcome.status,
      client_secret: outcome.clientSecret,
      amount_cents: invoice.amountCents,
      currency: invoice.currency,
      invoice: toInvoiceReply({ ...(fresh ?? invoice), lines }),
    };
  }

  function currentPeriod(account: BillingAccount) {
    return monthBounds(monthOf(now(), account.timeZone));
  }

  async function subscription(clientId: string): Promise<Subscription> {
    const account = await ensureAccount(db, clientId);
    const period = currentPeriod(account);
    return {
      plan: account.plan,
      plan_name: PLAN_NAMES[account.plan] ?? account.plan,
      status: account.subscriptionStatus,
      unit_amount_cents: SUPERPROSPECT_PRICE_CENTS,
      currency: account.currency,
      charge_threshold: CHARGE_THRESHOLD,
      current_period_start: period.start,
      current_period_end: period.end,
      cancel_at_period_end: account.cancelAtPeriodEnd,
      started_at: account.subscriptionStartedAt.toISOString(),
    };
  }

  async function updateSubscription(clientId: string, cancelAtPeriodEnd: boolean): Promise<Subscription> {
    const account = await ensureAccount(db, clientId);
    const at = now();
    // Renewing a canceled plan starts it again; cancelling takes effect at the end of the month.
    const reactivate = !cancelAtPeriodEnd && account.subscriptionStatus === 'canceled';
    await db
      .update(billingAccounts)
      .set({
        cancelAtPeriodEnd: account.subscriptionStatus === 'canceled' ? false : cancelAtPeriodEnd,
        ...(reactivate ? { subscriptionStatus: 'active' as const, subscriptionStartedAt: at } : {}),
        updatedAt: at,
      })
      .where(eq(billingAccounts.clientId, clientId));
    return subscription(clientId);
  }

  async function billingAddress(clientId: string): Promise<BillingAddress | null> {
    return (await ensureAccount(db, clientId)).billingAddress ?? null;
  }

  async function setBillingAddress(clientId: string, address: BillingAddress): Promise<BillingAddress> {
    await ensureAccount(db, clientId);
    await db
      .update(billingAccounts)
      .set({ billingAddress: address, updatedAt: now() })
      .where(eq(billingAccounts.clientId, clientId));
    return address;
  }

  async function billingInfo(
    clientId: string,
  ): Promise<{ billing_info: BillingInfo | null; time_zone: string }> {
    const account = await ensureAccount(db, clientId);
    return {
      billing_info: account.billingInfo ? { ...account.billingInfo, time_zone: account.timeZone } : null,
      time_zone: account.timeZone,
    };
  }

  async function setBillingInfo(clientId: string, info: BillingInfo) {
    await ensureAccount(db, clientId);
    const { time_zone, ...rest } = info;
    await db
      .update(billingAccounts)
      .set({ billingInfo: rest, timeZone: time_zone, updatedAt: now() })
      .where(eq(billingAccounts.clientId, clientId));
    return billingInfo(clientId);
  }

  async function invoices(clientId: string) {
    return (await listInvoices(db, clientId)).map(toInvoiceReply);
  }

  async function invoice(clientId: string, invoiceId: string): Promise<InvoiceDetail | null> {
    const row = await findInvoice(db, clientId, invoiceId);
    if (!row) return null;
    const lines = await linesOf(db, invoiceId);
    const account = await ensureAccount(db, clientId);
    const [client] = await db.select({ name: clients.name }).from(clients).where(eq(clients.id, clientId));
    return {
      invoice: toInvoiceReply({ ...row, lines: lines.length }),
      lines: lines.map((l) => ({
        target_id: l.targetId,
        cadence_id: l.cadenceId,
        cadence_name: l.cadenceName,
        prospect: l.prospectLabel,
        super_date: l.superDate.toISOString(),
        amount_cents: l.amountCents,
      })),
      client_name: client?.name ?? '',
      billing_address: account.billingAddress ?? null,
      billing_info: account.billingInfo ? { ...account.billingInfo, time_zone: account.timeZone } : null,
      card: cardOf(account, provider),
    };
  }

  /**
   * SPEC.md §3 "Usage report", by date in the client's time zone: superprospects made that day and
   * targets shown an ad that day. The estimate projects this billing month's superprospects to its
   * end at the month's rate so far (supers so far ÷ days elapsed, today included).
   */
  async function usage(clientId: string, range: { from?: number; to?: number }): Promise<UsageReport> {
    const account = await ensureAccount(db, clientId);
    const tz = account.timeZone;
    const at = now();
    const month = monthBounds(monthOf(at, tz));
    const from = range.from === undefined ? month.start : localDate(new Date(range.from * 1000), tz);
    const to = range.to === undefined ? month.end : localDate(new Date(range.to * 1000), tz);
    const start = startOfLocalDate(from, tz);
    const end = startOfLocalDate(addDays(to, 1), tz);

    // Grouped by position: the zone is a parameter, and a repeated expression would not match.
    const superDay = sql<string>`to_char(${targets.superDate} at time zone ${tz}, 'YYYY-MM-DD')`;
    const supers = await db
      .select({ date: superDay, n: sql<number>`count(*)::int` })
      .from(targets)
      .where(
        and(
          eq(targets.clientId, clientId),
          isNotNull(targets.superDate),
          gte(targets.superDate, start),
          lt(targets.superDate, end),
        ),
      )
      .groupBy(sql`1`);
    const eventDay = sql<string>`to_char(${engagementEvents.occurredAt} at time zone ${tz}, 'YYYY-MM-DD')`;
    const inRange = and(
      eq(engagementEvents.clientId, clientId),
      eq(engagementEvents.type, 'impression'),
      gte(engagementEvents.occurredAt, start),
      lt(engagementEvents.occurredAt, end),
    );
    const active = await db
      .select({ date: eventDay, n: sql<number>`count(distinct ${engagementEvents.targetId})::int` })
      .from(engagementEvents)
      .where(inRange)
      .groupBy(sql`1`);
    const [activeTotal] = await db
      .select({ n: sql<number>`count(distinct ${engagementEvents.targetId})::int` })
      .from(engagementEvents)
      .where(inRange);

    const superBy = new Map(supers.map((r) => [r.date, Number(r.n)]));
    const activeBy = new Map(active.map((r) => [r.date, Number(r.n)]));
    const byDate = datesBetween(from, to).map((date) => ({
      active: activeBy.get(date) ?? 0,
      date,
      super: superBy.get(date) ?? 0,
    }));

    // The estimate is for the current billing month whatever range was asked.
    const today = localDate(at, tz);
    const [monthSoFar] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(targets)
      .where(
        and(
          eq(targets.clientId, clientId),
          isNotNull(targets.superDate),
          gte(targets.superDate, startOfLocalDate(month.start, tz)),
          lt(targets.superDate, at),
        ),
      );
    const sofar = Number(monthSoFar?.n ?? 0);
    const elapsed = Number(today.slice(8, 10));
    const estimatedSupers = sofar + Math.round((sofar / elapsed) * (month.days - elapsed));

    return {
      from,
      to,
      time_zone: tz,
      total: {
        active: Number(activeTotal?.n ?? 0),
        estimated_payment: estimatedSupers * SUPERPROSPECT_PRICE_CENTS,
        estimated_supers: estimatedSupers,
        super: byDate.reduce((s, d) => s + d.super, 0),
      },
      by_date: byDate,
    };
  }

  return {
    balance,
    card,
    setCard,
    startCardSetup,
    paymentEvent,
    paymentIntent,
    subscription,
    updateSubscription,
    billingAddress,
    setBillingAddress,
    billingInfo,
    setBillingInfo,
    invoices,
    invoice,
    usage,
  };
}

export type BillingService = ReturnType<typeof createBillingService>;
