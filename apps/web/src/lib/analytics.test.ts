import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AnalyticsProvider } from './analytics.ts';

const SETTINGS = { key: 'phc_test', api_host: '/ingest/ph' };

function fakeProvider() {
  return {
    init: vi.fn(),
    identify: vi.fn(),
    reset: vi.fn(),
    capture: vi.fn(),
    opt_in_capturing: vi.fn(),
    opt_out_capturing: vi.fn(),
    set_config: vi.fn(),
  };
}

/** A fresh module per test: consent is read from localStorage when the module loads. */
async function freshAnalytics() {
  return import('./analytics.ts');
}

let warn: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  localStorage.clear();
  vi.resetModules();
  warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => warn.mockRestore());

async function started(consent?: 'granted' | 'denied') {
  if (consent) localStorage.setItem('rally.analytics-consent', consent);
  const a = await freshAnalytics();
  const provider = fakeProvider();
  expect(await a.initAnalytics(SETTINGS, async () => provider as unknown as AnalyticsProvider)).toBe(true);
  return { a, provider };
}

describe('identify (SPEC.md §5)', () => {
  it.each(['', '   ', 'distinct_id', 'distinctid'])('rejects %j without calling the provider', async (id) => {
    const { a, provider } = await started();
    expect(a.identify(id)).toBe(false);
    expect(provider.identify).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledWith('Analytics identify rejected an invalid id', JSON.stringify(id));
  });

  it('identifies a real user id, and reset returns to anonymous', async () => {
    const { a, provider } = await started();
    expect(a.identify('4f0c7a52-35c5-4d8e-9a39-2f4b1f0c2d11')).toBe(true);
    expect(provider.identify).toHaveBeenCalledWith('4f0c7a52-35c5-4d8e-9a39-2f4b1f0c2d11');
    a.reset();
    expect(provider.reset).toHaveBeenCalledOnce();
  });

  it('queues calls made before the provider has loaded', async () => {
    const a = await freshAnalytics();
    const provider = fakeProvider();
    a.pageview('/login');
    a.identify('user-1');
    await a.initAnalytics(SETTINGS, async () => provider as unknown as AnalyticsProvider);
    expect(provider.capture).toHaveBeenCalledWith('$pageview', {
      $current_url: `${window.location.origin}/login`,
    });
    expect(provider.identify).toHaveBeenCalledWith('user-1');
  });
});

describe('initialisation', () => {
  it('is cookieless and has no recording, surveys, autocapture or automatic pageviews', async () => {
    const { provider } = await started();
    expect(provider.init).toHaveBeenCalledWith('phc_test', {
      api_host: '/ingest/ph',
      capture_pageview: false,
      capture_pageleave: false,
      autocapture: false,
      disable_session_recording: true,
      disable_surveys: true,
      persistence: 'memory',
      opt_out_capturing_by_default: false,
    });
  });

  it('loads nothing and sends nothing when analytics is not configured', async () => {
    const a = await freshAnalytics();
    const load = vi.fn();
    a.pageview('/feed');
    expect(await a.initAnalytics(null, load)).toBe(false);
    expect(load).not.toHaveBeenCalled();
    expect(a.capture('clicked')).toBe(false);
    expect(a.identify('user-1')).toBe(false);
  });
});

describe('consent (SPEC.md §4: pending, denied, granted)', () => {
  it('starts pending, persists the answer and applies it to the provider', async () => {
    const { a, provider } = await started();
    expect(a.getConsent()).toBe('pending');

    a.setConsent('granted');
    expect(localStorage.getItem('rally.analytics-consent')).toBe('granted');
    expect(provider.set_config).toHaveBeenCalledWith({ persistence: 'localStorage+cookie' });
    expect(provider.opt_in_capturing).toHaveBeenCalledOnce();

    a.setConsent('denied');
    expect(localStorage.getItem('rally.analytics-consent')).toBe('denied');
    expect(provider.opt_out_capturing).toHaveBeenCalledOnce();
    expect(a.capture('clicked')).toBe(false);
    expect(provider.capture).not.toHaveBeenCalled();
  });

  it('remembers a stored answer on the next page load', async () => {
    const { a, provider } = await started('granted');
    expect(a.getConsent()).toBe('granted');
    expect(provider.init).toHaveBeenCalledWith(
      'phc_test',
      expect.objectContaining({ persistence: 'localStorage+cookie' }),
    );
  });

  it('starts opted out when consent was denied, ignoring events and identify', async () => {
    const { a, provider } = await started('denied');
    expect(provider.opt_out_capturing).toHaveBeenCalledOnce();
    expect(a.capture('clicked')).toBe(false);
    expect(a.pageview('/feed')).toBe(false);
    expect(a.identify('user-1')).toBe(false);
    expect(provider.capture).not.toHaveBeenCalled();
    expect(provider.identify).not.toHaveBeenCalled();
  });
});

describe('capture errors (SPEC.md §8)', () => {
  it('reports a missing event name', async () => {
    const { a, provider } = await started();
    expect(a.capture('')).toBe(false);
    expect(warn).toHaveBeenCalledWith('Analytics capture: missing event name');
    expect(provider.capture).not.toHaveBeenCalled();
  });

  it('reports a call before initialisation', async () => {
    const a = await freshAnalytics();
    expect(a.capture('clicked')).toBe(false);
    expect(warn).toHaveBeenCalledWith('Analytics capture called before initialisation', 'clicked');
  });

  it('sends events and pageviews once started', async () => {
    const { a, provider } = await started();
    expect(a.capture('report_opened', { report: 'pipeline' })).toBe(true);
    expect(provider.capture).toHaveBeenCalledWith('report_opened', { report: 'pipeline' });
    a.pageview('/feed?client_id=abc');
    expect(provider.capture).toHaveBeenLastCalledWith('$pageview', {
      $current_url: `${window.location.origin}/feed?client_id=abc`,
    });
  });
});
