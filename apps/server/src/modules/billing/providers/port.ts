import type { PaymentProviderName } from '../../../db/schema/index.ts';

/** What a card on file is shown as: never its number. */
export type CardDetails = { brand: string; last4: string; expMonth: number; expYear: number };

/**
 * A card to put on file: the local provider takes a test card's number (checked, then dropped);
 * Stripe takes only the id of a SetupIntent that Stripe.js confirmed in the browser.
 */
export type CardInput =
  | { kind: 'card'; number: string; expMonth: number; expYear: number; cvc: string }
  | { kind: 'setup_intent'; id: string };

/** `processing`: the bank has not answered yet; not paid until the provider reports it (webhook). */
export type ChargeStatus = 'succeeded' | 'failed' | 'requires_action' | 'processing';

export type ChargeOutcome = {
  status: ChargeStatus;
  /** The provider's id of the payment (intent), when it made one. */
  chargeId: string | null;
  /** For the payer, e.g. "Your card was declined."; null on success. */
  failureMessage: string | null;
  /** For the browser to confirm a `requires_action` payment (Stripe.js); null otherwise. */
  clientSecret: string | null;
};

export type ChargeRequest = {
  clientId: string;
  customerId: string;
  paymentMethodId: string;
  amountCents: number;
  currency: string;
  /** The provider must make at most one payment per key, and answer a repeat with the first outcome. */
  idempotencyKey: string;
  description: string;
};

/** A card the provider refused to put on file; `field` names the form field at fault. */
export class CardError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.name = 'CardError';
    this.field = field;
  }
}

/**
 * A payment company behind one interface (ARCHITECTURE.md §6): `local` (built in, nothing leaves
 * the machine) or `stripe`. Charges are off-session payments with the card on file, deduplicated by
 * idempotency key, so a charge asked twice — after a crash, or by two workers — is made once.
 */
export type PaymentProvider = {
  readonly name: PaymentProviderName;
  /** The provider's customer for this client, made once (`existing` when we already have one). */
  ensureCustomer(input: {
    clientId: string;
    existing: string | null;
    name: string;
    email: string | null;
  }): Promise<string>;
  /**
   * Starts putting a card on file where the payer's browser must confirm it with the card's bank
   * first (Stripe: a SetupIntent for off-session use). Absent for providers that take the card at once.
   */
  startCardSetup?(input: { clientId: string; customerId: string }): Promise<{
    id: string;
    clientSecret: string;
  }>;
  /** Puts a card on file for the customer; throws CardError when it cannot. */
  attachCard(input: { clientId: string; customerId: string; card: CardInput }): Promise<{
    paymentMethodId: string;
    card: CardDetails;
  }>;
  charge(request: ChargeRequest): Promise<ChargeOutcome>;
  /** The payment made under this key, if any (reconciliation after a crash). */
  findCharge(input: {
    clientId: string;
    customerId: string;
    idempotencyKey: string;
  }): Promise<ChargeOutcome | null>;
  /** Where a payment stands now. */
  retrieve(input: { clientId: string; chargeId: string }): Promise<ChargeOutcome>;
  /** Completes a payment that waited for the payer's confirmation, and tells where it stands. */
  confirm(input: { clientId: string; chargeId: string }): Promise<ChargeOutcome>;
  /**
   * A payment outcome the provider pushed to us (Stripe's signed webhook): verified against the
   * raw body and signature header, or throws WebhookSignatureError. Null for an event that does not
   * settle a payment of ours. Absent for providers that push nothing.
   */
  readPaymentEvent?(input: { rawBody: string; signature: string; receivedAt: Date }): PaymentEvent | null;
};

export type PaymentEvent = {
  eventId: string;
  type: string;
  clientId: string;
  /** The idempotency key the payment was made under (`{invoice key}/a{attempt}`). */
  key: string;
  outcome: ChargeOutcome;
};

/** A pushed event whose signature does not verify (or is too old): answered 400, never acted on. */
export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}
