const STRIPE_JS = 'https://js.stripe.com/v3';

/**
 * SPEC.md §2: the card-billing provider's script is on every page (Stripe uses it for fraud
 * signals), but only when a publishable key is configured. Returns whether the script was added.
 */
export function loadCardProvider(publishableKey: string | null): boolean {
  if (!publishableKey) return false;
  if (document.querySelector(`script[src="${STRIPE_JS}"]`)) return false;
  const script = document.createElement('script');
  script.async = true;
  script.src = STRIPE_JS;
  document.head.appendChild(script);
  return true;
}
