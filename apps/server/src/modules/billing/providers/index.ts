import type { Config } from '../../../config/env.ts';
import type { Db } from '../../../db/client.ts';
import { createLocalProvider } from './local.ts';
import { createStripeProvider } from './stripe.ts';
import type { PaymentProvider } from './port.ts';

export { CardError, WebhookSignatureError } from './port.ts';
export type {
  CardDetails,
  CardInput,
  ChargeOutcome,
  ChargeRequest,
  PaymentEvent,
  PaymentProvider,
} from './port.ts';
export { createLocalProvider, LOCAL_TEST_CARDS } from './local.ts';
export { createStripeProvider } from './stripe.ts';

/** Stripe when STRIPE_SECRET_KEY is set, else the built-in local provider. */
export function createPaymentProvider(
  config: Pick<Config, 'stripe'>,
  db: Db,
  now: () => Date,
): PaymentProvider {
  return config.stripe ? createStripeProvider(config.stripe) : createLocalProvider({ db, now });
}
