import { MantineProvider } from '@mantine/core';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AnalyticsProvider } from '../lib/analytics.ts';

beforeEach(() => {
  localStorage.clear();
  vi.resetModules();
});

async function renderBanner(configured: boolean) {
  const analytics = await import('../lib/analytics.ts');
  const { AnalyticsConsentBanner } = await import('./analytics-consent-banner.tsx');
  render(
    <MantineProvider>
      <AnalyticsConsentBanner />
    </MantineProvider>,
  );
  const provider = {
    init: vi.fn(),
    opt_in_capturing: vi.fn(),
    opt_out_capturing: vi.fn(),
    set_config: vi.fn(),
  } as unknown as AnalyticsProvider;
  await act(() =>
    analytics.initAnalytics(
      configured ? { key: 'phc_x', api_host: '/ingest/ph' } : null,
      async () => provider,
    ),
  );
  return analytics;
}

describe('AnalyticsConsentBanner', () => {
  it('is not shown when analytics is not configured', async () => {
    await renderBanner(false);
    expect(screen.queryByRole('region', { name: 'Analytics consent' })).toBeNull();
  });

  it('asks while consent is pending and remembers Accept', async () => {
    const analytics = await renderBanner(true);
    // The question itself is a lazy chunk.
    expect(await screen.findByRole('region', { name: 'Analytics consent' })).toBeVisible();
    await userEvent.click(screen.getByRole('button', { name: 'Accept' }));
    expect(analytics.getConsent()).toBe('granted');
    expect(localStorage.getItem('rally.analytics-consent')).toBe('granted');
    expect(screen.queryByRole('region', { name: 'Analytics consent' })).toBeNull();
  });

  it('remembers Decline', async () => {
    const analytics = await renderBanner(true);
    await userEvent.click(await screen.findByRole('button', { name: 'Decline' }));
    expect(analytics.getConsent()).toBe('denied');
    expect(screen.queryByRole('region', { name: 'Analytics consent' })).toBeNull();
  });
});
