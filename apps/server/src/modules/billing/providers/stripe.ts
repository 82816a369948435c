import { createRequire } from 'node:module';
import type Stripe from 'stripe';
import { CardError, WebhookSignatureError } from './port.ts';
import type { ChargeOutcome, PaymentEvent, PaymentProvider } from './port.ts';

export type StripeOptions = {
  secretKey: string;
  /** Another API origin (tests: the in-repo fake on loopback); default api.stripe.com. */
  apiUrl?: string | null;
  /** The webhook endpoint's signing secret (`whsec_…`); null: payment events are not read. */
  webhookSecret?: string | null;
};

/**
 * How old a webhook's signed timestamp may be: Stripe's libraries default to 5 minutes
 * (docs.stripe.com/webhooks "Prevent replay attacks"), which we keep.
 */
export const WEBHOOK_TOLERANCE_S = 300;

/** The webhook events that settle a payment (docs.stripe.com/payments/payment-intents/verifying-status). */
const SETTLING_EVENTS = new Set(['payment_intent.succeeded', 'payment_intent.payment_failed']);

function outcomeOf(intent: Stripe.PaymentIntent): ChargeOutcome {
  if (intent.status === 'succeeded') {
    return { status: 'succeeded', chargeId: intent.id, failureMessage: null, clientSecret: null };
  }
  if (intent.status === 'processing') {
    // Not paid yet: Stripe says so later with payment_intent.succeeded or payment_intent.payment_failed.
    return { status: 'processing', chargeId: intent.id, failureMessage: null, clientSecret: null };
  }
  if (intent.status === 'requires_action' || intent.status === 'requires_confirmation') {
    return {
      status: 'requires_action',
      chargeId: intent.id,
      failureMessage: 'Your bank asks you to confirm this payment.',
      clientSecret: intent.client_secret,
    };
  }
  return {
    status: 'failed',
    chargeId: intent.id,
    failureMessage: intent.last_payment_error?.message ?? `The payment was not completed (${intent.status}).`,
    clientSecret: null,
  };
}

/**
 * Stripe behind the provider port (ARCHITECTURE.md §6). Cards are collected by Stripe.js's card
 * element in the browser and confirmed there against a SetupIntent made for off-session use (the
 * bank authenticates the card once, so later off-session charges are declined or challenged less:
 * docs.stripe.com/payments/save-and-reuse, and the API reference of "Attach a PaymentMethod"
 * recommends SetupIntents over attaching); this side only sees SetupIntent and payment method ids,
 * so no card number reaches our server, database or logs. Charges are off-session PaymentIntents created with our idempotency
 * key, which Stripe deduplicates; the key is also kept in the intent's metadata so a payment can be
 * found again after a crash (by listing the customer's intents, which is strongly consistent).
 */
// Stripe's library (about 0.35 s and 30 MiB to load) is required when a Stripe provider is made,
// not at start: installs without STRIPE_SECRET_KEY never load it (bench/README.md "Embedded mode").
const require = createRequire(import.meta.url);

export function createStripeProvider(opts: StripeOptions): PaymentProvider {
  const api = opts.apiUrl ? new URL(opts.apiUrl) : null;
  const StripeLib = require('stripe') as typeof Stripe;
  const stripe = new StripeLib(opts.secretKey, {
    maxNetworkRetries: 2,
    telemetry: false,
    timeout: 30_000,
    ...(api
      ? {
          host: api.hostname,
          port: api.port || (api.protocol === 'https:' ? 443 : 80),
          protocol: api.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });

  return {
    name: 'stripe',

    async ensureCustomer({ clientId, existing, name, email }) {
      if (existing) return existing;
      const customer = await stripe.customers.create(
        { name, ...(email ? { email } : {}), metadata: { client_id: clientId } },
        { idempotencyKey: `rally-customer-${clientId}` },
      );
      return customer.id;
    },

    async startCardSetup({ clientId, customerId }) {
      const intent = await stripe.setupIntents.create({
        customer: customerId,
        usage: 'off_session',
        // stripe 23 (API 2026-10-28.endive) names it allowed_payment_method_types (CHANGELOG).
        allowed_payment_method_types: ['card'],
        metadata: { client_id: clientId },
      });
      if (!intent.client_secret) throw new Error('Stripe returned a SetupIntent without a client secret');
      return { id: intent.id, clientSecret: intent.client_secret };
    },

    async attachCard({ customerId, card }) {
      if (card.kind !== 'setup_intent') {
        throw new CardError('number', 'card numbers go to Stripe through Stripe.js, never to this server');
      }
      try {
        const setup = await stripe.setupIntents.retrieve(card.id);
        const owner = typeof setup.customer === 'string' ? setup.customer : setup.customer?.id;
        // Another client's SetupIntent, or one made outside Rally, is "no such" to this client.
        if (owner !== customerId) throw new CardError('setup_intent_id', `No such SetupIntent: '${card.id}'`);
        if (setup.status !== 'succeeded') {
          throw new CardError(
            'setup_intent_id',
            `the card was not confirmed with its bank (SetupIntent ${setup.status})`,
          );
        }
        const pmId =
          typeof setup.payment_method === 'string' ? setup.payment_method : setup.payment_method?.id;
        if (!pmId) throw new CardError('setup_intent_id', 'the SetupIntent has no payment method');
        const pm = await stripe.paymentMethods.retrieve(pmId);
        if (!pm.card) throw new CardError('setup_intent_id', 'is not a card');
        await stripe.customers.update(customerId, { invoice_settings: { default_payment_method: pm.id } });
        return {
          paymentMethodId: pm.id,
          card: {
            brand: pm.card.brand,
            last4: pm.card.last4,
            expMonth: pm.card.exp_month,
            expYear: pm.card.exp_year,
          },
        };
      } catch (err) {
        if (err instanceof StripeLib.errors.StripeCardError)
          throw new CardError('setup_intent_id', err.message);
        if (err instanceof StripeLib.errors.StripeInvalidRequestError) {
          throw new CardError('setup_intent_id', err.message);
        }
        throw err;
      }
    },

    async charge(req) {
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount: req.amountCents,
            currency: req.currency,
            customer: req.customerId,
            payment_method: req.paymentMethodId,
            off_session: true,
            confirm: true,
            description: req.description,
            metadata: { rally_key: req.idempotencyKey, client_id: req.clientId },
          },
          { idempotencyKey: req.idempotencyKey },
        );
        return outcomeOf(intent);
      } catch (err) {
        // A decline or a bank asking for the payer (authentication_required) comes as a card error
        // that carries the intent; its outcome is what we record.
        if (err instanceof StripeLib.errors.StripeCardError) {
          const intent = err.payment_intent;
          if (err.code === 'authentication_required' && intent) {
            return {
              status: 'requires_action',
              chargeId: intent.id,
              failureMessage: 'Your bank asks you to confirm this payment.',
              clientSecret: intent.client_secret,
            };
          }
          return {
            status: 'failed',
            chargeId: intent?.id ?? null,
            failureMessage: err.message,
            clientSecret: null,
          };
        }
        throw err;
      }
    },

    async findCharge({ customerId, idempotencyKey }) {
      for await (const intent of stripe.paymentIntents.list({ customer: customerId, limit: 100 })) {
        if (intent.metadata.rally_key === idempotencyKey) return outcomeOf(intent);
      }
      return null;
    },

    async retrieve({ chargeId }) {
      return outcomeOf(await stripe.paymentIntents.retrieve(chargeId));
    },

    async confirm({ chargeId }) {
      let intent = await stripe.paymentIntents.retrieve(chargeId);
      // Stripe.js normally confirms in the browser; one still waiting for confirmation is confirmed here.
      if (intent.status === 'requires_confirmation') intent = await stripe.paymentIntents.confirm(chargeId);
      return outcomeOf(intent);
    },

    readPaymentEvent({ rawBody, signature, receivedAt }): PaymentEvent | null {
      if (!opts.webhookSecret) throw new WebhookSignatureError('no webhook secret is configured');
      let event: Stripe.Event;
      try {
        // Stripe's own verifier: HMAC-SHA256 of "{t}.{raw body}" against each v1 signature, and
        // the timestamp within the tolerance of our clock (docs.stripe.com/webhooks#verify-events).
        event = stripe.webhooks.constructEvent(
          rawBody,
          signature,
          opts.webhookSecret,
          WEBHOOK_TOLERANCE_S,
          undefined,
          // Milliseconds: stripe-node divides by 1000 itself (Webhooks.js validateComputedSignature).
          receivedAt.getTime(),
        );
      } catch (err) {
        throw new WebhookSignatureError(err instanceof Error ? err.message : String(err));
      }
      if (!SETTLING_EVENTS.has(event.type)) return null;
      const intent = event.data.object as Stripe.PaymentIntent;
      const key = intent.metadata?.rally_key;
      const clientId = intent.metadata?.client_id;
      if (!key || !clientId) return null; // not a payment Rally made
      return { eventId: event.id, type: event.type, clientId, key, outcome: outcomeOf(intent) };
    },
  };
}
