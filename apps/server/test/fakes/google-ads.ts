import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createGoogleAdsCampaigns } from './google-ads-campaigns.ts';

/**
 * A strict fake of what Rally uses of Google for Customer Match, on loopback: Google's OAuth
 * endpoints, the Google Ads API (accounts) and the Data Manager API (user lists and members). Each
 * rule names its source; what Google documents loosely is enforced strictly here.
 *
 * - OAuth 2.0 for Web Server Applications: consent at `/o/oauth2/v2/auth` (`access_type=offline`
 *   gives a refresh token), `POST /token` with `authorization_code` or `refresh_token` (a revoked
 *   grant answers 400 `{"error":"invalid_grant","error_description":"Token has been expired or
 *   revoked."}`), access tokens of 3,599 s, `POST /revoke` with `token` revoking the whole grant.
 * - Errors as google.rpc.Status in JSON (API Design Guide › Errors; Google Ads API › REST ›
 *   Errors): `{error:{code,message,status,details:[{"@type":…}]}}`; the Google Ads API puts a
 *   GoogleAdsFailure in `details`. A missing, unknown or expired bearer token is 401 UNAUTHENTICATED.
 * - Google Ads API (`/{version}/…`): every call needs the `developer-token` header (Make your first
 *   API call; without it 401 with AuthenticationError DEVELOPER_TOKEN_PARAMETER_MISSING) and the
 *   https://www.googleapis.com/auth/adwords scope. `GET customers:listAccessibleCustomers` →
 *   `{resourceNames}`; `POST customers/{id}/googleAds:search` with a GAQL `query` → `{results}`.
 * - Data Manager API (`/v1/…`, scope https://www.googleapis.com/auth/datamanager, no developer
 *   token): `accountTypes/GOOGLE_ADS/accounts/{id}/userLists` create, get, patch (UserList with
 *   `sizeInfo`); `audienceMembers:ingest` and `:remove` with at most 10,000 audience members and 10
 *   destinations per request and at most 10 identifiers per member (Data Manager API › Limits);
 *   `encoding` is required for UserData; ingesting UserData needs the Customer Match terms of service
 *   `ACCEPTED` (TermsOfService); an `emailAddress` must be a SHA-256 digest in the encoding named
 *   (Format user data) — a value in clear is refused here (Google would fail to match it; Rally must
 *   never send one). Over 300 requests a minute, or when told, 429 RESOURCE_EXHAUSTED with an
 *   ErrorInfo naming the quota and a RetryInfo (Limits: "rejected with the error RESOURCE_EXHAUSTED
 *   and HTTP status 429").
 * - Campaigns, ad groups, assets, ads, status changes and GAQL search with daily metrics:
 *   test/fakes/google-ads-campaigns.ts and google-ads-gaql.ts (every `customers/{id}/…:mutate` and
 *   `…:search` call goes there, with `login-customer-id` required).
 * - Shortcut: a list's size is counted at once (Google takes up to 48 hours).
 */

export const GOOGLE_ADS_VERSION = 'v26';
const ADWORDS = 'https://www.googleapis.com/auth/adwords';
const DATAMANAGER = 'https://www.googleapis.com/auth/datamanager';
const SHA256_HEX = /^[0-9a-f]{64}$/;
const BATCH_LIMIT = 10_000;

export type GoogleUserList = {
  name: string;
  id: string;
  customerId: string;
  displayName: string;
  description: string;
  members: Set<string>;
};

class Refusal extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown[];
  constructor(status: number, code: string, message: string, details: unknown[] = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

const badRequest = (field: string, message: string) =>
  new Refusal(400, 'INVALID_ARGUMENT', `Invalid value at '${field}': ${message}`, [
    {
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field, description: message }],
    },
  ]);

export async function startFakeGoogleAds(
  opts: { matchRate?: number; perMinute?: number; pageRows?: number } = {},
) {
  const version = GOOGLE_ADS_VERSION;
  const clientId = 'google-ads-client.apps.googleusercontent.com';
  const clientSecret = 'google-ads-secret';
  const developerToken = 'dev-token-123';
  const customers = [
    {
      id: '1234567890',
      descriptiveName: 'Acme Search',
      currencyCode: 'USD',
      timeZone: 'America/New_York',
      status: 'ENABLED',
      manager: false,
    },
    {
      id: '2345678901',
      descriptiveName: 'Acme Old',
      currencyCode: 'EUR',
      timeZone: 'Europe/Paris',
      status: 'CANCELED',
      manager: false,
    },
    {
      id: '9990001112',
      descriptiveName: 'Acme MCC',
      currencyCode: 'USD',
      timeZone: 'America/New_York',
      status: 'ENABLED',
      manager: true,
    },
  ];
  const codes = new Map<string, { redirectUri: string; scope: string }>();
  const refreshTokens = new Map<string, { scope: string; revoked: boolean }>();
  const accessTokens = new Map<string, { expires: number; refresh: string; scope: string }>();
  const lists = new Map<string, GoogleUserList>();
  const addCounts = new Map<string, number>();
  const campaigns = createGoogleAdsCampaigns({
    version,
    customers,
    // The Google Ads API names a Data Manager user list `customers/{c}/userLists/{id}`.
    hasUserList: (rn) =>
      lists.has(
        rn.replace(/^customers\/(\d+)\/userLists\//, 'accountTypes/GOOGLE_ADS/accounts/$1/userLists/'),
      ),
    pageRows: opts.pageRows,
  });
  const requests: { method: string; path: string; members: number }[] = [];
  const recent: number[] = [];
  let nextList = 7_000_000_000;
  let throttled = 0;
  let throttleSeconds = 30;
  let failing = 0;
  /** Member calls still to pass before `throttled` / `failing` apply. */
  let throttleAfter = 0;
  let failAfter = 0;

  const mint = (refresh: string, scope: string, ttl = 3599) => {
    const token = `ya29.${randomBytes(18).toString('hex')}`;
    accessTokens.set(token, { expires: Date.now() + ttl * 1000, refresh, scope });
    return token;
  };

  function send(res: ServerResponse, status: number, body: unknown) {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(body === undefined ? '' : JSON.stringify(body));
  }

  async function readBody(
    req: IncomingMessage,
  ): Promise<{ json: Record<string, unknown>; form: URLSearchParams }> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const type = req.headers['content-type'] ?? '';
    if (type.includes('application/json') && text)
      return { json: JSON.parse(text) as Record<string, unknown>, form: new URLSearchParams() };
    return { json: {}, form: new URLSearchParams(text) };
  }

  function bearer(req: IncomingMessage, scope: string) {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : '';
    const t = accessTokens.get(token);
    const grant = t ? refreshTokens.get(t.refresh) : undefined;
    if (!t || !grant || grant.revoked || t.expires < Date.now())
      throw new Refusal(
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      );
    if (!t.scope.split(' ').includes(scope))
      throw new Refusal(403, 'PERMISSION_DENIED', 'Request had insufficient authentication scopes.');
  }

  function quota() {
    const now = Date.now();
    while (recent.length && recent[0]! < now - 60_000) recent.shift();
    recent.push(now);
    const over = recent.length > (opts.perMinute ?? 300);
    const due = throttled > 0 && throttleAfter-- <= 0;
    if (due || over) {
      if (due) throttled--;
      throw new Refusal(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded for quota metric ingestion requests.', [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'RATE_LIMIT_EXCEEDED',
          domain: 'googleapis.com',
          metadata: { quota_limit: 'IngestionMutateRequestsPerMinutePerProject' },
        },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${throttleSeconds}s` },
      ]);
    }
  }

  /** The hashes of an ingest or remove request, after every documented check. */
  function audienceMembers(
    body: Record<string, unknown>,
    ingest: boolean,
  ): { list: GoogleUserList; hashes: string[] } {
    const destinations = body.destinations as
      | { operatingAccount?: { accountType?: string; accountId?: string }; productDestinationId?: string }[]
      | undefined;
    if (!Array.isArray(destinations) || destinations.length === 0)
      throw badRequest('destinations', 'Required.');
    if (destinations.length > 10) throw badRequest('destinations', 'At most 10 destinations per request.');
    const d = destinations[0]!;
    if (d.operatingAccount?.accountType !== 'GOOGLE_ADS')
      throw badRequest('destinations[0].operating_account.account_type', 'Must be GOOGLE_ADS here.');
    const list = [...lists.values()].find(
      (l) => l.customerId === d.operatingAccount?.accountId && l.id === d.productDestinationId,
    );
    if (!list) throw new Refusal(404, 'NOT_FOUND', 'The destination user list was not found.');
    const members = body.audienceMembers as {
      userData?: { userIdentifiers?: { emailAddress?: unknown }[] };
    }[];
    if (!Array.isArray(members) || members.length === 0) throw badRequest('audience_members', 'Required.');
    if (members.length > BATCH_LIMIT)
      throw badRequest('audience_members', `At most ${BATCH_LIMIT} AudienceMember resources per request.`);
    if (body.encoding !== 'HEX' && body.encoding !== 'BASE64')
      throw badRequest('encoding', 'Required for UserData uploads.');
    if (
      ingest &&
      (body.termsOfService as { customerMatchTermsOfServiceStatus?: string } | undefined)
        ?.customerMatchTermsOfServiceStatus !== 'ACCEPTED'
    )
      throw badRequest('terms_of_service', 'The Customer Match terms of service must be accepted.');
    const hashes: string[] = [];
    members.forEach((m, i) => {
      const ids = m.userData?.userIdentifiers;
      if (!Array.isArray(ids) || ids.length === 0 || ids.length > 10)
        throw badRequest(
          `audience_members[${i}].user_data.user_identifiers`,
          'Between 1 and 10 identifiers.',
        );
      for (const id of ids) {
        if (
          typeof id.emailAddress !== 'string' ||
          (body.encoding === 'HEX' && !SHA256_HEX.test(id.emailAddress))
        )
          throw badRequest(
            `audience_members[${i}].user_data.user_identifiers.email_address`,
            'Must be a SHA-256 hash of the normalised address in the encoding named.',
          );
        hashes.push(id.emailAddress);
      }
    });
    return { list, hashes };
  }

  function userListReply(l: GoogleUserList) {
    const matched = Math.floor(l.members.size * (opts.matchRate ?? 1));
    return {
      name: l.name,
      id: l.id,
      displayName: l.displayName,
      description: l.description,
      membershipStatus: 'OPEN',
      accessReason: 'OWNED',
      readOnly: false,
      ingestedUserListInfo: {
        uploadKeyTypes: ['CONTACT_ID'],
        contactIdInfo: { dataSourceType: 'DATA_SOURCE_TYPE_FIRST_PARTY', matchRatePercentage: 100 },
      },
      ...(l.members.size
        ? {
            sizeInfo: {
              displayNetworkMembersCount: String(matched),
              searchNetworkMembersCount: String(matched),
            },
          }
        : {}),
    };
  }

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const path = url.pathname;
      const method = req.method ?? 'GET';
      const { json, form } =
        method === 'GET' ? { json: {}, form: new URLSearchParams() } : await readBody(req);
      const entry = { method, path, members: 0 };
      requests.push(entry);

      // --- OAuth ---
      if (path === '/o/oauth2/v2/auth') {
        const q = url.searchParams;
        if (q.get('client_id') !== clientId) return send(res, 400, { error: 'invalid_client' });
        if (q.get('response_type') !== 'code' || q.get('access_type') !== 'offline')
          return send(res, 400, {
            error: 'invalid_request',
            error_description: 'offline code flow only here',
          });
        const code = `4/${randomBytes(12).toString('hex')}`;
        codes.set(code, { redirectUri: q.get('redirect_uri') ?? '', scope: q.get('scope') ?? '' });
        const back = new URL(q.get('redirect_uri') ?? '');
        back.searchParams.set('code', code);
        back.searchParams.set('state', q.get('state') ?? '');
        back.searchParams.set('scope', q.get('scope') ?? '');
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (path === '/token' && method === 'POST') {
        if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret)
          return send(res, 401, { error: 'invalid_client', error_description: 'Unauthorized' });
        if (form.get('grant_type') === 'authorization_code') {
          const code = codes.get(form.get('code') ?? '');
          if (!code || code.redirectUri !== form.get('redirect_uri'))
            return send(res, 400, { error: 'invalid_grant', error_description: 'Bad Request' });
          codes.delete(form.get('code') ?? '');
          const refresh = `1//${randomBytes(18).toString('hex')}`;
          refreshTokens.set(refresh, { scope: code.scope, revoked: false });
          return send(res, 200, {
            access_token: mint(refresh, code.scope),
            expires_in: 3599,
            refresh_token: refresh,
            scope: code.scope,
            token_type: 'Bearer',
          });
        }
        if (form.get('grant_type') === 'refresh_token') {
          const grant = refreshTokens.get(form.get('refresh_token') ?? '');
          if (!grant || grant.revoked)
            return send(res, 400, {
              error: 'invalid_grant',
              error_description: 'Token has been expired or revoked.',
            });
          return send(res, 200, {
            access_token: mint(form.get('refresh_token') ?? '', grant.scope),
            expires_in: 3599,
            scope: grant.scope,
            token_type: 'Bearer',
          });
        }
        return send(res, 400, { error: 'unsupported_grant_type' });
      }
      if (path === '/revoke' && method === 'POST') {
        const token = form.get('token') ?? '';
        const refresh = refreshTokens.has(token) ? token : accessTokens.get(token)?.refresh;
        const grant = refresh ? refreshTokens.get(refresh) : undefined;
        if (!grant)
          return send(res, 400, { error: 'invalid_token', error_description: 'Token expired or revoked' });
        grant.revoked = true;
        return send(res, 200, {});
      }

      // --- Google Ads API ---
      if (path.startsWith(`/${version}/`)) {
        bearer(req, ADWORDS);
        if (req.headers['developer-token'] !== developerToken)
          throw new Refusal(401, 'UNAUTHENTICATED', 'Request is missing or has a bad developer token.', [
            {
              '@type': `type.googleapis.com/google.ads.googleads.${version}.errors.GoogleAdsFailure`,
              errors: [
                {
                  errorCode: { authenticationError: 'DEVELOPER_TOKEN_PARAMETER_MISSING' },
                  message: 'The developer token parameter is missing or invalid.',
                },
              ],
            },
          ]);
        if (path === `/${version}/customers:listAccessibleCustomers` && method === 'GET')
          return send(res, 200, { resourceNames: customers.map((c) => `customers/${c.id}`) });
        const reply = campaigns.route(method, path, json, req.headers);
        if (reply) return send(res, reply.status, reply.body);
        throw new Refusal(404, 'NOT_FOUND', `Method not found: ${method} ${path}`);
      }

      // --- Data Manager API ---
      if (path.startsWith('/v1/')) {
        bearer(req, DATAMANAGER);
        const create = /^\/v1\/accountTypes\/GOOGLE_ADS\/accounts\/(\d+)\/userLists$/.exec(path);
        if (create && method === 'POST') {
          if (!customers.some((c) => c.id === create[1] && !c.manager))
            throw new Refusal(403, 'PERMISSION_DENIED', 'The caller does not have access to this account.');
          if (typeof json.displayName !== 'string' || !json.displayName)
            throw badRequest('user_list.display_name', 'Required.');
          const info = json.ingestedUserListInfo as { uploadKeyTypes?: string[] } | undefined;
          if (!info?.uploadKeyTypes?.includes('CONTACT_ID'))
            throw badRequest('user_list.ingested_user_list_info.upload_key_types', 'Required.');
          const duration = json.membershipDuration;
          if (
            duration !== undefined &&
            (typeof duration !== 'string' || Number(duration.slice(0, -1)) % 86_400 !== 0)
          )
            throw badRequest('user_list.membership_duration', 'Must be an exact multiple of 24 hours.');
          const id = String(nextList++);
          const list: GoogleUserList = {
            name: `accountTypes/GOOGLE_ADS/accounts/${create[1]}/userLists/${id}`,
            id,
            customerId: create[1]!,
            displayName: json.displayName,
            description: typeof json.description === 'string' ? json.description : '',
            members: new Set(),
          };
          lists.set(list.name, list);
          return send(res, 200, userListReply(list));
        }
        const one = /^\/v1\/(accountTypes\/GOOGLE_ADS\/accounts\/\d+\/userLists\/\d+)$/.exec(path);
        if (one) {
          const list = lists.get(one[1]!);
          if (!list) throw new Refusal(404, 'NOT_FOUND', 'User list not found.');
          if (method === 'GET') return send(res, 200, userListReply(list));
          if (method === 'PATCH') {
            const mask = (url.searchParams.get('updateMask') ?? '').split(',');
            if (mask.includes('displayName') && typeof json.displayName === 'string')
              list.displayName = json.displayName;
            if (mask.includes('description') && typeof json.description === 'string')
              list.description = json.description;
            return send(res, 200, userListReply(list));
          }
        }
        if (
          (path === '/v1/audienceMembers:ingest' || path === '/v1/audienceMembers:remove') &&
          method === 'POST'
        ) {
          quota();
          if (failing > 0 && failAfter-- <= 0) {
            failing--;
            throw new Refusal(503, 'UNAVAILABLE', 'The service is currently unavailable.');
          }
          const ingest = path.endsWith(':ingest');
          const { list, hashes } = audienceMembers(json, ingest);
          entry.members = hashes.length;
          for (const h of hashes) {
            if (ingest) {
              list.members.add(h);
              addCounts.set(h, (addCounts.get(h) ?? 0) + 1);
            } else list.members.delete(h);
          }
          return send(res, 200, { requestId: randomBytes(8).toString('hex') });
        }
        throw new Refusal(404, 'NOT_FOUND', `Method not found: ${method} ${path}`);
      }
      throw new Refusal(404, 'NOT_FOUND', `Not found: ${path}`);
    })().catch((err: unknown) => {
      if (err instanceof Refusal)
        return send(res, err.status, {
          error: { code: err.status, message: err.message, status: err.code, details: err.details },
        });
      send(res, 500, { error: { code: 500, message: String(err), status: 'INTERNAL' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('fake Google Ads has no port');
  const url = `http://127.0.0.1:${address.port}`;
  return {
    url,
    version,
    clientId,
    clientSecret,
    developerToken,
    lists,
    /** Budgets, campaigns, ad groups, assets, ads, `setDay`, `disapprove`, `throttleNext`. */
    campaigns,
    requests,
    addCounts,
    /** Env for createTestApp: every Google host is this fake. */
    env: () => ({
      GOOGLE_ADS_CLIENT_ID: clientId,
      GOOGLE_ADS_CLIENT_SECRET: clientSecret,
      GOOGLE_ADS_DEVELOPER_TOKEN: developerToken,
      GOOGLE_ADS_API_URL: url,
      GOOGLE_ADS_API_VERSION: version,
      GOOGLE_DATA_MANAGER_URL: url,
      GOOGLE_OAUTH_AUTH_URL: url,
      GOOGLE_OAUTH_TOKEN_URL: url,
    }),
    /** A grant as the code exchange leaves it, with both scopes: `{refreshToken, accessToken}`. */
    grant: (ttlSeconds = 3599) => {
      const refresh = `1//${randomBytes(18).toString('hex')}`;
      const scope = `${ADWORDS} ${DATAMANAGER}`;
      refreshTokens.set(refresh, { scope, revoked: false });
      return { refreshToken: refresh, accessToken: mint(refresh, scope, ttlSeconds) };
    },
    /** Every access token expires now (401 UNAUTHENTICATED); refresh tokens still work. */
    expireAccessTokens: () => {
      for (const t of accessTokens.values()) t.expires = Date.now() - 1;
    },
    /** Every grant is revoked, as when the person removes Rally in their Google Account. */
    revokeAll: () => {
      for (const g of refreshTokens.values()) g.revoked = true;
    },
    /** After `after` member calls, the next `n` answer 429 RESOURCE_EXHAUSTED asking to wait `seconds`. */
    throttleNext: (n: number, seconds = 30, after = 0) => {
      throttled = n;
      throttleSeconds = seconds;
      throttleAfter = after;
    },
    /** After `after` member calls, the next `n` answer 503 UNAVAILABLE: nothing is stored. */
    failNext: (n: number, after = 0) => {
      failing = n;
      failAfter = after;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type FakeGoogleAds = Awaited<ReturnType<typeof startFakeGoogleAds>>;
