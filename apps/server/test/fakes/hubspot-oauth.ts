import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError, hsError } from './hubspot-properties.ts';

/**
 * The fake HubSpot's OAuth (test/fakes/hubspot.ts): the consent screen, and the date-versioned OAuth API
 * of test/vendor-specs/hubspot-sync-* (`POST /oauth/2026-03/token`, `.../token/introspect`,
 * `.../token/revoke`), with the tokens it issued (access tokens expire in 1,800 s; the refresh token
 * is kept across refreshes) and the controls tests use to expire or revoke them.
 */

export const HUBSPOT_SCOPES = [
  'oauth',
  'crm.objects.deals.read',
  'crm.objects.contacts.read',
  'crm.objects.companies.read',
  'crm.objects.owners.read',
  'crm.schemas.deals.read',
  'crm.lists.read',
  'crm.objects.contacts.write',
  'crm.schemas.contacts.write',
];

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json;charset=utf-8', ...headers });
  res.end(body === undefined ? '' : JSON.stringify(body));
}

export function createFakeHubSpotOAuth(o: {
  clientId: string;
  clientSecret: string;
  hubId: number;
  now: () => number;
  /** The scopes a consent grants (space-separated); default all. */
  scope?: string;
}) {
  const { clientId, clientSecret, hubId, now } = o;
  let grantScope = o.scope ?? HUBSPOT_SCOPES.join(' ');
  let revoked = 0;
  const codes = new Map<string, { redirectUri: string; scope: string }>();
  const access = new Map<string, { expiresAt: number; scope: string; refresh: string }>();
  const refreshTokens = new Map<string, { scope: string }>();

  function issue(scope: string, refresh?: string) {
    const token = `CO${randomBytes(24).toString('base64url')}`;
    const r = refresh ?? `na1-${randomUUID()}`;
    refreshTokens.set(r, { scope });
    access.set(token, { expiresAt: now() + 1800_000, scope, refresh: r });
    // AccessTokenResponse of the 2026-03 OAuth spec.
    return {
      access_token: token,
      refresh_token: r,
      expires_in: 1800,
      token_type: 'bearer',
      token_use: 'access_token',
      hub_id: hubId,
      scopes: scope.split(' '),
      user_id: 7001,
    };
  }

  /**
   * The date-versioned OAuth API's errors carry RFC 6749's `error` and `error_description` beside
   * HubSpot's own `status` and `message` (changelog "New OAuth v3 API Endpoints and Standardized Error
   * Responses").
   */
  const oauthError = (status: string, error: string, message: string) =>
    new HttpError(400, { error, error_description: message, status, message, correlationId: randomUUID() });

  /** The app's own credentials in a form body (token, introspect and revoke all ask for them). */
  function clientAuth(form: URLSearchParams) {
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) {
      throw oauthError('BAD_CLIENT_ID', 'invalid_client', 'missing or unknown client id');
    }
  }

  async function token(req: IncomingMessage, res: ServerResponse) {
    const form = new URLSearchParams(await readBody(req));
    clientAuth(form);
    if (form.get('grant_type') === 'authorization_code') {
      const c = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (!c) {
        throw oauthError('BAD_AUTH_CODE', 'invalid_grant', 'missing or unknown auth code');
      }
      if (c.redirectUri !== form.get('redirect_uri')) {
        throw oauthError('BAD_REDIRECT_URI', 'invalid_grant', 'redirect_uri does not match');
      }
      return send(res, 200, issue(c.scope));
    }
    if (form.get('grant_type') === 'refresh_token') {
      const r = form.get('refresh_token') ?? '';
      const known = refreshTokens.get(r);
      if (!known) {
        throw oauthError(
          'BAD_REFRESH_TOKEN',
          'invalid_grant',
          'refresh token is invalid, expired or revoked',
        );
      }
      // HubSpot keeps the refresh token: the reply repeats it.
      return send(res, 200, issue(known.scope, r));
    }
    throw oauthError('BAD_GRANT_TYPE', 'unsupported_grant_type', 'unsupported grant_type');
  }

  /**
   * `POST /oauth/2026-03/token/introspect` (form: client_id, client_secret, token, token_type_hint):
   * the token's metadata (PublicAccessTokenInfoResponse / PublicRefreshTokenInfoResponse of the
   * spec: active, hub_id, hub_domain, scopes, token_use...). A token that is unknown, expired or
   * revoked answers `{active: false}` with 200, as RFC 7662 §2.2 (the endpoint's model) says.
   */
  async function introspect(req: IncomingMessage, res: ServerResponse) {
    const form = new URLSearchParams(await readBody(req));
    clientAuth(form);
    const t = form.get('token') ?? '';
    const a = access.get(t);
    const r = refreshTokens.get(t);
    const common = { app_id: 12345, client_id: clientId, hub_id: hubId, user: 'owner@hubspot.example' };
    if (a && a.expiresAt > now() && refreshTokens.has(a.refresh)) {
      return send(res, 200, {
        ...common,
        active: true,
        token: t,
        token_use: 'access_token',
        token_type: 'access',
        hub_domain: 'fake-portal.hubspot.example',
        scopes: a.scope.split(' '),
        expires_in: Math.round((a.expiresAt - now()) / 1000),
        user_id: 7001,
        is_private_distribution: false,
      });
    }
    if (r) {
      return send(res, 200, {
        ...common,
        active: true,
        token: t,
        token_use: 'refresh_token',
        token_type: 'refresh',
        hub_domain: 'fake-portal.hubspot.example',
        scopes: r.scope.split(' '),
        user_id: 7001,
      });
    }
    return send(res, 200, { active: false });
  }

  /**
   * `POST /oauth/2026-03/token/revoke` (form: client_id, client_secret, token, token_type_hint):
   * "Deletes/Revokes provided Refresh Token" (the spec), the replacement of `DELETE
   * /oauth/v1/refresh-tokens/{token}` (changelog "v1 OAuth API Deprecation"). The tokens it
   * issued stop working. An unknown token is no error (RFC 7009 §2.2: 200 either way).
   */
  async function revoke(req: IncomingMessage, res: ServerResponse) {
    const form = new URLSearchParams(await readBody(req));
    clientAuth(form);
    const t = form.get('token') ?? '';
    refreshTokens.delete(t);
    revoked += 1;
    res.writeHead(200);
    res.end();
  }

  /** HubSpot's consent screen, auto-approved (or denied via `denyNextConsent`). */
  let denyNext = false;
  function authorize(q: URLSearchParams, res: ServerResponse) {
    if (q.get('client_id') !== clientId) throw hsError(400, 'VALIDATION_ERROR', 'unknown client_id');
    let back: URL;
    try {
      back = new URL(q.get('redirect_uri') ?? '');
    } catch {
      throw hsError(400, 'VALIDATION_ERROR', 'redirect_uri is not a URL');
    }
    const requested = (q.get('scope') ?? '').split(/\s+/).filter(Boolean);
    const unknown = requested.filter((s) => !HUBSPOT_SCOPES.includes(s));
    const state = q.get('state');
    if (state !== null) back.searchParams.set('state', state);
    if (unknown.length > 0) back.searchParams.set('error', 'invalid_scope');
    else if (denyNext) {
      denyNext = false;
      back.searchParams.set('error', 'access_denied');
    } else {
      const code = randomUUID();
      const granted = grantScope.split(' ').filter((s) => requested.includes(s) || s === 'oauth');
      codes.set(code, { redirectUri: q.get('redirect_uri')!, scope: granted.join(' ') });
      back.searchParams.set('code', code);
    }
    res.writeHead(302, { location: back.toString() });
    res.end();
  }

  function bearer(req: IncomingMessage) {
    const t = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const a = t ? access.get(t) : undefined;
    if (!a || a.expiresAt <= now() || !refreshTokens.has(a.refresh)) {
      throw hsError(
        401,
        'EXPIRED_AUTHENTICATION',
        'The OAuth token used to make this call expired or is not valid.',
      );
    }
    return a;
  }

  return {
    authorize,
    token,
    introspect,
    revoke,
    bearer,
    controls: {
      /** How many revocations were asked for (`POST /oauth/2026-03/token/revoke`). */
      revocations: () => revoked,
      /** Tokens for tests that skip the consent screen. */
      issueTokens: (scope = grantScope) => issue(scope),
      /** The scopes later consents grant (a portal without some features grants fewer). */
      grantScope(scope: string) {
        grantScope = scope;
      },
      denyNextConsent() {
        denyNext = true;
      },
      /** Every access token expires now (401 EXPIRED_AUTHENTICATION); refresh tokens still work. */
      expireAccessTokens() {
        for (const a of access.values()) a.expiresAt = 0;
      },
      /** The app was uninstalled: access and refresh tokens stop working (refresh → BAD_REFRESH_TOKEN). */
      revokeAccess() {
        refreshTokens.clear();
      },
    },
  };
}
