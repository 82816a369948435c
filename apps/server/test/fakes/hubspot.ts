import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError, hsError, propertyRoute } from './hubspot-properties.ts';
import { createFakeHubSpotOAuth, readBody, send } from './hubspot-oauth.ts';
import type { HsPropertyDef, PropertyState } from './hubspot-properties.ts';

/**
 * A fake HubSpot on loopback, as API-NOTES.md §4 describes it: the OAuth authorization-code flow
 * (authorize, then the date-versioned OAuth API of test/vendor-specs/hubspot-sync-*: `POST
 * /oauth/2026-03/token` with authorization_code and refresh_token, expires_in 1800, `POST
 * .../token/introspect` for who-am-I, `POST .../token/revoke`; the v1 endpoints are deprecated, see
 * the OAuth routes in `handle` below; hubspot-oauth.ts),
 * and the CRM v3 API: deals, contacts and companies (`limit` ≤100 + `after`, cursor in
 * `paging.next.after`, no `paging` on the last page; `propertiesWithHistory`; search with
 * `hs_lastmodifieddate` filters sorted ascending), deal pipelines with stages, owners, properties,
 * lists search and memberships. Property values are strings, ids numeric strings (a contact's
 * `hs_email_optout`, "Unsubscribed from all email", is 'true' once the person unsubscribed from all
 * email, else unset: seed it as a property). Only the properties a read names come back. Errors use
 * HubSpot's `{status:"error", message, correlationId, category}`; over the rate limit → 429 with
 * `errorType: RATE_LIMIT` and `policyName: TEN_SECONDLY_ROLLING`. Tests drive time-dependent
 * behaviour (expired tokens, revoked app, rate-limit replies mid-listing) through the controls.
 */

export type HsActivityType = 'calls' | 'emails' | 'meetings' | 'tasks';
export type HsObjectType = 'deals' | 'contacts' | 'companies' | HsActivityType;

export type HsRecord = {
  id: string;
  properties: Record<string, string | null>;
  /** Every value each property had, newest first (HubSpot's propertiesWithHistory order). */
  history: Record<string, { value: string; timestamp: string; sourceType: string }[]>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
  /** When it went to the recycling bin (HubSpot's `archivedAt`, only on archived records). */
  archivedAt?: string;
  associations: Partial<Record<HsObjectType, string[]>>;
  /** The company typed "Primary" among `associations.companies` (HubSpot: one per record). */
  primaryCompany?: string;
};

export type HsStage = {
  id: string;
  label: string;
  displayOrder: number;
  probability: string;
  isClosed: string;
  archived?: boolean;
};
export type HsPipeline = { id: string; label: string; displayOrder: number; stages: HsStage[] };
export type HsOwner = {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  userId: number;
  archived: boolean;
  updatedAt: string;
};
export type HsList = {
  listId: string;
  name: string;
  objectTypeId: string;
  processingType: 'MANUAL' | 'DYNAMIC' | 'SNAPSHOT';
  members: { recordId: string; membershipTimestamp: string }[];
  createdAt: string;
  /** The list's definition (name, filters) last changed; members coming and going leave it. */
  updatedAt: string;
  /** Its newest member came, its last one left (the `hs_last_record_added_at`/`_removed_at` properties). */
  lastAddedAt?: string;
  lastRemovedAt?: string;
};

export type HubSpotSeed = {
  pipelines?: HsPipeline[];
  owners?: Omit<HsOwner, 'updatedAt' | 'archived' | 'userId'>[];
  companies?: { properties: Record<string, string>; ownerId?: string }[];
  contacts?: { properties: Record<string, string>; companyIndex?: number }[];
  /** `stages`: the stage ids the deal went through, oldest first (the last is its current stage). */
  deals?: {
    properties: Record<string, string>;
    stages?: string[];
    /** The deal's primary company. */
    companyIndex?: number;
    /** Every company of the deal, in the order they were associated (the primary among them). */
    companyIndexes?: number[];
    contactIndexes?: number[];
  }[];
  lists?: { name: string; processingType?: HsList['processingType']; contactIndexes: number[] }[];
};

export type StartFakeHubSpotOptions = {
  seed?: HubSpotSeed;
  /** Requests per 10-second window before 429 (HubSpot: 100–190); unlimited when unset. */
  burstLimit?: number;
  now?: () => number;
  /** The scopes a consent grants (space-separated); default all CRM read scopes + oauth. */
  scope?: string;
  /** Associations per record and page of the v4 batch read (HubSpot does not say; default 500). */
  associationPageSize?: number;
  /** Each CRM API call answers this much later (the e2e test watches a sync's progress bar). */
  latencyMs?: number;
};

type Logged = { method: string; path: string; query: Record<string, string>; status: number; body?: unknown };

export { HUBSPOT_SCOPES } from './hubspot-oauth.ts';
const SCOPE_FOR: Record<string, string> = {
  deals: 'crm.objects.deals.read',
  contacts: 'crm.objects.contacts.read',
  companies: 'crm.objects.companies.read',
  owners: 'crm.objects.owners.read',
  pipelines: 'crm.objects.deals.read',
  properties: 'crm.schemas.deals.read',
  lists: 'crm.lists.read',
  // HubSpot's activity objects are read with the contacts scope.
  calls: 'crm.objects.contacts.read',
  emails: 'crm.objects.contacts.read',
  meetings: 'crm.objects.contacts.read',
  tasks: 'crm.objects.contacts.read',
};

const OBJECT_TYPE_ID: Record<HsObjectType, string> = {
  contacts: '0-1',
  companies: '0-2',
  deals: '0-3',
  tasks: '0-27',
  meetings: '0-47',
  calls: '0-48',
  emails: '0-49',
};

export async function startFakeHubSpot(opts: StartFakeHubSpotOptions = {}) {
  const now = opts.now ?? (() => Date.now());
  const clientId = randomUUID();
  const clientSecret = randomUUID();
  const hubId = 40_000_000 + Math.floor(Math.random() * 1_000_000);
  let origin = '';
  const objects: Record<HsObjectType, HsRecord[]> = {
    deals: [],
    contacts: [],
    companies: [],
    calls: [],
    emails: [],
    meetings: [],
    tasks: [],
  };
  const pipelines: HsPipeline[] = [];
  const owners: HsOwner[] = [];
  const lists: HsList[] = [];
  const customProperties = new Map<string, HsPropertyDef>();
  /** Property groups: HubSpot's own, and those an app creates. */
  const propertyGroups = new Map(
    ['contactinformation', 'companyinformation', 'dealinformation'].map((name, i) => [
      name,
      { label: name.replace('information', ' information'), displayOrder: i },
    ]),
  );
  let batchUpdates = 0;
  const requests: Logged[] = [];
  const triggers: { calls: number; run: () => void }[] = [];
  /** A hold set by `holdAt`: that call and every later one wait unanswered until `release()`. */
  let holdRule: { path: string; left: number } | null = null;
  let gate: { promise: Promise<void>; resolve: () => void } | null = null;
  let held = 0;
  let rateLimitReplies = 0;
  let serverErrors = 0;
  let window = { start: 0, count: 0 };
  let nextId = 1000;
  let clock = now() - 30 * 86_400_000;

  const iso = (ms: number) => new Date(ms).toISOString();
  /** Strictly increasing times, so `hs_lastmodifieddate` orders every change. */
  const tick = () => {
    clock = Math.max(clock + 1000, now() - 3_600_000);
    return iso(clock);
  };

  function addRecord(
    type: HsObjectType,
    properties: Record<string, string | null>,
    at = tick(),
    associations: HsRecord['associations'] = {},
  ): HsRecord {
    const id = String(++nextId);
    const r: HsRecord = {
      id,
      properties: {
        ...properties,
        hs_object_id: id,
        createdate: at,
        hs_lastmodifieddate: at,
        // Contacts carry their modified time as `lastmodifieddate` too, and their primary company.
        ...(type === 'contacts'
          ? { lastmodifieddate: at, associatedcompanyid: associations.companies?.[0] ?? null }
          : {}),
      },
      history: {},
      createdAt: at,
      updatedAt: at,
      archived: false,
      associations,
    };
    for (const [k, v] of Object.entries(properties)) {
      if (v !== null) r.history[k] = [{ value: v, timestamp: at, sourceType: 'CRM_UI' }];
    }
    objects[type].push(r);
    return r;
  }

  /** Changes properties like a user would: history grows, hs_lastmodifieddate moves on. */
  /** Records by id (records are only ever added): rebuilt when a type's count changed. */
  const indexes = new Map<HsObjectType, { size: number; byId: Map<string, HsRecord> }>();
  function findRecord(type: HsObjectType, id: string): HsRecord | undefined {
    let ix = indexes.get(type);
    if (ix?.size !== objects[type].length) {
      ix = { size: objects[type].length, byId: new Map(objects[type].map((r) => [r.id, r])) };
      indexes.set(type, ix);
    }
    return ix.byId.get(id);
  }

  function update(type: HsObjectType, id: string, changes: Record<string, string | null>): HsRecord {
    const r = findRecord(type, id);
    if (!r) throw new Error(`fake HubSpot: no ${type} ${id}`);
    const at = tick();
    for (const [k, v] of Object.entries(changes)) {
      r.properties[k] = v;
      if (v !== null) (r.history[k] ??= []).unshift({ value: v, timestamp: at, sourceType: 'CRM_UI' });
    }
    r.properties.hs_lastmodifieddate = at;
    if (type === 'contacts') r.properties.lastmodifieddate = at;
    r.updatedAt = at;
    return r;
  }

  /**
   * Logs an activity on a contact as a rep would: the activity is associated both ways, and the
   * contact's activity roll-ups (`notes_last_updated`) move its `lastmodifieddate`, as HubSpot does.
   */
  function addActivity(type: HsActivityType, contactId: string, at = tick()): HsRecord {
    const r = addRecord(type, { hs_timestamp: at }, at, { contacts: [contactId] });
    const contact = objects.contacts.find((x) => x.id === contactId);
    if (!contact) throw new Error(`fake HubSpot: no contact ${contactId}`);
    (contact.associations[type] ??= []).push(r.id);
    update('contacts', contactId, { notes_last_updated: tick() });
    return r;
  }

  /** Deletes an activity: gone from its contact, whose roll-ups move on. */
  function removeActivity(type: HsActivityType, id: string) {
    const r = objects[type].find((x) => x.id === id);
    if (!r) throw new Error(`fake HubSpot: no ${type} ${id}`);
    r.archived = true;
    for (const contactId of r.associations.contacts ?? []) {
      const contact = objects.contacts.find((x) => x.id === contactId);
      if (contact) contact.associations[type] = (contact.associations[type] ?? []).filter((x) => x !== id);
      update('contacts', contactId, { notes_last_updated: tick() });
    }
  }

  /**
   * Search reads an index that lags behind the records: HubSpot does not document by how much, and
   * integrators report changes taking "several seconds to propagate to the search indexing" (Locoia's
   * HubSpot connector notes) and "The Search API is eventually consistent" (Sequin, "How we built our
   * sync on HubSpot's API"). A record in `unindexed` is left out of search until `indexSearch()`.
   */
  const unindexed = new Set<string>();

  /**
   * Merges `goneId` into `keepId` as a user would (HubSpot "Merge records"; `POST
   * /crm/v3/objects/{type}/merge` in the spec): the record kept gets the other's associations and its
   * id in `hs_merged_object_ids` (";"-separated), and is modified now; the merged record is gone (not
   * in the recycling bin: a merge cannot be restored), its id no longer listed.
   */
  function merge(type: HsObjectType, keepId: string, goneId: string) {
    const keep = findRecord(type, keepId);
    const gone = findRecord(type, goneId);
    if (!keep || !gone) throw new Error(`fake HubSpot: no ${type} ${keepId} or ${goneId}`);
    for (const [to, ids] of Object.entries(gone.associations) as [HsObjectType, string[]][]) {
      keep.associations[to] = [...new Set([...(keep.associations[to] ?? []), ...ids])];
    }
    // Every record associated with the merged one is associated with the kept one instead (and a
    // deal's primary company stays primary).
    for (const rows of Object.values(objects)) {
      for (const other of rows) {
        const linked = other.associations[type];
        if (!linked?.includes(goneId)) continue;
        other.associations[type] = [...new Set(linked.map((x) => (x === goneId ? keepId : x)))];
        if (other.primaryCompany === goneId) other.primaryCompany = keepId;
      }
    }
    for (const l of lists) {
      if (!l.members.some((m) => m.recordId === goneId)) continue;
      l.members = l.members.filter((m) => m.recordId !== goneId);
      if (!l.members.some((m) => m.recordId === keepId))
        l.members.push({ recordId: keepId, membershipTimestamp: tick() });
      l.lastRemovedAt = tick();
    }
    objects[type].splice(objects[type].indexOf(gone), 1);
    indexes.delete(type);
    const merged = [
      keep.properties.hs_merged_object_ids,
      ...(gone.properties.hs_merged_object_ids ?? '').split(';'),
      goneId,
    ];
    update(type, keepId, { hs_merged_object_ids: merged.filter(Boolean).join(';') });
  }

  /**
   * Deletes a record as a user would (HubSpot moves it to the recycling bin): it drops out of search,
   * batch read and the plain listing, and shows only in `GET /crm/v3/objects/{type}?archived=true`,
   * with `archived: true` and `archivedAt`.
   */
  function archive(type: HsObjectType, id: string) {
    const r = objects[type].find((x) => x.id === id);
    if (!r) throw new Error(`fake HubSpot: no ${type} ${id}`);
    r.archived = true;
    r.updatedAt = tick();
    r.archivedAt = r.updatedAt;
    r.properties.hs_lastmodifieddate = r.updatedAt;
  }

  /** Restores an archived record from the recycling bin: back in search, modified now. */
  function restore(type: HsObjectType, id: string) {
    const r = objects[type].find((x) => x.id === id && x.archived);
    if (!r) throw new Error(`fake HubSpot: no archived ${type} ${id}`);
    r.archived = false;
    delete r.archivedAt;
    update(type, id, {});
  }

  function seed(s: HubSpotSeed) {
    for (const p of s.pipelines ?? []) pipelines.push(structuredClone(p));
    for (const o of s.owners ?? []) {
      owners.push({ ...o, userId: Number(o.id) + 7, archived: false, updatedAt: tick() });
    }
    const companies = (s.companies ?? []).map((c) =>
      addRecord('companies', { ...c.properties, hubspot_owner_id: c.ownerId ?? null }),
    );
    const contacts = (s.contacts ?? []).map((c) => {
      const company = c.companyIndex === undefined ? undefined : companies[c.companyIndex];
      return addRecord('contacts', c.properties, tick(), company ? { companies: [company.id] } : {});
    });
    for (const d of s.deals ?? []) {
      const stages = d.stages ?? [d.properties.dealstage ?? 'appointmentscheduled'];
      const company = d.companyIndex === undefined ? undefined : companies[d.companyIndex];
      const all = (d.companyIndexes ?? (company ? [d.companyIndex!] : [])).map((i) => companies[i]!.id);
      const r = addRecord('deals', { ...d.properties, dealstage: stages[0]! }, tick(), {
        ...(all.length ? { companies: all } : {}),
        ...(d.contactIndexes ? { contacts: d.contactIndexes.map((i) => contacts[i]!.id) } : {}),
      });
      // HubSpot makes the first company associated the primary one; a user may move it since.
      r.primaryCompany = company?.id ?? all[0];
      for (const st of stages.slice(1)) update('deals', r.id, { dealstage: st });
    }
    for (const l of s.lists ?? []) {
      const at = tick();
      lists.push({
        listId: String(++nextId),
        name: l.name,
        objectTypeId: '0-1',
        processingType: l.processingType ?? 'MANUAL',
        members: l.contactIndexes.map((i) => ({ recordId: contacts[i]!.id, membershipTimestamp: at })),
        createdAt: at,
        updatedAt: at,
        ...(l.contactIndexes.length ? { lastAddedAt: at } : {}),
      });
    }
  }

  const oauth = createFakeHubSpotOAuth({ clientId, clientSecret, hubId, now, scope: opts.scope });
  const { bearer } = oauth;

  function rateLimit(): Record<string, string> {
    if (rateLimitReplies > 0) {
      rateLimitReplies -= 1;
      throw rateLimited();
    }
    if (opts.burstLimit === undefined) return {};
    const t = now();
    if (t - window.start >= 10_000) window = { start: t, count: 0 };
    window.count += 1;
    if (window.count > opts.burstLimit) throw rateLimited();
    return {
      'x-hubspot-ratelimit-max': String(opts.burstLimit),
      'x-hubspot-ratelimit-remaining': String(opts.burstLimit - window.count),
      'x-hubspot-ratelimit-interval-milliseconds': '10000',
    };
  }
  const rateLimited = () =>
    new HttpError(429, {
      status: 'error',
      message: 'You have reached your ten_secondly_rolling limit.',
      errorType: 'RATE_LIMIT',
      correlationId: randomUUID(),
      policyName: 'TEN_SECONDLY_ROLLING',
    });

  function limitParam(q: URLSearchParams | Record<string, unknown>, max: number): number {
    const raw = q instanceof URLSearchParams ? q.get('limit') : q.limit;
    if (raw === null || raw === undefined) return 10;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > max) {
      throw hsError(400, 'VALIDATION_ERROR', `limit must be between 1 and ${max}`);
    }
    return n;
  }
  function afterParam(raw: unknown): number {
    if (raw === null || raw === undefined || raw === '') return 0;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) throw hsError(400, 'VALIDATION_ERROR', 'after is not a valid cursor');
    return n;
  }
  function paged<T>(items: T[], start: number, limit: number, path: string) {
    const slice = items.slice(start, start + limit);
    const next = start + limit < items.length ? String(start + limit) : null;
    return {
      results: slice,
      ...(next ? { paging: { next: { after: next, link: `${origin}${path}?after=${next}` } } } : {}),
    };
  }

  /** The state the property routes (hubspot-properties.ts) read and change, for one token's scopes. */
  function propertyState(scope: string): PropertyState {
    return {
      customProperties,
      groups: propertyGroups,
      standardNames: (type) => {
        const names = new Set(['createdate', 'hs_lastmodifieddate', 'email', 'firstname', 'lastname']);
        for (const r of objects[type as HsObjectType] ?? [])
          for (const k of Object.keys(r.properties)) names.add(k);
        for (const k of customProperties.keys()) names.delete(k);
        return names;
      },
      contactExists: (id) => {
        const r = findRecord('contacts', id);
        return Boolean(r && !r.archived);
      },
      setContact: (id, properties) => {
        const r = update('contacts', id, properties);
        return { id: r.id, properties: { ...properties }, createdAt: r.createdAt, updatedAt: r.updatedAt };
      },
      hasScope: (s) => scope.split(' ').includes(s),
      onBatchUpdate: () => {
        batchUpdates += 1;
      },
    };
  }

  function shape(
    type: HsObjectType,
    r: HsRecord,
    props: string[],
    withHistory: string[],
    assoc: HsObjectType[],
  ) {
    const properties: Record<string, string | null> = {
      hs_object_id: r.id,
      createdate: r.properties.createdate ?? null,
      hs_lastmodifieddate: r.properties.hs_lastmodifieddate ?? null,
    };
    for (const p of props) properties[p] = r.properties[p] ?? null;
    const out: Record<string, unknown> = {
      id: r.id,
      properties,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      archived: r.archived,
      ...(r.archived && r.archivedAt ? { archivedAt: r.archivedAt } : {}),
    };
    if (withHistory.length > 0) {
      out.propertiesWithHistory = Object.fromEntries(withHistory.map((p) => [p, r.history[p] ?? []]));
    }
    const associations: Record<string, unknown> = {};
    for (const a of assoc) {
      const ids = r.associations[a] ?? [];
      if (ids.length > 0) {
        associations[a] = {
          results: ids.map((id) => ({ id, type: `${type.slice(0, -1)}_to_${a.slice(0, -1)}` })),
        };
      }
    }
    if (Object.keys(associations).length > 0) out.associations = associations;
    return out;
  }

  /**
   * The association types of one association, by HubSpot's typeIds (associations v4 guide, "Association
   * type IDs": deal to company 341, deal to primary company 5, contact to company 279, contact to
   * primary company 1, deal to contact 3, contact to call 193, e-mail 197, meeting 199, task 203,
   * company to deal 342, contact to deal 4).
   * Every association has the unlabeled type; the primary company's has "Primary" beside it ("When
   * a record has a primary association ... those types will be listed alongside the unlabeled
   * association type").
   */
  function typesOf(from: HsObjectType, to: HsObjectType, r: HsRecord, toId: string) {
    const unlabeled: Record<string, number> = {
      'deals/companies': 341,
      'contacts/companies': 279,
      'deals/contacts': 3,
      'contacts/calls': 193,
      'contacts/emails': 197,
      'contacts/meetings': 199,
      'contacts/tasks': 203,
      'companies/deals': 342,
      'contacts/deals': 4,
    };
    const primary: Record<string, number> = { 'deals/companies': 5, 'contacts/companies': 1 };
    const key = `${from}/${to}`;
    const types: { category: string; typeId: number; label: string | null }[] = [];
    const isPrimary =
      to === 'companies' &&
      toId === (r.primaryCompany ?? (from === 'contacts' ? r.associations.companies?.[0] : undefined));
    if (primary[key] && isPrimary)
      types.push({ category: 'HUBSPOT_DEFINED', typeId: primary[key], label: 'Primary' });
    if (unlabeled[key] === undefined) throw new Error(`fake HubSpot: no association type for ${key}`);
    types.push({ category: 'HUBSPOT_DEFINED', typeId: unlabeled[key], label: null });
    return types;
  }

  type Filter = { propertyName: string; operator: string; value?: string; values?: string[] };
  function matches(r: HsRecord, f: Filter): boolean {
    const raw = f.propertyName === 'hs_object_id' ? r.id : r.properties[f.propertyName];
    const v = raw ?? null;
    const num = (x: string | null | undefined) => {
      const t = Date.parse(x ?? '');
      return Number.isNaN(t) ? Number(x) : t;
    };
    switch (f.operator) {
      case 'EQ':
        return v === f.value;
      case 'NEQ':
        return v !== f.value;
      case 'GT':
        return v !== null && num(v) > num(f.value);
      case 'GTE':
        return v !== null && num(v) >= num(f.value);
      case 'LT':
        return v !== null && num(v) < num(f.value);
      case 'LTE':
        return v !== null && num(v) <= num(f.value);
      case 'IN':
        return v !== null && (f.values ?? []).includes(v);
      case 'HAS_PROPERTY':
        return v !== null;
      case 'NOT_HAS_PROPERTY':
        return v === null;
      default:
        throw hsError(400, 'VALIDATION_ERROR', `unsupported operator ${f.operator}`);
    }
  }

  async function api(req: IncomingMessage, url: URL, res: ServerResponse, entry: Logged) {
    for (const t of [...triggers]) {
      if (--t.calls <= 0) {
        triggers.splice(triggers.indexOf(t), 1);
        t.run();
      }
    }
    if (holdRule && url.pathname === holdRule.path && --holdRule.left <= 0) {
      holdRule = null;
      let resolve = () => {};
      const promise = new Promise<void>((r) => (resolve = r));
      gate = { promise, resolve };
    }
    if (gate) {
      held += 1;
      await gate.promise;
    }
    if (serverErrors > 0) {
      serverErrors -= 1;
      throw hsError(502, 'INTERNAL_ERROR', 'Bad gateway');
    }
    const auth = bearer(req);
    const headers = rateLimit();
    const parts = url.pathname.split('/').filter(Boolean); // crm, v3, ...
    const [, , area, ...rest] = parts;
    const resource = area === 'objects' ? rest[0]! : area!;
    const scope = SCOPE_FOR[area === 'associations' ? rest[0]! : resource];
    if (scope && !auth.scope.split(' ').includes(scope)) {
      throw hsError(403, 'MISSING_SCOPES', 'This app hasn\u2019t been granted all required scopes.', {
        errors: [{ message: `One or more of the following scopes are required: ${scope}` }],
      });
    }
    const q = url.searchParams;

    if (area === 'objects' && rest.length === 1 && req.method === 'GET') {
      const type = rest[0] as HsObjectType;
      if (!objects[type]) throw hsError(404, 'OBJECT_NOT_FOUND', `Unknown object type ${type}`);
      const archived = q.get('archived') === 'true';
      const rows = objects[type].filter((r) => r.archived === archived);
      const page = paged(rows, afterParam(q.get('after')), limitParam(q, 100), url.pathname);
      const list = (name: string) => (q.get(name) ?? '').split(',').filter(Boolean);
      return send(
        res,
        200,
        {
          ...page,
          results: page.results.map((r) =>
            shape(
              type,
              r,
              list('properties'),
              list('propertiesWithHistory'),
              list('associations') as HsObjectType[],
            ),
          ),
        },
        headers,
      );
    }
    if (area === 'objects' && rest.length === 2 && rest[1] === 'search' && req.method === 'POST') {
      const type = rest[0] as HsObjectType;
      if (!objects[type]) throw hsError(404, 'OBJECT_NOT_FOUND', `Unknown object type ${type}`);
      let body: {
        filterGroups?: { filters?: Filter[] }[];
        sorts?: ({ propertyName: string; direction?: string } | string)[];
        properties?: string[];
        limit?: number;
        after?: string;
      };
      try {
        body = JSON.parse(await readBody(req)) as typeof body;
      } catch {
        throw hsError(400, 'VALIDATION_ERROR', 'Invalid input JSON');
      }
      entry.body = body;
      const groups = body.filterGroups ?? [];
      if (groups.length > 5 || groups.some((g) => (g.filters ?? []).length > 10)) {
        throw hsError(400, 'VALIDATION_ERROR', 'too many filter groups or filters');
      }
      const start = afterParam(body.after);
      if (start >= 10_000) throw hsError(400, 'VALIDATION_ERROR', 'search results are limited to 10,000');
      let rows = objects[type].filter(
        (r) =>
          !r.archived &&
          // The search index lags behind the records (see `lagSearch`).
          !unindexed.has(`${type}:${r.id}`) &&
          (groups.length === 0 || groups.some((g) => (g.filters ?? []).every((f) => matches(r, f)))),
      );
      const sort = body.sorts?.[0];
      if (sort) {
        const s = typeof sort === 'string' ? { propertyName: sort, direction: 'ASCENDING' } : sort;
        // Keys read once, and timestamps compared as plain strings: localeCompare on every pair made a
        // page of a 100,000-record search take seconds (bench hubspot-lists).
        const sign = s.direction === 'DESCENDING' ? -1 : 1;
        const keyed = rows.map((r) => ({ r, k: r.properties[s.propertyName] ?? '' }));
        const stamp = /^\d{4}-\d\d-\d\dT/;
        keyed.sort((a, b) =>
          stamp.test(a.k) && stamp.test(b.k)
            ? (a.k < b.k ? -1 : a.k > b.k ? 1 : 0) * sign
            : a.k.localeCompare(b.k) * sign,
        );
        rows = keyed.map((x) => x.r);
      }
      const page = paged(rows, start, limitParam(body, 200), url.pathname);
      return send(
        res,
        200,
        {
          total: rows.length,
          ...page,
          results: page.results.map((r) => shape(type, r, body.properties ?? [], [], [])),
        },
        headers,
      );
    }
    if (
      area === 'objects' &&
      rest.length === 3 &&
      rest[1] === 'batch' &&
      rest[2] === 'read' &&
      req.method === 'POST'
    ) {
      const type = rest[0] as HsObjectType;
      if (!objects[type]) throw hsError(404, 'OBJECT_NOT_FOUND', `Unknown object type ${type}`);
      let body: { inputs?: { id: string }[]; properties?: string[]; propertiesWithHistory?: string[] };
      try {
        body = JSON.parse(await readBody(req)) as typeof body;
      } catch {
        throw hsError(400, 'VALIDATION_ERROR', 'Invalid input JSON');
      }
      const inputs = body.inputs ?? [];
      // HubSpot reads at most 50 records a call when property history is asked for, else 100.
      const max = body.propertiesWithHistory?.length ? 50 : 100;
      if (inputs.length > max) throw hsError(400, 'VALIDATION_ERROR', `at most ${max} inputs`);
      const results = inputs.flatMap((i) => {
        const r = objects[type].find((x) => x.id === i.id && !x.archived);
        return r ? [shape(type, r, body.properties ?? [], body.propertiesWithHistory ?? [], [])] : [];
      });
      return send(res, 200, { status: 'COMPLETE', results }, headers);
    }
    if (area === 'associations' && rest.length === 4 && rest[2] === 'batch' && rest[3] === 'read') {
      // v4 associations: POST /crm/v4/associations/{from}/{to}/batch/read {inputs:[{id, after?}]}
      // (≤1,000 inputs: changelog "Bug Fix: Batch Read Limit for HubSpot Associations API"). Each
      // result is one page of its record's associations; "The 'after' field in a returned paging
      // object can be added alongside the 'id' to retrieve the next page of associations from that
      // objectId ... The 'paging' field will only be present if there are more pages" (the spec's
      // operation description, test/vendor-specs/hubspot-sync-*). The page size of the batch read
      // is not documented (the single-record read: "Limit 500 per call"): 500 here, smaller in tests.
      const from = rest[0] as HsObjectType;
      const to = rest[1] as HsObjectType;
      if (!objects[from] || !objects[to]) throw hsError(404, 'OBJECT_NOT_FOUND', 'Unknown object type');
      let body: { inputs?: { id: string; after?: string }[] };
      try {
        body = JSON.parse(await readBody(req)) as typeof body;
      } catch {
        throw hsError(400, 'VALIDATION_ERROR', 'Invalid input JSON');
      }
      if ((body.inputs ?? []).length > 1000) throw hsError(400, 'VALIDATION_ERROR', 'at most 1000 inputs');
      const size = opts.associationPageSize ?? 500;
      const reverse = new Map<string, string[]>();
      for (const x of objects[to]) {
        if (x.archived) continue;
        for (const id of x.associations[from] ?? []) reverse.set(id, [...(reverse.get(id) ?? []), x.id]);
      }
      const results = (body.inputs ?? []).flatMap((i) => {
        const r = findRecord(from, i.id);
        // An association reads from either side (a deal's company lists the deal too); the seed
        // and some controls record one side only.
        const ids = r ? [...new Set([...(r.associations[to] ?? []), ...(reverse.get(r.id) ?? [])])] : [];
        const start = afterParam(i.after);
        const page = ids.slice(start, start + size);
        if (!page.length) return [];
        const next = start + size < ids.length ? String(start + size) : null;
        return [
          {
            from: { id: i.id },
            to: page.map((id) => ({ toObjectId: Number(id), associationTypes: typesOf(from, to, r!, id) })),
            ...(next ? { paging: { next: { after: next, link: '' } } } : {}),
          },
        ];
      });
      return send(res, 200, { status: 'COMPLETE', results }, headers);
    }
    if (area === 'pipelines' && rest[0] === 'deals' && rest.length === 1) {
      return send(
        res,
        200,
        {
          results: pipelines.map((p) => ({
            id: p.id,
            label: p.label,
            displayOrder: p.displayOrder,
            archived: false,
            createdAt: iso(clock),
            updatedAt: iso(clock),
            stages: p.stages.map((s) => ({
              id: s.id,
              label: s.label,
              displayOrder: s.displayOrder,
              archived: s.archived ?? false,
              metadata: { probability: s.probability, isClosed: s.isClosed },
              createdAt: iso(clock),
              updatedAt: iso(clock),
            })),
          })),
        },
        headers,
      );
    }
    if (area === 'owners' && rest.length === 0) {
      const archived = q.get('archived') === 'true';
      const email = q.get('email');
      const rows = owners
        .filter((o) => o.archived === archived && (!email || o.email === email))
        .map((o) => ({
          id: o.id,
          email: o.email,
          firstName: o.firstName,
          lastName: o.lastName,
          userId: o.userId,
          teams: [],
          archived: o.archived,
          createdAt: o.updatedAt,
          updatedAt: o.updatedAt,
        }));
      return send(
        res,
        200,
        paged(rows, afterParam(q.get('after')), limitParam(q, 500), url.pathname),
        headers,
      );
    }
    const answered = await propertyRoute(
      propertyState(auth.scope),
      req.method ?? 'GET',
      rest,
      area!,
      async () => {
        const text = await readBody(req);
        try {
          entry.body = JSON.parse(text) as unknown;
        } catch {
          entry.body = text;
        }
        return text;
      },
    );
    if (answered) return send(res, answered.status, answered.body, headers);
    if (area === 'properties' && rest.length === 1) {
      const type = rest[0] as HsObjectType;
      if (!objects[type]) throw hsError(404, 'OBJECT_NOT_FOUND', `Unknown object type ${type}`);
      const names = new Set<string>(['createdate', 'hs_lastmodifieddate']);
      for (const r of objects[type]) for (const k of Object.keys(r.properties)) names.add(k);
      if (type === 'contacts') for (const k of customProperties.keys()) names.add(k);
      const custom = (name: string) => (type === 'contacts' ? customProperties.get(name) : undefined);
      const stageOptions = pipelines.flatMap((p) =>
        p.stages.map((s) => ({ label: s.label, value: s.id, displayOrder: s.displayOrder, hidden: false })),
      );
      return send(
        res,
        200,
        {
          results: [...names].sort().map((name) => ({
            name,
            label: custom(name)?.label ?? name.replace(/_/g, ' '),
            type:
              custom(name)?.type ??
              (/date$/.test(name) ? 'datetime' : name === 'amount' ? 'number' : 'string'),
            fieldType: custom(name)?.fieldType ?? (name === 'dealstage' ? 'select' : 'text'),
            groupName: custom(name)?.groupName ?? `${type.slice(0, -1)}information`,
            options: name === 'dealstage' ? stageOptions : [],
            hubspotDefined: !custom(name),
          })),
        },
        headers,
      );
    }
    if (area === 'lists' && rest[0] === 'search' && req.method === 'POST') {
      let body: {
        query?: string;
        processingTypes?: string[];
        objectTypeId?: string;
        offset?: number;
        count?: number;
      };
      try {
        body = JSON.parse((await readBody(req)) || '{}') as typeof body;
      } catch {
        throw hsError(400, 'VALIDATION_ERROR', 'Invalid input JSON');
      }
      const count = body.count ?? 20;
      if (!Number.isInteger(count) || count < 1 || count > 500) {
        throw hsError(400, 'VALIDATION_ERROR', 'count must be between 1 and 500');
      }
      const offset = body.offset ?? 0;
      const rows = lists.filter(
        (l) =>
          (!body.query || l.name.toLowerCase().includes(body.query.toLowerCase())) &&
          (!body.processingTypes || body.processingTypes.includes(l.processingType)) &&
          // ListSearchRequest.objectTypeId: only lists of that object (contacts: 0-1).
          (!body.objectTypeId || l.objectTypeId === body.objectTypeId),
      );
      return send(
        res,
        200,
        {
          // PublicObjectListSearchResult. `updatedAt` is "The time the list was last updated" (its
          // definition); members coming and going show in the additional properties every search
          // returns by default: "hs_list_size, hs_last_record_added_at, hs_last_record_removed_at,
          // hs_folder_name, and hs_list_reference_count" (ListSearchRequest.additionalProperties),
          // epoch-millisecond strings as in the spec's example, left out when empty.
          lists: rows.slice(offset, offset + count).map((l) => ({
            listId: l.listId,
            listVersion: 1,
            name: l.name,
            objectTypeId: l.objectTypeId,
            processingType: l.processingType,
            processingStatus: 'COMPLETE',
            additionalProperties: {
              hs_list_size: String(l.members.length),
              hs_list_reference_count: '0',
              ...(l.lastAddedAt ? { hs_last_record_added_at: String(Date.parse(l.lastAddedAt)) } : {}),
              ...(l.lastRemovedAt ? { hs_last_record_removed_at: String(Date.parse(l.lastRemovedAt)) } : {}),
            },
            createdAt: l.createdAt,
            filtersUpdatedAt: l.updatedAt,
            updatedAt: l.updatedAt,
          })),
          hasMore: offset + count < rows.length,
          offset: Math.min(offset + count, rows.length),
          total: rows.length,
        },
        headers,
      );
    }
    if (area === 'lists' && rest.length === 2 && rest[1] === 'memberships' && req.method === 'GET') {
      const list = lists.find((l) => l.listId === rest[0]);
      if (!list) throw hsError(404, 'OBJECT_NOT_FOUND', `List ${rest[0]} does not exist`);
      return send(
        res,
        200,
        paged(list.members, afterParam(q.get('after')), limitParam(q, 250), url.pathname),
        headers,
      );
    }
    if (area === 'lists' && rest.length === 1 && req.method === 'GET') {
      const list = lists.find((l) => l.listId === rest[0]);
      if (!list) throw hsError(404, 'OBJECT_NOT_FOUND', `List ${rest[0]} does not exist`);
      return send(res, 200, {
        list: {
          listId: list.listId,
          name: list.name,
          objectTypeId: list.objectTypeId,
          processingType: list.processingType,
          size: list.members.length,
        },
      });
    }
    throw hsError(404, 'OBJECT_NOT_FOUND', `No route for ${req.method} ${url.pathname}`);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', origin);
    const entry: Logged = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: 0,
    };
    requests.push(entry);
    try {
      if (url.pathname === '/oauth/authorize' && req.method === 'GET') oauth.authorize(url.searchParams, res);
      // The OAuth API of test/vendor-specs/hubspot-sync-* (2026-03). The v1 endpoints (`POST
      // /oauth/v1/token`, `GET /oauth/v1/access-tokens/{token}`, `GET|DELETE
      // /oauth/v1/refresh-tokens/{token}`) are deprecated and sunset on 2027-02-16 (changelog "v1
      // OAuth API Deprecation"; the spec marks the token-info ones deprecated): this fake answers
      // them 404, so an adapter still on them fails its tests.
      else if (url.pathname === '/oauth/2026-03/token' && req.method === 'POST') await oauth.token(req, res);
      else if (url.pathname === '/oauth/2026-03/token/introspect' && req.method === 'POST') {
        await oauth.introspect(req, res);
      } else if (url.pathname === '/oauth/2026-03/token/revoke' && req.method === 'POST') {
        await oauth.revoke(req, res);
      } else if (url.pathname.startsWith('/crm/v3/') || url.pathname.startsWith('/crm/v4/associations/')) {
        if (opts.latencyMs) await new Promise((resolve) => setTimeout(resolve, opts.latencyMs));
        await api(req, url, res, entry);
      } else throw hsError(404, 'OBJECT_NOT_FOUND', `No route for ${req.method} ${url.pathname}`);
    } catch (err) {
      if (err instanceof HttpError) send(res, err.status, err.body);
      else {
        console.error('fake HubSpot failed', err);
        send(res, 500, { status: 'error', message: 'internal error', category: 'INTERNAL_ERROR' });
      }
    } finally {
      entry.status = res.statusCode;
    }
  }

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('fake HubSpot did not get a port');
  origin = `http://127.0.0.1:${address.port}`;
  if (opts.seed) seed(opts.seed);

  return {
    /** HUBSPOT_API_URL (api.hubapi.com) and HUBSPOT_AUTH_URL (app.hubspot.com): the same server. */
    apiUrl: origin,
    authUrl: origin,
    clientId,
    clientSecret,
    hubId,
    requests,
    clearRequests() {
      requests.length = 0;
    },
    objects: (type: HsObjectType) => objects[type],
    pipelines,
    owners,
    lists,
    seed,
    addRecord,
    update,
    archive,
    restore,
    merge,
    /** The record's latest change is not in the search index yet (search leaves it out). */
    lagSearch(type: HsObjectType, id: string) {
      unindexed.add(`${type}:${id}`);
    },
    /** The search index catches up. */
    indexSearch() {
      unindexed.clear();
    },
    addActivity,
    removeActivity,
    objectTypeId: OBJECT_TYPE_ID,
    customProperties,
    propertyGroups,
    /** Associates two records both ways, as a user would (the first company becomes the primary). */
    associate(type: HsObjectType, id: string, toType: HsObjectType, toId: string) {
      const a = findRecord(type, id);
      const b = findRecord(toType, toId);
      if (!a || !b) throw new Error(`fake HubSpot: no ${type} ${id} or ${toType} ${toId}`);
      (a.associations[toType] ??= []).push(toId);
      (b.associations[type] ??= []).push(id);
      if (toType === 'companies') a.primaryCompany ??= toId;
    },
    /** A user makes another associated company the deal's primary one. */
    setPrimaryCompany(dealId: string, companyId: string) {
      const d = findRecord('deals', dealId);
      if (!d?.associations.companies?.includes(companyId)) throw new Error('fake HubSpot: not associated');
      d.primaryCompany = companyId;
      update('deals', dealId, {});
    },
    /** A contact joins a list (by hand, or a dynamic list's filters now match it). */
    addListMember(listId: string, contactId: string) {
      const l = lists.find((x) => x.listId === listId);
      if (!l) throw new Error(`fake HubSpot: no list ${listId}`);
      l.lastAddedAt = tick();
      l.members.push({ recordId: contactId, membershipTimestamp: l.lastAddedAt });
    },
    /** A contact leaves a list. */
    removeListMember(listId: string, contactId: string) {
      const l = lists.find((x) => x.listId === listId);
      if (!l) throw new Error(`fake HubSpot: no list ${listId}`);
      l.members = l.members.filter((m) => m.recordId !== contactId);
      l.lastRemovedAt = tick();
    },
    /** A user renames a list: its definition changes (`updatedAt`). */
    renameList(listId: string, name: string) {
      const l = lists.find((x) => x.listId === listId);
      if (!l) throw new Error(`fake HubSpot: no list ${listId}`);
      l.name = name;
      l.updatedAt = tick();
    },
    /** A super admin deletes a custom contact property: its values go with it. */
    deleteProperty(name: string) {
      customProperties.delete(name);
      for (const r of objects.contacts) Reflect.deleteProperty(r.properties, name);
    },
    /** Requests per 10-second window from now on (HubSpot: 100–190); undefined: unlimited. */
    setBurstLimit(n: number | undefined) {
      opts.burstLimit = n;
    },
    ...oauth.controls,
    /** How many contact batch updates were made. */
    batchUpdates: () => batchUpdates,
    /** The next `n` API calls are answered 429 RATE_LIMIT / TEN_SECONDLY_ROLLING. */
    failWithRateLimit(n: number) {
      rateLimitReplies = n;
    },
    /** The next `n` API calls are answered 502. */
    failWithServerError(n: number) {
      serverErrors = n;
    },
    /** Runs `fn` just before the `n`th API call from now is answered. */
    afterCalls(n: number, fn: () => void) {
      triggers.push({ calls: n, run: fn });
    },
    /** From the `n`th call to `path` on, API calls wait unanswered until `release()` (crash tests). */
    holdAt(path: string, n: number) {
      holdRule = { path, left: n };
    },
    /** How many API calls are waiting on the hold. */
    held: () => held,
    release() {
      gate?.resolve();
      gate = null;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

export type FakeHubSpot = Awaited<ReturnType<typeof startFakeHubSpot>>;

/** A small portal: one pipeline of 6 stages (+ a second), 2 owners, 3 companies, 6 contacts, 5 deals, 2 lists. */
export function smallPortal(): HubSpotSeed {
  return {
    pipelines: [
      {
        id: 'default',
        label: 'Sales Pipeline',
        displayOrder: 0,
        stages: [
          {
            id: 'appointmentscheduled',
            label: 'Appointment Scheduled',
            displayOrder: 0,
            probability: '0.2',
            isClosed: 'false',
          },
          {
            id: 'qualifiedtobuy',
            label: 'Qualified To Buy',
            displayOrder: 1,
            probability: '0.4',
            isClosed: 'false',
          },
          {
            id: 'presentationscheduled',
            label: 'Presentation Scheduled',
            displayOrder: 2,
            probability: '0.6',
            isClosed: 'false',
          },
          {
            id: 'contractsent',
            label: 'Contract Sent',
            displayOrder: 3,
            probability: '0.9',
            isClosed: 'false',
          },
          { id: 'closedwon', label: 'Closed Won', displayOrder: 4, probability: '1.0', isClosed: 'true' },
          { id: 'closedlost', label: 'Closed Lost', displayOrder: 5, probability: '0.0', isClosed: 'true' },
        ],
      },
      {
        id: '7654321',
        label: 'Renewals',
        displayOrder: 1,
        stages: [
          { id: '1001', label: 'Renewal due', displayOrder: 0, probability: '0.5', isClosed: 'false' },
          { id: '1002', label: 'Renewed', displayOrder: 1, probability: '1.0', isClosed: 'true' },
        ],
      },
    ],
    owners: [
      { id: '501', email: 'maya@acme.example', firstName: 'Maya', lastName: 'Lindgren' },
      { id: '502', email: 'theo@acme.example', firstName: 'Theo', lastName: 'Baptiste' },
    ],
    companies: [
      { properties: { name: 'Globex', domain: 'globex.example' }, ownerId: '501' },
      { properties: { name: 'Initech', domain: 'initech.example' }, ownerId: '502' },
      { properties: { name: 'Umbrella', domain: 'umbrella.example' } },
    ],
    contacts: [
      {
        properties: { email: 'ann@globex.example', firstname: 'Ann', lastname: 'Lee', jobtitle: 'CTO' },
        companyIndex: 0,
      },
      {
        properties: { email: 'bo@globex.example', firstname: 'Bo', lastname: 'Ng', jobtitle: 'VP Sales' },
        companyIndex: 0,
      },
      {
        properties: { email: 'cy@initech.example', firstname: 'Cy', lastname: 'Diaz', jobtitle: 'CFO' },
        companyIndex: 1,
      },
      {
        properties: { email: 'di@initech.example', firstname: 'Di', lastname: 'Roe', jobtitle: 'Buyer' },
        companyIndex: 1,
      },
      {
        properties: { email: 'ed@umbrella.example', firstname: 'Ed', lastname: 'Poe', jobtitle: 'CEO' },
        companyIndex: 2,
      },
      { properties: { email: 'fay@gmail.example', firstname: 'Fay', lastname: 'Wu', jobtitle: '' } },
    ],
    deals: [
      {
        properties: {
          dealname: 'Globex platform',
          amount: '48000',
          pipeline: 'default',
          closedate: '2026-03-31T00:00:00Z',
          hubspot_owner_id: '501',
        },
        stages: ['appointmentscheduled', 'qualifiedtobuy', 'contractsent', 'closedwon'],
        companyIndex: 0,
        contactIndexes: [0, 1],
      },
      {
        properties: {
          dealname: 'Initech pilot',
          amount: '12500.5',
          pipeline: 'default',
          closedate: '2026-04-15T00:00:00Z',
          hubspot_owner_id: '502',
        },
        stages: ['appointmentscheduled', 'qualifiedtobuy'],
        companyIndex: 1,
        contactIndexes: [2],
      },
      {
        properties: {
          dealname: 'Umbrella expansion',
          amount: '9000',
          pipeline: 'default',
          closedate: '2026-02-01T00:00:00Z',
          hubspot_owner_id: '501',
        },
        stages: ['appointmentscheduled', 'closedlost'],
        companyIndex: 2,
      },
      {
        properties: {
          dealname: 'Globex renewal',
          amount: '30000',
          pipeline: '7654321',
          closedate: '2026-06-30T00:00:00Z',
          hubspot_owner_id: '501',
        },
        stages: ['1001'],
        companyIndex: 0,
      },
      {
        properties: {
          dealname: 'Inbound lead',
          amount: '',
          pipeline: 'default',
          closedate: '',
          hubspot_owner_id: '',
        },
        stages: ['appointmentscheduled'],
      },
    ],
    lists: [
      { name: 'Webinar attendees', contactIndexes: [0, 2, 4] },
      { name: 'Customers (dynamic)', processingType: 'DYNAMIC', contactIndexes: [0, 1] },
    ],
  };
}
