import { Suspense, lazy } from 'react';
import { useAnalyticsConsent } from '../lib/analytics.ts';

// Its own chunk: most visitors never see it, and it is mounted on every page (issue 19).
const AnalyticsConsentPanel = lazy(() => import('./analytics-consent-panel.tsx'));

/** Asks once for analytics consent (SPEC.md §4); shown only while analytics is configured and pending. */
export function AnalyticsConsentBanner() {
  const { enabled, consent } = useAnalyticsConsent();
  if (!enabled || consent !== 'pending') return null;
  return (
    <Suspense fallback={null}>
      <AnalyticsConsentPanel />
    </Suspense>
  );
}
