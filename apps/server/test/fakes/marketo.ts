import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fieldGet, fieldPost, MktoError } from './marketo-fields.ts';
import type { FieldState, MarketoRole, MktoField } from './marketo-fields.ts';

/**
 * A fake Marketo subscription on loopback, as API-NOTES.md §6 describes it: the identity service
 * (`GET|POST /identity/oauth/token?grant_type=client_credentials&client_id&client_secret`, token
 * "<uuid>:<region>", `expires_in` = seconds left, the same token while it is valid, HTTP 401 for
 * bad credentials) and the REST API with its envelope `{requestId, success, result, errors,
 * warnings, moreResult?, nextPageToken?}` — failures are HTTP 200 with `success:false` and codes
 * 600 (token missing), 601 (invalid), 602 (expired), 606 (rate), 615 (concurrency), 610 (not
 * found), 1003/7xx (parameters). Lead DB paging: `batchSize` ≤300 + `nextPageToken`; asset API:
 * `offset` + `maxReturn` ≤200, past the end no `result` and a warning. Leads, static lists and
 * their members; programs. Deleted leads: `GET /rest/v1/activities/pagingtoken.json?sinceDatetime=`
 * gives a token, `GET /rest/v1/activities/deletedleads.json?nextPageToken=` the "Delete Lead"
 * activities (type 37, `leadId`) from then on, a new token each page and `moreResult` (Marketo's REST
 * docs; API-NOTES.md lists the paging token only). Tests expire tokens, revoke the API user, inject
 * 606/615 replies and hold calls unanswered (a server killed mid-sync).
 *
 * Quota and membership changes (Adobe Experience League, Marketo REST API: "Error Codes" — 606 "Max
 * rate limit '100' exceeded with in '20' secs", 607 "Daily quota reached", both inside an HTTP 200;
 * "Rate Limits" — the daily quota resets at 12:00 AM Central time): `dailyQuota` answers 607 once a
 * day's REST calls exceed it. "Add to List" (activity type 24) and "Remove from List" (25) are kept
 * for every membership change and served by `GET /rest/v1/activities.json?activityTypeIds=&
 * nextPageToken=` ("Get Lead Activities": activityTypeIds required, at most 10;
 * primaryAttributeValueId is the list's id); lead field changes ("Change Data Value", 13) by
 * `GET /rest/v1/activities/leadchanges.json?nextPageToken=&fields=` ("Get Lead Changes": fields
 * required; only changes of those fields).
 */

export type MktoLead = {
  id: number;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  title: string | null;
  company: string | null;
  /** "Unsubscribed" (Marketo REST standard field `unsubscribed`, a boolean): the lead's e-mail opt-out. */
  unsubscribed: boolean;
  createdAt: string;
  updatedAt: string;
};
export type MktoList = {
  id: number;
  name: string;
  description: string;
  programName: string | null;
  workspaceName: string;
  folder: { id: number; type: 'Folder' | 'Program' };
  createdAt: string;
  updatedAt: string;
  members: number[];
};

export type MarketoSeed = {
  leads?: Partial<Omit<MktoLead, 'id' | 'createdAt' | 'updatedAt'>>[];
  lists?: { name: string; programName?: string; leadIndexes: number[] }[];
};

export type StartFakeMarketoOptions = {
  seed?: MarketoSeed;
  /** Calls per 20-second window before 606 (Marketo: 100); unlimited when unset. */
  callsPer20s?: number;
  /** REST calls a day (US Central) before 607 "Daily quota reached" (Marketo: 10,000–50,000). */
  dailyQuota?: number;
  /** Token life in seconds (Marketo: 3600). */
  tokenLifeSeconds?: number;
  now?: () => number;
};

type Logged = {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  code?: string;
  body?: unknown;
};

const LEAD_FIELDS = [
  'id',
  'email',
  'firstName',
  'lastName',
  'title',
  'company',
  'unsubscribed',
  'createdAt',
  'updatedAt',
];
const DEFAULT_LEAD_FIELDS = ['id', 'email', 'firstName', 'lastName', 'createdAt', 'updatedAt'];

/** Asset timestamps look like 2017-07-27T01:38:33Z+0000 (API-NOTES §6). */
const assetTime = (iso: string) => `${iso.replace(/\.\d{3}Z$/, 'Z')}+0000`;

export async function startFakeMarketo(opts: StartFakeMarketoOptions = {}) {
  const now = opts.now ?? (() => Date.now());
  const life = opts.tokenLifeSeconds ?? 3600;
  const munchkinId = `${Math.floor(100 + Math.random() * 899)}-ABC-${Math.floor(100 + Math.random() * 899)}`;
  let clientId = randomUUID();
  let clientSecret = randomUUID().replace(/-/g, '');
  let origin = '';
  const leads: MktoLead[] = [];
  /** Custom lead fields, the API role's permissions, and custom values per lead (marketo-fields.ts). */
  const fieldState: FieldState = {
    fields: new Map<string, MktoField>(),
    role: { readWriteLead: true, schemaCustomField: true },
    values: new Map<number, Record<string, string>>(),
    leadExists: (id) => leads.some((l) => l.id === id),
    touch: (id) => {
      const lead = leads.find((l) => l.id === id);
      if (lead) lead.updatedAt = tick();
    },
  };
  const lists: MktoList[] = [];
  const tokens = new Map<string, { expiresAt: number }>();
  let current: string | null = null;
  const requests: Logged[] = [];
  const triggers: { calls: number; run: () => void }[] = [];
  const injected: { code: string; message: string }[] = [];
  /** A hold set by `holdAt`: that call and every later REST call wait unanswered until `release()`. */
  let holdRule: { path: string; left: number } | null = null;
  let gate: { promise: Promise<void>; resolve: () => void } | null = null;
  let held = 0;
  let window = { start: 0, count: 0 };
  let nextLeadId = 1000;
  let nextListId = 1000;
  let clock = now() - 30 * 86_400_000;
  /** Page tokens: an opaque string standing for "offset n of this query". */
  const pageTokens = new Map<string, number>();
  /** "Delete Lead" activities (type 37), and the activity paging tokens: a time and an offset. */
  const deletions: { id: number; leadId: number; activityDate: string }[] = [];
  let nextActivityId = 5000;
  const activityTokens = new Map<string, { since: number; offset: number }>();
  /** "Add to List" (24) / "Remove from List" (25) and "Change Data Value" (13) activities. */
  const memberships: { id: number; leadId: number; listId: number; type: 24 | 25; activityDate: string }[] =
    [];
  const dataChanges: { id: number; leadId: number; field: string; value: unknown; activityDate: string }[] =
    [];
  /** REST calls per US Central day (the quota's day). */
  const usage = new Map<string, number>();
  const centralDay = (t: number) =>
    new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Chicago' }).format(new Date(t));
  const newToken = () => Buffer.from(randomUUID()).toString('base64url').slice(0, 40);

  /**
   * A lead by id through an index of positions, rebuilt when it no longer matches the array (a lead
   * added, deleted or replaced): a list's page of members is then not a scan of every lead per member
   * (the crm-sync bench's lists of 100,000).
   */
  let positions = new Map<number, number>();
  function leadOf(id: number): MktoLead | undefined {
    const at = positions.get(id);
    if (at !== undefined && leads[at]?.id === id) return leads[at];
    positions = new Map(leads.map((l, i) => [l.id, i]));
    const again = positions.get(id);
    return again === undefined ? undefined : leads[again];
  }

  const tick = () => {
    clock = Math.max(clock + 1000, now() - 3_600_000);
    return new Date(clock).toISOString().replace(/\.\d{3}Z$/, 'Z');
  };

  function addLead(fields: Partial<Omit<MktoLead, 'id' | 'createdAt' | 'updatedAt'>>): MktoLead {
    const at = tick();
    const lead: MktoLead = {
      id: ++nextLeadId,
      email: null,
      firstName: null,
      lastName: null,
      title: null,
      company: null,
      unsubscribed: false,
      ...fields,
      createdAt: at,
      updatedAt: at,
    };
    leads.push(lead);
    return lead;
  }
  function updateLead(id: number, changes: Partial<Omit<MktoLead, 'id'>>): MktoLead {
    const lead = leads.find((l) => l.id === id);
    if (!lead) throw new Error(`fake Marketo: no lead ${id}`);
    const at = tick();
    for (const [field, value] of Object.entries(changes)) {
      if (field !== 'updatedAt' && lead[field as keyof MktoLead] !== value)
        dataChanges.push({ id: ++nextActivityId, leadId: id, field, value, activityDate: at });
    }
    Object.assign(lead, changes, { updatedAt: at });
    return lead;
  }
  /** Deletes a lead for good, as Marketo does: gone from the database and its lists; an activity stays. */
  function deleteLead(id: number): void {
    const i = leads.findIndex((l) => l.id === id);
    if (i < 0) throw new Error(`fake Marketo: no lead ${id}`);
    leads.splice(i, 1);
    for (const l of lists) l.members = l.members.filter((m) => m !== id);
    deletions.push({ id: ++nextActivityId, leadId: id, activityDate: tick() });
  }
  function addList(name: string, members: number[], programName: string | null = null): MktoList {
    const at = tick();
    const list: MktoList = {
      id: ++nextListId,
      name,
      description: '',
      programName,
      workspaceName: 'Default',
      folder: { id: programName ? 2001 : 12, type: programName ? 'Program' : 'Folder' },
      createdAt: at,
      updatedAt: at,
      members: [...members],
    };
    lists.push(list);
    for (const leadId of members)
      memberships.push({ id: ++nextActivityId, leadId, listId: list.id, type: 24, activityDate: at });
    return list;
  }
  /** Adds or removes leads (as a person or a smart campaign would): the list's activities record it. */
  function changeMembers(listId: number, add: number[], remove: number[] = []) {
    const list = lists.find((l) => l.id === listId);
    if (!list) throw new Error(`fake Marketo: no list ${listId}`);
    const at = tick();
    for (const leadId of add.filter((id) => !list.members.includes(id))) {
      list.members.push(leadId);
      memberships.push({ id: ++nextActivityId, leadId, listId, type: 24, activityDate: at });
    }
    for (const leadId of remove.filter((id) => list.members.includes(id))) {
      list.members = list.members.filter((m) => m !== leadId);
      memberships.push({ id: ++nextActivityId, leadId, listId, type: 25, activityDate: at });
    }
  }
  function seed(s: MarketoSeed) {
    const added = (s.leads ?? []).map(addLead);
    for (const l of s.lists ?? []) {
      addList(
        l.name,
        l.leadIndexes.map((i) => added[i]!.id),
        l.programName ?? null,
      );
    }
  }

  function send(res: ServerResponse, status: number, body: unknown) {
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' });
    res.end(JSON.stringify(body));
  }
  const envelope = (result: unknown[], extra: Record<string, unknown> = {}) => ({
    requestId: `${randomUUID().slice(0, 4)}#${Date.now().toString(16)}`,
    result,
    success: true,
    ...extra,
  });

  async function readBody(req: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  async function identity(req: IncomingMessage, url: URL, res: ServerResponse) {
    const q = new URLSearchParams(url.search);
    if (req.method === 'POST') {
      for (const [k, v] of new URLSearchParams(await readBody(req))) q.set(k, v);
    }
    if (q.get('grant_type') !== 'client_credentials') {
      return send(res, 400, { error: 'invalid_request', error_description: 'Unsupported grant type' });
    }
    if (q.get('client_id') !== clientId || q.get('client_secret') !== clientSecret) {
      return send(res, 401, { error: 'unauthorized', error_description: 'Bad client credentials' });
    }
    const t = now();
    const valid = current ? tokens.get(current) : undefined;
    if (!current || !valid || valid.expiresAt <= t) {
      current = `${randomUUID()}:ab`;
      tokens.set(current, { expiresAt: t + life * 1000 });
    }
    const left = Math.max(1, Math.round((tokens.get(current)!.expiresAt - t) / 1000));
    return send(res, 200, {
      access_token: current,
      token_type: 'bearer',
      expires_in: left,
      scope: 'api-user@acme.example',
    });
  }

  function checkToken(req: IncomingMessage, url: URL) {
    if (url.searchParams.has('access_token')) {
      // Removed in 2026 (API-NOTES §6): the query parameter no longer authenticates.
      throw new MktoError('600', 'Access token missing');
    }
    const t = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!t) throw new MktoError('600', 'Access token missing');
    const known = tokens.get(t);
    if (!known) throw new MktoError('601', 'Access token invalid');
    if (known.expiresAt <= now()) throw new MktoError('602', 'Access token expired');
  }

  function limits() {
    const inj = injected.shift();
    if (inj) throw new MktoError(inj.code, inj.message);
    const day = centralDay(now());
    const used = (usage.get(day) ?? 0) + 1;
    usage.set(day, used);
    if (opts.dailyQuota !== undefined && used > opts.dailyQuota) {
      throw new MktoError('607', 'Daily quota reached');
    }
    if (opts.callsPer20s === undefined) return;
    const t = now();
    if (t - window.start >= 20_000) window = { start: t, count: 0 };
    window.count += 1;
    if (window.count > opts.callsPer20s) {
      throw new MktoError('606', `Max rate limit '${opts.callsPer20s}' exceeded with in '20' secs`);
    }
  }

  function batchSize(q: URLSearchParams): number {
    const raw = q.get('batchSize');
    if (raw === null) return 300;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > 300) throw new MktoError('1003', 'Invalid batchSize');
    return n;
  }
  function start(q: URLSearchParams): number {
    const t = q.get('nextPageToken');
    if (t === null) return 0;
    const at = pageTokens.get(t);
    if (at === undefined) throw new MktoError('1003', 'Invalid next page token');
    return at;
  }
  /** `shape` makes only the page's rows (a list of 100,000 is not picked whole for each page). */
  function leadDbPage<T, R = T>(rows: T[], q: URLSearchParams, shape?: (row: T) => R) {
    const from = start(q);
    const size = batchSize(q);
    const slice = shape ? rows.slice(from, from + size).map(shape) : rows.slice(from, from + size);
    const more = from + size < rows.length;
    let token: string | undefined;
    if (more) {
      token = Buffer.from(randomUUID()).toString('base64url').slice(0, 40);
      pageTokens.set(token, from + size);
    }
    return envelope(slice, { moreResult: more, ...(token ? { nextPageToken: token } : {}) });
  }
  function leadFields(q: URLSearchParams): string[] {
    const fields =
      q
        .get('fields')
        ?.split(',')
        .map((f) => f.trim())
        .filter(Boolean) ?? DEFAULT_LEAD_FIELDS;
    const bad = fields.find((f) => !LEAD_FIELDS.includes(f));
    if (bad) throw new MktoError('1006', `Field '${bad}' not found`);
    return fields.includes('id') ? fields : ['id', ...fields];
  }
  const pick = (lead: MktoLead, fields: string[]) =>
    Object.fromEntries(fields.map((f) => [f, lead[f as keyof MktoLead] ?? null]));

  function rest(url: URL): unknown {
    const q = url.searchParams;
    const p = url.pathname;
    if (p === '/rest/v1/leads.json') {
      const type = q.get('filterType');
      const values = (q.get('filterValues') ?? '').split(',').filter(Boolean);
      if (!type || values.length === 0)
        throw new MktoError('1003', 'filterType and filterValues are required');
      if (values.length > 300) throw new MktoError('1003', 'Too many filter values');
      if (!['id', 'email'].includes(type)) throw new MktoError('1003', `Invalid filterType '${type}'`);
      const fields = leadFields(q);
      const rows = leads.filter((l) => values.includes(String(type === 'id' ? l.id : l.email)));
      return leadDbPage(
        rows.map((l) => pick(l, fields)),
        q,
      );
    }
    if (p === '/rest/v1/lists.json') {
      const ids = q.get('id')?.split(',') ?? null;
      const names = q.get('name')?.split(',') ?? null;
      const rows = lists
        .filter((l) => (!ids || ids.includes(String(l.id))) && (!names || names.includes(l.name)))
        .map((l) => ({
          id: l.id,
          name: l.name,
          description: l.description,
          programName: l.programName,
          workspaceName: l.workspaceName,
          createdAt: l.createdAt,
          updatedAt: l.updatedAt,
        }));
      return leadDbPage(rows, q);
    }
    const members = /^\/rest\/v1\/lists\/(\d+)\/leads\.json$/.exec(p);
    if (members) {
      const list = lists.find((l) => l.id === Number(members[1]));
      if (!list) throw new MktoError('1013', 'Static list not found');
      const fields = leadFields(q);
      const present = list.members.flatMap((id) => leadOf(id) ?? []);
      return leadDbPage(present, q, (lead) => pick(lead, fields));
    }
    if (p === '/rest/asset/v1/staticLists.json') {
      const offset = Number(q.get('offset') ?? 0);
      const maxReturn = Number(q.get('maxReturn') ?? 20);
      if (!Number.isInteger(maxReturn) || maxReturn < 1 || maxReturn > 200) {
        throw new MktoError('701', 'maxReturn cannot be greater than 200');
      }
      const since = q.get('earliestUpdatedAt');
      const rows = lists
        .filter((l) => !since || Date.parse(l.updatedAt) >= Date.parse(since))
        .slice(offset, offset + maxReturn)
        .map((l) => ({
          id: l.id,
          name: l.name,
          description: l.description,
          createdAt: assetTime(l.createdAt),
          updatedAt: assetTime(l.updatedAt),
          folder: l.folder,
          workspace: l.workspaceName,
          computedUrl: `${origin}/#SL${l.id}A1`,
        }));
      if (rows.length === 0) {
        return {
          requestId: envelope([]).requestId,
          success: true,
          warnings: ['No assets found for the given search criteria.'],
        };
      }
      return envelope(rows);
    }
    const one = /^\/rest\/asset\/v1\/staticList\/(\d+)\.json$/.exec(p);
    if (one) {
      const l = lists.find((x) => x.id === Number(one[1]));
      if (!l) throw new MktoError('610', 'Requested resource not found');
      return envelope([
        { id: l.id, name: l.name, createdAt: assetTime(l.createdAt), updatedAt: assetTime(l.updatedAt) },
      ]);
    }
    if (p === '/rest/v1/activities/pagingtoken.json') {
      const since = Date.parse(q.get('sinceDatetime') ?? '');
      if (!Number.isFinite(since)) throw new MktoError('1003', 'sinceDatetime is required');
      const token = newToken();
      activityTokens.set(token, { since, offset: 0 });
      return { requestId: envelope([]).requestId, success: true, nextPageToken: token };
    }
    if (p === '/rest/v1/activities/deletedleads.json') {
      // Always answers a token to carry on from (later, for new activities); moreResult says whether
      // there is more now.
      const at = activityTokens.get(q.get('nextPageToken') ?? '');
      if (!at) throw new MktoError('1003', 'Invalid next page token');
      const size = batchSize(q);
      const rows = deletions.filter((d) => Date.parse(d.activityDate) >= at.since);
      const slice = rows.slice(at.offset, at.offset + size);
      const token = newToken();
      activityTokens.set(token, { since: at.since, offset: at.offset + slice.length });
      return envelope(
        slice.map((d) => ({
          id: d.id,
          marketoGUID: String(d.id),
          leadId: d.leadId,
          activityDate: d.activityDate,
          activityTypeId: 37,
          primaryAttributeValueId: d.leadId,
          attributes: [],
        })),
        { moreResult: at.offset + size < rows.length, nextPageToken: token },
      );
    }
    if (p === '/rest/v1/activities.json' || p === '/rest/v1/activities/leadchanges.json') {
      const at = activityTokens.get(q.get('nextPageToken') ?? '');
      if (!at) throw new MktoError('1003', 'Invalid next page token');
      let rows: Record<string, unknown>[];
      if (p === '/rest/v1/activities.json') {
        const types = (q.get('activityTypeIds') ?? '').split(',').filter(Boolean).map(Number);
        if (types.length === 0 || types.length > 10)
          throw new MktoError('1003', 'activityTypeIds is required (at most 10)');
        rows = memberships
          .filter((m) => types.includes(m.type) && Date.parse(m.activityDate) >= at.since)
          .map((m) => ({
            id: m.id,
            marketoGUID: String(m.id),
            leadId: m.leadId,
            activityDate: m.activityDate,
            activityTypeId: m.type,
            primaryAttributeValueId: m.listId,
            primaryAttributeValue: lists.find((l) => l.id === m.listId)?.name ?? '',
            attributes: [],
          }));
      } else {
        const fields = (q.get('fields') ?? '').split(',').filter(Boolean);
        if (fields.length === 0) throw new MktoError('1003', 'fields is required');
        rows = dataChanges
          .filter((c) => fields.includes(c.field) && Date.parse(c.activityDate) >= at.since)
          .map((c) => ({
            id: c.id,
            marketoGUID: String(c.id),
            leadId: c.leadId,
            activityDate: c.activityDate,
            activityTypeId: 13,
            fields: [{ id: 0, name: c.field, newValue: c.value, oldValue: null }],
            attributes: [],
          }));
      }
      const size = batchSize(q);
      const slice = rows.slice(at.offset, at.offset + size);
      const token = newToken();
      activityTokens.set(token, { since: at.since, offset: at.offset + slice.length });
      return envelope(slice, { moreResult: at.offset + size < rows.length, nextPageToken: token });
    }
    if (p === '/rest/v1/stats/usage.json') {
      return envelope([
        { date: new Date(now()).toISOString().slice(0, 10), total: requests.length, users: [] },
      ]);
    }
    throw new MktoError('610', 'Requested resource not found');
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
      if (url.pathname === '/identity/oauth/token') return await identity(req, url, res);
      if (!url.pathname.startsWith('/rest/')) return send(res, 404, { error: 'not found' });
      let raw = '';
      const isJson = (req.headers['content-type'] ?? '').includes('application/json');
      if (req.method === 'POST') {
        raw = await readBody(req);
        if (!isJson && new URLSearchParams(raw).get('_method') !== 'GET') {
          throw new MktoError('610', 'Requested resource not found');
        }
      }
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
      checkToken(req, url);
      limits();
      if (req.method === 'POST' && isJson) {
        entry.body = JSON.parse(raw || 'null') as unknown;
        const rows = fieldPost(fieldState, url.pathname, raw);
        if (!rows) throw new MktoError('610', 'Requested resource not found');
        return send(res, 200, envelope(rows));
      }
      const rows = fieldGet(fieldState, url.pathname);
      send(res, 200, rows ? envelope(rows) : rest(url));
    } catch (err) {
      if (err instanceof MktoError) {
        entry.code = err.code;
        send(res, 200, {
          requestId: envelope([]).requestId,
          success: false,
          errors: [{ code: err.code, message: err.message }],
        });
      } else {
        console.error('fake Marketo failed', err);
        send(res, 500, { error: 'internal error' });
      }
    } finally {
      entry.status = res.statusCode;
    }
  }

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('fake Marketo did not get a port');
  origin = `http://127.0.0.1:${address.port}`;
  if (opts.seed) seed(opts.seed);

  return {
    /** The subscription's REST base URL as the admin screen shows it (…/rest); identity is beside it. */
    restUrl: `${origin}/rest`,
    identityUrl: `${origin}/identity`,
    origin,
    munchkinId,
    get clientId() {
      return clientId;
    },
    get clientSecret() {
      return clientSecret;
    },
    requests,
    clearRequests() {
      requests.length = 0;
    },
    leads,
    lists,
    seed,
    addLead,
    updateLead,
    deleteLead,
    addList,
    changeMembers,
    /** REST calls counted against today's quota (US Central day). */
    usedToday: () => usage.get(centralDay(now())) ?? 0,
    /** The current token expires (next calls: 602); a new identity call gets a new one. */
    expireTokens() {
      for (const t of tokens.values()) t.expiresAt = 0;
    },
    /** The API user was deleted or its role revoked: tokens are invalid (601), the credentials refused (401). */
    revokeAccess() {
      tokens.clear();
      current = null;
      clientId = randomUUID();
      clientSecret = randomUUID();
    },
    /** The next `n` REST calls answer 606 "Max rate limit exceeded". */
    failWithRateLimit(n: number) {
      for (let i = 0; i < n; i++)
        injected.push({ code: '606', message: "Max rate limit '100' exceeded with in '20' secs" });
    },
    /** Custom lead fields by REST name (an admin's Field Management). */
    leadFields: fieldState.fields,
    /** The custom field values of a lead. */
    valuesOf: (id: number) => fieldState.values.get(id) ?? {},
    /** The API role's permissions from now on. */
    setRole(role: Partial<MarketoRole>) {
      Object.assign(fieldState.role, role);
    },
    /** The next `n` REST calls answer 607 "Daily quota reached". */
    failWithDailyQuota(n: number) {
      for (let i = 0; i < n; i++) injected.push({ code: '607', message: 'Daily quota reached' });
    },
    /** The next `n` REST calls answer 615 "Concurrent access limit reached". */
    failWithConcurrency(n: number) {
      for (let i = 0; i < n; i++) injected.push({ code: '615', message: 'Concurrent access limit reached' });
    },
    /** Runs `fn` just before the `n`th REST call from now is answered. */
    afterCalls(n: number, fn: () => void) {
      triggers.push({ calls: n, run: fn });
    },
    /** From the `n`th call to `path` on, REST calls wait unanswered until `release()` (crash tests). */
    holdAt(path: string, n: number) {
      holdRule = { path, left: n };
    },
    /** How many REST calls are waiting on the hold. */
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

export type FakeMarketo = Awaited<ReturnType<typeof startFakeMarketo>>;

/** A small subscription: 8 leads and 3 static lists (one inside a program). */
export function smallSubscription(): MarketoSeed {
  const people = [
    ['ann@globex.example', 'Ann', 'Lee', 'CTO', 'Globex'],
    ['bo@globex.example', 'Bo', 'Ng', 'VP Sales', 'Globex'],
    ['cy@initech.example', 'Cy', 'Diaz', 'CFO', 'Initech'],
    ['di@initech.example', 'Di', 'Roe', 'Buyer', 'Initech'],
    ['ed@umbrella.example', 'Ed', 'Poe', 'CEO', 'Umbrella'],
    ['fay@gmail.example', 'Fay', 'Wu', null, null],
    ['gus@hooli.example', 'Gus', 'Ito', 'Engineer', 'Hooli'],
    [null, 'Hal', 'Nix', null, 'Hooli'],
  ] as const;
  return {
    leads: people.map(([email, firstName, lastName, title, company]) => ({
      email,
      firstName,
      lastName,
      title,
      company,
    })),
    lists: [
      { name: 'Webinar — March', programName: 'Webinar March 2026', leadIndexes: [0, 2, 4, 6] },
      { name: 'Newsletter', leadIndexes: [0, 1, 2, 3, 4, 5, 6, 7] },
      { name: 'Empty list', leadIndexes: [] },
    ],
  };
}
