import { and, asc, count, desc, eq, inArray, isNotNull, lte, sql, sum } from 'drizzle-orm';
import type { Invoice } from '@rally/shared/schemas/billing';
import type { Db } from '../../db/client.ts';
import {
  billingAccounts,
  cadences,
  invoiceLines,
  invoices,
  prospects,
  targets,
} from '../../db/schema/index.ts';

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type Executor = Db | Tx;
export type BillingAccount = typeof billingAccounts.$inferSelect;
export type InvoiceRow = typeof invoices.$inferSelect;

/** The client's billing account, made with the defaults on first use. */
export async function ensureAccount(db: Executor, clientId: string): Promise<BillingAccount> {
  await db.insert(billingAccounts).values({ clientId }).onConflictDoNothing();
  const [row] = await db.select().from(billingAccounts).where(eq(billingAccounts.clientId, clientId));
  if (!row) throw new Error('billing account vanished');
  return row;
}

/** Same, holding the row lock until the transaction ends: one billing run per client at a time. */
export async function lockAccount(tx: Tx, clientId: string): Promise<BillingAccount> {
  await tx.insert(billingAccounts).values({ clientId }).onConflictDoNothing();
  const [row] = await tx
    .select()
    .from(billingAccounts)
    .where(eq(billingAccounts.clientId, clientId))
    .for('update');
  if (!row) throw new Error('billing account vanished');
  return row;
}

/** A target already on an invoice is never charged again. */
const notInvoiced = sql`not exists (select 1 from invoice_lines l where l.target_id = "targets"."id")`;

const superBy = (at: Date) => and(isNotNull(targets.superDate), lte(targets.superDate, at));

export type UnchargedSuper = {
  targetId: string;
  cadenceId: number;
  cadenceName: string;
  prospectLabel: string;
  superDate: Date;
};

/** Superprospects of the client not yet on an invoice, oldest first. */
export async function unchargedSupers(db: Executor, clientId: string, at: Date): Promise<UnchargedSuper[]> {
  const rows = await db
    .select({
      targetId: targets.id,
      cadenceId: targets.cadenceId,
      cadenceName: cadences.name,
      firstName: prospects.firstName,
      lastName: prospects.lastName,
      email: prospects.email,
      superDate: targets.superDate,
    })
    .from(targets)
    .innerJoin(cadences, eq(cadences.id, targets.cadenceId))
    .innerJoin(prospects, eq(prospects.id, targets.prospectId))
    .where(and(eq(targets.clientId, clientId), superBy(at), notInvoiced))
    .orderBy(asc(targets.superDate), asc(targets.id));
  return rows.map((r) => {
    const name = `${r.firstName} ${r.lastName}`.trim();
    return {
      targetId: r.targetId,
      cadenceId: r.cadenceId,
      cadenceName: r.cadenceName,
      prospectLabel: name && r.email ? `${name} <${r.email}>` : name || r.email || 'Prospect',
      superDate: r.superDate as Date,
    };
  });
}

export async function countUncharged(db: Executor, clientId: string, at: Date): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(targets)
    .where(and(eq(targets.clientId, clientId), superBy(at), notInvoiced));
  return row?.n ?? 0;
}

/**
 * Clients with superprospects not yet on an invoice: how many, the oldest, and the billing time
 * zone, so the run opens a transaction only for clients with something due.
 */
export async function unchargedByClient(
  db: Executor,
  at: Date,
): Promise<{ clientId: string; count: number; oldest: Date; timeZone: string }[]> {
  const rows = await db
    .select({
      clientId: targets.clientId,
      count: sql<number>`count(*)::int`,
      oldestMs: sql<number>`(extract(epoch from min(${targets.superDate})) * 1000)::float8`,
      timeZone: sql<string>`coalesce(max(${billingAccounts.timeZone}), 'UTC')`,
    })
    .from(targets)
    .leftJoin(billingAccounts, eq(billingAccounts.clientId, targets.clientId))
    .where(and(superBy(at), notInvoiced))
    .groupBy(targets.clientId);
  return rows.map((r) => ({
    clientId: r.clientId,
    count: Number(r.count),
    oldest: new Date(Number(r.oldestMs)),
    timeZone: r.timeZone,
  }));
}

export async function unpaidCents(db: Executor, clientId: string): Promise<number> {
  const [row] = await db
    .select({ total: sum(invoices.amountCents) })
    .from(invoices)
    .where(and(eq(invoices.clientId, clientId), inArray(invoices.status, ['open', 'processing', 'failed'])));
  return Number(row?.total ?? 0);
}

export async function listInvoices(
  db: Executor,
  clientId: string,
): Promise<(InvoiceRow & { lines: number })[]> {
  const rows = await db
    .select({
      invoice: invoices,
      // Spelled out: inside a subquery Drizzle would leave the outer column unqualified.
      lines: sql<number>`(select count(*)::int from invoice_lines l where l.invoice_id = "invoices"."id")`,
    })
    .from(invoices)
    .where(eq(invoices.clientId, clientId))
    .orderBy(desc(invoices.createdAt), desc(invoices.number));
  return rows.map((r) => ({ ...r.invoice, lines: Number(r.lines) }));
}

export async function findInvoice(db: Executor, clientId: string, id: string): Promise<InvoiceRow | null> {
  const [row] = await db
    .select()
    .from(invoices)
    .where(and(eq(invoices.clientId, clientId), eq(invoices.id, id)));
  return row ?? null;
}

export async function linesOf(db: Executor, invoiceId: string) {
  return db
    .select()
    .from(invoiceLines)
    .where(eq(invoiceLines.invoiceId, invoiceId))
    .orderBy(asc(invoiceLines.superDate), asc(invoiceLines.id));
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toInvoiceReply(row: InvoiceRow & { lines: number }): Invoice {
  return {
    id: row.id,
    number: row.number,
    status: row.status,
    amount_cents: row.amountCents,
    currency: row.currency,
    period: row.period,
    reason: row.reason,
    superprospects: row.lines,
    failure_reason: row.failureReason,
    action_required: row.actionRequired,
    attempts: row.attempts,
    next_attempt_at: iso(row.nextAttemptAt),
    paid_at: iso(row.paidAt),
    created_at: row.createdAt.toISOString(),
  };
}
