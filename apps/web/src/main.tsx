import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { AppProviders } from './app/providers.tsx';
import { createRouter } from './app/router.tsx';
import { AnalyticsConsentBanner } from './components/analytics-consent-banner.tsx';
import { identify, initAnalytics } from './lib/analytics.ts';
import { initAuth, setIdentifyHandler } from './lib/auth/store.ts';
import { startDeployWatch } from './lib/deploy.ts';
import { afterFirstScreen } from './lib/after-first-screen.ts';
import { getRuntimeConfig } from './lib/runtime-config.ts';
import { warmScreens } from './app/screen-loader.ts';

setIdentifyHandler((user) => identify(user.id));
initAuth();
startDeployWatch();
// Third-party add-ons, each only when the server has it configured (SPEC.md §1), once the first
// screen is up.
// The map of the other screens and the query cache load then too, ahead of the first navigation
// (issue 19: /login downloads neither; app/screen-loader.ts, lib/query-loader.ts).
afterFirstScreen(warmScreens);
afterFirstScreen(
  () =>
    void getRuntimeConfig().then((config) => {
      void initAnalytics(config.analytics);
      // Loaded only when configured: most pages of most installs have neither (issue 19: /login JS).
      if (config.gtm_id) void import('./lib/tag-manager.ts').then((m) => m.startTagManager(config.gtm_id));
      if (config.stripe_publishable_key) {
        void import('./lib/card-provider.ts').then((m) => m.loadCardProvider(config.stripe_publishable_key));
      }
    }),
);

const router = createRouter();
const root = document.getElementById('root');
if (!root) throw new Error('#root is missing from index.html');

createRoot(root).render(
  <StrictMode>
    <AppProviders>
      <RouterProvider router={router} />
      <AnalyticsConsentBanner />
    </AppProviders>
  </StrictMode>,
);
