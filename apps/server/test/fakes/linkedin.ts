import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { createLinkedInCampaigns } from './linkedin-campaigns.ts';

/**
 * A strict fake of LinkedIn's Marketing API on loopback, for the ad-network adapter. Each rule names
 * its source (learn.microsoft.com/linkedin unless said otherwise); where LinkedIn is loose, the fake
 * is strict so an adapter mistake fails a test rather than a customer's push.
 *
 * - OAuth ("Authorization Code Flow"): `GET /oauth/v2/authorization` (response_type=code, client_id,
 *   redirect_uri, state, space-separated scope) redirects back with `code` and `state`;
 *   `POST /oauth/v2/accessToken` (form) answers `{access_token, expires_in, refresh_token,
 *   refresh_token_expires_in, scope}`; bad codes and refresh tokens are 400 `invalid_grant`.
 *   "Programmatic Refresh Tokens": access tokens 60 days, refresh tokens 365 days from the first
 *   consent, not extended by a refresh. `POST /oauth/v2/revoke` (client_id, client_secret, token).
 * - Versioning ("LinkedIn Marketing API Versioning"): every `/rest` call needs `LinkedIn-Version:
 *   YYYYMM` (missing: 400 VERSION_MISSING; not active: 426 NONEXISTENT_VERSION) and
 *   `X-Restli-Protocol-Version: 2.0.0` ("DMP Segments": "require the header").
 * - Errors ("Error Handling"): `{status, serviceErrorCode, code, message}`. 401 for a missing,
 *   expired (65602) or revoked (65601) token; 403 ACCESS_DENIED for a scope the token lacks
 *   (each endpoint's "Permissions" table).
 * - Paging ("Pagination"): finders take `start` and `count` and answer `paging: {start, count,
 *   total}`; the fake caps `count` at `maxPageSize` so an adapter that reads one page only fails.
 * - Ad accounts: `adAccountUsers?q=authenticatedUser` (role per account) and `adAccounts/{id}`
 *   ("Account Access Controls", "Ad Accounts"). Pages: `organizationAcls?q=roleAssignee&role=…&state=…`
 *   and `organizations/{id}` ("Organization Access Control by Role", "Organization Lookup API").
 * - DMP segments ("DMP Segments"): `POST /rest/dmpSegments` {name, account, accessPolicy, type,
 *   sourcePlatform, destinations:[{destination: LINKEDIN}]} → 201, empty body, id in `x-restli-id`.
 *   Audiences only in accounts where the member is not a VIEWER ("DMP Segment Users"). `GET
 *   dmpSegments/{id}` gives each destination's status and `audienceSize` ("DMP Segment
 *   Destinations"). Rest.li PARTIAL_UPDATE `{patch: {$set}}` renames. A field outside the schema is
 *   refused (422), as Rest.li validates bodies.
 * - Users ("DMP Segment Users"; LinkedIn's Postman collection, "Stream user data"): `POST
 *   dmpSegments/{id}/users` with `X-RestLi-Method: BATCH_CREATE`, `{elements: [{action: ADD|REMOVE,
 *   userIds: [{idType: SHA256_EMAIL, idValue}]}]}` → `{elements: [{status: 201}, …]}`. Not before
 *   5 s after the segment was created (`settleMs`). Values must be SHA-256 hex digests: anything else
 *   is refused (LinkedIn would not match it; Rally must never send one). At most `BATCH_LIMIT` per call.
 *   Over the per-minute limit: 429 with no Retry-After ("Rate Limits").
 * - Organisations not administered ("Organization Lookup API"): `organizationsLookup?ids=List(…)`, a
 *   BATCH_GET answering `{results, statuses, errors}`.
 * - Campaigns, images, posts, creatives and analytics: test/fakes/linkedin-campaigns.ts. A segment's
 *   LINKEDIN destination names its ad segment (`destinationSegmentId`, "DMP Segment Destinations"),
 *   which campaign targeting uses.
 */

export const LINKEDIN_VERSION = '202606';
/** The scopes the fake knows (Marketing API permissions pages); the consent grants what is asked. */
const KNOWN_SCOPES = new Set([
  'r_basicprofile',
  'r_ads',
  'rw_ads',
  'rw_dmp_segments',
  'r_organization_admin',
  'rw_organization_admin',
  'r_ads_reporting',
  'w_organization_social',
]);
const SHA256 = /^[0-9a-f]{64}$/;
/** The DMP segment fields a create or update may set ("DMP Segments" schema). */
const SEGMENT_FIELDS = new Set([
  'name',
  'account',
  'accessPolicy',
  'type',
  'sourcePlatform',
  'sourceSegmentId',
  'destinations',
]);
/** Users per BATCH_CREATE this fake accepts (see docs/integrations.md on the figure). */
export const BATCH_LIMIT = 5_000;

export type LinkedInSegment = {
  id: string;
  account: string;
  name: string;
  createdAt: number;
  members: Set<string>;
};

/** An organisation as "Organization Lookup API" describes it (the fields Rally reads). */
export type FakeLinkedInOrganization = {
  id: number;
  localizedName: string;
  vanityName: string;
  localizedWebsite?: string;
};
/**
 * organizationsLookup ids per call. Not LinkedIn's figure (its page gives none): Rally's batch,
 * enforced so the adapter keeps to the batch it declares.
 */
export const LOOKUP_LIMIT = 50;

export type StartFakeLinkedInOptions = {
  version?: string;
  clientId?: string;
  clientSecret?: string;
  /** Share of members "found on LinkedIn" for audienceSize (default 1). */
  matchRate?: number;
  /** How long after creation a segment refuses users (LinkedIn: 5 s). */
  settleMs?: number;
  /** The largest `count` a finder honours. */
  maxPageSize?: number;
  /** Whether the app is approved for programmatic refresh tokens (default true). */
  refreshTokens?: boolean;
};

type Refusal = { status: number; body: Record<string, unknown> };
const refuse = (status: number, message: string, extra: Record<string, unknown> = {}): Refusal => ({
  status,
  body: { status, message, ...extra },
});

export async function startFakeLinkedIn(opts: StartFakeLinkedInOptions = {}) {
  const version = opts.version ?? LINKEDIN_VERSION;
  const clientId = opts.clientId ?? 'linkedin-client-id';
  const clientSecret = opts.clientSecret ?? 'linkedin-client-secret';
  const settleMs = opts.settleMs ?? 5_000;
  const maxPage = opts.maxPageSize ?? 100;
  const codes = new Map<string, { redirectUri: string; scopes: string[] }>();
  type Token = { expires: number; scopes: string[]; refresh: string | null; revoked: boolean };
  const tokens = new Map<string, Token>();
  const refreshes = new Map<string, { expires: number; scopes: string[]; revoked: boolean }>();
  const segments = new Map<string, LinkedInSegment>();
  const person = { id: 'aBcD3fGh', localizedFirstName: 'Lena', localizedLastName: 'Marketer' };
  const roles = [
    { account: 'urn:li:sponsoredAccount:5001', role: 'ACCOUNT_MANAGER' },
    { account: 'urn:li:sponsoredAccount:5002', role: 'VIEWER' },
    { account: 'urn:li:sponsoredAccount:5003', role: 'CAMPAIGN_MANAGER' },
  ];
  const accounts = new Map([
    ['5001', { id: 5001, name: 'Acme LinkedIn Ads', currency: 'USD', status: 'ACTIVE', type: 'BUSINESS' }],
    ['5002', { id: 5002, name: 'Acme Agency View', currency: 'USD', status: 'ACTIVE', type: 'BUSINESS' }],
    ['5003', { id: 5003, name: 'Acme Old Account', currency: 'EUR', status: 'CANCELED', type: 'BUSINESS' }],
  ]);
  const acls = [
    { organization: 'urn:li:organization:7001', role: 'ADMINISTRATOR', state: 'APPROVED' },
    { organization: 'urn:li:organization:7002', role: 'ANALYST', state: 'APPROVED' },
  ];
  /** Organisations LinkedIn knows: the client's pages and, for organizationsLookup, any company. */
  const orgs = new Map<string, FakeLinkedInOrganization>([
    [
      '7001',
      { id: 7001, localizedName: 'Acme Corp', vanityName: 'acme', localizedWebsite: 'https://www.acme.test' },
    ],
    ['7002', { id: 7002, localizedName: 'Acme Labs', vanityName: 'acme-labs' }],
  ]);
  let nextSegment = 880000;
  /** A DMP segment's ad segment: a different number, so targeting by the DMP id fails. */
  const adSegmentOf = (segmentId: string) => `urn:li:adSegment:${Number(segmentId) + 4_000_000}`;
  let baseUrl = '';
  const campaigns = createLinkedInCampaigns({
    baseUrl: () => baseUrl,
    roleOn: (accountUrn) => roles.find((r) => r.account === accountUrn)?.role,
    currencyOf: (id) => accounts.get(id)?.currency,
    adminOf: () =>
      acls.filter((a) => a.role === 'ADMINISTRATOR' && a.state === 'APPROVED').map((a) => a.organization),
    adSegmentAccount: (urn) => [...segments.values()].find((s) => adSegmentOf(s.id) === urn)?.account,
    scopes: (t) => (t as Token).scopes,
  });
  let throttled = 0;
  let failing = 0;
  let expireAfterUsers: number | null = null;
  /** How many times each hash was added (a member sent twice shows 2). */
  const addCounts = new Map<string, number>();
  /** Every request: method, path (without query), the users it carried. */
  const requests: { method: string; path: string; members: number }[] = [];

  function mint(scopes: string[], refresh: string | null, ttlSeconds = 60 * 24 * 3600) {
    const access = `AQV${randomBytes(18).toString('hex')}`;
    tokens.set(access, { expires: Date.now() + ttlSeconds * 1000, scopes, refresh, revoked: false });
    return access;
  }

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    const text = body === null ? '' : JSON.stringify(body);
    res.writeHead(status, { ...(text ? { 'content-type': 'application/json' } : {}), ...headers });
    res.end(text);
  }

  async function readBody(req: IncomingMessage): Promise<{ text: string; json: () => unknown }> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return { text, json: () => (text ? JSON.parse(text) : {}) as unknown };
  }

  function bearer(req: IncomingMessage): Token {
    const header = req.headers.authorization ?? '';
    const t = header.startsWith('Bearer ') ? tokens.get(header.slice(7)) : undefined;
    if (!t)
      throw refuse(401, 'Invalid access token', { serviceErrorCode: 65600, code: 'INVALID_ACCESS_TOKEN' });
    if (t.revoked)
      throw refuse(401, 'The token used in the request has been revoked by the user', {
        serviceErrorCode: 65601,
        code: 'REVOKED_ACCESS_TOKEN',
      });
    if (t.expires < Date.now())
      throw refuse(401, 'The token used in the request has expired', {
        serviceErrorCode: 65602,
        code: 'EXPIRED_ACCESS_TOKEN',
      });
    return t;
  }

  function need(t: Token, method: string, path: string, ...any: string[]) {
    if (!any.some((s) => t.scopes.includes(s)))
      throw refuse(403, `Not enough permissions to access: ${method} ${path}`, {
        serviceErrorCode: 100,
        code: 'ACCESS_DENIED',
      });
  }

  function page<T>(q: URLSearchParams, all: T[]) {
    const start = Math.max(0, Number(q.get('start') ?? 0) || 0);
    const count = Math.min(maxPage, Math.max(1, Number(q.get('count') ?? 10) || 10));
    return {
      elements: all.slice(start, start + count),
      paging: { start, count, total: all.length, links: [] },
    };
  }

  async function oauthRoute(req: IncomingMessage, res: ServerResponse, path: string, q: URLSearchParams) {
    requests.push({ method: req.method ?? 'GET', path, members: 0 });
    if (path === '/oauth/v2/authorization' && req.method === 'GET') {
      if (q.get('response_type') !== 'code' || q.get('client_id') !== clientId)
        return send(res, 400, { error: 'invalid_request', error_description: 'Unknown client_id' });
      const scopes = (q.get('scope') ?? '').split(' ').filter(Boolean);
      const back = new URL(q.get('redirect_uri') ?? '');
      back.searchParams.set('state', q.get('state') ?? '');
      const unknown = scopes.find((s) => !KNOWN_SCOPES.has(s));
      if (unknown || !scopes.length) {
        back.searchParams.set('error', 'invalid_scope');
        back.searchParams.set('error_description', `Scope "${unknown ?? ''}" is not authorized`);
      } else {
        const code = randomBytes(12).toString('hex');
        codes.set(code, { redirectUri: q.get('redirect_uri') ?? '', scopes });
        back.searchParams.set('code', code);
      }
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (req.method !== 'POST') return send(res, 405, { error: 'invalid_request' });
    const form = new URLSearchParams((await readBody(req)).text);
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret)
      return send(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed' });
    if (path === '/oauth/v2/revoke') {
      const t = tokens.get(form.get('token') ?? '');
      if (t) {
        t.revoked = true;
        const r = t.refresh ? refreshes.get(t.refresh) : undefined;
        if (r) r.revoked = true;
      }
      return send(res, 200, null);
    }
    if (path !== '/oauth/v2/accessToken') return send(res, 404, { error: 'not_found' });
    const grant = form.get('grant_type');
    const invalid = () =>
      send(res, 400, {
        error: 'invalid_grant',
        error_description: 'The provided authorization grant or refresh token is invalid, expired or revoked',
      });
    if (grant === 'authorization_code') {
      const code = codes.get(form.get('code') ?? '');
      if (!code || code.redirectUri !== form.get('redirect_uri')) return invalid();
      codes.delete(form.get('code') ?? '');
      const refresh = opts.refreshTokens === false ? null : `AQX${randomBytes(18).toString('hex')}`;
      if (refresh)
        refreshes.set(refresh, {
          expires: Date.now() + 365 * 24 * 3600_000,
          scopes: code.scopes,
          revoked: false,
        });
      return send(res, 200, {
        access_token: mint(code.scopes, refresh),
        expires_in: 60 * 24 * 3600,
        ...(refresh ? { refresh_token: refresh, refresh_token_expires_in: 365 * 24 * 3600 } : {}),
        scope: code.scopes.join(','),
      });
    }
    if (grant === 'refresh_token') {
      const key = form.get('refresh_token') ?? '';
      const r = refreshes.get(key);
      if (!r || r.revoked || r.expires < Date.now()) return invalid();
      // The refresh token keeps its first expiry ("Programmatic Refresh Tokens").
      return send(res, 200, {
        access_token: mint(r.scopes, key),
        expires_in: 60 * 24 * 3600,
        refresh_token: key,
        refresh_token_expires_in: Math.floor((r.expires - Date.now()) / 1000),
        scope: r.scopes.join(','),
      });
    }
    return send(res, 400, { error: 'unsupported_grant_type' });
  }

  function users(body: unknown): { action: 'ADD' | 'REMOVE'; hash: string }[] {
    const elements = (body as { elements?: unknown }).elements;
    if (!Array.isArray(elements) || elements.length === 0)
      throw refuse(400, 'elements must be a non-empty array', { code: 'INVALID_PARAMS' });
    if (elements.length > BATCH_LIMIT)
      throw refuse(400, `at most ${BATCH_LIMIT} elements may be sent in one batch`, {
        code: 'INVALID_PARAMS',
      });
    return elements.map((e: { action?: unknown; userIds?: { idType?: unknown; idValue?: unknown }[] }, i) => {
      if (e.action !== 'ADD' && e.action !== 'REMOVE')
        throw refuse(400, `elements[${i}].action must be ADD or REMOVE`, { code: 'INVALID_PARAMS' });
      const id = Array.isArray(e.userIds) && e.userIds.length === 1 ? e.userIds[0] : null;
      if (id?.idType !== 'SHA256_EMAIL')
        throw refuse(400, `elements[${i}].userIds must hold one SHA256_EMAIL id`, { code: 'INVALID_PARAMS' });
      if (typeof id.idValue !== 'string' || !SHA256.test(id.idValue))
        throw refuse(400, `elements[${i}] SHA256_EMAIL idValue must be a SHA-256 hex digest`, {
          code: 'INVALID_PARAMS',
        });
      return { action: e.action, hash: id.idValue };
    });
  }

  async function restRoute(req: IncomingMessage, res: ServerResponse, path: string, q: URLSearchParams) {
    const method = req.method ?? 'GET';
    const v = req.headers['linkedin-version'];
    if (!v)
      throw refuse(
        400,
        'A version must be present. Please specify a version by adding the LinkedIn-Version header.',
        {
          code: 'VERSION_MISSING',
        },
      );
    if (v !== version)
      throw refuse(426, `Requested version ${String(v)} is not active`, { code: 'NONEXISTENT_VERSION' });
    if (req.headers['x-restli-protocol-version'] !== '2.0.0')
      throw refuse(400, 'X-Restli-Protocol-Version: 2.0.0 is required', { code: 'ILLEGAL_ARGUMENT' });
    const t = bearer(req);
    const body = method === 'GET' ? {} : (await readBody(req)).json();
    const entry = { method, path, members: 0 };
    requests.push(entry);
    const rel = path.slice('/rest'.length);
    const reply = campaigns.route(method, rel, q, (req.url ?? '').split('?')[1] ?? '', body, req.headers, t);
    if (reply) return send(res, reply.status, reply.body, reply.headers);

    if (rel === '/me' && method === 'GET') {
      need(t, method, rel, 'r_basicprofile');
      return send(res, 200, person);
    }
    if (rel === '/adAccountUsers' && method === 'GET') {
      need(t, method, rel, 'r_ads', 'rw_ads');
      if (q.get('q') !== 'authenticatedUser')
        throw refuse(400, 'Unknown finder', { code: 'ILLEGAL_ARGUMENT' });
      return send(
        res,
        200,
        page(
          q,
          roles.map((r) => ({ ...r, user: `urn:li:person:${person.id}` })),
        ),
      );
    }
    const account = /^\/adAccounts\/(\d+)$/.exec(rel);
    if (account && method === 'GET') {
      need(t, method, rel, 'r_ads', 'rw_ads');
      const a = accounts.get(account[1] ?? '');
      if (!a || !roles.some((r) => r.account.endsWith(`:${a.id}`))) throw refuse(404, 'Not Found');
      return send(res, 200, a);
    }
    if (rel === '/organizationAcls' && method === 'GET') {
      need(t, method, rel, 'r_organization_admin', 'rw_organization_admin');
      if (q.get('q') !== 'roleAssignee') throw refuse(400, 'Unknown finder', { code: 'ILLEGAL_ARGUMENT' });
      const rows = acls.filter(
        (a) =>
          (!q.get('role') || a.role === q.get('role')) && (!q.get('state') || a.state === q.get('state')),
      );
      return send(
        res,
        200,
        page(
          q,
          rows.map((a) => ({ ...a, roleAssignee: `urn:li:person:${person.id}` })),
        ),
      );
    }
    if (rel === '/organizationsLookup' && method === 'GET') {
      // "Organization Lookup API": a Rest.li BATCH_GET, `ids=List(<id>,…)`; each known id in
      // `results` with its status in `statuses`, an unknown one in `errors` (the call still 200s).
      need(t, method, rel, 'r_organization_admin', 'rw_organization_admin');
      const m = /^List\(([^)]*)\)$/.exec(q.get('ids') ?? '');
      const ids = m?.[1] ? m[1].split(',') : [];
      if (!ids.length || ids.some((id) => !/^\d+$/.test(id)))
        throw refuse(400, 'ids must be List(<organization id>,…)', { code: 'ILLEGAL_ARGUMENT' });
      if (ids.length > LOOKUP_LIMIT)
        throw refuse(400, `at most ${LOOKUP_LIMIT} ids per request`, { code: 'ILLEGAL_ARGUMENT' });
      const results: Record<string, FakeLinkedInOrganization> = {};
      const statuses: Record<string, number> = {};
      const errors: Record<string, unknown> = {};
      for (const id of ids) {
        const o = orgs.get(id);
        if (o) {
          results[id] = o;
          statuses[id] = 200;
        } else {
          statuses[id] = 404;
          errors[id] = { status: 404, message: `Organization ${id} not found` };
        }
      }
      return send(res, 200, { results, statuses, errors });
    }
    const org = /^\/organizations\/(\d+)$/.exec(rel);
    if (org && method === 'GET') {
      need(t, method, rel, 'r_organization_admin', 'rw_organization_admin');
      const o = orgs.get(org[1] ?? '');
      if (!o) throw refuse(404, 'Not Found');
      return send(res, 200, o);
    }

    need(t, method, rel, 'rw_dmp_segments');
    if (rel === '/dmpSegments' && method === 'POST') {
      const b = body as Record<string, unknown>;
      const bad = (field: string) => refuse(400, `${field} is invalid`, { code: 'INVALID_PARAMS' });
      // Rest.li validates against the schema: a field it does not know is refused, not ignored.
      const extra = Object.keys(b).find((k) => !SEGMENT_FIELDS.has(k));
      if (extra) throw refuse(422, `ERROR :: /${extra} :: unrecognized field found but not allowed`);
      if (typeof b.name !== 'string' || !b.name) throw bad('name');
      if (b.accessPolicy !== 'PRIVATE' && b.accessPolicy !== 'PUBLIC') throw bad('accessPolicy');
      if (b.type !== 'USER' && b.type !== 'COMPANY') throw bad('type');
      if (typeof b.sourcePlatform !== 'string' || !b.sourcePlatform) throw bad('sourcePlatform');
      const dest = b.destinations as { destination?: string }[] | undefined;
      if (!Array.isArray(dest) || !dest.some((d) => d.destination === 'LINKEDIN')) throw bad('destinations');
      const role = roles.find((r) => r.account === b.account);
      if (!role) throw bad('account');
      if (role.role === 'VIEWER')
        throw refuse(403, 'Not enough permissions to manage audiences of this account', {
          serviceErrorCode: 100,
          code: 'ACCESS_DENIED',
        });
      const id = String(nextSegment++);
      segments.set(id, {
        id,
        account: role.account,
        name: b.name,
        createdAt: Date.now(),
        members: new Set(),
      });
      return send(res, 201, null, { 'x-restli-id': id, location: `/dmpSegments/${id}` });
    }
    const seg = /^\/dmpSegments\/(\d+)(\/users)?$/.exec(rel);
    const segment = seg ? segments.get(seg[1] ?? '') : undefined;
    if (!seg || !segment) throw refuse(404, `No resource found for ${method} ${rel}`);
    if (seg[2]) {
      if (method !== 'POST' || req.headers['x-restli-method'] !== 'BATCH_CREATE')
        throw refuse(400, 'Users are added with X-RestLi-Method: BATCH_CREATE', { code: 'ILLEGAL_ARGUMENT' });
      if (Date.now() - segment.createdAt < settleMs)
        throw refuse(404, `DMP segment ${segment.id} is not available yet`);
      if (throttled > 0) {
        throttled--;
        throw refuse(
          429,
          'Resource level throttle MEMBER MINUTE limit for calls to this resource is reached.',
          {
            code: 'TOO_MANY_REQUESTS',
          },
        );
      }
      if (failing > 0) {
        failing--;
        throw refuse(503, 'Service Unavailable');
      }
      const rows = users(body);
      entry.members = rows.length;
      for (const r of rows) {
        if (r.action === 'ADD') {
          segment.members.add(r.hash);
          addCounts.set(r.hash, (addCounts.get(r.hash) ?? 0) + 1);
        } else segment.members.delete(r.hash);
      }
      if (expireAfterUsers !== null && --expireAfterUsers <= 0) {
        expireAfterUsers = null;
        for (const tk of tokens.values()) tk.expires = Date.now() - 1;
      }
      return send(res, 200, { elements: rows.map(() => ({ status: 201 })) });
    }
    if (method === 'POST') {
      if (req.headers['x-restli-method'] !== 'PARTIAL_UPDATE')
        throw refuse(400, 'Updates use X-RestLi-Method: PARTIAL_UPDATE', { code: 'ILLEGAL_ARGUMENT' });
      const set = (body as { patch?: { $set?: Record<string, unknown> } }).patch?.$set;
      if (!set) throw refuse(400, 'patch.$set is required', { code: 'INVALID_PARAMS' });
      const extra = Object.keys(set).find((k) => !SEGMENT_FIELDS.has(k));
      if (extra) throw refuse(422, `ERROR :: /${extra} :: unrecognized field found but not allowed`);
      if (typeof set.name === 'string') segment.name = set.name;
      return send(res, 204, null);
    }
    const size = Math.floor(segment.members.size * (opts.matchRate ?? 1));
    return send(res, 200, {
      id: Number(segment.id),
      name: segment.name,
      account: segment.account,
      accessPolicy: 'PRIVATE',
      type: 'USER',
      destinations: [
        {
          destination: 'LINKEDIN',
          status: segment.members.size ? 'READY' : 'BUILDING',
          destinationSegmentId: adSegmentOf(segment.id),
          audienceSize: size,
          matchedCount: size,
          inputCount: segment.members.size,
        },
      ],
    });
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const upload = /^\/upload\/images\/(\d+)$/.exec(url.pathname);
    const work = upload
      ? (async () => {
          // Images API: the bytes go to uploadUrl by PUT with the member's bearer token.
          if (req.method !== 'PUT') throw refuse(405, 'Upload with PUT');
          bearer(req);
          const chunks: Buffer[] = [];
          for await (const c of req) chunks.push(c as Buffer);
          requests.push({ method: 'PUT', path: url.pathname, members: 0 });
          const r = campaigns.upload(upload[1] ?? '', Buffer.concat(chunks));
          send(res, r.status, r.body);
        })()
      : url.pathname.startsWith('/oauth/v2/')
        ? oauthRoute(req, res, url.pathname, url.searchParams)
        : url.pathname.startsWith('/rest/')
          ? restRoute(req, res, url.pathname, url.searchParams)
          : Promise.reject(refuse(404, `No resource found for ${url.pathname}`));
    work.catch((err: unknown) => {
      const r = err as Partial<Refusal>;
      if (typeof r.status === 'number' && r.body) return send(res, r.status, r.body);
      send(res, 500, { status: 500, message: String(err) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('fake LinkedIn has no port');
  baseUrl = `http://127.0.0.1:${address.port}`;
  return {
    url: `http://127.0.0.1:${address.port}`,
    version,
    clientId,
    clientSecret,
    segments,
    requests,
    /** Images, posts, groups, campaigns, creatives, `setDay` and `reject` (linkedin-campaigns.ts). */
    campaigns,
    /** Organisations by id: add one so organizationsLookup describes it. */
    organizations: orgs,
    addCounts,
    /** The next `n` users calls answer 503: nothing is stored. */
    failNext: (n: number) => {
      failing = n;
    },
    /** The next `n` users calls answer 429 (no Retry-After, as LinkedIn documents none). */
    throttleNext: (n: number) => {
      throttled = n;
    },
    /** Every token and refresh token stops working (65601), as when the member revokes the app. */
    revokeAll: () => {
      for (const t of tokens.values()) t.revoked = true;
      for (const r of refreshes.values()) r.revoked = true;
    },
    /** Every access token expires now (65602); refresh tokens still work. */
    expireAll: () => {
      for (const t of tokens.values()) t.expires = Date.now() - 1;
    },
    /** After `n` more successful users calls, every access token expires (a token dying mid-job). */
    expireAfterUsersCalls: (n: number) => {
      expireAfterUsers = n;
    },
    /** Tokens as the code exchange gives them, with every scope Rally asks for. */
    mintTokens: (ttlSeconds = 60 * 24 * 3600) => {
      const scopes = [...KNOWN_SCOPES];
      const refresh = `AQX${randomBytes(18).toString('hex')}`;
      refreshes.set(refresh, { expires: Date.now() + 365 * 24 * 3600_000, scopes, revoked: false });
      return { accessToken: mint(scopes, refresh, ttlSeconds), refreshToken: refresh };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type FakeLinkedIn = Awaited<ReturnType<typeof startFakeLinkedIn>>;
