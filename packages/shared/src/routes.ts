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
  /** Needs at least one integration, else the user is sent to /onboarding. */
  needsIntegration?: boolean;
  /** Needs this permission in the current client, else the error page. */
  permission?: Permission;
  /** Redirects to this path (query kept). */
  redirectTo?: string;
};

export const APP_ROUTES = [
  { id: 'root', path: '/', title: 'Feed', layout: 'default', redirectTo: '/feed' },
  { id: 'feed', path: '/feed', title: 'Feed', layout: 'default', needsIntegration: true },
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
  { id: 'clients', path: '/clients', title: 'Clients', layout: 'default', permission: 'client.read' },
  { id: 'revenue', path: '/revenue', title: 'Revenue', layout: 'default', needsIntegration: true },
  {
    id: 'reports',
    path: '/reports',
    title: 'Reports',
    layout: 'default',
    needsIntegration: true,
    permission: 'reports.read',
  },
  { id: 'prospects', path: '/prospects', title: 'Prospects', layout: 'default', needsIntegration: true },
  { id: 'onboarding', path: '/onboarding', title: 'Onboarding', layout: 'default' },
  { id: 'cadences', path: '/cadence', title: 'Cadences', layout: 'default', needsIntegration: true },
  { id: 'cadence', path: '/cadence/:id', title: 'Cadence', layout: 'default', needsIntegration: true },
  // Cohorts (issue 18): audiences for marketing, from CRM lists or prospect filters.
  { id: 'cohorts', path: '/cohorts', title: 'Cohorts', layout: 'default', needsIntegration: true },
  { id: 'cohort-new', path: '/cohorts/new', title: 'New cohort', layout: 'default', needsIntegration: true },
  { id: 'cohort', path: '/cohorts/:id', title: 'Cohort', layout: 'default', needsIntegration: true },
  // Content studio (issue 8): ads and landing pages are made before any integration exists.
  { id: 'content', path: '/content', title: 'Content', layout: 'default' },
  { id: 'content-item', path: '/content/:id', title: 'Ad creative', layout: 'default' },
  { id: 'landing-pages', path: '/landing-pages', title: 'Landing pages', layout: 'default' },
  { id: 'landing-page-edit', path: '/landing-pages/:id', title: 'Landing page', layout: 'default' },
  {
    id: 'settings',
    path: '/settings',
    title: 'Settings',
    layout: 'default',
    redirectTo: '/settings/profile',
  },
  { id: 'settings-domain', path: '/settings/domain', title: 'Landing page domain', layout: 'default' },
  {
    id: 'settings-billing',
    path: '/settings/billing',
    title: 'Billing',
    layout: 'default',
    permission: 'billing_details.read',
  },
  // One invoice, printable: no app chrome around it.
  {
    id: 'settings-billing-invoice',
    path: '/settings/billing/invoices/:id',
    title: 'Invoice',
    layout: 'empty',
    permission: 'billing_details.read',
  },
  { id: 'settings-profile', path: '/settings/profile', title: 'Profile', layout: 'default' },
  { id: 'settings-connections', path: '/settings/connections', title: 'Connections', layout: 'default' },
  { id: 'settings-users', path: '/settings/users', title: 'Users', layout: 'default' },
  {
    id: 'settings-users-pending',
    path: '/settings/users/:slug',
    title: 'Pending invitations',
    layout: 'default',
  },
  {
    id: 'settings-integrations',
    path: '/settings/integrations/*',
    title: 'Integration settings',
    layout: 'default',
  },
  {
    id: 'client-settings',
    path: '/client-settings',
    title: 'Client settings',
    layout: 'default',
    redirectTo: '/client-settings/website',
  },
  { id: 'client-settings-website', path: '/client-settings/website', title: 'Website', layout: 'default' },
  { id: 'client-settings-facebook', path: '/client-settings/facebook', title: 'Facebook', layout: 'default' },
  {
    id: 'client-settings-sales-reps',
    path: '/client-settings/sales-reps',
    title: 'Sales reps',
    layout: 'default',
  },
  { id: 'lp-preview', path: '/lp/preview', title: 'Landing page preview', layout: 'empty' },
  { id: 'landing-page', path: '/lp/:base58', title: 'Landing page', layout: 'empty', exempt: true },
  {
    id: 'content-preview',
    path: '/content/preview/:base58/:resolution',
    title: 'Content preview',
    layout: 'empty',
  },
  // Public legal pages linked from the page footer (SPEC.md §2 footer); readable without login.
  { id: 'legal-cookies', path: '/legal/cookies', title: 'Cookies', layout: 'default', exempt: true },
  { id: 'legal-privacy', path: '/legal/privacy', title: 'Privacy', layout: 'default', exempt: true },
  { id: 'legal-terms', path: '/legal/terms', title: 'Terms of use', layout: 'default', exempt: true },
] as const satisfies readonly AppRoute[];

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
