import type { ComponentType } from 'react';
import type { AppRouteId } from '@rally/shared';

type ScreenModule = { default: ComponentType };

/**
 * Every route of the shared table maps to a lazily loaded screen module (its own chunk). The Record
 * type makes a route without a screen a compile error.
 */
export const screens: Record<AppRouteId, () => Promise<ScreenModule>> = {
  root: () => import('./routes/app-screen.tsx'),
  feed: () => import('./routes/feed.tsx'),
  login: () => import('./routes/login.tsx'),
  signup: () => import('./routes/signup.tsx'),
  register: () => import('./routes/register.tsx'),
  'reset-password': () => import('./routes/reset-password.tsx'),
  'change-password': () => import('./routes/change-password.tsx'),
  'auth-callback': () => import('./routes/auth-callback.tsx'),
  clients: () => import('./routes/clients.tsx'),
  revenue: () => import('./routes/revenue.tsx'),
  reports: () => import('./routes/reports.tsx'),
  prospects: () => import('./routes/prospects.tsx'),
  onboarding: () => import('./routes/onboarding.tsx'),
  cadences: () => import('./routes/cadences.tsx'),
  cadence: () => import('./routes/cadence.tsx'),
  cohorts: () => import('./routes/cohorts.tsx'),
  'cohort-new': () => import('./routes/cohort-new.tsx'),
  cohort: () => import('./routes/cohort.tsx'),
  journey: () => import('./routes/journey.tsx'),
  'journey-view': () => import('./routes/journey-view.tsx'),
  'campaign-new': () => import('./routes/campaign-new.tsx'),
  campaign: () => import('./routes/campaign.tsx'),
  content: () => import('./routes/content.tsx'),
  'content-item': () => import('./routes/content-item.tsx'),
  'landing-pages': () => import('./routes/landing-pages.tsx'),
  'landing-page-edit': () => import('./routes/landing-page-edit.tsx'),
  settings: () => import('./routes/app-screen.tsx'),
  'settings-domain': () => import('./routes/settings-domain.tsx'),
  'settings-billing': () => import('./routes/settings-billing.tsx'),
  'settings-billing-invoice': () => import('./routes/settings-billing-invoice.tsx'),
  'settings-profile': () => import('./routes/settings-profile.tsx'),
  'settings-connections': () => import('./routes/settings-connections.tsx'),
  'settings-ad-networks': () => import('./routes/settings-ad-networks.tsx'),
  'settings-users': () => import('./routes/settings-users.tsx'),
  'settings-users-pending': () => import('./routes/settings-users.tsx'),
  'settings-integrations': () => import('./routes/settings-integrations.tsx'),
  'client-settings': () => import('./routes/app-screen.tsx'),
  'client-settings-website': () => import('./routes/client-settings-website.tsx'),
  'client-settings-facebook': () => import('./routes/client-settings-facebook.tsx'),
  'client-settings-sales-reps': () => import('./routes/client-settings-sales-reps.tsx'),
  'client-settings-notifications': () => import('./routes/client-settings-notifications.tsx'),
  'lp-preview': () => import('./routes/server-page.tsx'),
  'landing-page': () => import('./routes/server-page.tsx'),
  'embed-report': () => import('./routes/embed-report.tsx'),
  'content-preview': () => import('./routes/server-page.tsx'),
  'legal-cookies': () => import('./routes/legal-cookies.tsx'),
  'legal-privacy': () => import('./routes/legal-privacy.tsx'),
  'legal-terms': () => import('./routes/legal-terms.tsx'),
};
