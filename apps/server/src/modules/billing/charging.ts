import { createHash } from 'node:crypto';
import { and, asc, count, eq, inArray, isNotNull, isNull, lte, or } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { CHARGE_THRESHOLD, SUPERPROSPECT_PRICE_CENTS } from '@rally/shared/schemas/billing';
import type { Db } from '../../db/client.ts';
import { billingAccounts, clients, invoiceLines, invoices } from '../../db/schema/index.ts';
import type { InvoiceReason } from '../../db/schema/index.ts';
import { isLastDayOfMonth, monthOf } from './calendar.ts';
import type { PaymentProvider, ChargeOutcome } from './providers/port.ts';
import { ensureAccount, lockAccount, unchargedByClient, unchargedSupers } from './repository.ts';
import type { InvoiceRow, Tx, UnchargedSuper } from './repository.ts';
import type { WebhookEvents } from '../hookly/index.ts';

/** Waits before retrying a declined charge, by attempt (1st retry after 1 hour … then every 3 days). */
export const RETRY_DELAYS_HOURS = [1, 6, 24, 72] as const;
/** Automatic attempts before an invoice waits for the owner (a new card or "Pay now"). */
export const MAX_AUTOMATIC_ATTEMPTS = 8;
/**
 * A provider call still marked under way after this long is taken as interrupted (the process died)
 * and reconciled with the provider. Longer than the provider client's timeout and retries.
 */
export const CHARGE_LEASE_MS = 2 * 60_000;

export type ChargingDeps = {
  db: Db;
  provider: PaymentProvider;
  now: () => Date;
  log: FastifyBaseLogger;
  /** Test seam: runs after the provider accepted a charge and before we record it (crash tests). */
  afterProviderCharge?: (invoiceId: string) => Promise<void> | void;
  /** Webhooks' `invoice` event: an invoice made, paid, or its payment failed or waiting for the payer. */
  events?: WebhookEvents;
};

export type RunResult = {
  invoiced: number;
  paid: number;
  failed: number;
  actionRequired: number;
  processing: number;
};

const keyOfAttempt = (invoice: Pick<InvoiceRow, 'idempotencyKey'>, attempt: number) =>
  `${invoice.idempotencyKey}/a${attempt}`;

function retryAt(now: Date, attempts: number): Date | null {
  if (attempts >= MAX_AUTOMATIC_ATTEMPTS) return null;
  const hours = RETRY_DELAYS_HOURS[Math.min(attempts, RETRY_DELAYS_HOURS.length) - 1] ?? 72;
  return new Date(now.getTime() + hours * 3_600_000);
}

export type Batch = { reason: InvoiceReason; period: string; key: string; lines: UnchargedSuper[] };

/**
 * What to invoice now (ARCHITECTURE.md §6): every full 40 uncharged superprospects, oldest first;
 * then the rest on the last day of the month in the client's time zone — or at once if some are
 * from a month whose last day passed without a run. Keys are deterministic, so the same state
 * always asks for the same invoices.
 */
export function planInvoices(
  clientId: string,
  uncharged: UnchargedSuper[],
  now: Date,
  timeZone: string,
): Batch[] {
  const batches: Batch[] = [];
  const rest = [...uncharged];
  const thisMonth = monthOf(now, timeZone);
  while (rest.length >= CHARGE_THRESHOLD) {
    const lines = rest.splice(0, CHARGE_THRESHOLD);
    const digest = createHash('sha256')
      .update(lines.map((l) => l.targetId).join(','))
      .digest('hex')
      .slice(0, 24);
    batches.push({ reason: 'threshold', period: thisMonth, key: `threshold:${clientId}:${digest}`, lines });
  }
  const oldest = rest[0];
  if (oldest) {
    const oldestMonth = monthOf(oldest.superDate, timeZone);
    if (isLastDayOfMonth(now, timeZone) || oldestMonth < thisMonth) {
      const period = isLastDayOfMonth(now, timeZone) ? thisMonth : oldestMonth;
      batches.push({ reason: 'month_end', period, key: `month_end:${clientId}:${period}`, lines: rest });
    }
  }
  return batches;
}

/**
 * Writes one invoice and its lines (inside the caller's transaction). Returns its id, or null when
 * an invoice with this idempotency key exists already.
 */
export async function insertInvoice(
  tx: Tx,
  input: Batch & { clientId: string; currency: string; at: Date; nextAttemptAt?: Date | null },
): Promise<string | null> {
  const { clientId, at } = input;
  const [{ n } = { n: 0 }] = await tx
    .select({ n: count() })
    .from(invoices)
    .where(eq(invoices.clientId, clientId));
  const [invoice] = await tx
    .insert(invoices)
    .values({
      clientId,
      number: `R-${String(n + 1).padStart(5, '0')}`,
      status: 'open',
      amountCents: input.lines.length * SUPERPROSPECT_PRICE_CENTS,
      currency: input.currency,
      period: input.period,
      reason: input.reason,
      idempotencyKey: input.key,
      nextAttemptAt: input.nextAttemptAt === undefined ? at : input.nextAttemptAt,
      createdAt: at,
      updatedAt: at,
    })
    .onConflictDoNothing({ target: invoices.idempotencyKey })
    .returning({ id: invoices.id });
  if (!invoice) return null;
  await tx.insert(invoiceLines).values(
    input.lines.map((l) => ({
      invoiceId: invoice.id,
      clientId,
      targetId: l.targetId,
      cadenceId: l.cadenceId,
      cadenceName: l.cadenceName,
      prospectLabel: l.prospectLabel,
      superDate: l.superDate,
      amountCents: SUPERPROSPECT_PRICE_CENTS,
    })),
  );
  return invoice.id;
}

/**
 * The billing run, a queue job (idempotent): invoices what is due for every client, then charges
 * every invoice whose attempt is due. An invoice and its lines are written in one transaction
 * before any money is asked for; each provider attempt has its own key derived from the invoice's,
 * and is marked under way first, so after a crash the attempt is looked up at the provider by its
 * key instead of being made again.
 */
export function createCharging(deps: ChargingDeps) {
  const { db, provider, now, log } = deps;

  /** The `invoice` webhook event, with the invoice as it stands now. */
  async function emitInvoice(invoiceId: string): Promise<void> {
    if (!deps.events) return;
    const [i] = await db.select().from(invoices).where(eq(invoices.id, invoiceId));
    if (!i) return;
    await deps.events.emit(i.clientId, 'invoice', {
      invoice_id: i.id,
      number: i.number,
      status: i.status,
      action_required: i.actionRequired,
      amount_cents: i.amountCents,
      currency: i.currency,
      period: i.period,
      reason: i.reason,
      failure_reason: i.failureReason,
      paid_at: i.paidAt ? i.paidAt.toISOString() : null,
    });
  }

  /** Writes the invoices due for one client; returns how many were made. */
  async function invoiceClient(clientId: string): Promise<number> {
    const made = await db.transaction(async (tx) => {
      const account = await lockAccount(tx, clientId);
      const at = now();
      const batches = planInvoices(clientId, await unchargedSupers(tx, clientId, at), at, account.timeZone);
      const ids: string[] = [];
      for (const batch of batches) {
        const made1 = await insertInvoice(tx, { clientId, currency: account.currency, at, ...batch });
        if (!made1) continue; // made by an earlier run: its superprospects wait for the next one
        ids.push(made1);
      }
      return ids;
    });
    for (const id of made) await emitInvoice(id);
    return made.length;
  }

  /**
   * Writes an attempt's outcome, only while `guard` holds (so a late or repeated report cannot undo
   * a settled one); emits the `invoice` event when it wrote. Returns whether it wrote.
   */
  async function record(
    invoice: InvoiceRow,
    attempt: number,
    outcome: ChargeOutcome,
    guard: SQL | undefined,
  ): Promise<boolean> {
    const at = now();
    const common = { chargingAt: null, attempts: attempt, providerChargeId: outcome.chargeId, updatedAt: at };
    const set =
      outcome.status === 'succeeded'
        ? {
            ...common,
            status: 'paid' as const,
            paidAt: at,
            failureReason: null,
            actionRequired: false,
            nextAttemptAt: null,
          }
        : outcome.status === 'processing'
          ? // Waiting for the bank: no retry, no "Pay now"; the provider's event settles it.
            {
              ...common,
              status: 'processing' as const,
              failureReason: null,
              actionRequired: false,
              nextAttemptAt: null,
            }
          : outcome.status === 'requires_action'
            ? {
                ...common,
                status: 'open' as const,
                actionRequired: true,
                failureReason: outcome.failureMessage ?? 'Your bank asks you to confirm this payment.',
                nextAttemptAt: null,
              }
            : {
                ...common,
                status: 'failed' as const,
                actionRequired: false,
                failureReason: outcome.failureMessage ?? 'The payment failed.',
                nextAttemptAt: retryAt(at, attempt),
              };
    const written = await db
      .update(invoices)
      .set(set)
      .where(and(eq(invoices.id, invoice.id), guard))
      .returning({ id: invoices.id });
    if (written.length === 0) return false;
    await emitInvoice(invoice.id);
    const level = outcome.status === 'succeeded' || outcome.status === 'processing' ? 'info' : 'warn';
    log[level](
      { invoice: invoice.id, client: invoice.clientId, attempt, status: outcome.status },
      'invoice charge',
    );
    return true;
  }

  /**
   * A payment's outcome pushed by the provider (Stripe's payment_intent.succeeded / payment_failed),
   * found by the idempotency key it was made under and the client it was made for. Settles only
   * that attempt and only from a state it can leave (processing, waiting for the payer, or still
   * under way), so a replayed or late event changes nothing. Returns whether it wrote.
   */
  async function settle(clientId: string, key: string, outcome: ChargeOutcome): Promise<boolean> {
    const match = /^(?<invoiceKey>.+)\/a(?<n>\d+)$/.exec(key)?.groups;
    if (!match?.invoiceKey || !match.n) return false;
    if (outcome.status !== 'succeeded' && outcome.status !== 'failed') return false;
    const { invoiceKey } = match;
    const attempt = Number(match.n);
    const [invoice] = await db
      .select()
      .from(invoices)
      .where(
        and(
          eq(invoices.clientId, clientId),
          eq(invoices.idempotencyKey, invoiceKey),
          eq(invoices.attempts, attempt),
        ),
      );
    if (!invoice) return false;
    const from =
      outcome.status === 'succeeded'
        ? (['open', 'failed', 'processing'] as const)
        : (['open', 'processing'] as const);
    const guard = and(
      eq(invoices.attempts, attempt),
      or(inArray(invoices.status, [...from]), isNotNull(invoices.chargingAt)),
    );
    return record(invoice, attempt, outcome, guard);
  }

  /**
   * Charges one invoice now (the job, or the owner's "Pay now"). Returns the outcome, or null when
   * there is nothing to charge with (no card) or another worker holds the invoice.
   */
  async function chargeInvoice(
    invoiceId: string,
    opts: { force?: boolean } = {},
  ): Promise<ChargeOutcome | null> {
    const [invoice] = await db.select().from(invoices).where(eq(invoices.id, invoiceId));
    // Paid, or processing at the bank (its outcome comes from the provider): nothing to charge.
    if (!invoice || invoice.status === 'paid' || invoice.status === 'processing') return null;
    const account = await ensureAccount(db, invoice.clientId);
    const at = now();

    // An attempt marked under way whose outcome was never recorded: ask the provider, don't charge.
    if (invoice.chargingAt) {
      if (at.getTime() - invoice.chargingAt.getTime() < CHARGE_LEASE_MS) return null;
      const key = keyOfAttempt(invoice, invoice.attempts);
      const found = account.providerCustomerId
        ? await provider.findCharge({
            clientId: invoice.clientId,
            customerId: account.providerCustomerId,
            idempotencyKey: key,
          })
        : null;
      if (found) {
        log.info({ invoice: invoice.id, key }, 'reconciled an interrupted charge with the provider');
        await record(invoice, invoice.attempts, found, isNotNull(invoices.chargingAt));
        return found;
      }
      // The provider never saw it: release the mark and make the attempt below.
      await db.update(invoices).set({ chargingAt: null }).where(eq(invoices.id, invoice.id));
      invoice.chargingAt = null;
      invoice.attempts -= 1;
    }

    if (!account.paymentMethodId || !account.providerCustomerId) {
      await db
        .update(invoices)
        .set({
          status: 'failed',
          failureReason: 'No card on file: add a card to pay this invoice.',
          nextAttemptAt: null,
          updatedAt: at,
        })
        .where(eq(invoices.id, invoice.id));
      return null;
    }
    if (invoice.actionRequired && !opts.force) return null;

    const attempt = invoice.attempts + 1;
    const [claimed] = await db
      .update(invoices)
      .set({ attempts: attempt, chargingAt: at, updatedAt: at })
      .where(
        and(
          eq(invoices.id, invoice.id),
          isNull(invoices.chargingAt),
          inArray(invoices.status, ['open', 'failed']),
        ),
      )
      .returning({ id: invoices.id });
    if (!claimed) return null;

    let outcome: ChargeOutcome;
    try {
      outcome = await provider.charge({
        clientId: invoice.clientId,
        customerId: account.providerCustomerId,
        paymentMethodId: account.paymentMethodId,
        amountCents: invoice.amountCents,
        currency: invoice.currency,
        idempotencyKey: keyOfAttempt(invoice, attempt),
        description: `Rally invoice ${invoice.number} (${invoice.period})`,
      });
    } catch (err) {
      // Unknown outcome (network, provider down): keep the mark; the next run reconciles by key.
      log.warn({ err, invoice: invoice.id }, 'charge outcome unknown; will reconcile');
      throw err;
    }
    await deps.afterProviderCharge?.(invoice.id);
    // Unless the provider's event settled this attempt first (the mark is gone then).
    await record(
      invoice,
      attempt,
      outcome,
      and(isNotNull(invoices.chargingAt), eq(invoices.attempts, attempt)),
    );
    return outcome;
  }

  /** Confirms a payment that waited for the payer (3-D Secure) and records where it stands. */
  async function confirmInvoice(invoice: InvoiceRow): Promise<ChargeOutcome> {
    if (!invoice.providerChargeId) throw new Error('no payment to confirm');
    const outcome = await provider.confirm({
      clientId: invoice.clientId,
      chargeId: invoice.providerChargeId,
    });
    await record(invoice, invoice.attempts, outcome, inArray(invoices.status, ['open', 'failed']));
    return outcome;
  }

  /**
   * Payments still processing at the bank, looked up at the provider: the provider's webhook
   * normally settles them; this covers one that never arrived (endpoint down or not configured).
   */
  async function checkProcessing(clientId?: string): Promise<void> {
    const rows = await db
      .select()
      .from(invoices)
      .where(
        and(
          clientId ? eq(invoices.clientId, clientId) : undefined,
          eq(invoices.status, 'processing'),
          isNotNull(invoices.providerChargeId),
        ),
      );
    for (const invoice of rows) {
      if (!invoice.providerChargeId) continue;
      try {
        const outcome = await provider.retrieve({
          clientId: invoice.clientId,
          chargeId: invoice.providerChargeId,
        });
        if (outcome.status === 'processing') continue;
        await record(invoice, invoice.attempts, outcome, eq(invoices.status, 'processing'));
      } catch (err) {
        log.warn({ err, invoice: invoice.id }, 'could not look up a processing payment');
      }
    }
  }

  /** Invoices due for a charge attempt now, including interrupted ones past their lease. */
  async function dueInvoices(clientId?: string): Promise<string[]> {
    const at = now();
    const rows = await db
      .select({ id: invoices.id })
      .from(invoices)
      .where(
        and(
          clientId ? eq(invoices.clientId, clientId) : undefined,
          or(
            and(
              inArray(invoices.status, ['open', 'failed']),
              isNull(invoices.chargingAt),
              eq(invoices.actionRequired, false),
              lte(invoices.nextAttemptAt, at),
            ),
            and(
              isNotNull(invoices.chargingAt),
              lte(invoices.chargingAt, new Date(at.getTime() - CHARGE_LEASE_MS)),
            ),
          ),
        ),
      )
      .orderBy(asc(invoices.createdAt));
    return rows.map((r) => r.id);
  }

  /** One billing run over every client (or one). Idempotent: a second run right after does nothing. */
  async function run(opts: { clientId?: string } = {}): Promise<RunResult> {
    const result: RunResult = { invoiced: 0, paid: 0, failed: 0, actionRequired: 0, processing: 0 };
    const at = now();
    const candidates = opts.clientId
      ? [opts.clientId]
      : (await unchargedByClient(db, at))
          .filter(
            (c) =>
              c.count >= CHARGE_THRESHOLD ||
              isLastDayOfMonth(at, c.timeZone) ||
              monthOf(c.oldest, c.timeZone) < monthOf(at, c.timeZone),
          )
          .map((c) => c.clientId);
    for (const clientId of candidates) {
      const [exists] = await db.select({ id: clients.id }).from(clients).where(eq(clients.id, clientId));
      if (exists) result.invoiced += await invoiceClient(clientId);
    }
    await endCanceledPlans(at);
    await checkProcessing(opts.clientId);
    for (const id of await dueInvoices(opts.clientId)) {
      try {
        const outcome = await chargeInvoice(id);
        if (outcome?.status === 'succeeded') result.paid += 1;
        else if (outcome?.status === 'failed') result.failed += 1;
        else if (outcome?.status === 'requires_action') result.actionRequired += 1;
        else if (outcome?.status === 'processing') result.processing += 1;
      } catch (err) {
        log.warn({ err, invoice: id }, 'invoice charge failed; the next run tries again');
      }
    }
    return result;
  }

  /** Plans set to cancel at the period end end on the month's last day (client time zone). */
  async function endCanceledPlans(at: Date): Promise<void> {
    const pending = await db
      .select({ clientId: billingAccounts.clientId, timeZone: billingAccounts.timeZone })
      .from(billingAccounts)
      .where(eq(billingAccounts.cancelAtPeriodEnd, true));
    for (const account of pending.filter((p) => isLastDayOfMonth(at, p.timeZone))) {
      await db
        .update(billingAccounts)
        .set({ subscriptionStatus: 'canceled', cancelAtPeriodEnd: false, updatedAt: at })
        .where(
          and(eq(billingAccounts.clientId, account.clientId), eq(billingAccounts.cancelAtPeriodEnd, true)),
        );
    }
  }

  /** After a new card: failed invoices are due again now. */
  async function retryFailedNow(clientId: string): Promise<void> {
    await db
      .update(invoices)
      .set({ nextAttemptAt: now(), updatedAt: now() })
      .where(and(eq(invoices.clientId, clientId), eq(invoices.status, 'failed')));
  }

  return { run, chargeInvoice, confirmInvoice, retryFailedNow, invoiceClient, dueInvoices, settle };
}

export type Charging = ReturnType<typeof createCharging>;
