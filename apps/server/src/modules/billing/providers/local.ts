import { and, eq } from 'drizzle-orm';
import { cardBrand, luhnValid } from '@rally/shared/schemas/billing';
import type { Db } from '../../../db/client.ts';
import { localCharges, localPaymentMethods } from '../../../db/schema/index.ts';
import type { LocalCardBehaviour } from '../../../db/schema/index.ts';
import { randomToken } from '../../../lib/crypto.ts';
import { CardError } from './port.ts';
import type { ChargeOutcome, PaymentProvider } from './port.ts';

/**
 * The test cards the local provider takes (README "Billing"), after Stripe's test numbers so the
 * same cards work in both. Any other number is refused: nobody should type a real card here.
 */
export const LOCAL_TEST_CARDS: Record<string, { behaviour: LocalCardBehaviour; note: string }> = {
  '4242424242424242': { behaviour: 'succeed', note: 'Visa: payments succeed' },
  '5555555555554444': { behaviour: 'succeed', note: 'Mastercard: payments succeed' },
  '378282246310005': { behaviour: 'succeed', note: 'American Express: payments succeed' },
  '4000000000000002': {
    behaviour: 'decline',
    note: 'Visa: payments are declined ("Your card was declined.")',
  },
  '4000000000009995': {
    behaviour: 'decline',
    note: 'Visa: payments are declined ("Your card has insufficient funds.")',
  },
  '4000002500003155': {
    behaviour: 'authenticate',
    note: 'Visa: each payment needs the payer to confirm it (3-D Secure style), then succeeds',
  },
};

const DECLINE_MESSAGES: Record<string, string> = {
  '0002': 'Your card was declined.',
  '9995': 'Your card has insufficient funds.',
};

const id = (prefix: string) => `${prefix}_local_${randomToken(12)}`;

function outcomeOf(row: typeof localCharges.$inferSelect): ChargeOutcome {
  return {
    status: row.status,
    chargeId: row.id,
    failureMessage: row.failureMessage,
    clientSecret: row.status === 'requires_action' ? `${row.id}_secret` : null,
  };
}

/**
 * The built-in payment provider (ARCHITECTURE.md §6): nothing leaves the machine. It keeps its own
 * books in two tables of the same database, written in their own transactions as a remote provider
 * would, so a crash between its charge and our invoice update looks exactly like one with Stripe.
 */
export function createLocalProvider(deps: { db: Db; now: () => Date }): PaymentProvider {
  const { db, now } = deps;
  return {
    name: 'local',

    async ensureCustomer({ existing }) {
      return existing ?? id('cus');
    },

    async attachCard({ clientId, customerId, card }) {
      if (card.kind !== 'card') {
        throw new CardError(
          'setup_intent_id',
          'the local payment provider takes a test card number, not a Stripe SetupIntent',
        );
      }
      const number = card.number.replace(/[\s-]/g, '');
      if (!luhnValid(number)) throw new CardError('number', 'is not a valid card number');
      const test = LOCAL_TEST_CARDS[number];
      if (!test) {
        throw new CardError(
          'number',
          'the local payment provider takes only test cards, such as 4242 4242 4242 4242 (see the README)',
        );
      }
      const brand = cardBrand(number);
      if (!(brand === 'amex' ? /^\d{4}$/ : /^\d{3}$/).test(card.cvc)) {
        throw new CardError('cvc', brand === 'amex' ? 'must be 4 digits' : 'must be 3 digits');
      }
      const paymentMethodId = id('pm');
      const details = { brand, last4: number.slice(-4), expMonth: card.expMonth, expYear: card.expYear };
      await db.insert(localPaymentMethods).values({
        id: paymentMethodId,
        clientId,
        customerId,
        ...details,
        behaviour: test.behaviour,
        createdAt: now(),
      });
      return { paymentMethodId, card: details };
    },

    async charge(req) {
      const [pm] = await db
        .select()
        .from(localPaymentMethods)
        .where(
          and(
            eq(localPaymentMethods.id, req.paymentMethodId),
            eq(localPaymentMethods.customerId, req.customerId),
          ),
        );
      const at = now();
      const status = !pm
        ? 'failed'
        : pm.behaviour === 'succeed'
          ? 'succeeded'
          : pm.behaviour === 'decline'
            ? 'failed'
            : 'requires_action';
      const failureMessage = !pm
        ? 'No such payment method on file.'
        : pm.behaviour === 'decline'
          ? (DECLINE_MESSAGES[pm.last4] ?? 'Your card was declined.')
          : null;
      // One payment per key: a repeat gets the first payment back, as Stripe's idempotency keys do.
      const [made] = await db
        .insert(localCharges)
        .values({
          id: id('pi'),
          clientId: req.clientId,
          idempotencyKey: req.idempotencyKey,
          customerId: req.customerId,
          paymentMethodId: req.paymentMethodId,
          amountCents: req.amountCents,
          currency: req.currency,
          status,
          failureMessage,
          createdAt: at,
          updatedAt: at,
        })
        .onConflictDoNothing({ target: localCharges.idempotencyKey })
        .returning();
      if (made) return outcomeOf(made);
      const [first] = await db
        .select()
        .from(localCharges)
        .where(eq(localCharges.idempotencyKey, req.idempotencyKey));
      if (!first) throw new Error('local charge vanished');
      if (first.amountCents !== req.amountCents || first.customerId !== req.customerId) {
        throw new Error(`idempotency key ${req.idempotencyKey} was used with other parameters`);
      }
      return outcomeOf(first);
    },

    async findCharge({ customerId, idempotencyKey }) {
      const [row] = await db
        .select()
        .from(localCharges)
        .where(and(eq(localCharges.idempotencyKey, idempotencyKey), eq(localCharges.customerId, customerId)));
      return row ? outcomeOf(row) : null;
    },

    async retrieve({ clientId, chargeId }) {
      const [row] = await db
        .select()
        .from(localCharges)
        .where(and(eq(localCharges.id, chargeId), eq(localCharges.clientId, clientId)));
      return row
        ? outcomeOf(row)
        : { status: 'failed', chargeId, failureMessage: 'No such payment.', clientSecret: null };
    },

    // The payer's confirmation (the local stand-in for a 3-D Secure page) completes the payment.
    async confirm({ clientId, chargeId }) {
      const [row] = await db
        .update(localCharges)
        .set({ status: 'succeeded', updatedAt: now() })
        .where(
          and(
            eq(localCharges.id, chargeId),
            eq(localCharges.clientId, clientId),
            eq(localCharges.status, 'requires_action'),
          ),
        )
        .returning();
      if (row) return outcomeOf(row);
      const [current] = await db
        .select()
        .from(localCharges)
        .where(and(eq(localCharges.id, chargeId), eq(localCharges.clientId, clientId)));
      if (!current) {
        return { status: 'failed', chargeId, failureMessage: 'No such payment.', clientSecret: null };
      }
      return outcomeOf(current);
    },
  };
}
