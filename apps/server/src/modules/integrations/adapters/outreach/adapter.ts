import type { OAuthVendorConfig } from '../../../../config/env.ts';
import type {
  AdapterContext,
  OAuthCredentials,
  Page,
  RemoteCadence,
  RemoteCompany,
  RemoteMembership,
  RemoteProspect,
  RemoteUser,
  SequenceAdapter,
} from '../../port.ts';
import { createVendorHttp, oauthCredentialsFrom, VendorAuthError, VendorError } from '../../vendor-http.ts';
import type { RetryPolicy } from '../../vendor-http.ts';
import { outreachAdFields } from './ad-fields.ts';

/**
 * Outreach (REST API v2, JSON:API) as a sequence source; facts from shared/integrations/API-NOTES.md
 * §2. Sequences become cadences, sequenceStates become memberships (current sequenceStep → day).
 */

/** Read-only scopes; Outreach scopes are not additive, so each resource is named. */
export const OUTREACH_SCOPES = [
  'prospects.read',
  'accounts.read',
  'sequences.read',
  'sequenceStates.read',
  'sequenceSteps.read',
  'users.read',
  // The ad fields (issue 38): each prospect's ad and click URLs in two custom fields.
  'prospects.write',
];

export const OUTREACH_REVOKED_MESSAGE =
  "Outreach no longer accepts Rally's access (it was revoked or expired). Reconnect Outreach in Settings › Connections.";

/** States in which a prospect is still on the sequence (API-NOTES: UI states, API strings presumed). */
const ON_SEQUENCE = new Set(['pending', 'active', 'paused']);

const JSON_API = 'application/vnd.api+json';
const DAY_SECONDS = 86_400;

export type OutreachAdapterOptions = {
  retry?: Partial<RetryPolicy>;
  /** Records per page (Outreach: default 50, max 1000). */
  pageSize?: number;
};

type Ref = { type: string; id: number | string };
type Resource = {
  type: string;
  id: number | string;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { data?: Ref | Ref[] | null } | undefined>;
};
type ListDocument = {
  data: Resource[];
  included?: Resource[];
  links?: { next?: string | null };
  meta?: { count?: number };
};
type TokenReply = {
  access_token: string;
  refresh_token?: string | null;
  expires_in?: number | string | null;
};
type Step = { id: string; order: number; interval: number | null; date: string | null };

export function createOutreachAdapter(
  cfg: OAuthVendorConfig,
  opts: OutreachAdapterOptions = {},
): SequenceAdapter {
  const pageSize = Math.min(1000, Math.max(1, opts.pageSize ?? 100));
  const apiUrl = cfg.apiUrl.replace(/\/+$/, '');
  const apiOrigin = new URL(apiUrl).origin;

  const http = createVendorHttp({
    vendor: 'Outreach',
    retry: opts.retry,
    authorize: (creds) => {
      if (creds.kind !== 'oauth') throw new VendorAuthError(OUTREACH_REVOKED_MESSAGE);
      return { authorization: `Bearer ${creds.accessToken}` };
    },
    refresh: async (creds) => {
      if (!creds.refreshToken) throw new VendorAuthError(OUTREACH_REVOKED_MESSAGE);
      return oauthCredentialsFrom(
        await tokenRequest({ grant_type: 'refresh_token', refresh_token: creds.refreshToken }),
        creds,
      );
    },
    revokedMessage: OUTREACH_REVOKED_MESSAGE,
  });

  function client() {
    if (!cfg.clientId || !cfg.clientSecret) {
      throw new Error('Outreach is not configured: set OUTREACH_CLIENT_ID and OUTREACH_CLIENT_SECRET.');
    }
    return { client_id: cfg.clientId, client_secret: cfg.clientSecret };
  }

  function tokenRequest(params: Record<string, string>): Promise<TokenReply> {
    return http.raw<TokenReply>({
      method: 'POST',
      url: `${cfg.authUrl.replace(/\/+$/, '')}/oauth/token`,
      body: new URLSearchParams({ ...client(), ...params }),
    });
  }

  async function get<T>(ctx: AdapterContext, url: string): Promise<T> {
    try {
      // Every request names the JSON:API media type, GETs included: Outreach answers 415 otherwise
      // (developer portal, "Making requests › Content Negotiation").
      return await http.request<T>(ctx, { url, headers: { accept: JSON_API, 'content-type': JSON_API } });
    } catch (err) {
      // A connection made before a scope was added: only reconnecting grants it.
      if (err instanceof VendorError && err.status === 403 && err.body.includes('unauthorizedOauthScope')) {
        throw new VendorAuthError(
          'Outreach did not give Rally all the access it needs (a permission is missing). Reconnect Outreach in Settings › Connections and approve every permission.',
        );
      }
      throw err;
    }
  }

  /** Every page of a listing, following the opaque `links.next` until it is absent. */
  async function* listing(
    ctx: AdapterContext,
    path: string,
    params: Record<string, string>,
    withCount = false,
  ): AsyncGenerator<{ doc: ListDocument; totalPages: number | null }> {
    const query = new URLSearchParams({ ...params, 'page[size]': String(pageSize) });
    if (withCount) query.set('count', 'true');
    let url: string | null = `${apiUrl}/${path}?${query}`;
    let totalPages: number | null = null;
    while (url) {
      const doc: ListDocument = await get<ListDocument>(ctx, url);
      if (typeof doc.meta?.count === 'number') totalPages = Math.max(1, Math.ceil(doc.meta.count / pageSize));
      yield { doc, totalPages };
      url = nextUrl(doc);
    }
  }

  function nextUrl(doc: ListDocument): string | null {
    const next = doc.links?.next;
    if (!next) return null;
    const url = new URL(next, apiUrl);
    // The link carries our Bearer token's next request: never to another host.
    if (url.origin !== apiOrigin) {
      throw new Error(`Outreach sent a next-page link to another host (${url.origin}); stopped the sync.`);
    }
    // Counting is costly for Outreach (notes: count=false recommended); the first page told us.
    url.searchParams.delete('count');
    return url.toString();
  }

  /** Outreach ranges are inclusive; the port wants records updated strictly after `since`. */
  function sinceFilter(since: string | null): Record<string, string> {
    if (since === null) return {};
    const t = Date.parse(since);
    if (!Number.isFinite(t)) throw new Error(`Invalid sync cursor ${since}`);
    return { 'filter[updatedAt]': `${new Date(t + 1).toISOString()}..inf` };
  }

  /** Steps of the given sequences, keyed by sequence id. */
  async function stepsOf(ctx: AdapterContext, sequenceIds: string[]): Promise<Map<string, Step[]>> {
    const bySequence = new Map<string, Step[]>(sequenceIds.map((id) => [id, []]));
    for (const batch of chunks(sequenceIds, 100)) {
      const params = { 'filter[sequence][id]': batch.join(',') };
      for await (const { doc } of listing(ctx, 'sequenceSteps', params)) {
        for (const r of doc.data) {
          const sequenceId = relId(r, 'sequence');
          if (sequenceId === null) continue;
          bySequence.get(sequenceId)?.push({
            id: String(r.id),
            order: num(attr(r, 'order')) ?? 0,
            interval: num(attr(r, 'interval')),
            date: str(attr(r, 'date')),
          });
        }
      }
    }
    return bySequence;
  }

  async function companiesOf(
    ctx: AdapterContext,
    accountIds: string[],
    cache: Map<string, RemoteCompany | null>,
  ): Promise<void> {
    const missing = [...new Set(accountIds)].filter((id) => !cache.has(id));
    for (const batch of chunks(missing, Math.min(pageSize, 100))) {
      for await (const { doc } of listing(ctx, 'accounts', { 'filter[id]': batch.join(',') })) {
        for (const a of doc.data) {
          const domain = str(attr(a, 'domain'));
          cache.set(String(a.id), {
            externalId: String(a.id),
            name: str(attr(a, 'name')) ?? '',
            website: str(attr(a, 'websiteUrl')) ?? (domain ? `https://${domain}` : null),
          });
        }
      }
      // Deleted or hidden accounts: remember, so they are not asked for again.
      for (const id of batch) if (!cache.has(id)) cache.set(id, null);
    }
  }

  function toCadence(s: Resource, steps: Step[]): RemoteCadence {
    const sequenceType = str(attr(s, 'sequenceType'));
    const days = stepDays(steps, sequenceType);
    return {
      externalId: String(s.id),
      name: str(attr(s, 'name')) ?? '',
      status: sequenceStatus(s, steps),
      ownerExternalId: relId(s, 'owner'),
      days: [...new Set(days.values())].sort((a, b) => a - b),
      updatedAt: timestamp(s),
    };
  }

  type MembershipCaches = {
    days: Map<string, Map<string, number>>;
    companies: Map<string, RemoteCompany | null>;
  };

  async function toMemberships(
    ctx: AdapterContext,
    doc: ListDocument,
    caches: MembershipCaches,
  ): Promise<RemoteMembership[]> {
    const included = new Map((doc.included ?? []).map((r) => [`${r.type}:${r.id}`, r]));
    const prospectOf = (state: Resource) => {
      const id = relId(state, 'prospect');
      return id === null ? undefined : included.get(`prospect:${id}`);
    };

    const newSequences = [
      ...new Set(doc.data.map((s) => relId(s, 'sequence')).filter((id): id is string => id !== null)),
    ].filter((id) => !caches.days.has(id));
    for (const [sequenceId, steps] of await stepsOf(ctx, newSequences)) {
      caches.days.set(sequenceId, stepDays(steps, null));
    }
    const accountIds = doc.data
      .map((s) => prospectOf(s))
      .map((p) => (p ? relId(p, 'account') : null))
      .filter((id): id is string => id !== null);
    await companiesOf(ctx, accountIds, caches.companies);

    const out: RemoteMembership[] = [];
    for (const s of doc.data) {
      const p = prospectOf(s);
      const sequenceId = relId(s, 'sequence');
      // A state whose prospect was deleted has nobody to target.
      if (!p || sequenceId === null) continue;
      const stepId = relId(s, 'sequenceStep');
      const accountId = relId(p, 'account');
      const companyName = str(attr(p, 'company'));
      const company =
        (accountId !== null ? caches.companies.get(accountId) : null) ??
        // No account: key the company by its lower-cased name, as file imports do.
        (companyName
          ? { externalId: `name:${companyName.toLowerCase()}`, name: companyName, website: null }
          : null);
      const emails = attr(p, 'emails');
      const prospect: RemoteProspect = {
        externalId: String(p.id),
        firstName: str(attr(p, 'firstName')) ?? '',
        lastName: str(attr(p, 'lastName')) ?? '',
        email: Array.isArray(emails)
          ? (emails.find((e): e is string => typeof e === 'string') ?? null)
          : null,
        title: str(attr(p, 'title')) ?? str(attr(p, 'occupation')) ?? '',
        company,
        updatedAt: str(attr(p, 'updatedAt')),
        // Outreach's `optedOut`: "opted out of all mailings" (OpenAPI `prospect`; test/vendor-specs).
        optedOut: attr(p, 'optedOut') === true,
      };
      out.push({
        externalId: String(s.id),
        cadenceExternalId: sequenceId,
        prospect,
        userExternalId: relId(s, 'user'),
        // No current step yet (pending): the prospect is at the start.
        dayNumber: (stepId !== null ? caches.days.get(sequenceId)?.get(stepId) : undefined) ?? 1,
        isActive: ON_SEQUENCE.has(str(attr(s, 'state')) ?? ''),
        contacted:
          (num(attr(s, 'deliverCount')) ?? 0) > 0 ||
          (num(attr(s, 'replyCount')) ?? 0) > 0 ||
          (num(attr(s, 'bounceCount')) ?? 0) > 0 ||
          str(attr(s, 'callCompletedAt')) !== null,
        updatedAt: timestamp(s),
      });
    }
    return out;
  }

  return {
    source: 'outreach',
    auth: 'oauth',
    adFields: outreachAdFields(http, apiUrl),

    authorizeUrl({ state, redirectUri }) {
      const query = new URLSearchParams({
        client_id: client().client_id,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: OUTREACH_SCOPES.join(' '),
        state,
      });
      return `${cfg.authUrl.replace(/\/+$/, '')}/oauth/authorize?${query}`;
    },

    async exchangeCode({ code, redirectUri }): Promise<OAuthCredentials> {
      return oauthCredentialsFrom(
        await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }),
      );
    },

    async whoami(ctx) {
      // The API root describes the token's user and org (observed in public clients).
      const root = await get<{
        meta?: { user?: { id?: unknown; email?: unknown; name?: unknown }; org?: { name?: unknown } };
      }>(ctx, apiUrl);
      const user = root.meta?.user;
      const who = str(user?.email) ?? str(user?.name) ?? `user ${String(user?.id ?? '?')}`;
      const org = str(root.meta?.org?.name);
      return { accountName: org ? `${who} (${org})` : who };
    },

    async *users(ctx, since): AsyncIterable<Page<RemoteUser>> {
      const params = { sort: 'updatedAt', ...sinceFilter(since) };
      async function* pages(): AsyncGenerator<Page<RemoteUser>> {
        for await (const { doc, totalPages } of listing(ctx, 'users', params, true)) {
          const items = doc.data.map((u) => ({
            externalId: String(u.id),
            firstName: str(attr(u, 'firstName')) ?? '',
            lastName: str(attr(u, 'lastName')) ?? '',
            email: str(attr(u, 'email')),
            title: str(attr(u, 'title')) ?? '',
            // Outreach deactivates a user by locking it.
            isActive: attr(u, 'locked') !== true,
            updatedAt: str(attr(u, 'updatedAt')),
          }));
          yield { items, totalPages };
        }
      }
      yield* keepTiesTogether(pages());
    },

    async *cadences(ctx, since): AsyncIterable<Page<RemoteCadence>> {
      const sent = new Set<string>();
      const params = { sort: 'updatedAt', ...sinceFilter(since) };
      async function* pages(): AsyncGenerator<Page<RemoteCadence>> {
        for await (const { doc, totalPages } of listing(ctx, 'sequences', params, true)) {
          const steps = await stepsOf(
            ctx,
            doc.data.map((s) => String(s.id)),
          );
          for (const s of doc.data) sent.add(String(s.id));
          yield { items: doc.data.map((s) => toCadence(s, steps.get(String(s.id)) ?? [])), totalPages };
        }
      }
      yield* keepTiesTogether(pages());
      if (since === null) return;
      // Editing a step need not touch its sequence's updatedAt, yet it changes the cadence's days.
      const touched = new Set<string>();
      const stepParams = { sort: 'updatedAt', 'fields[sequenceStep]': 'sequence', ...sinceFilter(since) };
      for await (const { doc } of listing(ctx, 'sequenceSteps', stepParams)) {
        for (const step of doc.data) {
          const id = relId(step, 'sequence');
          if (id !== null && !sent.has(id)) touched.add(id);
        }
      }
      for (const batch of chunks([...touched], 100)) {
        for await (const { doc } of listing(ctx, 'sequences', { 'filter[id]': batch.join(',') })) {
          const steps = await stepsOf(
            ctx,
            doc.data.map((s) => String(s.id)),
          );
          yield { items: doc.data.map((s) => toCadence(s, steps.get(String(s.id)) ?? [])), totalPages: null };
        }
      }
    },

    async *memberships(ctx, since, opts = {}): AsyncIterable<Page<RemoteMembership>> {
      const caches: MembershipCaches = { days: new Map(), companies: new Map() };
      const bySequence: Record<string, string> = opts.cadenceExternalId
        ? { 'filter[sequence][id]': opts.cadenceExternalId }
        : {};
      const include = { include: 'prospect,sequenceStep' };
      const sent = new Set<string>();
      const params = { ...include, sort: 'updatedAt', ...bySequence, ...sinceFilter(since) };
      async function* pages(): AsyncGenerator<Page<RemoteMembership>> {
        for await (const { doc, totalPages } of listing(ctx, 'sequenceStates', params, true)) {
          const items = await toMemberships(ctx, doc, caches);
          for (const m of items) sent.add(m.externalId);
          yield { items, totalPages };
        }
      }
      yield* keepTiesTogether(pages());
      if (since === null) return;
      // A prospect's own edits (name, title, e-mail) do not touch its sequenceStates' updatedAt.
      const prospectIds: string[] = [];
      const prospectParams = { sort: 'updatedAt', 'fields[prospect]': 'updatedAt', ...sinceFilter(since) };
      for await (const { doc } of listing(ctx, 'prospects', prospectParams)) {
        for (const p of doc.data) prospectIds.push(String(p.id));
      }
      for (const batch of chunks(prospectIds, 100)) {
        const batchParams = { ...include, ...bySequence, 'filter[prospect][id]': batch.join(',') };
        for await (const { doc } of listing(ctx, 'sequenceStates', batchParams)) {
          const items = (await toMemberships(ctx, doc, caches)).filter((m) => !sent.has(m.externalId));
          for (const m of items) sent.add(m.externalId);
          if (items.length) yield { items, totalPages: null };
        }
      }
    },
  };
}

/**
 * Passes pages on, except that when the next page starts with the same updatedAt as this one ends,
 * the records at that instant wait and go with the next page. The sync engine stores the newest
 * updatedAt of each page as its cursor and the next run asks for records strictly after it, so a
 * page boundary inside a run of equal timestamps (bulk edits) would lose the rest of the run if the
 * sync stopped between those two pages.
 */
export async function* keepTiesTogether<T extends { updatedAt: string | null }>(
  pages: AsyncIterable<Page<T>>,
): AsyncGenerator<Page<T>> {
  const it = pages[Symbol.asyncIterator]();
  let held: T[] = [];
  let current = await it.next();
  while (!current.done) {
    const next = await it.next(); // one page ahead, to see where the next page starts
    const items = [...held, ...current.value.items];
    const last = items.at(-1)?.updatedAt;
    const tied = !next.done && last != null && next.value.items[0]?.updatedAt === last;
    const cut = tied ? items.findIndex((i) => i.updatedAt === last) : items.length;
    held = items.slice(cut);
    yield { items: items.slice(0, cut), totalPages: current.value.totalPages };
    current = next;
  }
}

/**
 * Day (1-based) of each step, by step id (API-NOTES §2, no "day" field): interval sequences add up
 * `interval` seconds through the step's order, day = 1 + floor(total / 86400); date sequences count
 * calendar days from the earliest step's `date`.
 */
export function stepDays(steps: Step[], sequenceType: string | null): Map<string, number> {
  const ordered = [...steps].sort((a, b) => a.order - b.order);
  const days = new Map<string, number>();
  const byDate = sequenceType === 'date' || (sequenceType === null && ordered.some((s) => s.date));
  if (byDate) {
    const dayOf = (s: Step) => (s.date ? calendarDay(s.date) : null);
    const known = ordered.map(dayOf).filter((d): d is number => d !== null);
    const first = known.length ? Math.min(...known) : 0;
    let previous = 1;
    for (const s of ordered) {
      const d = dayOf(s);
      // A step without a date runs with the one before it.
      previous = d === null ? previous : 1 + d - first;
      days.set(s.id, previous);
    }
    return days;
  }
  let seconds = 0;
  for (const s of ordered) {
    seconds += Math.max(0, s.interval ?? 0);
    days.set(s.id, 1 + Math.floor(seconds / DAY_SECONDS));
  }
  return days;
}

/**
 * enabled → active; disabled → paused when it was ever used, else draft; a date sequence whose last
 * step date has passed → finished. (`locked` only stops editing.) `enabledAt` cannot tell paused
 * from draft: Outreach's OpenAPI says it is "null if currently disabled"; `lastUsedAt` ("last
 * used") and the sequence's delivery and contact counts can.
 */
function sequenceStatus(s: Resource, steps: Step[], now = Date.now()): RemoteCadence['status'] {
  if (str(attr(s, 'sequenceType')) === 'date') {
    const dates = steps.map((st) => (st.date ? calendarDay(st.date) : null)).filter((d) => d !== null);
    if (dates.length && Math.max(...dates) < calendarDay(new Date(now).toISOString())) return 'finished';
  }
  if (attr(s, 'enabled') === true) return 'active';
  const used =
    str(attr(s, 'lastUsedAt')) !== null ||
    (num(attr(s, 'deliverCount')) ?? 0) > 0 ||
    (num(attr(s, 'numContactedProspects')) ?? 0) > 0;
  return used ? 'paused' : 'draft';
}

/** Whole days since the epoch of the date part of `YYYY-MM-DD[...]` (the step's calendar day). */
function calendarDay(value: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  const t = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Date.parse(value);
  return Math.floor(t / (DAY_SECONDS * 1000));
}

const attr = (r: Resource, name: string): unknown => r.attributes?.[name];
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function relId(r: Resource, name: string): string | null {
  const data = r.relationships?.[name]?.data;
  return data && !Array.isArray(data) ? String(data.id) : null;
}

function timestamp(r: Resource): string {
  return str(attr(r, 'updatedAt')) ?? str(attr(r, 'createdAt')) ?? new Date(0).toISOString();
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
