import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { clients } from './identity.ts';

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
};

const clientRef = () =>
  uuid('client_id')
    .notNull()
    .references(() => clients.id, { onDelete: 'cascade' });

export const PAYMENT_PROVIDERS = ['local', 'stripe'] as const;
export type PaymentProviderName = (typeof PAYMENT_PROVIDERS)[number];

/** `processing`: a payment is at the bank; the provider's webhook (or a look-up) settles it. */
export const INVOICE_STATUSES = ['open', 'processing', 'paid', 'failed'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];
/** Why an invoice was made (ARCHITECTURE.md §6): 40 uncharged superprospects, or the month's last day. */
export const INVOICE_REASONS = ['threshold', 'month_end'] as const;
export type InvoiceReason = (typeof INVOICE_REASONS)[number];

export const SUBSCRIPTION_STATUSES = ['active', 'canceled'] as const;

/** Postal address for invoices (SPEC.md §7 "chargebee/billing_address"; Chargebee's field names). */
export type BillingAddress = {
  first_name: string;
  last_name: string;
  company: string;
  line1: string;
  line2: string;
  city: string;
  state: string;
  zip: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
};

/** Who receives invoices and what they show (SPEC.md §7 "billing_info"). */
export type BillingInfo = {
  billing_email: string;
  company_name: string;
  tax_id: string;
  po_number: string;
};

/**
 * A client's billing account: the payment provider's customer and the card on file (a summary only:
 * brand, last four digits and expiry — never a card number), address, invoice details, plan, and
 * the time zone whose calendar decides the month-end charge.
 */
export const billingAccounts = pgTable('billing_accounts', {
  clientId: uuid('client_id')
    .primaryKey()
    .references(() => clients.id, { onDelete: 'cascade' }),
  provider: text('provider', { enum: PAYMENT_PROVIDERS }).notNull().default('local'),
  providerCustomerId: text('provider_customer_id'),
  /** The provider's id of the card on file (`pm_…`), used for off-session charges. */
  paymentMethodId: text('payment_method_id'),
  cardBrand: text('card_brand'),
  cardLast4: text('card_last4'),
  cardExpMonth: integer('card_exp_month'),
  cardExpYear: integer('card_exp_year'),
  cardUpdatedAt: timestamp('card_updated_at', { withTimezone: true }),
  billingAddress: jsonb('billing_address').$type<BillingAddress | null>(),
  billingInfo: jsonb('billing_info').$type<BillingInfo | null>(),
  /** IANA zone; the billing month and its last day are read in it. */
  timeZone: text('time_zone').notNull().default('UTC'),
  currency: text('currency').notNull().default('usd'),
  plan: text('plan').notNull().default('pay_as_you_go'),
  subscriptionStatus: text('subscription_status', { enum: SUBSCRIPTION_STATUSES })
    .notNull()
    .default('active'),
  cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
  subscriptionStartedAt: timestamp('subscription_started_at', { withTimezone: true }).notNull().defaultNow(),
  ...timestamps,
});

/**
 * One charge of uncharged superprospects (ARCHITECTURE.md §6). Created with its lines in one
 * transaction, under a deterministic idempotency key, before the provider is asked for money; each
 * provider attempt uses `{idempotency_key}/a{attempt}` so a crash between charging and recording is
 * reconciled by asking the provider for that key instead of charging again.
 */
export const invoices = pgTable(
  'invoices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: clientRef(),
    number: text('number').notNull(),
    status: text('status', { enum: INVOICE_STATUSES }).notNull().default('open'),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull().default('usd'),
    /** Billing month in the client's time zone, `YYYY-MM`. */
    period: text('period').notNull(),
    reason: text('reason', { enum: INVOICE_REASONS }).notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    failureReason: text('failure_reason'),
    attempts: integer('attempts').notNull().default(0),
    /** Set while a provider call is under way (cleared when its outcome is recorded). */
    chargingAt: timestamp('charging_at', { withTimezone: true }),
    /** The card's bank asks the payer to confirm (3-D Secure); no automatic retry until then. */
    actionRequired: boolean('action_required').notNull().default(false),
    /** When the job should (re)try the charge; null when nothing is due. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    providerChargeId: text('provider_charge_id'),
    paidAt: timestamp('paid_at', { withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('invoices_idempotency_key_uq').on(t.idempotencyKey),
    uniqueIndex('invoices_client_number_uq').on(t.clientId, t.number),
    index('invoices_client_created_idx').on(t.clientId, t.createdAt),
    index('invoices_status_next_idx').on(t.status, t.nextAttemptAt),
  ],
);

/**
 * One superprospect on an invoice. `target_id` is unique: a superprospect (a target, i.e. one
 * prospect in one cadence) is charged once, ever. No foreign key to targets, so an invoice keeps its
 * lines (with their labels) when a cadence is deleted.
 */
export const invoiceLines = pgTable(
  'invoice_lines',
  {
    id: serial('id').primaryKey(),
    invoiceId: uuid('invoice_id')
      .notNull()
      .references(() => invoices.id, { onDelete: 'cascade' }),
    clientId: clientRef(),
    targetId: uuid('target_id').notNull(),
    cadenceId: integer('cadence_id').notNull(),
    cadenceName: text('cadence_name').notNull().default(''),
    prospectLabel: text('prospect_label').notNull().default(''),
    superDate: timestamp('super_date', { withTimezone: true }).notNull(),
    amountCents: integer('amount_cents').notNull().default(500),
  },
  (t) => [
    uniqueIndex('invoice_lines_target_uq').on(t.targetId),
    index('invoice_lines_invoice_idx').on(t.invoiceId),
    index('invoice_lines_client_idx').on(t.clientId),
  ],
);

export const LOCAL_CARD_BEHAVIOURS = ['succeed', 'decline', 'authenticate'] as const;
export type LocalCardBehaviour = (typeof LOCAL_CARD_BEHAVIOURS)[number];

/**
 * The built-in `local` provider's own books (it stands in for a payment company, so it keeps its
 * records apart from ours): test cards by id — brand, last four digits and how the test number
 * behaves, never the number — and charges by idempotency key.
 */
export const localPaymentMethods = pgTable(
  'billing_local_payment_methods',
  {
    id: text('id').primaryKey(),
    clientId: clientRef(),
    customerId: text('customer_id').notNull(),
    brand: text('brand').notNull(),
    last4: text('last4').notNull(),
    expMonth: integer('exp_month').notNull(),
    expYear: integer('exp_year').notNull(),
    behaviour: text('behaviour', { enum: LOCAL_CARD_BEHAVIOURS }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('billing_local_pm_customer_idx').on(t.customerId)],
);

export const LOCAL_CHARGE_STATUSES = ['succeeded', 'failed', 'requires_action'] as const;

export const localCharges = pgTable(
  'billing_local_charges',
  {
    id: text('id').primaryKey(),
    clientId: clientRef(),
    idempotencyKey: text('idempotency_key').notNull(),
    customerId: text('customer_id').notNull(),
    paymentMethodId: text('payment_method_id').notNull(),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull(),
    status: text('status', { enum: LOCAL_CHARGE_STATUSES }).notNull(),
    failureMessage: text('failure_message'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('billing_local_charges_key_uq').on(t.idempotencyKey),
    index('billing_local_charges_customer_idx').on(t.customerId),
  ],
);
