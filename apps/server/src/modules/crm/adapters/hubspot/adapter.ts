import type { OAuthVendorConfig } from '../../../../config/env.ts';
import { createVendorHttp, oauthCredentialsFrom } from '../../../integrations/vendor-http.ts';
import type { RetryPolicy } from '../../../integrations/vendor-http.ts';
import type {
  AdapterContext,
  CrmAdapter,
  CrmPage,
  RemoteAccount,
  RemoteActivityCount,
  RemoteContact,
  RemoteField,
  RemoteOpportunity,
  RemoteOwner,
  RemoteStage,
  RemoteStageChange,
  WriteBackItem,
} from '../../port.ts';
import { hubspotAdFields } from './ad-fields.ts';
import { hubspotLists } from './lists.ts';
import { flag, iso, numeric, str } from './values.ts';

/**
 * HubSpot (CRM API v3, OAuth authorization code) as a CRM source. Facts: API-NOTES.md §4.
 * Companies, contacts and deals are read with the search endpoint sorted by their modified time
 * ascending (oldest first, so the sync's cursor is safe after a crash), filtered `>= since` on
 * incremental runs; search stops at 10,000 results per query, so a long walk starts a new query
 * from the last modified time it saw. Stage moves come from the deals' `dealstage` property
 * history (batch read, 50 deals a call); deleted deals, companies and contacts from the archived
 * listings, which search leaves out. Property values are strings: amounts, probabilities and
 * flags are parsed here. 429s are waited out (TEN_SECONDLY_ROLLING: the interval; DAILY: give up
 * until the next run).
 */

export const HUBSPOT_SCOPES = [
  'oauth',
  'crm.objects.deals.read',
  'crm.objects.contacts.read',
  'crm.objects.companies.read',
  'crm.objects.owners.read',
  'crm.schemas.deals.read',
  'crm.lists.read',
  // Write-back: Rally's own contact properties, created once, then set in batches.
  'crm.objects.contacts.write',
  'crm.schemas.contacts.write',
];

/** The contact properties Rally creates in HubSpot for its write-back. */
export const RALLY_PROPERTIES = [
  {
    name: 'rally_superprospect_date',
    label: 'Rally superprospect date',
    type: 'datetime',
    fieldType: 'date',
  },
  { name: 'rally_impressions', label: 'Rally ad impressions', type: 'number', fieldType: 'number' },
  { name: 'rally_clicks', label: 'Rally ad clicks', type: 'number', fieldType: 'number' },
] as const;
export const HUBSPOT_REVOKED_MESSAGE =
  "HubSpot no longer accepts Rally's access (the app was uninstalled or the refresh token was revoked). Reconnect HubSpot in Settings › Connections.";

/**
 * HubSpot's date-versioned OAuth API (token, introspect, revoke; form fields in the body). The v1
 * endpoints (`/oauth/v1/token`, `GET /oauth/v1/access-tokens/{token}`, `DELETE
 * /oauth/v1/refresh-tokens/{token}`) are deprecated and end on 2027-02-16 (changelog "v1 OAuth API
 * Deprecation"; test/vendor-specs/hubspot-sync-*).
 */
const OAUTH = '/oauth/2026-03';
/**
 * Search reads an index that lags behind the records (eventually consistent; HubSpot states no bound,
 * integrators report seconds): a record changed just before the last sync may have reached the index
 * only after it, with a modified time older than the cursor. Each incremental search therefore starts
 * this long before the cursor; what comes again is upserted again, which changes nothing.
 */
const SEARCH_OVERLAP_MS = 5 * 60_000;
const overlap = (since: string | null) =>
  since ? new Date(Date.parse(since) - SEARCH_OVERLAP_MS).toISOString() : null;
/** Search pages (HubSpot: ≤200) and its cap per query. */
const SEARCH_LIMIT = 200;
/** HubSpot's activity objects and the activity type names Rally stores (Salesforce's own words). */
const ACTIVITY_OBJECTS = { calls: 'Call', emails: 'Email', meetings: 'Meeting', tasks: 'Task' } as const;
type ActivityObject = keyof typeof ACTIVITY_OBJECTS;
const SEARCH_CAP = 10_000;
/** The modified-time property search filters and sorts each type by. */
const MODIFIED = {
  companies: 'hs_lastmodifieddate',
  contacts: 'lastmodifieddate',
  deals: 'hs_lastmodifieddate',
} as const;

/** An associated record and its association typeIds (v4). */
type Linked = { id: string; types: number[] };
/** HubSpot's typeId of a deal's association to its primary company (associations v4 guide). */
const DEAL_TO_PRIMARY_COMPANY = 5;

type TokenReply = { access_token: string; refresh_token?: string; expires_in?: number };
type HsObject = {
  id: string;
  properties: Record<string, string | null | undefined>;
  propertiesWithHistory?: Record<string, { value: string; timestamp: string }[]>;
  createdAt: string;
  updatedAt: string;
  archived?: boolean;
};
type SearchReply = { total: number; results: HsObject[]; paging?: { next?: { after: string } } };
type ListReply<T> = { results: T[]; paging?: { next?: { after: string } } };
type Pipeline = {
  id: string;
  label: string;
  displayOrder: number;
  archived?: boolean;
  stages: {
    id: string;
    label: string;
    displayOrder: number;
    archived?: boolean;
    metadata?: { probability?: string | number | null; isClosed?: string | boolean | null };
  }[];
};
type Owner = {
  id: string;
  email?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  archived?: boolean;
  updatedAt?: string | null;
};

/** A 0–1 probability string as a percentage (HubSpot stage metadata says "0.2"). */
function percent(v: unknown): number | null {
  const n = numeric(v);
  if (n === null) return null;
  return Math.max(0, Math.min(100, Math.round(n <= 1 ? n * 100 : n)));
}

export function createHubSpotAdapter(
  cfg: OAuthVendorConfig,
  opts: { retry?: Partial<RetryPolicy> } = {},
): CrmAdapter {
  const api = cfg.apiUrl.replace(/\/+$/, '');
  const auth = cfg.authUrl.replace(/\/+$/, '');

  function app() {
    if (!cfg.clientId || !cfg.clientSecret) {
      throw new Error(
        'HubSpot is not set up on this server: the operator must set HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET.',
      );
    }
    return { clientId: cfg.clientId, clientSecret: cfg.clientSecret };
  }

  const http = createVendorHttp({
    vendor: 'HubSpot',
    retry: opts.retry,
    authorize: (creds) => ({ authorization: `Bearer ${creds.kind === 'oauth' ? creds.accessToken : ''}` }),
    refresh: async (creds) => {
      const { clientId, clientSecret } = app();
      const reply = await http.raw<TokenReply>({
        method: 'POST',
        url: `${api}${OAUTH}/token`,
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: creds.refreshToken ?? '',
          client_id: clientId,
          client_secret: clientSecret,
        }),
      });
      return oauthCredentialsFrom(reply, creds);
    },
    // HubSpot's 429 carries no Retry-After; its body names the policy that was hit.
    classify: async (res) => {
      if (res.status !== 429) return null;
      let policy = '';
      try {
        policy = String((JSON.parse(await res.text()) as { policyName?: string }).policyName ?? '');
      } catch {
        // not JSON: treat as the burst limit
      }
      if (policy === 'DAILY') {
        // The daily allocation comes back at midnight: more than any wait we accept, so the job
        // fails and a later run resumes from the stored cursors.
        return { kind: 'rate_limit', waitMs: 24 * 3_600_000 };
      }
      const interval = Number(res.headers.get('x-hubspot-ratelimit-interval-milliseconds'));
      return { kind: 'rate_limit', waitMs: Number.isFinite(interval) && interval > 0 ? interval : 10_000 };
    },
    revokedMessage: HUBSPOT_REVOKED_MESSAGE,
  });

  const get = <T>(ctx: AdapterContext, path: string, q: Record<string, string> = {}) =>
    http.request<T>(ctx, {
      url: `${api}${path}${Object.keys(q).length ? `?${new URLSearchParams(q)}` : ''}`,
    });
  const post = <T>(ctx: AdapterContext, path: string, body: unknown) =>
    http.request<T>(ctx, { method: 'POST', url: `${api}${path}`, body });

  /**
   * Every record of a type modified at or after `since`, oldest first, in search pages. Past the
   * search cap a new query starts at the last modified time seen (records of that same instant
   * come again; the sync's upserts make that harmless).
   */
  async function* search(
    ctx: AdapterContext,
    type: 'companies' | 'contacts' | 'deals',
    modified: string,
    properties: string[],
    since: string | null,
    filters: { propertyName: string; operator: string }[] = [],
  ): AsyncGenerator<{ items: HsObject[]; total: number }> {
    let from = overlap(since);
    let after: string | undefined;
    for (;;) {
      const reply: SearchReply = await post<SearchReply>(ctx, `/crm/v3/objects/${type}/search`, {
        filterGroups:
          from || filters.length
            ? [
                {
                  filters: [
                    ...filters,
                    ...(from
                      ? [{ propertyName: modified, operator: 'GTE', value: String(Date.parse(from)) }]
                      : []),
                  ],
                },
              ]
            : [],
        sorts: [{ propertyName: modified, direction: 'ASCENDING' }],
        properties: [...properties, modified],
        limit: SEARCH_LIMIT,
        // The spec's PublicObjectSearchRequest requires `after`: "0" is the first page.
        after: after ?? '0',
      });
      yield { items: reply.results, total: reply.total };
      const next = reply.paging?.next?.after;
      if (!next || reply.results.length === 0) return;
      if (Number(next) + SEARCH_LIMIT > SEARCH_CAP) {
        const last = iso(reply.results.at(-1)?.properties[modified]);
        if (!last || last === from) return; // 10,000 records of one instant: nothing more to do
        from = last;
        after = undefined;
      } else after = next;
    }
  }

  /** Follows `paging.next.after` of a GET listing. */
  async function* listing<T>(
    ctx: AdapterContext,
    path: string,
    q: Record<string, string>,
  ): AsyncGenerator<T[]> {
    let after: string | undefined;
    do {
      const reply: ListReply<T> = await get<ListReply<T>>(ctx, path, { ...q, ...(after ? { after } : {}) });
      yield reply.results;
      after = reply.paging?.next?.after;
    } while (after);
  }

  /**
   * The ids of a type's records merged away or archived (deleted). Search never returns archived
   * ones, and their listing has no modified-since filter: HubSpot keeps them 90 days in the recycling
   * bin, a short listing read whole each sync.
   */
  async function* archivedIds(
    ctx: AdapterContext,
    type: 'deals' | 'companies' | 'contacts',
    since: string,
  ): AsyncGenerator<CrmPage<string>> {
    // Merged away: a merge keeps one record and lists the others' ids in its `hs_merged_object_ids`
    // (";"-separated); the others are gone without going to the recycling bin, and HubSpot moves their
    // associations and list memberships to the one kept. The kept records modified since `since` (a
    // day before the last sync) name them: they are deleted here, the kept one came through search.
    for await (const page of search(ctx, type, MODIFIED[type], ['hs_merged_object_ids'], since, [
      { propertyName: 'hs_merged_object_ids', operator: 'HAS_PROPERTY' },
    ])) {
      const gone = page.items.flatMap((r) =>
        (str(r.properties.hs_merged_object_ids) ?? '').split(';').filter((id) => id.trim() && id !== r.id),
      );
      if (gone.length) yield { items: gone, total: null };
    }
    for await (const page of listing<HsObject>(ctx, `/crm/v3/objects/${type}`, {
      limit: '100',
      archived: 'true',
      properties: 'hs_object_id',
    })) {
      yield { items: page.filter((r) => r.archived !== false).map((r) => String(r.id)), total: null };
    }
  }

  async function pipelines(ctx: AdapterContext): Promise<Pipeline[]> {
    return (await get<{ results: Pipeline[] }>(ctx, '/crm/v3/pipelines/deals')).results;
  }

  function stagesOf(list: Pipeline[]): RemoteStage[] {
    return list
      .sort((a, b) => a.displayOrder - b.displayOrder)
      .flatMap((p) =>
        [...p.stages]
          .sort((a, b) => a.displayOrder - b.displayOrder)
          .map((s) => {
            const probability = percent(s.metadata?.probability);
            const isClosed = flag(s.metadata?.isClosed);
            return {
              pipelineKey: p.id,
              pipelineLabel: p.label,
              key: s.id,
              label: s.label,
              order: s.displayOrder,
              probability,
              isClosed,
              // HubSpot marks a closed stage won by its probability of 1 (closedwon).
              isWon: isClosed && probability === 100,
              isActive: !s.archived && !p.archived,
            };
          }),
      );
  }

  /**
   * The associated records of each record (v4 batch associations, 1,000 ids a call), each with its
   * association typeIds. A record's associations come a page at a time: one with more carries
   * `paging.next.after`, sent back beside its id until none is left (the spec: "The 'after' field in a
   * returned paging object can be added alongside the 'id' to retrieve the next page").
   */
  async function associations(
    ctx: AdapterContext,
    to: 'companies' | 'contacts' | 'deals' | ActivityObject,
    fromIds: string[],
    from: 'deals' | 'contacts' | 'companies' = 'deals',
  ): Promise<Map<string, Linked[]>> {
    const out = new Map<string, Linked[]>();
    let inputs: { id: string; after?: string }[] = fromIds.map((id) => ({ id }));
    while (inputs.length) {
      const more: { id: string; after: string }[] = [];
      for (let i = 0; i < inputs.length; i += 1000) {
        const reply = await post<{
          results: {
            from: { id: string };
            to: { toObjectId: number | string; associationTypes?: { typeId?: number }[] }[];
            paging?: { next?: { after?: string } };
          }[];
        }>(ctx, `/crm/v4/associations/${from}/${to}/batch/read`, { inputs: inputs.slice(i, i + 1000) });
        for (const r of reply.results) {
          const id = String(r.from.id);
          const list = out.get(id) ?? [];
          for (const t of r.to) {
            list.push({
              id: String(t.toObjectId),
              types: (t.associationTypes ?? []).map((a) => Number(a.typeId)),
            });
          }
          out.set(id, list);
          const after = r.paging?.next?.after;
          if (after) more.push({ id, after });
        }
      }
      inputs = more;
    }
    return out;
  }
  /**
   * A deal's account: its company typed "Primary" (typeId 5), wherever it comes in the list (a deal may
   * have several companies). HubSpot makes the first company associated the primary one; a deal left
   * without one (its primary company deleted) falls back to the first, as before.
   */
  const primaryCompany = (linked: Linked[]) =>
    (linked.find((l) => l.types.includes(DEAL_TO_PRIMARY_COMPANY)) ?? linked[0])?.id ?? null;
  const idsOf = (m: Map<string, Linked[]>) => new Map([...m].map(([k, v]) => [k, v.map((l) => l.id)]));

  const DEAL_PROPERTIES = [
    'dealname',
    'amount',
    'dealstage',
    'pipeline',
    'closedate',
    'hubspot_owner_id',
    'createdate',
    'deal_currency_code',
  ];

  return {
    source: 'hubspot',
    auth: 'oauth',
    adFields: hubspotAdFields(http, api),

    authorizeUrl({ state, redirectUri }) {
      const { clientId } = app();
      const q = new URLSearchParams({
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: HUBSPOT_SCOPES.join(' '),
        state,
      });
      return `${auth}/oauth/authorize?${q}`;
    },

    async exchangeCode({ code, redirectUri }) {
      const { clientId, clientSecret } = app();
      const reply = await http.raw<TokenReply>({
        method: 'POST',
        url: `${api}${OAUTH}/token`,
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uri: redirectUri,
        }),
      });
      return oauthCredentialsFrom(reply);
    },

    async revoke(creds) {
      if (creds.kind !== 'oauth' || !creds.refreshToken) return;
      const { clientId, clientSecret } = app();
      await http.raw({
        method: 'POST',
        url: `${api}${OAUTH}/token/revoke`,
        body: new URLSearchParams({
          token: creds.refreshToken,
          token_type_hint: 'refresh_token',
          client_id: clientId,
          client_secret: clientSecret,
        }),
      });
    },

    async whoami(ctx) {
      // An authenticated call first: it checks the token (refreshing it when it expired).
      await get(ctx, '/crm/v3/owners', { limit: '1' });
      const creds = ctx.credentials();
      const { clientId, clientSecret } = app();
      const info = await http.raw<{ active?: boolean; hub_domain?: string; hub_id?: number }>({
        method: 'POST',
        url: `${api}${OAUTH}/token/introspect`,
        body: new URLSearchParams({
          token: creds.kind === 'oauth' ? creds.accessToken : '',
          token_type_hint: 'access_token',
          client_id: clientId,
          client_secret: clientSecret,
        }),
      });
      return {
        accountName: info.hub_domain ?? (info.hub_id ? `HubSpot portal ${info.hub_id}` : 'HubSpot'),
        // A deal's record page: /contacts/{hubId}/record/0-3/{dealId} (0-3 is the deals object type).
        opportunityUrlTemplate: info.hub_id
          ? `https://app.hubspot.com/contacts/${info.hub_id}/record/0-3/{id}`
          : null,
      };
    },

    async stages(ctx) {
      return stagesOf(await pipelines(ctx));
    },

    async fields(ctx, object) {
      const type = object === 'opportunity' ? 'deals' : 'contacts';
      const reply = await get<{
        results: {
          name: string;
          label: string;
          type: string;
          options?: { value: string; label: string; hidden?: boolean }[];
        }[];
      }>(ctx, `/crm/v3/properties/${type}`);
      return reply.results.map((f): RemoteField => ({
        name: f.name,
        label: f.label,
        type: f.type,
        options: (f.options ?? []).filter((o) => !o.hidden).map((o) => ({ value: o.value, label: o.label })),
      }));
    },

    async *owners(ctx) {
      // Owners are few and have no modified-since filter: read whole, active then archived.
      for (const archived of ['false', 'true']) {
        for await (const page of listing<Owner>(ctx, '/crm/v3/owners', { limit: '500', archived })) {
          yield {
            items: page.map((o): RemoteOwner => ({
              externalId: String(o.id),
              firstName: str(o.firstName) ?? '',
              lastName: str(o.lastName) ?? '',
              email: str(o.email),
              isActive: archived === 'false' && !o.archived,
              updatedAt: iso(o.updatedAt),
            })),
            total: null,
          };
        }
      }
    },

    async *accounts(ctx, since) {
      for await (const page of search(
        ctx,
        'companies',
        'hs_lastmodifieddate',
        ['name', 'domain', 'website', 'hubspot_owner_id'],
        since,
      )) {
        yield {
          total: page.total,
          items: page.items.map((c): RemoteAccount => ({
            externalId: c.id,
            name: str(c.properties.name) ?? str(c.properties.domain) ?? c.id,
            website: str(c.properties.domain) ?? str(c.properties.website),
            ownerExternalId: str(c.properties.hubspot_owner_id),
            updatedAt: iso(c.properties.hs_lastmodifieddate) ?? c.updatedAt,
          })),
        };
      }
    },

    async *contacts(ctx, since) {
      for await (const page of search(
        ctx,
        'contacts',
        'lastmodifieddate',
        [
          'email',
          'firstname',
          'lastname',
          'jobtitle',
          'associatedcompanyid',
          'hubspot_owner_id',
          // "Unsubscribed from all email": where HubSpot stores an unsubscribe from every email
          // subscription type (a bool property; CRM v3 gives every value as a string, "true").
          // The search returns only the properties named. Per-type opt-outs are not read.
          // https://developers.hubspot.com/docs/guides/api/marketing/subscriptions-preferences
          'hs_email_optout',
        ],
        since,
      )) {
        yield {
          total: page.total,
          items: page.items.map((c): RemoteContact => ({
            externalId: c.id,
            email: str(c.properties.email),
            firstName: str(c.properties.firstname) ?? '',
            lastName: str(c.properties.lastname) ?? '',
            title: str(c.properties.jobtitle) ?? '',
            accountExternalId: str(c.properties.associatedcompanyid),
            ownerExternalId: str(c.properties.hubspot_owner_id),
            updatedAt: iso(c.properties.lastmodifieddate) ?? c.updatedAt,
            optedOut: c.properties.hs_email_optout === 'true',
          })),
        };
      }
    },

    async *activityCounts(ctx, since, stored) {
      // Logging a call, e-mail, meeting or task moves the contact's `lastmodifieddate` (HubSpot
      // updates its activity roll-ups such as `notes_last_updated`), so the contacts changed since
      // the cursor are the ones whose totals may have moved; their totals are then counted over all
      // their associated activities, with the newest `hs_timestamp` of each type. Those contacts are
      // the ones this run's contacts phase has just stored (`stored`, by `lastmodifieddate`): reading
      // them from HubSpot again cost a second search of every contact (issue 18's bench).
      // The same overlap as the searches: a contact the contacts phase found late is counted too.
      for await (const page of stored(overlap(since))) {
        const ids = page.items.map((c) => c.externalId);
        const changedAt = page.items.at(-1)?.updatedAt ?? null;
        const items: RemoteActivityCount[] = [];
        for (const [object, activityType] of Object.entries(ACTIVITY_OBJECTS) as [ActivityObject, string][]) {
          const linked = idsOf(ids.length ? await associations(ctx, object, ids, 'contacts') : new Map());
          const activityIds = [...new Set([...linked.values()].flat())];
          const when = new Map<string, string | null>();
          for (let i = 0; i < activityIds.length; i += 100) {
            const reply = await post<{ results: HsObject[] }>(ctx, `/crm/v3/objects/${object}/batch/read`, {
              inputs: activityIds.slice(i, i + 100).map((id) => ({ id })),
              properties: ['hs_timestamp'],
            });
            for (const r of reply.results) when.set(r.id, iso(r.properties.hs_timestamp) ?? r.createdAt);
          }
          for (const contact of ids) {
            // A contact with none (any more) says 0, so a removed last activity clears the total.
            const list: string[] = linked.get(contact) ?? [];
            const times = list.flatMap((id) => when.get(id) ?? []).sort();
            items.push({
              contactExternalId: contact,
              activityType,
              count: list.length,
              lastActivityAt: times.at(-1) ?? null,
              changedAt,
            });
          }
        }
        // One item per contact and activity type: the sync's progress counts pages of items.
        const perContact = Object.keys(ACTIVITY_OBJECTS).length;
        yield { items, total: page.total === null ? null : page.total * perContact };
      }
    },

    async *opportunities(ctx, since) {
      const stages = stagesOf(await pipelines(ctx));
      const stageOf = new Map(stages.map((s) => [`${s.pipelineKey}\u0000${s.key}`, s]));
      /** A page of deals as opportunities, with their companies and contacts. */
      async function opportunitiesOf(deals: HsObject[]): Promise<RemoteOpportunity[]> {
        const ids = deals.map((d) => d.id);
        const companies = ids.length
          ? await associations(ctx, 'companies', ids)
          : new Map<string, Linked[]>();
        const contacts = idsOf(ids.length ? await associations(ctx, 'contacts', ids) : new Map());
        return deals.flatMap((d): RemoteOpportunity[] => {
          const p = d.properties;
          const pipeline = str(p.pipeline) ?? 'default';
          const stageKey = str(p.dealstage) ?? '';
          const stage = stageOf.get(`${pipeline}\u0000${stageKey}`);
          const createdAt = iso(p.createdate) ?? iso(d.createdAt);
          const updatedAt = iso(p.hs_lastmodifieddate) ?? iso(d.updatedAt);
          if (!createdAt || !updatedAt) return [];
          const closeDate = iso(p.closedate);
          const dealContacts = (contacts.get(d.id) ?? []) as string[];
          return [
            {
              externalId: d.id,
              name: str(p.dealname) ?? `Deal ${d.id}`,
              accountExternalId: primaryCompany(companies.get(d.id) ?? []),
              accountName: null,
              amount: numeric(p.amount),
              currency: str(p.deal_currency_code),
              pipelineKey: pipeline,
              stageKey,
              closeDate: closeDate ? closeDate.slice(0, 10) : null,
              createdAt,
              updatedAt,
              ownerExternalId: str(p.hubspot_owner_id),
              recordTypeExternalId: null,
              isClosed: stage?.isClosed ?? false,
              isWon: stage?.isWon ?? false,
              probability: stage?.probability ?? null,
              isDeleted: d.archived === true,
              contactRoles: dealContacts.map((c, i) => ({
                contactExternalId: c,
                role: '',
                isPrimary: i === 0,
              })),
            },
          ];
        });
      }
      for await (const page of search(ctx, 'deals', 'hs_lastmodifieddate', DEAL_PROPERTIES, since)) {
        yield { total: page.total, items: await opportunitiesOf(page.items) };
      }
      if (!since) return;
      // A company or contact merged into another: HubSpot moves the merged record's deals to the one
      // kept without the deals' own modified time moving, so the deals of the records kept (named by
      // their `hs_merged_object_ids`, modified since the cursor) are read again: their account and
      // contact roles then name the record kept, not the one merged away (marked deleted).
      const dealIds = new Set<string>();
      for (const type of ['companies', 'contacts'] as const) {
        for await (const page of search(ctx, type, MODIFIED[type], ['hs_merged_object_ids'], since, [
          { propertyName: 'hs_merged_object_ids', operator: 'HAS_PROPERTY' },
        ])) {
          const kept = page.items.map((r) => r.id);
          if (!kept.length) continue;
          for (const linked of (await associations(ctx, 'deals', kept, type)).values()) {
            for (const l of linked) dealIds.add(l.id);
          }
        }
      }
      const ids = [...dealIds];
      for (let i = 0; i < ids.length; i += 100) {
        const reply = await post<{ results: HsObject[] }>(ctx, '/crm/v3/objects/deals/batch/read', {
          inputs: ids.slice(i, i + 100).map((id) => ({ id })),
          properties: [...DEAL_PROPERTIES, 'hs_lastmodifieddate'],
        });
        yield { total: null, items: await opportunitiesOf(reply.results) };
      }
    },

    deletedOpportunities: (ctx, since) => archivedIds(ctx, 'deals', since),
    deletedAccounts: (ctx, since) => archivedIds(ctx, 'companies', since),
    deletedContacts: (ctx, since) => archivedIds(ctx, 'contacts', since),

    async *stageHistory(ctx, since) {
      // The deals modified since the cursor, then their dealstage history (50 deals a call).
      for await (const page of search(ctx, 'deals', 'hs_lastmodifieddate', [], since)) {
        const items: RemoteStageChange[] = [];
        for (let i = 0; i < page.items.length; i += 50) {
          const part = page.items.slice(i, i + 50);
          const modified = new Map(
            part.map((d) => [d.id, iso(d.properties.hs_lastmodifieddate) ?? d.updatedAt]),
          );
          const reply = await post<{ results: HsObject[] }>(ctx, '/crm/v3/objects/deals/batch/read', {
            inputs: part.map((d) => ({ id: d.id })),
            properties: ['dealstage'],
            propertiesWithHistory: ['dealstage'],
          });
          for (const d of reply.results) {
            // Newest first from HubSpot: walk oldest first, keeping moves only.
            const history = [...(d.propertiesWithHistory?.dealstage ?? [])].reverse();
            let before: string | null = null;
            for (const h of history) {
              const at = iso(h.timestamp);
              if (!at || !h.value || h.value === before) continue;
              items.push({
                externalId: `${at}:${h.value}`,
                opportunityExternalId: d.id,
                fromStageKey: before,
                toStageKey: h.value,
                changedAt: at,
                // The deal's modified time: the cursor then matches the deals' search filter.
                updatedAt: modified.get(d.id) ?? at,
              });
              before = h.value;
            }
          }
        }
        yield { items, total: page.total };
      }
    },

    async writeBack(ctx, items: WriteBackItem[]) {
      const existing = new Set(
        (await get<{ results: { name: string }[] }>(ctx, '/crm/v3/properties/contacts')).results.map(
          (p) => p.name,
        ),
      );
      for (const p of RALLY_PROPERTIES) {
        if (existing.has(p.name)) continue;
        await post(ctx, '/crm/v3/properties/contacts', { ...p, groupName: 'contactinformation' });
      }
      // One value per contact (the latest item wins); setting the same values again changes nothing.
      const byContact = new Map(items.map((i) => [i.contactExternalId, i]));
      const inputs = [...byContact.values()].map((i) => ({
        id: i.contactExternalId,
        properties: {
          rally_superprospect_date: String(Date.parse(i.superDate)),
          rally_impressions: String(i.impressions),
          rally_clicks: String(i.clicks),
        },
      }));
      let written = 0;
      for (let i = 0; i < inputs.length; i += 100) {
        const reply = await post<{ results: unknown[] }>(ctx, '/crm/v3/objects/contacts/batch/update', {
          inputs: inputs.slice(i, i + 100),
        });
        written += reply.results.length;
      }
      return { target: 'contact properties', written };
    },

    ...hubspotLists(post, listing),
  };
}
