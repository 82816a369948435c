/**
 * The little of Stripe.js the billing screen uses (the script itself is loaded on every page by
 * lib/card-provider.ts when a publishable key is configured). Card numbers stay inside Stripe's
 * iframe; we only ever receive the id of the SetupIntent it confirmed.
 */
export type StripeCardElement = {
  mount(el: HTMLElement): void;
  destroy(): void;
  on(event: 'change', handler: (e: { complete: boolean; error?: { message: string } }) => void): void;
};
export type StripeJs = {
  elements(): { create(type: 'card', opts?: Record<string, unknown>): StripeCardElement };
  confirmCardPayment(clientSecret: string): Promise<{ error?: { message?: string } }>;
  /** Confirms a SetupIntent with the card element; the bank may authenticate the payer once. */
  confirmCardSetup(
    clientSecret: string,
    data: { payment_method: { card: StripeCardElement } },
  ): Promise<{ setupIntent?: { id: string; status: string }; error?: { message?: string } }>;
};
type StripeFactory = (key: string) => StripeJs;

const instances = new Map<string, StripeJs>();

/** Stripe.js for this key once its script has loaded (waits up to 10 s for it). */
export async function loadStripe(publishableKey: string): Promise<StripeJs> {
  const cached = instances.get(publishableKey);
  if (cached) return cached;
  for (let waited = 0; waited < 10_000; waited += 100) {
    const factory = (window as unknown as { Stripe?: StripeFactory }).Stripe;
    if (factory) {
      const stripe = factory(publishableKey);
      instances.set(publishableKey, stripe);
      return stripe;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('Stripe.js did not load. Check your connection and reload the page.');
}
