import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMetaCampaigns } from './meta-fake-campaigns.ts';
import { createMetaInsights } from './meta-fake-insights.ts';
import type { FakeMetaDay } from './meta-fake-insights.ts';

/**
 * A strict fake of Meta's Graph API (Marketing API) on loopback, for the ad-network adapter. Each
 * behaviour names its documentation source; what Meta documents loosely is enforced strictly here so
 * an adapter mistake fails a test rather than a customer's push.
 *
 * - Versioned paths `/{version}/…` (Graph API › Versioning: every call carries a version; an
 *   unversioned or other-version call is refused here).
 * - OAuth: the login dialog `/{version}/dialog/oauth` and `GET /{version}/oauth/access_token` with
 *   `code` (Facebook Login › Manually Build a Login Flow › Exchanging Code for an Access Token:
 *   `{access_token, token_type, expires_in}`), and `grant_type=fb_exchange_token` for a long-lived
 *   token of about 60 days (Access Token Guide › Get Long-Lived Tokens). `DELETE /me/permissions`
 *   revokes the app (Graph API › User › Permissions: Deleting).
 * - Errors in Graph's envelope `{error:{message,type,code,error_subcode,fbtrace_id}}` (Graph API ›
 *   Handling Errors); an invalid, expired or revoked token is code 190 (OAuthException) with
 *   subcode 463 (expired) or 458 (app not authorised).
 * - Custom audiences: `POST /act_{ad_account_id}/customaudiences` (name, subtype=CUSTOM,
 *   customer_file_source) → `{id}`; `GET /{audience_id}?fields=…approximate_count_lower_bound…`
 *   (Marketing API › Custom Audience reference); `POST /{audience_id}` updates name/description.
 * - Members: `POST` and `DELETE /{audience_id}/users` with `payload: {schema, data}` (Marketing API ›
 *   Custom Audience Users: "only a maximum of 10000 at a time"); each EMAIL value must be a SHA-256
 *   hex digest of the normalised address (Custom Audiences › Hashing and normalizing data): a value
 *   that is not is refused here (Meta would count it invalid; Rally must never send one). Reply
 *   `{audience_id, session_id, num_received, num_invalid_entries, invalid_entry_samples}`.
 * - Rate limits: Marketing API calls carry `X-Business-Use-Case-Usage` (Graph API › Rate Limiting ›
 *   Business Use Case Rate Limits: `{business_id: [{type, call_count, total_cputime, total_time,
 *   estimated_time_to_regain_access}]}`, the last in minutes); over it, error code 80003 ("Custom
 *   Audience" BUC throttling) with HTTP 400.
 */

export const META_VERSION = 'v25.0';

export type MetaAudience = {
  id: string;
  adAccountId: string;
  name: string;
  description: string;
  members: Set<string>;
};

export type StartFakeMetaOptions = {
  version?: string;
  appId?: string;
  appSecret?: string;
  /** Share of members the fake "finds on Facebook" for the matched size (default 1). */
  matchRate?: number;
  /** Loopback port (default: any free one). */
  port?: number;
  /** An ad's results on a day nobody set (meta-fake-insights.ts), for the demo and the stats bench. */
  delivery?: (adId: string, day: string) => FakeMetaDay | null;
  /**
   * How many of the latest requests `requests` keeps (default: all, for tests that count them). The
   * demo's Meta runs as long as `npm start` does: there it keeps a few, not one entry per request.
   */
  keepRequests?: number;
};

type GraphError = {
  status: number;
  message: string;
  type: string;
  code: number;
  subcode?: number;
  /** Graph API › Handling Errors: error_user_msg, the words Meta means a person to read. */
  userMessage?: string;
};

class Refusal extends Error {
  readonly e: GraphError;
  constructor(e: GraphError) {
    super(e.message);
    this.e = e;
  }
}

const SHA256 = /^[0-9a-f]{64}$/;
const BATCH_LIMIT = 10_000;

export async function startFakeMeta(opts: StartFakeMetaOptions = {}) {
  const version = opts.version ?? META_VERSION;
  const appId = opts.appId ?? 'meta-app-id';
  const appSecret = opts.appSecret ?? 'meta-app-secret';
  const codes = new Map<string, { redirectUri: string }>();
  /** Live tokens and their expiry (ms). */
  const tokens = new Map<string, number>();
  const audiences = new Map<string, MetaAudience>();
  const adAccounts = [
    { id: 'act_1001', account_id: '1001', name: 'Acme Ads', currency: 'USD', account_status: 1 },
    { id: 'act_1002', account_id: '1002', name: 'Acme Old', currency: 'EUR', account_status: 2 },
  ];
  const pages = [{ id: '2001', name: 'Acme on Facebook' }];
  let nextId = 23850000000000;
  const campaigns = createMetaCampaigns({
    accounts: () => adAccounts.map((a) => a.id),
    pages: () => (pagesGone ? [] : pages.map((p) => p.id)),
    audienceAccount: (id) => audiences.get(id)?.adAccountId,
    nextId: () => String(nextId++),
    refuse: (message, o = {}) => {
      throw new Refusal({ status: 400, type: 'OAuthException', code: 100, message, ...o });
    },
  });
  const insights = createMetaInsights({
    campaignOf: (id) => {
      const c = campaigns.campaigns.get(id);
      if (!c) return null;
      const adSetIds = [...campaigns.adSets.values()].filter((s) => s.campaignId === id).map((s) => s.id);
      const adIds = [...campaigns.ads.values()].filter((a) => adSetIds.includes(a.adSetId)).map((a) => a.id);
      return { account: c.account, adIds };
    },
    currencyOf: (account) => adAccounts.find((a) => a.id === account)?.currency ?? 'USD',
    delivery: opts.delivery,
    refuse: (message, o = {}) => {
      throw new Refusal({ status: 400, type: 'OAuthException', code: o.code ?? 100, message });
    },
  });
  let pagesGone = false;
  let revoked = false;
  let throttled = 0;
  let failing = 0;
  /** How many times each hash was added (a member sent twice shows 2). */
  const addCounts = new Map<string, number>();
  let throttleMinutes = 1;
  /** Every request: method, path (without version), and the number of members it carried. */
  const requests: { method: string; path: string; members: number }[] = [];

  const mint = (ttlSeconds: number) => {
    const token = `EAA${randomBytes(18).toString('hex')}`;
    tokens.set(token, Date.now() + ttlSeconds * 1000);
    return { access_token: token, token_type: 'bearer', expires_in: ttlSeconds };
  };

  const buc = (callCount: number, regain: number, type = 'custom_audience') =>
    JSON.stringify({
      '3001': [
        {
          type,
          call_count: callCount,
          total_cputime: 1,
          total_time: 1,
          estimated_time_to_regain_access: regain,
        },
      ],
    });

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  function authed(req: IncomingMessage, query: URLSearchParams): void {
    const header = req.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice(7) : query.get('access_token');
    const expires = token ? tokens.get(token) : undefined;
    if (revoked && token && expires !== undefined) {
      throw new Refusal({
        status: 400,
        type: 'OAuthException',
        code: 190,
        subcode: 458,
        message: 'Error validating access token: The user has not authorized application meta-app-id.',
      });
    }
    if (expires === undefined)
      throw new Refusal({
        status: 400,
        type: 'OAuthException',
        code: 190,
        message: 'Invalid OAuth access token.',
      });
    if (expires < Date.now()) {
      throw new Refusal({
        status: 400,
        type: 'OAuthException',
        code: 190,
        subcode: 463,
        message: 'Error validating access token: Session has expired.',
      });
    }
  }

  /**
   * A throttled call (Graph API › Rate Limiting › Business Use Case: 80003 custom audiences, 80004
   * ads management), HTTP 400 with the usage header naming the minutes to wait.
   */
  function throttle(code: number, type: string): void {
    if (throttled <= 0) return;
    throttled--;
    throw Object.assign(
      new Refusal({
        status: 400,
        type: 'OAuthException',
        code,
        message: 'There have been too many calls from this ad-account. Please wait a bit and try again.',
      }),
      { headers: { 'x-business-use-case-usage': buc(100, throttleMinutes, type) } },
    );
  }

  function members(body: Record<string, unknown>): string[] {
    let payload = body.payload;
    if (typeof payload === 'string') payload = JSON.parse(payload) as unknown;
    const p = payload as { schema?: unknown; data?: unknown } | undefined;
    const bad = (message: string) =>
      new Refusal({ status: 400, type: 'OAuthException', code: 100, message: `(#100) ${message}` });
    const schema = Array.isArray(p?.schema) ? p.schema : typeof p?.schema === 'string' ? [p.schema] : null;
    if (!schema || schema.length !== 1 || (schema[0] !== 'EMAIL' && schema[0] !== 'EMAIL_SHA256'))
      throw bad('payload.schema must be ["EMAIL"] for this fake');
    if (!Array.isArray(p?.data) || p.data.length === 0) throw bad('payload.data must be a non-empty array');
    if (p.data.length > BATCH_LIMIT) throw bad(`at most ${BATCH_LIMIT} users may be sent at a time`);
    return p.data.map((row: unknown) => {
      const v = Array.isArray(row) ? (row[0] as unknown) : row;
      if (typeof v !== 'string' || !SHA256.test(v))
        throw bad('EMAIL values must be SHA-256 hashes (hashing required)');
      return v;
    });
  }

  async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    if (!text) return {};
    if ((req.headers['content-type'] ?? '').includes('application/json'))
      return JSON.parse(text) as Record<string, unknown>;
    return Object.fromEntries(new URLSearchParams(text));
  }

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const q = url.searchParams;
      const parts = url.pathname.split('/').filter(Boolean);
      // Test control, outside Graph's paths: a browser walk in another process sets what an ad did
      // on a day, as Meta's delivery would (`insights.setDay`), and reads the campaigns made.
      if (url.pathname === '/__control/insights' && req.method === 'POST') {
        const b = (await readBody(req)) as { adId?: string; day?: string } & Partial<FakeMetaDay>;
        insights.setDay(String(b.adId), String(b.day), {
          impressions: Number(b.impressions ?? 0),
          reach: Number(b.reach ?? 0),
          clicks: Number(b.clicks ?? 0),
          spend: String(b.spend ?? '0'),
        });
        res.writeHead(204);
        return res.end();
      }
      if (url.pathname === '/__control/ads' && req.method === 'GET') {
        return send(
          res,
          200,
          [...campaigns.ads.values()].map((a) => ({ id: a.id, adSetId: a.adSetId })),
        );
      }
      if (parts[0] !== version) {
        return send(res, 400, {
          error: {
            message: `Unknown path components: /${parts[0] ?? ''}`,
            type: 'OAuthException',
            code: 2500,
            fbtrace_id: 'AbC',
          },
        });
      }
      const path = `/${parts.slice(1).join('/')}`;
      const body = req.method === 'GET' ? {} : await readBody(req);
      const entry = { method: req.method ?? 'GET', path, members: 0 };
      requests.push(entry);
      if (requests.length > (opts.keepRequests ?? Infinity)) requests.shift();

      if (path === '/dialog/oauth') {
        const code = randomBytes(12).toString('hex');
        codes.set(code, { redirectUri: q.get('redirect_uri') ?? '' });
        const back = new URL(q.get('redirect_uri') ?? '');
        back.searchParams.set('code', code);
        back.searchParams.set('state', q.get('state') ?? '');
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (path === '/oauth/access_token') {
        if (q.get('client_id') !== appId || q.get('client_secret') !== appSecret)
          throw new Refusal({
            status: 400,
            type: 'OAuthException',
            code: 101,
            message: 'Error validating client secret.',
          });
        if (q.get('grant_type') === 'fb_exchange_token') {
          const old = q.get('fb_exchange_token') ?? '';
          const exp = tokens.get(old);
          if (revoked || exp === undefined || exp < Date.now())
            throw new Refusal({
              status: 400,
              type: 'OAuthException',
              code: 190,
              message: 'Error validating access token.',
            });
          return send(res, 200, mint(60 * 24 * 3600));
        }
        const code = codes.get(q.get('code') ?? '');
        if (!code || code.redirectUri !== q.get('redirect_uri'))
          throw new Refusal({
            status: 400,
            type: 'OAuthException',
            code: 100,
            subcode: 36009,
            message: 'This authorization code has been used.',
          });
        codes.delete(q.get('code') ?? '');
        revoked = false;
        return send(res, 200, mint(3600));
      }

      authed(req, q);
      if (path === '/me' && req.method === 'GET') return send(res, 200, { id: '9001', name: 'Ana Marketer' });
      if (path === '/me/permissions' && req.method === 'DELETE') {
        revoked = true;
        return send(res, 200, { success: true });
      }
      if (path === '/me/adaccounts')
        return send(res, 200, { data: adAccounts, paging: { cursors: { before: 'a', after: 'b' } } });
      if (path === '/me/accounts')
        return send(res, 200, { data: pages, paging: { cursors: { before: 'a', after: 'b' } } });

      const edge = /^\/(act_\d+)\/(adimages|campaigns|adsets|adcreatives|ads)$/.exec(path);
      if (edge && req.method === 'POST') {
        if (!adAccounts.some((a) => a.id === edge[1]))
          throw new Refusal({
            status: 400,
            type: 'OAuthException',
            code: 100,
            message: '(#100) Unsupported post request.',
          });
        throttle(80004, 'ads_management');
        const r = campaigns.create(edge[1] ?? '', edge[2] ?? '', body);
        return send(res, r.status, r.body, { 'x-business-use-case-usage': buc(5, 0, 'ads_management') });
      }

      const create = /^\/(act_\d+)\/customaudiences$/.exec(path);
      if (create && req.method === 'POST') {
        const account = adAccounts.find((a) => a.id === create[1]);
        if (!account)
          throw new Refusal({
            status: 400,
            type: 'OAuthException',
            code: 100,
            message: '(#100) Unsupported post request.',
          });
        if (typeof body.name !== 'string' || !body.name)
          throw new Refusal({
            status: 400,
            type: 'OAuthException',
            code: 100,
            message: '(#100) The parameter name is required',
          });
        // Custom Audience reference: customer-file audiences need customer_file_source since v3.0.
        if (
          !['USER_PROVIDED_ONLY', 'PARTNER_PROVIDED_ONLY', 'BOTH_USER_AND_PARTNER_PROVIDED'].includes(
            String(body.customer_file_source),
          )
        )
          throw new Refusal({
            status: 400,
            type: 'OAuthException',
            code: 100,
            message: '(#100) customer_file_source is required',
          });
        const id = String(nextId++);
        audiences.set(id, {
          id,
          adAccountId: account.id,
          name: body.name,
          description: typeof body.description === 'string' ? body.description : '',
          members: new Set(),
        });
        return send(res, 200, { id });
      }

      const users = /^\/(\d+)\/users$/.exec(path);
      if (users) {
        const audience = audiences.get(users[1] ?? '');
        if (!audience)
          throw new Refusal({
            status: 400,
            type: 'GraphMethodException',
            code: 100,
            subcode: 33,
            message: 'Unsupported request.',
          });
        throttle(80003, 'custom_audience');
        if (failing > 0) {
          failing--;
          // Graph API › Handling Errors: code 2, "temporary issue due to downtime": the call did nothing.
          throw new Refusal({
            status: 503,
            type: 'OAuthException',
            code: 2,
            message: 'Service temporarily unavailable',
          });
        }
        const hashes = members(body);
        entry.members = hashes.length;
        if (req.method === 'POST')
          for (const h of hashes) {
            audience.members.add(h);
            addCounts.set(h, (addCounts.get(h) ?? 0) + 1);
          }
        else if (req.method === 'DELETE') for (const h of hashes) audience.members.delete(h);
        return send(
          res,
          200,
          {
            audience_id: audience.id,
            session_id: String(Date.now()),
            num_received: hashes.length,
            num_invalid_entries: 0,
            invalid_entry_samples: {},
          },
          { 'x-business-use-case-usage': buc(5, 0) },
        );
      }

      const report = /^\/(\d+)\/insights$/.exec(path);
      if (report && req.method === 'GET') {
        const self = `http://${req.headers.host ?? '127.0.0.1'}${url.pathname}${url.search}`;
        const r = insights.insights(report[1] ?? '', q, self);
        if (r) return send(res, r.status, r.body, { 'x-business-use-case-usage': buc(1, 0, 'ads_insights') });
      }

      const one = /^\/(\d+)$/.exec(path);
      if (one && campaigns.has(one[1] ?? '')) {
        if (req.method === 'POST') throttle(80004, 'ads_management');
        const r = campaigns.object(
          req.method ?? 'GET',
          one[1] ?? '',
          body,
          (q.get('fields') ?? 'id').split(','),
        );
        if (r)
          return send(res, r.status, r.body, { 'x-business-use-case-usage': buc(5, 0, 'ads_management') });
      }
      if (one) {
        const audience = audiences.get(one[1] ?? '');
        if (!audience)
          throw new Refusal({
            status: 400,
            type: 'GraphMethodException',
            code: 100,
            subcode: 33,
            message: 'Unsupported get request.',
          });
        if (req.method === 'POST') {
          if (typeof body.name === 'string') audience.name = body.name;
          if (typeof body.description === 'string') audience.description = body.description;
          return send(res, 200, { success: true });
        }
        const matched = Math.floor(audience.members.size * (opts.matchRate ?? 1));
        const fields = (q.get('fields') ?? 'id').split(',');
        const all: Record<string, unknown> = {
          id: audience.id,
          name: audience.name,
          description: audience.description,
          approximate_count_lower_bound: matched,
          approximate_count_upper_bound: Math.round(matched * 1.2),
          operation_status: { code: 200, description: 'Normal' },
          delivery_status:
            matched >= 100
              ? { code: 200, description: 'This audience is ready for use.' }
              : { code: 300, description: 'This audience is too small to use.' },
        };
        return send(res, 200, Object.fromEntries(fields.filter((f) => f in all).map((f) => [f, all[f]])));
      }
      throw new Refusal({
        status: 400,
        type: 'GraphMethodException',
        code: 100,
        message: `Unsupported ${req.method?.toLowerCase()} request.`,
      });
    })().catch((err: unknown) => {
      if (err instanceof Refusal) {
        const { status, message, type, code, subcode, userMessage } = err.e;
        const headers = (err as Refusal & { headers?: Record<string, string> }).headers ?? {};
        return send(
          res,
          status,
          {
            error: {
              message,
              type,
              code,
              ...(subcode ? { error_subcode: subcode } : {}),
              ...(userMessage ? { error_user_msg: userMessage } : {}),
              fbtrace_id: 'AbCdEf',
            },
          },
          headers,
        );
      }
      send(res, 500, { error: { message: String(err), type: 'FakeError', code: 1 } });
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('fake Meta has no port');
  const url = `http://127.0.0.1:${address.port}`;
  return {
    url,
    version,
    appId,
    appSecret,
    audiences,
    /** The person's ad accounts and pages (`/me/adaccounts`, `/me/accounts`); the demo adds its own. */
    adAccounts,
    pages,
    requests,
    addCounts,
    /** Images, campaigns, ad sets, creatives and ads made, and `disapprove` (meta-campaigns.ts). */
    campaigns,
    /** Daily results per ad (`setDay`) served by `/{campaign}/insights` (meta-insights.ts). */
    insights,
    /** The person loses their role on every page (creatives naming a page are then refused). */
    dropPages: () => {
      pagesGone = true;
    },
    /** The next `n` members calls fail with 503 (code 2), as when Meta is down: nothing is stored. */
    failNext: (n: number) => {
      failing = n;
    },
    /** Every token stops working with 190/458, as when the person removes the app. */
    revokeAll: () => {
      revoked = true;
    },
    /** Every live token expires now (190/463). */
    expireAll: () => {
      for (const t of tokens.keys()) tokens.set(t, Date.now() - 1);
    },
    /** The next `n` members or campaign calls are throttled (80003/80004) asking to wait `minutes`. */
    throttleNext: (n: number, minutes = 1) => {
      throttled = n;
      throttleMinutes = minutes;
    },
    /** A token of one's choosing, valid until `expiresAt` (ms): the demo's token survives restarts. */
    acceptToken: (token: string, expiresAt: number) => void tokens.set(token, expiresAt),
    /** A token minted as by the exchange, valid for `ttlSeconds`. */
    mintToken: (ttlSeconds: number) => mint(ttlSeconds).access_token,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type FakeMeta = Awaited<ReturnType<typeof startFakeMeta>>;
