import { getConsent, subscribeAnalytics } from './analytics.ts';

declare global {
  // A global augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface Window {
    dataLayer?: unknown[];
  }
}

const GTM_ID = /^GTM-[A-Z0-9]+$/;
const GTM_SCRIPT = 'https://www.googletagmanager.com/gtm.js';

/** SPEC.md §5: GTM- followed by uppercase letters and digits. */
export function isValidGtmId(id: string): boolean {
  return GTM_ID.test(id);
}

function inject(id: string): void {
  if (document.querySelector(`script[src^="${GTM_SCRIPT}"]`)) return;
  window.dataLayer = window.dataLayer ?? [];
  window.dataLayer.push({ 'gtm.start': Date.now(), event: 'gtm.js' });
  const script = document.createElement('script');
  script.async = true;
  script.src = `${GTM_SCRIPT}?id=${encodeURIComponent(id)}`;
  document.head.appendChild(script);
}

/**
 * Loads the tag manager once the user has accepted analytics, and only with a valid container id.
 * Returns whether it was loaded now; otherwise it waits for consent (until the returned stop).
 */
export function startTagManager(id: string | null): { loaded: boolean; stop: () => void } {
  const none = { loaded: false, stop: () => {} };
  if (!id) return none;
  if (!isValidGtmId(id)) {
    console.warn('Tag manager id is not valid; the tag manager is not loaded', id);
    return none;
  }
  if (getConsent() === 'granted') {
    inject(id);
    return { loaded: true, stop: () => {} };
  }
  const stop = subscribeAnalytics(() => {
    if (getConsent() !== 'granted') return;
    stop();
    inject(id);
  });
  return { loaded: false, stop };
}
