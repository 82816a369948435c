import { z } from 'zod';
import { MAX_EPOCH_SECONDS } from './common.ts';

/** ARCHITECTURE.md §6: $5.00 per superprospect, charged when 40 accumulate or on the month's last day. */
export const SUPERPROSPECT_PRICE_CENTS = 500;
export const CHARGE_THRESHOLD = 40;
/** SPEC.md §9: "Cached balance valid 10 minutes". */
export const BALANCE_CACHE_MS = 10 * 60_000;

export const PAYMENT_PROVIDER_NAMES = ['local', 'stripe'] as const;

/** Digits only, then the Luhn checksum (every card number carries one). */
export function luhnValid(number: string): boolean {
  const digits = number.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The card network by the number's leading digits (as the card element shows it). */
export function cardBrand(number: string): string {
  const n = number.replace(/[\s-]/g, '');
  if (/^4/.test(n)) return 'visa';
  if (/^(5[1-5]|222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720)/.test(n)) return 'mastercard';
  if (/^3[47]/.test(n)) return 'amex';
  if (/^(6011|65|64[4-9])/.test(n)) return 'discover';
  if (/^35(2[89]|[3-8]\d)/.test(n)) return 'jcb';
  if (/^3(0[0-5]|[689])/.test(n)) return 'diners';
  return 'unknown';
}

const isoDateTime = z.iso.datetime({ offset: true });

/** Card on file: a summary only (never a number). */
export const cardSummarySchema = z.object({
  brand: z.string(),
  last4: z.string(),
  exp_month: z.number().int(),
  exp_year: z.number().int(),
  updated_at: isoDateTime.nullable(),
});
export type CardSummary = z.infer<typeof cardSummarySchema>;

export const cardReply = z.object({
  /** Which provider collects cards: `local` shows a card form, `stripe` Stripe.js's card element. */
  provider: z.enum(PAYMENT_PROVIDER_NAMES),
  card: cardSummarySchema.nullable(),
});
export type CardReply = z.infer<typeof cardReply>;

const thisYear = () => new Date().getUTCFullYear();

/**
 * `POST /biller/client/{id}/card`. With the local provider the form sends the test card's number,
 * expiry and CVC (checked here, only brand, last four and expiry kept); with Stripe the browser
 * sends only the id of the SetupIntent that Stripe.js confirmed with the card's bank
 * (`POST …/card/setup_intent`, then `stripe.confirmCardSetup`).
 */
export const setCardBody = z
  .object({
    setup_intent_id: z
      .string()
      .trim()
      .regex(/^seti_[A-Za-z0-9_]{3,250}$/, 'must be a Stripe SetupIntent id (seti_…)')
      .optional(),
    /** No longer taken: a bare payment method would be attached without the bank's setup. */
    payment_method_id: z.unknown().optional(),
    number: z
      .string()
      .trim()
      .regex(/^[\d\s-]{12,23}$/, 'must be 12 to 19 digits')
      .refine(luhnValid, 'is not a valid card number')
      .optional(),
    exp_month: z.coerce
      .number({ error: 'must be a month from 1 to 12' })
      .int('must be a month from 1 to 12')
      .min(1, 'must be a month from 1 to 12')
      .max(12, 'must be a month from 1 to 12')
      .optional(),
    exp_year: z.coerce
      .number({ error: 'must be a year' })
      .int('must be a year')
      .min(2000, 'must be a four-digit year')
      .max(2100, 'must be a four-digit year')
      .optional(),
    cvc: z
      .string()
      .trim()
      .regex(/^\d{3,4}$/, 'must be 3 or 4 digits')
      .optional(),
  })
  .superRefine((b, ctx) => {
    if (b.payment_method_id !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['payment_method_id'],
        message: 'is no longer taken: confirm the card with a SetupIntent and send setup_intent_id',
      });
      return;
    }
    if (b.setup_intent_id) return;
    if (!b.number) ctx.addIssue({ code: 'custom', path: ['number'], message: 'is required' });
    if (b.exp_month === undefined)
      ctx.addIssue({ code: 'custom', path: ['exp_month'], message: 'is required' });
    if (b.exp_year === undefined)
      ctx.addIssue({ code: 'custom', path: ['exp_year'], message: 'is required' });
    if (!b.cvc) ctx.addIssue({ code: 'custom', path: ['cvc'], message: 'is required' });
    if (b.exp_month !== undefined && b.exp_year !== undefined) {
      const now = new Date();
      const expired =
        b.exp_year < thisYear() || (b.exp_year === thisYear() && b.exp_month < now.getUTCMonth() + 1);
      if (expired) ctx.addIssue({ code: 'custom', path: ['exp_year'], message: 'the card has expired' });
    }
  });
export type SetCardBody = z.infer<typeof setCardBody>;

/** `POST /biller/client/{id}/card/setup_intent` (Stripe): what Stripe.js confirms the card against. */
export const cardSetupReply = z.object({
  setup_intent_id: z.string(),
  client_secret: z.string(),
});
export type CardSetupReply = z.infer<typeof cardSetupReply>;

/** SPEC.md §3 "Balance": amount in cents (the app shows it /100) and when it was worked out. */
export const balanceReply = z.object({
  amount: z.number().int(),
  currency: z.string(),
  updated_at: isoDateTime,
  /** Superprospects not yet on an invoice, and invoices still unpaid (what `amount` adds up). */
  uncharged_supers: z.number().int(),
  unpaid_invoices_cents: z.number().int(),
});
export type Balance = z.infer<typeof balanceReply>;

/** `processing`: the card's bank has not answered yet; Stripe's webhook settles it (not paid until then). */
export const INVOICE_STATUS_NAMES = ['open', 'processing', 'paid', 'failed'] as const;

export const invoiceLineSchema = z.object({
  target_id: z.uuid(),
  cadence_id: z.number().int(),
  cadence_name: z.string(),
  prospect: z.string(),
  super_date: isoDateTime,
  amount_cents: z.number().int(),
});

export type InvoiceLine = z.infer<typeof invoiceLineSchema>;

export const invoiceSchema = z.object({
  id: z.uuid(),
  number: z.string(),
  status: z.enum(INVOICE_STATUS_NAMES),
  amount_cents: z.number().int(),
  currency: z.string(),
  period: z.string(),
  reason: z.enum(['threshold', 'month_end']),
  superprospects: z.number().int(),
  failure_reason: z.string().nullable(),
  /** The card's bank asks the payer to confirm this payment (3-D Secure). */
  action_required: z.boolean(),
  attempts: z.number().int(),
  next_attempt_at: isoDateTime.nullable(),
  paid_at: isoDateTime.nullable(),
  created_at: isoDateTime,
});
export type Invoice = z.infer<typeof invoiceSchema>;

export const invoiceListReply = z.object({ invoices: z.array(invoiceSchema) });

/**
 * `POST /biller/client/{id}/payment_intent`: pay an open or failed invoice now with the card on
 * file. When the bank asks for confirmation (3-D Secure), the reply is `requires_action` with a
 * client secret: Stripe.js confirms it in the browser (the local provider's confirmation is a
 * button), then the app calls again with `confirm: true` and the invoice is recorded paid.
 */
export const paymentIntentBody = z.object({
  invoice_id: z.uuid('must be the id of an invoice'),
  confirm: z.boolean().default(false),
});
export const paymentIntentReply = z.object({
  id: z.string().nullable(),
  status: z.enum(['succeeded', 'requires_action', 'processing', 'failed']),
  client_secret: z.string().nullable(),
  amount_cents: z.number().int(),
  currency: z.string(),
  invoice: invoiceSchema,
});
export type PaymentIntent = z.infer<typeof paymentIntentReply>;

export const subscriptionReply = z.object({
  plan: z.string(),
  plan_name: z.string(),
  status: z.enum(['active', 'canceled']),
  unit_amount_cents: z.number().int(),
  currency: z.string(),
  charge_threshold: z.number().int(),
  /** The billing month in the client's time zone. */
  current_period_start: z.iso.date(),
  current_period_end: z.iso.date(),
  cancel_at_period_end: z.boolean(),
  started_at: isoDateTime,
});
export type Subscription = z.infer<typeof subscriptionReply>;

export const updateSubscriptionBody = z.object({
  cancel_at_period_end: z.boolean({ error: 'must be true or false' }),
});

const text = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);

export const billingAddressSchema = z.object({
  first_name: text(100).default(''),
  last_name: text(100).default(''),
  company: text(200).default(''),
  line1: text(200).min(1, 'is required'),
  line2: text(200).default(''),
  city: text(100).min(1, 'is required'),
  state: text(100).default(''),
  zip: text(20).default(''),
  country: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{2}$/, 'must be a two-letter country code (ISO 3166-1, e.g. US)'),
});
export type BillingAddress = z.infer<typeof billingAddressSchema>;
export const billingAddressReply = z.object({ billing_address: billingAddressSchema.nullable() });

/** An IANA time zone this runtime knows (the month-end charge is read in it). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}

export const billingInfoSchema = z.object({
  billing_email: z.email('must be a valid e-mail address').max(254),
  company_name: text(200).default(''),
  tax_id: text(50).default(''),
  po_number: text(50).default(''),
  time_zone: z
    .string()
    .trim()
    .refine(isTimeZone, 'must be an IANA time zone such as Europe/Paris')
    .default('UTC'),
});
export type BillingInfo = z.infer<typeof billingInfoSchema>;
export const billingInfoReply = z.object({
  billing_info: billingInfoSchema.nullable(),
  time_zone: z.string(),
});

/** One invoice with its lines and who it is billed to, for the printable page. */
export const invoiceDetailReply = z.object({
  invoice: invoiceSchema,
  lines: z.array(invoiceLineSchema),
  client_name: z.string(),
  billing_address: billingAddressSchema.nullable(),
  billing_info: billingInfoSchema.nullable(),
  card: cardSummarySchema.nullable(),
});
export type InvoiceDetail = z.infer<typeof invoiceDetailReply>;

/** `GET /biller/client/{id}/usage?from&to` (epoch seconds, SPEC.md §9; default: this billing month). */
export const usageQuery = z
  .object({
    from: z.coerce
      .number({ error: 'must be a date in epoch seconds' })
      .int('must be whole seconds')
      .min(0)
      .max(MAX_EPOCH_SECONDS, 'must be a date in epoch seconds before the year 10000')
      .optional(),
    to: z.coerce
      .number({ error: 'must be a date in epoch seconds' })
      .int('must be whole seconds')
      .min(0)
      .max(MAX_EPOCH_SECONDS, 'must be a date in epoch seconds before the year 10000')
      .optional(),
  })
  .refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, {
    path: ['to'],
    message: 'must not be before from',
  })
  .refine((q) => q.from === undefined || q.to === undefined || q.to - q.from <= 400 * 86_400, {
    path: ['to'],
    message: 'the range must be at most 400 days',
  });

/**
 * SPEC.md §3 "Usage report". `super`: targets that became superprospects in the range; `active`:
 * targets shown an ad in the range. `estimated_supers` and `estimated_payment` (cents) project the
 * current billing month (client's time zone) to its end at this month's rate so far.
 */
export const usageReply = z.object({
  from: z.iso.date(),
  to: z.iso.date(),
  time_zone: z.string(),
  total: z.object({
    active: z.number().int(),
    estimated_payment: z.number().int(),
    estimated_supers: z.number().int(),
    super: z.number().int(),
  }),
  by_date: z.array(z.object({ active: z.number().int(), date: z.iso.date(), super: z.number().int() })),
});
export type UsageReport = z.infer<typeof usageReply>;
