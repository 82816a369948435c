import type { Permission } from '@rally/shared';

/**
 * The app's screens and settings pages by name (issue 42 item 2): the settings side navigation is
 * built from SETTINGS_GROUPS and the header search finds both lists by name, so a page added here is
 * reachable from both. `permission` hides a page from a role that would only meet the error page.
 */
export type AppPage = {
  label: string;
  /** Path without the query; the client_id is added where it is linked. */
  to: string;
  /** One line on what is there, shown under the name in the search. */
  detail: string;
  /** Other words a person might type for it. */
  keywords?: readonly string[];
  permission?: Permission;
  /** Only for owners of the client (the role `purple_owner`), whatever their permissions. */
  ownerOnly?: true;
  /** Other paths shown as this page (its tabs and sub-pages). */
  also?: readonly string[];
};

export type SettingsGroup = { title: string; pages: readonly AppPage[] };

export const SETTINGS_GROUPS: readonly SettingsGroup[] = [
  {
    title: 'Workspace',
    pages: [
      {
        label: 'Profile',
        to: '/settings/profile',
        detail: 'Your name, password and two-step verification',
        keywords: ['password', 'two-step', 'mfa', 'account', 'name', 'sign-in'],
      },
      {
        label: 'Users',
        to: '/settings/users',
        detail: 'Members, their roles and pending invitations',
        keywords: ['members', 'invite', 'invitations', 'roles', 'team', 'people'],
        permission: 'users.read',
      },
      {
        label: 'Billing',
        to: '/settings/billing',
        detail: 'Plan, payment card and invoices',
        keywords: ['invoices', 'card', 'payment', 'plan', 'price'],
        permission: 'billing_details.read',
      },
      {
        label: 'Audit log',
        to: '/settings/audit-log',
        detail: 'Who did what and from where, with its tamper check',
        keywords: ['audit', 'log', 'history', 'security', 'sign-ins', 'activity', 'compliance'],
        permission: 'settings.write',
        ownerOnly: true,
      },
    ],
  },
  {
    title: 'Client',
    pages: [
      {
        label: 'Brand & website',
        to: '/client-settings/website',
        detail: 'Logo, colours and website every ad and page starts from',
        keywords: ['brand', 'logo', 'colours', 'colors', 'website'],
      },
      {
        label: 'Facebook',
        to: '/client-settings/facebook',
        detail: 'The page your ads run as',
        keywords: ['meta', 'page', 'social'],
      },
      {
        label: 'Sales reps',
        to: '/client-settings/sales-reps',
        detail: 'The reps shown on ads and landing pages',
        keywords: ['reps', 'sdr', 'calendar', 'photos'],
      },
      {
        label: 'Notifications',
        to: '/client-settings/notifications',
        detail: 'Superprospect e-mails and digests per rep',
        keywords: ['email', 'e-mail', 'digest', 'alerts'],
      },
      {
        label: 'Domains & sign-in',
        to: '/settings/domain',
        detail: 'Verified domains, single sign-on and the landing page domain',
        keywords: ['domain', 'sso', 'single sign-on', 'saml', 'landing domain', 'dns'],
      },
      {
        label: 'Suppression list',
        to: '/settings/suppressions',
        detail: 'People shown no ads and counted nowhere: opt-outs and addresses you add',
        keywords: ['opt-out', 'opt out', 'unsubscribe', 'do not contact', 'privacy', 'suppress', 'gdpr'],
        permission: 'settings.write',
      },
      {
        label: 'Webhooks',
        to: '/settings/integrations/webhooks',
        detail: 'Endpoints that receive events',
        keywords: ['webhook', 'endpoint', 'events', 'api'],
      },
    ],
  },
  {
    title: 'Integrations',
    pages: [
      {
        label: 'Connections',
        to: '/settings/connections',
        detail: 'CRM, sales engagement and file imports',
        keywords: [
          'crm',
          'salesforce',
          'hubspot',
          'salesloft',
          'outreach',
          'marketo',
          'import',
          'csv',
          'sync',
        ],
        also: ['/settings/integrations'],
      },
      {
        label: 'Ad networks',
        to: '/settings/ad-networks',
        detail: 'Meta, LinkedIn and Google Ads accounts and pages for audiences from cohorts',
        keywords: [
          'meta',
          'facebook',
          'instagram',
          'ads',
          'audience',
          'custom audience',
          'paid',
          'linkedin',
          'matched audience',
          'google ads',
          'customer match',
        ],
      },
    ],
  },
];

/** The screens of the main navigation (components/layouts/page-header.tsx shows the same). */
export const SCREENS: readonly AppPage[] = [
  { label: 'Feed', to: '/feed', detail: 'What happened and what needs you', keywords: ['home', 'activity'] },
  { label: 'Cadences', to: '/cadence', detail: 'Sequences with their ads', keywords: ['sequence', 'ads'] },
  {
    label: 'Prospects',
    to: '/prospects',
    detail: 'Everyone in your cadences',
    keywords: ['contacts', 'people'],
  },
  {
    label: 'Revenue',
    to: '/revenue',
    detail: 'Pipeline and won revenue',
    keywords: ['pipeline', 'opportunities'],
  },
  {
    label: 'Reports',
    to: '/reports',
    detail: 'Accounts, content, signals and priorities',
    keywords: ['engagement', 'analytics'],
    permission: 'reports.read',
  },
  {
    label: 'Cohorts',
    to: '/cohorts',
    detail: 'Audiences and their journeys',
    keywords: ['audience', 'journey'],
  },
  { label: 'Content', to: '/content', detail: 'Ads and creatives', keywords: ['ads', 'creative', 'studio'] },
  {
    label: 'Landing pages',
    to: '/landing-pages',
    detail: 'Pages your ads lead to',
    keywords: ['lp', 'page'],
  },
  {
    label: 'Clients',
    to: '/clients',
    detail: 'The clients you work for',
    keywords: ['agency'],
    permission: 'client.read',
  },
];

export const OWNER_ROLE = 'purple_owner';

/** `role`: the `colour_role` string; an owner-only page needs the owner role (left out: not shown). */
export const mayOpen = (page: AppPage, permissions: readonly string[], role?: string) =>
  (page.permission === undefined || permissions.includes(page.permission)) &&
  (!page.ownerOnly || role === OWNER_ROLE);

/** The settings groups with only the pages this role may open; empty groups are left out. */
export function settingsFor(permissions: readonly string[], role?: string): SettingsGroup[] {
  return SETTINGS_GROUPS.map((g) => ({
    ...g,
    pages: g.pages.filter((p) => mayOpen(p, permissions, role)),
  })).filter((g) => g.pages.length > 0);
}

/** The settings page a path belongs to: the longest matching path wins (webhooks over connections). */
export function currentSettingsPage(pathname: string): AppPage | undefined {
  let best: { page: AppPage; length: number } | undefined;
  for (const page of SETTINGS_GROUPS.flatMap((g) => g.pages)) {
    for (const p of [page.to, ...(page.also ?? [])]) {
      if ((pathname === p || pathname.startsWith(`${p}/`)) && p.length > (best?.length ?? 0))
        best = { page, length: p.length };
    }
  }
  return best?.page;
}

const normal = (s: string) =>
  s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '');

/**
 * Screens and settings whose name (first) or keywords contain every word typed, for this role. Names
 * that start with the text come first.
 */
export function findPages(
  text: string,
  permissions: readonly string[],
  role?: string,
): { screens: AppPage[]; settings: AppPage[] } {
  const words = normal(text).split(/\s+/).filter(Boolean);
  if (words.length === 0) return { screens: [], settings: [] };
  const rank = (p: AppPage): number | null => {
    const name = normal(p.label);
    const all = [name, normal(p.detail), ...(p.keywords ?? []).map(normal)].join(' ');
    if (!words.every((w) => all.includes(w))) return null;
    if (name.startsWith(words.join(' '))) return 0;
    return words.every((w) => name.includes(w)) ? 1 : 2;
  };
  const pick = (pages: readonly AppPage[]) =>
    pages
      .filter((p) => mayOpen(p, permissions, role))
      .map((p) => ({ p, r: rank(p) }))
      .filter((x): x is { p: AppPage; r: number } => x.r !== null)
      .sort((a, b) => a.r - b.r)
      .map((x) => x.p);
  return { screens: pick(SCREENS), settings: pick(SETTINGS_GROUPS.flatMap((g) => g.pages)) };
}
