import { useSyncExternalStore } from 'react';
import type { PostHog, PostHogConfig } from 'posthog-js';

/**
 * Product analytics (SPEC.md §1, §4, §5, §8), a thin layer over posthog-js. The provider's code is
 * loaded only when the server reports a key, is cookieless ('memory') until the user accepts, and
 * opted out when the user declines. Calls made while it loads are queued.
 */

export type AnalyticsConsent = 'pending' | 'denied' | 'granted';
export type AnalyticsSettings = { key: string; api_host: string };
/** The part of posthog-js this module uses (tests pass a fake). */
export type AnalyticsProvider = Pick<
  PostHog,
  'init' | 'identify' | 'reset' | 'capture' | 'opt_in_capturing' | 'opt_out_capturing' | 'set_config'
>;
type Status = 'idle' | 'loading' | 'ready' | 'off';

export const CONSENT_KEY = 'rally.analytics-consent';
/** Provider ids that would merge every user into one person (SPEC.md §5). */
const REJECTED_IDS = new Set(['distinct_id', 'distinctid']);
const MAX_QUEUED = 100;

let status: Status = 'idle';
let provider: AnalyticsProvider | null = null;
let queue: ((p: AnalyticsProvider) => void)[] = [];
let consent: AnalyticsConsent = readConsent();
const listeners = new Set<() => void>();

function readConsent(): AnalyticsConsent {
  try {
    const v = localStorage.getItem(CONSENT_KEY);
    return v === 'granted' || v === 'denied' ? v : 'pending';
  } catch {
    return 'pending';
  }
}

function notify() {
  for (const l of listeners) l();
}

/** Runs `call` on the provider now, after it has loaded, or not at all (not configured). */
function withProvider(call: (p: AnalyticsProvider) => void): boolean {
  if (status === 'off') return false;
  if (status === 'ready' && provider) {
    call(provider);
    return true;
  }
  if (queue.length < MAX_QUEUED) queue.push(call);
  return true;
}

const persistenceFor = (c: AnalyticsConsent): PostHogConfig['persistence'] =>
  c === 'granted' ? 'localStorage+cookie' : 'memory';

/**
 * Starts analytics when the server has a key (`settings` from the runtime config); with null, every
 * later call is ignored. `load` is the provider's code, imported only now.
 */
export async function initAnalytics(
  settings: AnalyticsSettings | null,
  load: () => Promise<AnalyticsProvider> = async () => (await import('posthog-js')).default,
): Promise<boolean> {
  if (status !== 'idle') return status === 'ready';
  if (!settings) {
    status = 'off';
    queue = [];
    notify();
    return false;
  }
  status = 'loading';
  notify();
  try {
    const p = await load();
    p.init(settings.key, {
      api_host: settings.api_host,
      capture_pageview: false,
      capture_pageleave: false,
      autocapture: false,
      disable_session_recording: true,
      disable_surveys: true,
      persistence: persistenceFor(consent),
      opt_out_capturing_by_default: consent === 'denied',
    });
    if (consent === 'denied') p.opt_out_capturing();
    provider = p;
    status = 'ready';
  } catch (err) {
    console.warn('Analytics could not be loaded', err);
    status = 'off';
  }
  const pending = queue;
  queue = [];
  if (provider) for (const call of pending) call(provider);
  notify();
  return status === 'ready';
}

export function getConsent(): AnalyticsConsent {
  return consent;
}

/** The user's answer to the consent banner, kept in localStorage and applied to the provider. */
export function setConsent(next: 'granted' | 'denied'): void {
  consent = next;
  try {
    localStorage.setItem(CONSENT_KEY, next);
  } catch {
    // Private mode: the answer lasts for this page only.
  }
  if (provider) {
    if (next === 'granted') {
      provider.set_config({ persistence: persistenceFor(next) });
      provider.opt_in_capturing();
    } else {
      provider.opt_out_capturing();
    }
  }
  notify();
}

export function subscribeAnalytics(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** For the consent banner: whether analytics is configured, and the consent so far. */
export function useAnalyticsConsent(): { enabled: boolean; consent: AnalyticsConsent } {
  const enabled = useSyncExternalStore(subscribeAnalytics, () => status === 'loading' || status === 'ready');
  const current = useSyncExternalStore(subscribeAnalytics, () => consent);
  return { enabled, consent: current };
}

/** Identifies the signed-in user (SPEC.md §4); refuses ids that are empty or placeholders (§5). */
export function identify(id: string): boolean {
  const trimmed = id.trim();
  if (!trimmed || REJECTED_IDS.has(trimmed.toLowerCase())) {
    console.warn('Analytics identify rejected an invalid id', JSON.stringify(id));
    return false;
  }
  if (consent === 'denied') return false;
  return withProvider((p) => p.identify(trimmed));
}

/** Back to anonymous (after logout). */
export function reset(): void {
  withProvider((p) => p.reset());
}

export function capture(event: string, props: Record<string, unknown> = {}): boolean {
  if (!event) {
    console.warn('Analytics capture: missing event name');
    return false;
  }
  if (status === 'idle') {
    console.warn('Analytics capture called before initialisation', event);
    return false;
  }
  if (consent === 'denied') return false;
  return withProvider((p) => p.capture(event, props));
}

/** One pageview per route change (SPEC.md §2); queued until analytics has started. */
export function pageview(path: string): boolean {
  if (consent === 'denied') return false;
  const url = new URL(path, window.location.origin).toString();
  return withProvider((p) => p.capture('$pageview', { $current_url: url }));
}
