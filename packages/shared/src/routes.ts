import type { Permission } from './constants/permissions.ts';

export type Layout = 'auth' | 'default' | 'empty';

/**
 * One entry of the app's route table (SPEC.md §2). The web router is built from this list and the
 * server uses it to answer app paths with status 200 (known) or 404 (unknown).
 */
export type AppRoute = {
  /** Stable id; the web app maps it to a lazily loaded screen module. */
  id: string;
  /** Path pattern: literal segments, `:param` segments, and a trailing `*` catch-all. */
  path: string;
  title: string;
  layout: Layout;
  /** Only for logged-out users (SPEC.md §2: /signup and /register). */
  guestOnly?: boolean;
  /** Reachable without login (SPEC.md §2: login, signup, change-password, reset-password; public pages). */
  exempt?: boolean;
  /**
   * Why this route works for a client without any integration. SPEC.md §2: "Most app routes require
   * the logged-in check and the has-integration check": every logged-in route sends a client with
   * no integration to /onboarding unless it says here why not (see `needsIntegration`).
   */
  withoutIntegration?: string;
  /** Needs this permission in the current client, else the error page. */
  permission?: Permission;
  /** Redirects to this path (query kept). */
  redirectTo?: string;
  /**
   * The same page for everyone, signed in or not, in any client: the guards leave it alone (no
   * client_id added, no redirect), so its address — fragment included — is kept as opened. Implies
   * `exempt`. Embedded report links (shown in other tools' frames).
   */
  standalone?: true;
};

/** Why the routes below work without an integration (SPEC.md §2 exemptions), one reason each. */
const WITHOUT_INTEGRATION = {
  onboarding: 'Where a client without an integration is sent, to connect one.',
  clients: 'Picking or creating a client comes before that client has any integration.',
  settings:
    'The user’s and the client’s own settings (profile, users, billing, domain, connections) are needed before, and to make, the first integration.',
  clientSettings:
    'The client’s website, Facebook page and sales reps are filled in while onboarding, before or without an integration.',
  serverPage: 'A public page the server renders (the public-pages module); the app only hands it over.',
  redirect: 'Only redirects; the route it leads to does its own checks.',
  emptyState:
    'A new account opens it and sees what it will hold and what to connect for that (issue 42 item 5): a real empty state, not a detour to onboarding.',
  draft:
    'Ads and landing pages are drafted before any prospect is in Rally (issue 42 item 5: a new user can draft an ad).',
} as const;

export const APP_ROUTES = [
  {
    id: 'root',
    path: '/',
    title: 'Feed',
    layout: 'default',
    redirectTo: '/feed',
    withoutIntegration: WITHOUT_INTEGRATION.redirect,
  },
  { id: 'feed', path: '/feed', title: 'Feed', layout: 'default' },
  { id: 'login', path: '/login', title: 'Sign In', layout: 'auth', exempt: true },
  {
    id: 'signup',
    path: '/signup',
    title: 'Accept invitation',
    layout: 'auth',
    exempt: true,
    guestOnly: true,
  },
  { id: 'register', path: '/register', title: 'Sign Up', layout: 'auth', exempt: true, guestOnly: true },
  { id: 'reset-password', path: '/reset-password', title: 'Reset password', layout: 'auth', exempt: true },
  { id: 'change-password', path: '/change-password', title: 'Change password', layout: 'auth', exempt: true },
  { id: 'auth-callback', path: '/auth/callback', title: 'Signing in', layout: 'empty', exempt: true },
  {
    id: 'clients',
    path: '/clients',
    title: 'Clients',
    layout: 'default',
    permission: 'client.read',
    withoutIntegration: WITHOUT_INTEGRATION.clients,
  },
  {
    id: 'revenue',
    path: '/revenue',
    title: 'Revenue',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.emptyState,
  },
  {
    id: 'reports',
    path: '/reports',
    title: 'Reports',
    layout: 'default',
    permission: 'reports.read',
    withoutIntegration: WITHOUT_INTEGRATION.emptyState,
  },
  {
    id: 'prospects',
    path: '/prospects',
    title: 'Prospects',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.emptyState,
  },
  {
    id: 'onboarding',
    path: '/onboarding',
    title: 'Onboarding',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.onboarding,
  },
  {
    id: 'cadences',
    path: '/cadence',
    title: 'Cadences',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.emptyState,
  },
  { id: 'cadence', path: '/cadence/:id', title: 'Cadence', layout: 'default' },
  // Cohorts (issue 18): audiences for marketing, from CRM lists or prospect filters.
  {
    id: 'cohorts',
    path: '/cohorts',
    title: 'Cohorts',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.emptyState,
  },
  { id: 'cohort-new', path: '/cohorts/new', title: 'New cohort', layout: 'default' },
  { id: 'cohort', path: '/cohorts/:id', title: 'Cohort', layout: 'default' },
  // Journeys (issue 18): stages with content and rules for a cohort, and their funnel over time.
  {
    id: 'journey',
    path: '/cohorts/:id/journey',
    title: 'Journey',
    layout: 'default',
    permission: 'cohort.write',
  },
  {
    id: 'journey-view',
    path: '/cohorts/:id/journey/view',
    title: 'Journey view',
    layout: 'default',
    permission: 'reports.read',
  },
  // Campaigns (issue 18): a cohort's flights on an ad network, with the download of their ads.
  { id: 'campaign-new', path: '/cohorts/:id/campaigns/new', title: 'New campaign', layout: 'default' },
  { id: 'campaign', path: '/campaigns/:id', title: 'Campaign', layout: 'default' },
  // A campaign on an ad network for one audience (issue 39, decision 0026): launch, pause, status.
  { id: 'network-campaign', path: '/network-campaigns/:id', title: 'Network campaign', layout: 'default' },
  // Content studio: its ads and landing pages are for the cadences of an integration (SPEC.md §2); drafted before one.
  {
    id: 'content',
    path: '/content',
    title: 'Content',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.draft,
  },
  {
    id: 'content-item',
    path: '/content/:id',
    title: 'Ad creative',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.draft,
  },
  {
    id: 'landing-pages',
    path: '/landing-pages',
    title: 'Landing pages',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.draft,
  },
  {
    id: 'landing-page-edit',
    path: '/landing-pages/:id',
    title: 'Landing page',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.draft,
  },
  {
    id: 'settings',
    path: '/settings',
    title: 'Settings',
    layout: 'default',
    redirectTo: '/settings/profile',
    withoutIntegration: WITHOUT_INTEGRATION.settings,
  },
  {
    id: 'settings-domain',
    path: '/settings/domain',
    title: 'Domains',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.settings,
  },
  {
    id: 'settings-billing',
    path: '/settings/billing',
    title: 'Billing',
    layout: 'default',
    permission: 'billing_details.read',
    withoutIntegration: WITHOUT_INTEGRATION.settings,
  },
  // One invoice, printable: no app chrome around it.
  {
    id: 'settings-billing-invoice',
    path: '/settings/billing/invoices/:id',
    title: 'Invoice',
    layout: 'empty',
    permission: 'billing_details.read',
    withoutIntegration: WITHOUT_INTEGRATION.settings,
  },
  {
    id: 'settings-profile',
    path: '/settings/profile',
    title: 'Profile',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.settings,
  },
  {
    id: 'settings-connections',
    path: '/settings/connections',
    title: 'Connections',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.settings,
  },
  {
    id: 'settings-suppressions',
    path: '/settings/suppressions',
    title: 'Suppression list',
    layout: 'default',
    permission: 'settings.write',
    withoutIntegration: WITHOUT_INTEGRATION.settings,
  },
  {
    id: 'settings-ad-networks',
    path: '/settings/ad-networks',
    title: 'Ad networks',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.settings,
  },
  {
    id: 'settings-users',
    path: '/settings/users',
    title: 'Users',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.settings,
  },
  {
    id: 'settings-users-pending',
    path: '/settings/users/:slug',
    title: 'Pending invitations',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.settings,
  },
  {
    id: 'settings-audit-log',
    path: '/settings/audit-log',
    title: 'Audit log',
    layout: 'default',
    permission: 'settings.write',
    withoutIntegration: WITHOUT_INTEGRATION.settings,
  },
  {
    id: 'settings-integrations',
    path: '/settings/integrations/*',
    title: 'Integration settings',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.settings,
  },
  {
    id: 'client-settings',
    path: '/client-settings',
    title: 'Client settings',
    layout: 'default',
    redirectTo: '/client-settings/website',
    withoutIntegration: WITHOUT_INTEGRATION.clientSettings,
  },
  {
    id: 'client-settings-website',
    path: '/client-settings/website',
    title: 'Website',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.clientSettings,
  },
  {
    id: 'client-settings-facebook',
    path: '/client-settings/facebook',
    title: 'Facebook',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.clientSettings,
  },
  {
    id: 'client-settings-sales-reps',
    path: '/client-settings/sales-reps',
    title: 'Sales reps',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.clientSettings,
  },
  {
    // Issue 17: each rep's superprospect e-mail and digest (GET and POST …/sdr_notifications).
    id: 'client-settings-notifications',
    path: '/client-settings/notifications',
    title: 'Notifications',
    layout: 'default',
    withoutIntegration: WITHOUT_INTEGRATION.clientSettings,
  },
  {
    id: 'lp-preview',
    path: '/lp/preview',
    title: 'Landing page preview',
    layout: 'empty',
    withoutIntegration: WITHOUT_INTEGRATION.serverPage,
  },
  // Issue 17: an embedded report link, shown in another tool's frame (the token is in the fragment).
  {
    id: 'embed-report',
    path: '/embed/reports',
    title: 'Report',
    layout: 'empty',
    exempt: true,
    standalone: true,
  },
  { id: 'landing-page', path: '/lp/:base58', title: 'Landing page', layout: 'empty', exempt: true },
  {
    id: 'content-preview',
    path: '/content/preview/:base58/:resolution',
    title: 'Content preview',
    layout: 'empty',
    withoutIntegration: WITHOUT_INTEGRATION.serverPage,
  },
  // Public legal pages linked from the page footer (SPEC.md §2 footer); readable without login.
  { id: 'legal-cookies', path: '/legal/cookies', title: 'Cookies', layout: 'default', exempt: true },
  { id: 'legal-privacy', path: '/legal/privacy', title: 'Privacy', layout: 'default', exempt: true },
  { id: 'legal-terms', path: '/legal/terms', title: 'Terms of use', layout: 'default', exempt: true },
] as const satisfies readonly AppRoute[];

/**
 * SPEC.md §2: "Most app routes require the logged-in check and the has-integration check". Public
 * (exempt) and guest-only routes need neither; the routes that give a reason do without the second.
 */
export function needsIntegration(route: AppRoute): boolean {
  return !route.exempt && !route.guestOnly && route.withoutIntegration === undefined;
}

export type AppRouteId = (typeof APP_ROUTES)[number]['id'];

export type RouteMatch = { route: AppRoute; params: Record<string, string> };

/** Matches a pathname against one pattern; returns the params or null. Trailing slashes are ignored. */
export function matchPattern(pattern: string, pathname: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const got = pathname.split('/').filter(Boolean);
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const part = want[i] as string;
    if (part === '*') {
      params['*'] = got.slice(i).join('/');
      return params;
    }
    const value = got[i];
    if (value === undefined) return null;
    if (part.startsWith(':')) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(value);
      } catch {
        return null;
      }
      params[part.slice(1)] = decoded;
    } else if (part !== value) {
      return null;
    }
  }
  return got.length === want.length ? params : null;
}

/** Finds the route for a pathname; literal routes win over parameterised ones (route order). */
export function matchAppRoute(pathname: string, routes: readonly AppRoute[] = APP_ROUTES): RouteMatch | null {
  let fallback: RouteMatch | null = null;
  for (const route of routes) {
    const params = matchPattern(route.path, pathname);
    if (!params) continue;
    const literal = !route.path.includes(':') && !route.path.includes('*');
    if (literal) return { route, params };
    fallback ??= { route, params };
  }
  return fallback;
}
