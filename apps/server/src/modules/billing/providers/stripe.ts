import Stripe from 'stripe';
import { CardError } from './port.ts';
import type { ChargeOutcome, PaymentProvider } from './port.ts';

export type StripeOptions = {
  secretKey: string;
  /** Another API origin (tests: the in-repo fake on loopback); default api.stripe.com. */
  apiUrl?: string | null;
};

function outcomeOf(intent: Stripe.PaymentIntent): ChargeOutcome {
  if (intent.status === 'succeeded' || intent.status === 'processing') {
    // A card payment that is processing settles without us; Stripe reports it as paid shortly after.
    return { status: 'succeeded', chargeId: intent.id, failureMessage: null, clientSecret: null };
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
 * element in the browser; this side only sees payment method ids, so no card number reaches our
 * server, database or logs. Charges are off-session PaymentIntents created with our idempotency
 * key, which Stripe deduplicates; the key is also kept in the intent's metadata so a payment can be
 * found again after a crash (by listing the customer's intents, which is strongly consistent).
 */
export function createStripeProvider(opts: StripeOptions): PaymentProvider {
  const api = opts.apiUrl ? new URL(opts.apiUrl) : null;
  const stripe = new Stripe(opts.secretKey, {
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

    async attachCard({ customerId, card }) {
      if (card.kind !== 'payment_method') {
        throw new CardError('number', 'card numbers go to Stripe through Stripe.js, never to this server');
      }
      try {
        const pm = await stripe.paymentMethods.attach(card.id, { customer: customerId });
        if (!pm.card) throw new CardError('payment_method_id', 'is not a card');
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
        if (err instanceof Stripe.errors.StripeCardError)
          throw new CardError('payment_method_id', err.message);
        if (err instanceof Stripe.errors.StripeInvalidRequestError) {
          throw new CardError('payment_method_id', err.message);
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
        if (err instanceof Stripe.errors.StripeCardError) {
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
  };
}
