import type { OAuthVendorConfig } from '../../../../config/env.ts';
import type {
  AdapterContext,
  Credentials,
  OAuthCredentials,
  Page,
  RemoteCadence,
  RemoteCompany,
  RemoteMembership,
  RemoteUser,
  SequenceAdapter,
} from '../../port.ts';
import { createVendorHttp, defaultRateLimitWait, oauthCredentialsFrom } from '../../vendor-http.ts';
import type { RetryPolicy } from '../../vendor-http.ts';
import { salesloftAdFields } from './ad-fields.ts';

/**
 * Salesloft (REST v2) as a sequence source. Facts: API-NOTES.md §1. Listings walk `updated_at`
 * ascending and page by moving the `updated_at` cursor rather than the page number: a record
 * updated during the walk moves to the end instead of shifting a row past us, and every request
 * stays a cheap first-100 page (Salesloft charges 3–30 for pages past 100).
 */

export const SALESLOFT_SCOPES = [
  'cadences:read',
  'people:read',
  'accounts:read',
  'team:read',
  'activities:read',
  // The ad fields (issue 38): each person's ad and click URLs in two custom fields.
  'people:write',
];

const PER_PAGE = 100;
const MAX_REMEMBERED_ACCOUNTS = 20_000;
/** Membership states that still count as "on the cadence" when `currently_on_cadence` is absent. */
const ON_CADENCE = new Set(['processing', 'staged', 'active', 'scheduled']);

type TokenReply = {
  access_token: string;
  refresh_token?: string | null;
  expires_in?: number | string | null;
};
type Ref = { id?: number | string | null } | null | undefined;
type Paging = { next_page?: number | null; total_pages?: number | null; total_count?: number | null };
type ListReply<T> = { data: T[]; metadata?: { paging?: Paging } };
type OneReply<T> = { data: T };
type Timed = { id: number | string; updated_at: string };

type SlUser = {
  id: number | string;
  first_name?: string | null;
  last_name?: string | null;
  name?: string | null;
  email?: string | null;
  active?: boolean | null;
  team_admin?: boolean | null;
  updated_at?: string | null;
  team?: Ref;
};
type SlTeam = { id: number | string; name?: string | null };
type SlCadence = Timed & {
  name?: string | null;
  draft?: boolean | null;
  archived_at?: string | null;
  current_state?: string | null;
  owner?: Ref;
};
type SlStep = {
  id: number | string;
  cadence?: Ref;
  day?: number | string | null;
  step_number?: number | string | null;
  disabled?: boolean | null;
};
type SlCounts = Partial<
  Record<'sent_emails' | 'calls' | 'replies' | 'views' | 'clicks' | 'bounces', number | null>
>;
type SlMembership = Timed & {
  cadence?: Ref;
  person?: Ref;
  user?: Ref;
  latest_action?: Ref;
  current_state?: string | null;
  currently_on_cadence?: boolean | null;
  person_deleted?: boolean | null;
  counts?: SlCounts | null;
};
type SlPerson = {
  id: number | string;
  first_name?: string | null;
  last_name?: string | null;
  display_name?: string | null;
  email_address?: string | null;
  /** "Do Not Contact" (Salesloft OpenAPI, people `do_not_contact`; test/vendor-specs). */
  do_not_contact?: boolean | null;
  title?: string | null;
  account?: Ref;
  last_completed_step?: Ref;
  updated_at?: string | null;
};
type SlAccount = {
  id: number | string;
  name?: string | null;
  domain?: string | null;
  website?: string | null;
};
type SlAction = { id: number | string; step?: Ref };

const refId = (ref: Ref): string | null =>
  ref && ref.id !== null && ref.id !== undefined && ref.id !== '' ? String(ref.id) : null;

/** A positive whole day number from a value Salesloft may send as a number or a string. */
function dayNumber(value: unknown): number | null {
  const n = typeof value === 'string' ? Number(value.trim()) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 ? n : null;
}

/** Orders Salesloft times (µs precision, any offset); unreadable ones sort first. */
function timeKey(value: string | null | undefined): number {
  if (!value) return -Infinity;
  const m = /^(.*?:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?$/i.exec(value.trim());
  if (!m) return Date.parse(value) * 1000 || -Infinity;
  const ms = Date.parse(`${m[1]}${m[3] ?? 'Z'}`);
  return Number.isFinite(ms) ? ms * 1000 + Number(((m[2] ?? '') + '000000').slice(0, 6)) : -Infinity;
}

/** draft → draft; archived, expired or deleted → finished (API-NOTES.md §1 `current_state`). */
export function cadenceStatus(
  c: Pick<SlCadence, 'draft' | 'archived_at' | 'current_state'>,
): RemoteCadence['status'] {
  const state = (c.current_state ?? '').toLowerCase();
  if (c.archived_at || state === 'archived' || state === 'expired' || state === 'deleted') return 'finished';
  if (c.draft || state === 'draft') return 'draft';
  // Not a documented cadence state, but a pause is what it would mean if Salesloft sent it.
  if (state === 'paused') return 'paused';
  return 'active';
}

/** What a connection made by a non-admin cannot see, in words for the connections screen. */
export function salesloftNonAdminNote(person: string): string {
  return (
    `${person || 'The connecting user'} is not a Salesloft team admin, and Salesloft shows a non-admin only ` +
    "their own actions and, unless the team's visibility policy allows more, only their own user. " +
    "Other reps' people are placed by their last completed step (or day 1) instead of the step " +
    'they are on, and reps Rally cannot see are missing. Reconnect Salesloft as a team admin to see the whole team.'
  );
}

export function createSalesloftAdapter(
  cfg: OAuthVendorConfig,
  opts: { retry?: Partial<RetryPolicy> } = {},
): SequenceAdapter {
  const api = cfg.apiUrl.replace(/\/+$/, '');
  const accounts = cfg.authUrl.replace(/\/+$/, '');

  function app() {
    if (!cfg.clientId || !cfg.clientSecret) {
      throw new Error(
        'Salesloft is not set up on this server (SALESLOFT_CLIENT_ID and SALESLOFT_CLIENT_SECRET).',
      );
    }
    return { clientId: cfg.clientId, clientSecret: cfg.clientSecret };
  }

  const http = createVendorHttp({
    vendor: 'Salesloft',
    retry: opts.retry,
    // Salesloft budgets cost per minute and sends no Retry-After: a whole minute surely restores it.
    rateLimitWait: (res, now) => defaultRateLimitWait(res, now) ?? 60_000,
    authorize: (creds: Credentials) => ({
      authorization: `Bearer ${creds.kind === 'api_key' ? creds.apiKey : (creds.accessToken ?? '')}`,
    }),
    refresh: async (creds: OAuthCredentials) => {
      const { clientId, clientSecret } = app();
      const reply = await http.raw<TokenReply>({
        method: 'POST',
        url: `${accounts}/oauth/token`,
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: creds.refreshToken ?? '',
          client_id: clientId,
          client_secret: clientSecret,
        }),
      });
      // Salesloft rotates refresh tokens: the reply's is the only one that works from now on.
      return oauthCredentialsFrom(reply, creds);
    },
    revokedMessage:
      "Salesloft no longer accepts Rally's access (it was revoked or expired). Reconnect Salesloft in Settings › Connections.",
  });

  const get = <T>(ctx: AdapterContext, path: string, query?: URLSearchParams) =>
    http.request<T>(ctx, { url: `${api}${path}${query && query.size ? `?${query}` : ''}` });

  /**
   * Records updated after `since`, oldest first, a page at a time. After the first page the cursor
   * becomes the last `updated_at` seen (`gte`, skipping the ids already given at that instant); the
   * page number only moves on when a whole page shares one instant.
   */
  async function* walk<T extends Timed>(
    ctx: AdapterContext,
    path: string,
    filters: Record<string, string>,
    since: string | null,
  ): AsyncGenerator<{ rows: T[]; totalPages: number | null }> {
    let cursor = since;
    let inclusive = false;
    let seenAtCursor = new Set<string>();
    let page = 1;
    let totalPages: number | null = null;
    for (let first = true; ; first = false) {
      const query = new URLSearchParams({
        ...filters,
        sort_by: 'updated_at',
        sort_direction: 'ASC',
        per_page: String(PER_PAGE),
        page: String(page),
      });
      if (cursor) query.set(inclusive ? 'updated_at[gte]' : 'updated_at[gt]', cursor);
      if (first) query.set('include_paging_counts', 'true');
      const reply = await get<ListReply<T>>(ctx, path, query);
      if (first) totalPages = reply.metadata?.paging?.total_pages ?? null;
      const rows = reply.data.filter(
        (r) => !(inclusive && r.updated_at === cursor && seenAtCursor.has(String(r.id))),
      );
      if (rows.length) yield { rows, totalPages };
      const last = reply.data.at(-1);
      if (!last || !reply.metadata?.paging?.next_page) return;
      if (inclusive && last.updated_at === cursor) {
        page += 1;
        for (const r of reply.data) seenAtCursor.add(String(r.id));
      } else {
        cursor = last.updated_at;
        inclusive = true;
        page = 1;
        seenAtCursor = new Set(reply.data.filter((r) => r.updated_at === cursor).map((r) => String(r.id)));
      }
    }
  }

  /** Every page of a listing by page number (for listings that cannot sort by `updated_at`). */
  async function all<T>(ctx: AdapterContext, path: string, filters: Record<string, string>): Promise<T[]> {
    const out: T[] = [];
    for (let page = 1; ;) {
      const query = new URLSearchParams({ ...filters, per_page: String(PER_PAGE), page: String(page) });
      const reply = await get<ListReply<T>>(ctx, path, query);
      out.push(...reply.data);
      const next = reply.metadata?.paging?.next_page;
      if (!next || next <= page || !reply.data.length) return out;
      page = next;
    }
  }

  /** Records by id, `ids[]` in batches of 100; ids Salesloft cannot find are simply absent. */
  async function byIds<T extends { id: number | string }>(
    ctx: AdapterContext,
    path: string,
    ids: Iterable<string>,
  ): Promise<Map<string, T>> {
    const unique = [...new Set(ids)];
    const found = new Map<string, T>();
    for (let i = 0; i < unique.length; i += PER_PAGE) {
      const query = new URLSearchParams({ per_page: String(PER_PAGE) });
      for (const id of unique.slice(i, i + PER_PAGE)) query.append('ids[]', id);
      const reply = await get<ListReply<T>>(ctx, path, query);
      for (const row of reply.data) found.set(String(row.id), row);
    }
    return found;
  }

  function stepDay(step: SlStep | undefined, cadenceId: string | null): number | null {
    if (!step || step.disabled) return null;
    const owner = refId(step.cadence);
    if (owner !== null && cadenceId !== null && owner !== cadenceId) return null;
    return dayNumber(step.day);
  }

  /** Distinct days (ascending) of each cadence's enabled steps. */
  function daysByCadence(list: SlStep[]): Map<string, number[]> {
    const days = new Map<string, Set<number>>();
    for (const step of list) {
      const cadenceId = refId(step.cadence);
      const day = stepDay(step, cadenceId);
      if (cadenceId === null || day === null) continue;
      let set = days.get(cadenceId);
      if (!set) days.set(cadenceId, (set = new Set()));
      set.add(day);
    }
    return new Map([...days].map(([id, set]) => [id, [...set].sort((a, b) => a - b)]));
  }

  return {
    source: 'salesloft',
    auth: 'oauth',
    adFields: salesloftAdFields(http, api),

    authorizeUrl({ state, redirectUri }) {
      const url = new URL(`${accounts}/oauth/authorize`);
      url.search = new URLSearchParams({
        client_id: app().clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: SALESLOFT_SCOPES.join(' '),
        state,
      }).toString();
      return url.toString();
    },

    async exchangeCode({ code, redirectUri }) {
      const { clientId, clientSecret } = app();
      const reply = await http.raw<TokenReply>({
        method: 'POST',
        url: `${accounts}/oauth/token`,
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          client_id: clientId,
          client_secret: clientSecret,
        }),
      });
      return oauthCredentialsFrom(reply);
    },

    async whoami(ctx) {
      const me = (await get<OneReply<SlUser>>(ctx, '/me')).data;
      const team = (await get<OneReply<SlTeam>>(ctx, '/team')).data;
      const person = me.email || me.name || `${me.first_name ?? ''} ${me.last_name ?? ''}`.trim();
      return {
        accountName: team.name ? `${team.name} (${person})` : person,
        // Salesloft narrows what a non-admin's token sees (List actions: "only actions belonging to
        // the requester"; List users: "only your user, or all on team depending on group
        // visibility policy"), so the sync would quietly miss the other reps' progress.
        accessNote: me.team_admin === false ? salesloftNonAdminNote(person) : null,
      };
    },

    // /users can neither filter nor sort by updated_at (it sorts by id, email, name…), and a team
    // has few users: read them all, then keep and order the changed ones here.
    async *users(ctx, since) {
      const list = await all<SlUser>(ctx, '/users', {
        visible_only: 'false',
        sort_by: 'id',
        sort_direction: 'ASC',
      });
      const after = since === null ? -Infinity : timeKey(since);
      const changed = list
        .filter((u) => !u.updated_at || timeKey(u.updated_at) > after)
        .sort((a, b) => timeKey(a.updated_at) - timeKey(b.updated_at));
      const totalPages = Math.ceil(changed.length / PER_PAGE);
      for (let i = 0; i < changed.length; i += PER_PAGE) {
        const items: RemoteUser[] = changed.slice(i, i + PER_PAGE).map((u) => {
          const [first = '', ...rest] = (u.name ?? '').trim().split(/\s+/);
          return {
            externalId: String(u.id),
            firstName: u.first_name ?? first,
            lastName: u.last_name ?? rest.join(' '),
            email: u.email || null,
            // Salesloft users carry no job title.
            title: '',
            isActive: u.active !== false,
            updatedAt: u.updated_at ?? null,
          };
        });
        yield { items, totalPages } satisfies Page<RemoteUser>;
      }
    },

    async *cadences(ctx, since) {
      // A full sync reads every step once; an incremental one only the changed cadences' steps.
      const everyStep = since === null ? daysByCadence(await allSteps(ctx)) : null;
      for await (const { rows, totalPages } of walk<SlCadence>(ctx, '/cadences', {}, since)) {
        const items: RemoteCadence[] = [];
        for (const c of rows) {
          const id = String(c.id);
          const days = everyStep
            ? (everyStep.get(id) ?? [])
            : (daysByCadence(await all<SlStep>(ctx, '/steps', { cadence_id: id })).get(id) ?? []);
          items.push({
            externalId: id,
            name: c.name ?? '',
            status: cadenceStatus(c),
            ownerExternalId: refId(c.owner),
            days,
            updatedAt: c.updated_at,
          });
        }
        yield { items, totalPages };
      }
    },

    async *memberships(ctx, since, options) {
      const filters: Record<string, string> = {};
      if (options?.cadenceExternalId) filters.cadence_id = options.cadenceExternalId;
      const steps = new Map<string, SlStep>();
      // Accounts are shared by many people: each is read once per sync (a quarter of the requests
      // of a large first sync, and Salesloft budgets requests per minute). Bounded for huge teams.
      const accountsSeen = new Map<string, SlAccount>();
      for await (const { rows, totalPages } of walk<SlMembership>(
        ctx,
        '/cadence_memberships',
        filters,
        since,
      )) {
        const people = await byIds<SlPerson>(
          ctx,
          '/people',
          rows.flatMap((m) => refId(m.person) ?? []),
        );
        const accountIds = [...people.values()].flatMap((p) => refId(p.account) ?? []);
        if (accountsSeen.size > MAX_REMEMBERED_ACCOUNTS) accountsSeen.clear();
        const newAccounts = accountIds.filter((id) => !accountsSeen.has(id));
        for (const [id, account] of await byIds<SlAccount>(ctx, '/accounts', newAccounts)) {
          accountsSeen.set(id, account);
        }
        const companies = accountsSeen;
        // No membership field says where the person is: its latest action's step does, or failing
        // that the person's last completed step (API-NOTES.md §1).
        const actions = await byIds<SlAction>(
          ctx,
          '/actions',
          rows.flatMap((m) => refId(m.latest_action) ?? []),
        );
        const wanted = [
          ...[...actions.values()].flatMap((a) => refId(a.step) ?? []),
          ...[...people.values()].flatMap((p) => refId(p.last_completed_step) ?? []),
        ].filter((id) => !steps.has(id));
        for (const [id, step] of await byIds<SlStep>(ctx, '/steps', wanted)) steps.set(id, step);

        const items: RemoteMembership[] = [];
        for (const m of rows) {
          const person = people.get(refId(m.person) ?? '');
          const cadenceId = refId(m.cadence);
          // A deleted person cannot become a target; Salesloft no longer serves the record.
          if (!person || cadenceId === null) continue;
          const account = companies.get(refId(person.account) ?? '');
          const company: RemoteCompany | null = account
            ? {
                externalId: String(account.id),
                name: account.name ?? '',
                website: account.website || (account.domain ? `https://${account.domain}` : null),
              }
            : null;
          const current = stepDay(
            steps.get(refId(actions.get(refId(m.latest_action) ?? '')?.step) ?? ''),
            cadenceId,
          );
          const completed = stepDay(steps.get(refId(person.last_completed_step) ?? ''), cadenceId);
          const counts = m.counts ?? {};
          const [first = '', ...rest] = (person.display_name ?? '').trim().split(/\s+/);
          items.push({
            externalId: String(m.id),
            cadenceExternalId: cadenceId,
            prospect: {
              externalId: String(person.id),
              firstName: person.first_name ?? first,
              lastName: person.last_name ?? rest.join(' '),
              email: person.email_address || null,
              title: person.title ?? '',
              company,
              updatedAt: person.updated_at ?? null,
              optedOut: person.do_not_contact === true,
            },
            userExternalId: refId(m.user),
            dayNumber: current ?? completed ?? 1,
            isActive:
              !m.person_deleted &&
              (typeof m.currently_on_cadence === 'boolean'
                ? m.currently_on_cadence
                : ON_CADENCE.has(m.current_state ?? '')),
            contacted: (counts.sent_emails ?? 0) > 0 || (counts.calls ?? 0) > 0 || completed !== null,
            updatedAt: m.updated_at,
          });
        }
        yield { items, totalPages };
      }
    },
  };

  /**
   * Every step of the team, by page number. The published definition gives `/steps` no
   * `updated_at` filter, so the cursor walk of the other listings cannot be used here: a vendor
   * that ignores the filter would serve page 1 again and again. Oldest first by `created_at`, so an
   * edit during the walk moves nothing and a new step lands on the last page.
   */
  function allSteps(ctx: AdapterContext): Promise<SlStep[]> {
    return all<SlStep>(ctx, '/steps', { sort_by: 'created_at', sort_direction: 'ASC' });
  }
}
