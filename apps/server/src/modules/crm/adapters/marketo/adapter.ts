import { createVendorHttp, VendorAuthError, VendorError } from '../../../integrations/vendor-http.ts';
import type { RetryPolicy, VendorRequest } from '../../../integrations/vendor-http.ts';
import type {
  AdapterContext,
  ClientCredentials,
  CrmAdapter,
  CrmPage,
  RemoteContact,
  RemoteList,
  RemoteListMember,
} from '../../port.ts';
import { marketoAdFields } from './ad-fields.ts';
import { createMarketoUsage } from './usage.ts';

/**
 * Marketo (REST API, client credentials) as a CRM source: leads and static lists. Facts:
 * API-NOTES.md §6. Each connection brings its own client id, secret and REST base URL
 * (`https://<munchkin>.mktorest.com/rest`); the identity service beside it gives tokens of at most
 * an hour, renewed here before they run out and again when Marketo calls one invalid or expired
 * (601/602, inside an HTTP 200). Failures come as `success:false` in a 200: 606/615 are waited out
 * like a 429, 601/602 renew the token once, anything else is a VendorError naming the code. The
 * identity service refusing the credentials (HTTP 401) means the API user was removed: the
 * connection becomes inactive with the reason.
 *
 * Marketo has no opportunities, owners or accounts. Its lead database cannot be listed by modified
 * time through REST (that needs the bulk export), so contacts are the members of the static lists:
 * read whole on the first sync; later syncs read only what changed (issue 40 item 1: reading every
 * list every 30 minutes spent ~38,000 calls a day against a 10,000–50,000 daily quota shared with
 * the customer's other integrations) — the lists with "Add to List"/"Remove from List" activities
 * (or a newer updatedAt) since the cursor, and the leads whose synced fields changed ("Get Lead
 * Changes") among the contacts Rally holds. Deleted leads come from the "Delete Lead" activities
 * (`activities/deletedleads.json` from a `pagingtoken.json` date token).
 *
 * Quota: the daily quota (607) stops every call to the subscription until it resets (midnight US
 * Central), said on the connection; the next sync after that goes on. The REST calls sent today are
 * counted per connection and stored as its API usage (usage.ts).
 */

export const MARKETO_REVOKED_MESSAGE =
  "Marketo no longer accepts Rally's API credentials (the API user or its role was removed, or the secret changed). Enter new credentials in Settings › Integrations › Marketo.";

/** Renew a token this long before Marketo says it expires. */
const EARLY_MS = 60_000;
// `unsubscribed`: the lead's e-mail opt-out, a boolean standard field (Marketo REST "Standard
// Fields", https://experienceleague.adobe.com/en/docs/marketo-developer/marketo/rest/assets/list-of-standard-fields);
// a lead read returns only the `fields` named.
const LEAD_FIELDS = 'email,firstName,lastName,title,company,unsubscribed,updatedAt';

type Envelope<T> = {
  requestId?: string;
  success: boolean;
  result?: T[];
  errors?: { code: string; message: string }[];
  warnings?: string[];
  moreResult?: boolean;
  nextPageToken?: string;
};
type TokenReply = { access_token: string; expires_in?: number; scope?: string };
type Lead = {
  id: number;
  email?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  title?: string | null;
  company?: string | null;
  unsubscribed?: boolean | null;
  updatedAt?: string | null;
};

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
/** Marketo times, including asset ones like 2017-07-27T01:38:33Z+0000. */
const iso = (v: unknown): string | null => {
  const s = str(v);
  if (!s) return null;
  const ms = Date.parse(s.replace(/Z\+0000$/, 'Z'));
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
};

/** The REST base URL as we store it: no trailing slash, ending in /rest. */
export function normalizeMarketoBase(raw: string): string {
  const u = new URL(raw.trim());
  const path = u.pathname.replace(/\/+$/, '');
  u.pathname = path.endsWith('/rest') ? path : `${path}/rest`;
  u.search = '';
  u.hash = '';
  return u.toString().replace(/\/+$/, '');
}
/** Whether a Marketo time is at or after an ISO one. */
const newer = (v: unknown, since: string | null) => {
  const t = iso(v);
  return !!t && !!since && Date.parse(t) >= Date.parse(since);
};
const identityUrl = (base: string) => `${base.replace(/\/rest$/, '')}/identity/oauth/token`;

/** Codes Marketo puts inside a 200 (API-NOTES §6). */
const AUTH_CODES = new Set(['600', '601', '602']);
const RATE_CODES = new Set(['606', '615']);
/** Activity types (Marketo's standard ids): a lead added to or removed from a static list. */
const ADD_TO_LIST = 24;
const REMOVE_FROM_LIST = 25;
/** The lead fields whose changes Rally reads ("Get Lead Changes" needs them named). */
const CHANGE_FIELDS = 'email,firstName,lastName,title,company,unsubscribed';

/**
 * When Marketo's daily quota comes back: the next midnight in US Central time (Adobe: "The daily
 * quota resets daily at 12:00AM CST"), computed for the zone's offset on that day.
 */
export function marketoQuotaReset(now: number): Date {
  const central = (t: number) =>
    new Intl.DateTimeFormat('en-CA', {
      timeZone: 'America/Chicago',
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
    }).format(new Date(t));
  const [y, m, d] = central(now).slice(0, 10).split('-').map(Number) as [number, number, number];
  // Central midnight is 05:00 UTC in daylight time and 06:00 UTC otherwise.
  for (const h of [5, 6]) {
    const t = Date.UTC(y, m - 1, d + 1, h);
    if (central(t).endsWith(', 00')) return new Date(t);
  }
  return new Date(Date.UTC(y, m - 1, d + 1, 6));
}

export const marketoQuotaMessage = (until: Date) =>
  `Marketo's daily API quota is used up (error 607): Rally makes no more Marketo calls until it resets at midnight US Central (${until
    .toISOString()
    .replace(/:\d{2}\.\d{3}Z$/, ' UTC')
    .replace('T', ' ')}), then the next sync goes on.`;

/** The call failed on the daily quota, now or earlier today: nothing is asked of Marketo until `until`. */
export class MarketoQuotaError extends VendorError {
  readonly until: Date;
  constructor(until: Date) {
    super('Marketo', 200, marketoQuotaMessage(until));
    this.message = marketoQuotaMessage(until);
    this.until = until;
  }
}

/**
 * Pacing: the subscription allows 100 calls per 20 s for all its integrations together (606 past
 * it); Adobe asks each to stay well under, so a connection takes at most 50 per 20 s. Kept per
 * subscription in this process: the times the last 50 calls were let go.
 */
const PACE_CALLS = 50;
const PACE_WINDOW_MS = 20_000;
const pacers = new Map<string, number[]>();

type StaticList = { id: number; name: string; updatedAt?: string };
/**
 * What a run's contacts phase read, for its lists phase (issue 43: a first sync read every list
 * twice, its leads with their fields for the contacts and again, ids only, for the memberships:
 * 134 of a 20,000-member list's 138 calls). Kept per run (the sync makes one AdapterContext a
 * run) and used only when the lists phase asks from the same cursor, so the lists, their changes
 * and their members are the one read the lists' cursor is taken from, in the order the lists phase
 * itself would read them (the listing, then each list's members). Members as lead ids: 8 bytes each.
 */
type RunRead = {
  since: string | null;
  changed: Map<number, string> | null;
  lists: StaticList[];
  /** Lists read whole in the contacts phase: their members' lead ids. */
  members: Map<string, number[]>;
  complete: boolean;
  /** The lists phase took its lists from this read, so their members come from it too. */
  used: boolean;
};
const runReads = new WeakMap<AdapterContext, RunRead>();

export function createMarketoAdapter(
  opts: { retry?: Partial<RetryPolicy>; now?: () => number } = {},
): CrmAdapter {
  const clock = opts.now ?? Date.now;
  const sleep = opts.retry?.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  const usage = createMarketoUsage();
  /** Waits for this call's slot: the 50th call before it must be 20 s ago (slots, so waits add up). */
  async function pace(creds: ClientCredentials) {
    const key = `${creds.baseUrl} ${creds.clientId}`;
    const slots = pacers.get(key) ?? [];
    const t = clock();
    // Only the last PACE_CALLS slots are kept: the oldest is the one 50 calls back.
    const oldest = slots.length >= PACE_CALLS ? slots[0] : undefined;
    const at = oldest === undefined ? t : Math.max(t, oldest + PACE_WINDOW_MS);
    slots.push(at);
    if (slots.length > PACE_CALLS) slots.splice(0, slots.length - PACE_CALLS);
    pacers.set(key, slots);
    if (at > t) await sleep(at - t);
  }

  const http = createVendorHttp({
    vendor: 'Marketo',
    retry: opts.retry,
    authorize: (creds) => ({
      authorization: `Bearer ${creds.kind === 'client_credentials' ? (creds.accessToken ?? '') : ''}`,
    }),
    classify: async (res) => {
      if (res.status !== 200) return null;
      let body: Envelope<unknown>;
      try {
        body = JSON.parse(await res.text()) as Envelope<unknown>;
      } catch {
        return null;
      }
      if (body.success !== false) return null;
      const code = String(body.errors?.[0]?.code ?? '');
      if (AUTH_CODES.has(code)) return { kind: 'auth' };
      // 100 calls per 20 s (606) or 10 at once (615): Marketo sends no wait hint.
      if (RATE_CODES.has(code)) return { kind: 'rate_limit', waitMs: code === '606' ? 20_000 : 2_000 };
      // The daily quota (607) comes back at midnight (US Central): not waited out; `call` stops.
      return null;
    },
    revokedMessage: MARKETO_REVOKED_MESSAGE,
  });

  /** A new token from the identity service; 401 means the credentials are no good. */
  async function token(creds: ClientCredentials, interactive = false): Promise<ClientCredentials> {
    const q = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: creds.clientId,
      client_secret: creds.clientSecret,
    });
    let reply: TokenReply;
    try {
      reply = await http.raw<TokenReply>(
        { url: `${identityUrl(creds.baseUrl)}?${q}` },
        undefined,
        interactive,
      );
    } catch (err) {
      if (err instanceof VendorError && (err.status === 401 || err.status === 403)) {
        throw new VendorAuthError(MARKETO_REVOKED_MESSAGE);
      }
      throw err;
    }
    if (!reply?.access_token) throw new VendorError('Marketo', 502, 'the identity service gave no token');
    const life = Number(reply.expires_in);
    return {
      ...creds,
      accessToken: reply.access_token,
      expiresAt: new Date(
        Date.now() + (Number.isFinite(life) && life > 0 ? life : 3600) * 1000,
      ).toISOString(),
    };
  }

  function clientCreds(ctx: AdapterContext): ClientCredentials {
    const creds = ctx.credentials();
    if (creds.kind !== 'client_credentials') throw new Error('Marketo needs client credentials');
    return creds;
  }

  async function fresh(ctx: AdapterContext): Promise<ClientCredentials> {
    const creds = clientCreds(ctx);
    if (creds.accessToken && creds.expiresAt && Date.parse(creds.expiresAt) - EARLY_MS > Date.now()) {
      return creds;
    }
    const next = await token(creds);
    await ctx.saveCredentials(next);
    return next;
  }

  /**
   * One REST call: a token that is about to expire is renewed first; one that Marketo refuses
   * anyway (601/602) is renewed once more and the call repeated.
   */
  async function call<T>(ctx: AdapterContext, path: string, q: Record<string, string> = {}, body?: unknown) {
    // Over today's quota: every call would fail (and still count); wait for the reset instead.
    const over = clientCreds(ctx).quotaResetAt;
    if (over && Date.parse(over) > Date.now()) throw new MarketoQuotaError(new Date(over));
    const creds = await fresh(ctx);
    await pace(creds);
    const req: VendorRequest = {
      url: `${creds.baseUrl}${path}${Object.keys(q).length ? `?${new URLSearchParams(q)}` : ''}`,
      ...(body === undefined ? {} : { method: 'POST' as const, body }),
    };
    let reply: Envelope<T>;
    try {
      usage.count(ctx);
      reply = await http.request<Envelope<T>>(ctx, req);
    } catch (err) {
      if (!(err instanceof VendorAuthError)) throw err;
      await ctx.saveCredentials(await token(clientCreds(ctx)));
      usage.count(ctx);
      reply = await http.request<Envelope<T>>(ctx, req);
    }
    if (reply.success === false) {
      const e = reply.errors?.[0];
      if (String(e?.code) === '607') {
        const until = marketoQuotaReset(Date.now());
        await ctx.saveCredentials({ ...clientCreds(ctx), quotaResetAt: until.toISOString() });
        throw new MarketoQuotaError(until);
      }
      throw new VendorError('Marketo', 200, `error ${e?.code ?? '?'}: ${e?.message ?? 'request failed'}`);
    }
    return reply;
  }

  /** A Lead Database listing, page after page by nextPageToken. */
  async function* paged<T>(
    ctx: AdapterContext,
    path: string,
    q: Record<string, string>,
  ): AsyncGenerator<T[]> {
    let next: string | undefined;
    for (;;) {
      const body: Envelope<T> = await call<T>(ctx, path, {
        ...q,
        batchSize: '300',
        ...(next ? { nextPageToken: next } : {}),
      });
      yield body.result ?? [];
      next = body.nextPageToken;
      if (!next || body.moreResult === false) return;
    }
  }

  const toContact = (l: Lead): RemoteContact | null => {
    const updatedAt = iso(l.updatedAt);
    if (!updatedAt) return null;
    return {
      externalId: String(l.id),
      email: str(l.email),
      firstName: str(l.firstName) ?? '',
      lastName: str(l.lastName) ?? '',
      title: str(l.title) ?? '',
      accountExternalId: null,
      ownerExternalId: null,
      updatedAt,
      optedOut: l.unsubscribed === true,
    };
  };

  async function* staticLists(ctx: AdapterContext) {
    for await (const page of paged<StaticList>(ctx, '/v1/lists.json', {})) {
      yield page;
    }
  }

  /** Activities from `since` on: a date paging token, then pages until moreResult is false. */
  async function* activities<T>(
    ctx: AdapterContext,
    since: string,
    path: string,
    q: Record<string, string>,
  ): AsyncGenerator<T[]> {
    let next = (await call<never>(ctx, '/v1/activities/pagingtoken.json', { sinceDatetime: since }))
      .nextPageToken;
    while (next) {
      const body: Envelope<T> = await call<T>(ctx, path, { ...q, nextPageToken: next, batchSize: '300' });
      yield body.result ?? [];
      if (body.moreResult !== true) return;
      next = body.nextPageToken;
    }
  }

  /** The static lists with leads added or removed since `since`, each with its newest change (ISO). */
  async function membershipChanges(ctx: AdapterContext, since: string): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    for await (const page of activities<{ primaryAttributeValueId?: number; activityDate?: string }>(
      ctx,
      since,
      '/v1/activities.json',
      { activityTypeIds: `${ADD_TO_LIST},${REMOVE_FROM_LIST}` },
    )) {
      for (const a of page) {
        const at = iso(a.activityDate);
        if (a.primaryAttributeValueId === undefined || !at) continue;
        const before = out.get(a.primaryAttributeValueId);
        if (!before || at > before) out.set(a.primaryAttributeValueId, at);
      }
    }
    return out;
  }

  return {
    source: 'marketo',
    auth: 'client_credentials',
    contactsUnordered: true,
    adFields: marketoAdFields(call),

    async connect(creds) {
      // Only the connect form calls this: a user is waiting (no retries, a short time limit).
      return token({ ...creds, baseUrl: normalizeMarketoBase(creds.baseUrl) }, true);
    },

    async whoami(ctx) {
      // A REST call: checks the token and that the API role may read lists.
      await call(ctx, '/v1/lists.json', { batchSize: '1' });
      const host = new URL(clientCreds(ctx).baseUrl).host;
      return { accountName: `Marketo ${host.replace(/\.mktorest\.com$/, '')}` };
    },

    async *owners(): AsyncGenerator<CrmPage<never>> {
      // Marketo has no record owners.
    },

    async *contacts(ctx, since, known) {
      const seen = new Set<number>();
      const read = (leads: Lead[]) => {
        const items = leads.filter((l) => !seen.has(l.id)).flatMap((l) => toContact(l) ?? []);
        for (const l of leads) seen.add(l.id);
        return items;
      };
      // First sync: every list's members. Later: the lists whose members changed, then the leads
      // Rally holds whose synced fields changed.
      const changed = since ? await membershipChanges(ctx, since) : null;
      const run: RunRead = { since, changed, lists: [], members: new Map(), complete: false, used: false };
      runReads.set(ctx, run);
      let listsAt: string | null = null;
      for await (const lists of staticLists(ctx)) {
        for (const list of lists) {
          run.lists.push(list);
          const at = iso(list.updatedAt);
          if (at && (!listsAt || at > listsAt)) listsAt = at;
          if (changed && !changed.has(list.id) && !newer(list.updatedAt, since)) continue;
          const members: number[] = [];
          for await (const leads of paged<Lead>(ctx, `/v1/lists/${list.id}/leads.json`, {
            fields: LEAD_FIELDS,
          })) {
            for (const l of leads) members.push(l.id);
            const items = read(leads);
            if (items.length) yield { items, total: null };
          }
          run.members.set(String(list.id), members);
        }
      }
      run.complete = true;
      // The full read covers the lists as they are now: later syncs start from their newest change.
      if (!since) {
        if (listsAt) yield { items: [], total: null, cursor: listsAt };
        return;
      }
      const ids = new Set<number>();
      // Lead times and activity times differ (joining a list does not touch the lead): the cursor
      // moves to the newest activity read as well, or every later sync would read them again.
      let upTo: string | null = [...(changed?.values() ?? [])].reduce<string | null>(
        (a, b) => (!a || b > a ? b : a),
        null,
      );
      for await (const page of activities<{ leadId?: number; activityDate?: string }>(
        ctx,
        since,
        '/v1/activities/leadchanges.json',
        { fields: CHANGE_FIELDS },
      )) {
        for (const a of page) {
          if (a.leadId !== undefined && !seen.has(a.leadId)) ids.add(a.leadId);
          const at = iso(a.activityDate);
          if (at && (!upTo || at > upTo)) upTo = at;
        }
      }
      const held = known ? await known([...ids].map(String)) : new Set([...ids].map(String));
      const wanted = [...ids].filter((id) => held.has(String(id)));
      for (let i = 0; i < wanted.length; i += 300) {
        const body = await call<Lead>(ctx, '/v1/leads.json', {
          filterType: 'id',
          filterValues: wanted.slice(i, i + 300).join(','),
          fields: LEAD_FIELDS,
        });
        const items = read(body.result ?? []);
        if (items.length) yield { items, total: null };
      }
      if (upTo) yield { items: [], total: null, cursor: upTo };
    },

    async *deletedContacts(ctx, since) {
      // Marketo deletes leads for good; each deletion leaves a "Delete Lead" activity, read from a
      // date paging token on. The reply always carries a token (for later); moreResult says whether
      // there is more now.
      let next = (await call<never>(ctx, '/v1/activities/pagingtoken.json', { sinceDatetime: since }))
        .nextPageToken;
      while (next) {
        const body: Envelope<{ leadId?: number }> = await call<{ leadId?: number }>(
          ctx,
          '/v1/activities/deletedleads.json',
          { nextPageToken: next, batchSize: '300' },
        );
        const ids = (body.result ?? []).flatMap((a) => (a.leadId === undefined ? [] : [String(a.leadId)]));
        if (ids.length) yield { items: ids, total: null };
        if (body.moreResult !== true) return;
        next = body.nextPageToken;
      }
    },

    async *lists(ctx, since) {
      // Later syncs: only lists whose members changed (or the list itself); their time is the newest
      // change, so the cursor moves past it. From this run's contacts phase when it read from the
      // same cursor (always on a first sync): no second read of the lists and their changes.
      const run = runReads.get(ctx);
      const reuse = run?.complete === true && run.since === since;
      if (run) run.used = reuse;
      const changed = reuse ? run.changed : since ? await membershipChanges(ctx, since) : null;
      const listing = reuse
        ? (async function* () {
            for (let i = 0; i < run.lists.length; i += 300) yield run.lists.slice(i, i + 300);
          })()
        : staticLists(ctx);
      for await (const page of listing) {
        const items = page.flatMap((l): RemoteList[] => {
          const at = changed?.get(l.id) ?? null;
          if (changed && !at && !newer(l.updatedAt, since)) return [];
          const updatedAt = iso(l.updatedAt);
          return [
            {
              externalId: String(l.id),
              name: l.name,
              kind: 'static_list',
              memberType: 'lead',
              memberCount: null,
              isActive: true,
              updatedAt: at && (!updatedAt || at > updatedAt) ? at : updatedAt,
            },
          ];
        });
        if (items.length) yield { total: null, items };
      }
    },

    async *listMembers(ctx, listExternalId): AsyncGenerator<CrmPage<RemoteListMember>> {
      const run = runReads.get(ctx);
      const read = run?.used ? run.members.get(listExternalId) : undefined;
      if (read) {
        run?.members.delete(listExternalId);
        for (let i = 0; i < read.length; i += 300) {
          yield {
            total: null,
            items: read
              .slice(i, i + 300)
              .map((id) => ({ memberExternalId: String(id), status: '', addedAt: null })),
          };
        }
        return;
      }
      for await (const leads of paged<Lead>(
        ctx,
        `/v1/lists/${encodeURIComponent(listExternalId)}/leads.json`,
        {
          fields: 'id',
        },
      )) {
        yield {
          total: null,
          items: leads.map((l) => ({ memberExternalId: String(l.id), status: '', addedAt: null })),
        };
      }
    },
  };
}
