import { and, asc, desc, eq } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as oidc from 'openid-client';
import { z } from 'zod';
import { messageReply } from '@rally/shared/schemas/auth';
import { OAUTH_PROVIDERS, oauthLinkReply, ssoStartQuery } from '@rally/shared/schemas/sso';
import type { OAuthError, OAuthProvider } from '@rally/shared/schemas/sso';
import { memberships, ssoConfigs } from '../../db/schema/index.ts';
import { createSecretBox, safeEqual } from '../../lib/crypto.ts';
import { authOf } from '../../lib/access.ts';
import { SERVICE_PREFIXES } from '../../lib/prefixes.ts';
import { findUser, findUserByEmail, startMfaChallenge } from '../auth/index.ts';
import { coversAddress } from '../domains/index.ts';
import { createDiscoveryCache, createSsoDiscovery } from './discovery.ts';
import type { OidcClient } from './discovery.ts';
import { linkOAuthIdentity, matchOAuthSignIn, subjectOf } from './oauth-identities.ts';
import { matchSsoIdentity } from './sso-identities.ts';

/** Holds state, nonce and PKCE verifier between the redirect to a provider and its callback. */
export const FLOW_COOKIE = 'rally_oauth';
const FLOW_TTL_MS = 10 * 60_000;
const SCOPE = 'openid email profile';
const SPA_CALLBACK = '/auth/callback';
/** Where linking a provider to a signed-in account ends (`?linked=` or `?link_error=`). */
const SPA_PROFILE = '/settings/profile';
const SSO_LINK_DENIED =
  'Access Denied: a session started by single sign-on cannot link other sign-in methods. Sign in with your password to do so.';

type FlowKind = OAuthProvider | 'sso';

const flowSchema = z.object({
  kind: z.literal('oauth-flow'),
  provider: z.enum([...OAUTH_PROVIDERS, 'sso']),
  state: z.string(),
  nonce: z.string(),
  verifier: z.string(),
  expires: z.number(),
  /** SSO: who asked to sign in, and the client whose identity provider vouches for them. */
  userId: z.uuid().optional(),
  clientId: z.uuid().optional(),
  /** Google or Microsoft: the signed-in user linking this provider's account to themselves. */
  linkUserId: z.uuid().optional(),
});
type Flow = z.infer<typeof flowSchema>;

const PROVIDER_NAMES: Record<OAuthProvider, string> = { google: 'Google', microsoft: 'Microsoft' };

/**
 * Sign-in with Google and Microsoft, single sign-on through a client's own OpenID Connect provider,
 * and the owners' SSO settings (ARCHITECTURE.md §4). Every flow is authorization code + PKCE with
 * state and nonce, and ends in the same session cookie as a password sign-in.
 */
export const oauthRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app;
  const box = createSecretBox(config.appSecret);
  const authPath = `${SERVICE_PREFIXES.main}/api/auth`;
  const flowCookie = {
    path: authPath,
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: config.secureCookies,
  };
  // Google and Microsoft: issuers the operator configured (tests point them at loopback fakes).
  const operatorDiscovery = createDiscoveryCache({ allowLoopbackHttp: config.nodeEnv !== 'production' });
  const ssoDiscovery = createSsoDiscovery(config);
  const discoveryFor = (kind: FlowKind) => (kind === 'sso' ? ssoDiscovery : operatorDiscovery);
  const redirectUri = (kind: FlowKind) => `${config.publicUrl}${authPath}/${kind}/callback`;

  /** Seals the flow into its cookie and returns the provider's authorization URL (null: discovery failed). */
  const beginFlow = async (
    request: FastifyRequest,
    reply: FastifyReply,
    kind: FlowKind,
    client: OidcClient,
    extra: { sso?: { userId: string; clientId: string; loginHint: string }; linkUserId?: string } = {},
  ): Promise<URL | null> => {
    const { sso, linkUserId } = extra;
    let configuration: oidc.Configuration;
    try {
      configuration = await discoveryFor(kind).get(client);
    } catch (err) {
      request.log.warn({ err, provider: kind, issuer: client.issuer }, 'OpenID Connect discovery failed');
      return null;
    }
    const verifier = oidc.randomPKCECodeVerifier();
    const flow: Flow = {
      kind: 'oauth-flow',
      provider: kind,
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier,
      expires: Date.now() + FLOW_TTL_MS,
      ...(sso ? { userId: sso.userId, clientId: sso.clientId } : {}),
      ...(linkUserId ? { linkUserId } : {}),
    };
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri(kind),
      response_type: 'code',
      scope: SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
      ...(sso ? { login_hint: sso.loginHint } : {}),
    });
    reply.setCookie(FLOW_COOKIE, box.encrypt(JSON.stringify(flow)), {
      ...flowCookie,
      maxAge: FLOW_TTL_MS / 1000,
    });
    return url;
  };

  const startFlow = async (
    request: FastifyRequest,
    reply: FastifyReply,
    kind: FlowKind,
    client: OidcClient,
    sso?: { userId: string; clientId: string; loginHint: string },
  ) => {
    const url = await beginFlow(request, reply, kind, client, { sso });
    return url ? reply.redirect(url.href, 302) : failTo(reply, 'provider_error');
  };

  /** The provider's redirect back: checks, exchanges the code, then signs the user in (or says why not). */
  const finishFlow = async (request: FastifyRequest, reply: FastifyReply, kind: FlowKind) => {
    const sealed = request.cookies[FLOW_COOKIE];
    reply.clearCookie(FLOW_COOKIE, flowCookie);
    const flow = openFlow(sealed, kind);
    const query = new URL(request.url, 'http://callback.invalid').searchParams;
    const states = query.getAll('state');
    if (!flow || states.length !== 1 || !safeEqual(states[0] ?? '', flow.state))
      return failTo(reply, 'invalid_state');
    const providerError = query.get('error');
    if (providerError) {
      request.log.info({ provider: kind, error: providerError }, 'provider refused the sign-in');
      return failTo(reply, providerError === 'access_denied' ? 'access_denied' : 'provider_error');
    }

    const client = kind === 'sso' ? await ssoClientOf(flow.clientId) : config[kind];
    if (!client) return failTo(reply, 'not_configured');

    let claims: Record<string, unknown>;
    try {
      const configuration = await discoveryFor(kind).get(client);
      const tokens = await oidc.authorizationCodeGrant(
        configuration,
        new URL(`${redirectUri(kind)}?${query.toString()}`),
        {
          pkceCodeVerifier: flow.verifier,
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        },
      );
      const idToken = tokens.claims();
      if (!idToken) throw new Error('no ID token');
      claims = { ...idToken };
      // Providers that keep e-mail claims out of the ID token serve them from userinfo.
      if (claims.email === undefined) {
        claims = {
          ...(await oidc.fetchUserInfo(configuration, tokens.access_token, idToken.sub)),
          ...idToken,
        };
      }
    } catch (err) {
      request.log.warn({ err, provider: kind }, 'OAuth sign-in failed at the provider');
      return failTo(reply, 'provider_error');
    }

    const email = typeof claims.email === 'string' ? claims.email.trim() : '';

    let userId: string;
    /** The one client a session started by its single sign-on may act in (decision 0014). */
    let scopeClientId: string | undefined;
    if (kind === 'sso') {
      if (!email) return failTo(reply, 'no_email');
      // Entra ID marks e-mail addresses of domains no one proved to own with xms_edov = false.
      if (isFalse(claims.email_verified) || isFalse(claims.xms_edov))
        return failTo(reply, 'email_unverified');
      const user = flow.userId ? await findUser(db, flow.userId) : null;
      if (!user || !flow.clientId || !(await isMember(user.id, flow.clientId)))
        return failTo(reply, 'not_configured');
      if (user.email.toLowerCase() !== email.toLowerCase()) return failTo(reply, 'email_mismatch');
      // A client's identity provider vouches only for addresses on domains the client proved it
      // controls (issue 37.1: else the owner of any client could sign in as any of its members).
      if (!(await coversAddress(db, flow.clientId, user.email))) return failTo(reply, 'domain_unverified');
      const subject = typeof claims.sub === 'string' ? claims.sub : '';
      const link = { clientId: flow.clientId, userId: user.id, issuer: client.issuer, subject };
      if (!subject || !(await matchSsoIdentity(db, link))) return failTo(reply, 'identity_mismatch');
      userId = user.id;
      scopeClientId = flow.clientId;
    } else {
      const subject = subjectOf(kind, claims);
      if (!subject) return failTo(reply, 'provider_error');
      if (flow.linkUserId) return finishLink(request, reply, kind, flow.linkUserId, subject, email);
      // By the stable subject once linked; by e-mail only when the provider verified it (37.2).
      const match = await matchOAuthSignIn(db, kind, subject, email, claims);
      if ('error' in match) return failTo(reply, match.error);
      const user = await findUser(db, match.userId);
      if (!user) return failTo(reply, 'no_account');
      // Google and Microsoft vouch for the e-mail address, not for a second factor we can see: a user with
      // TOTP on gives the code as after a password. SSO (above) is the client's own identity provider,
      // which enforces its own MFA, and is trusted (docs/decisions/0007-second-factor-for-every-sign-in.md).
      if (user.mfaSecretEnc) {
        await startMfaChallenge(db, reply, user.id, config.secureCookies);
        return reply.redirect(`${SPA_CALLBACK}?mfa=1`, 302);
      }
      userId = user.id;
    }
    await app.sessions.start(request, reply, userId, { scopeClientId, method: kind });
    return reply.redirect(SPA_CALLBACK, 302);
  };

  /** The end of linking: the same signed-in user who started it gets the provider's account linked. */
  const finishLink = async (
    request: FastifyRequest,
    reply: FastifyReply,
    provider: OAuthProvider,
    linkUserId: string,
    subject: string,
    email: string,
  ) => {
    const back = (q: string) => reply.redirect(`${SPA_PROFILE}?${q}`, 302);
    if (request.auth?.user.id !== linkUserId || request.auth.scopeClientId !== null)
      return back('link_error=invalid_state');
    const result = await linkOAuthIdentity(db, { provider, subject, userId: linkUserId, email });
    if (result !== 'linked') return back(`link_error=${result}`);
    request.log.info({ provider, userId: linkUserId }, 'provider account linked');
    return back(`linked=${provider}`);
  };

  const ssoClientOf = async (clientId: string | undefined): Promise<OidcClient | null> => {
    if (!clientId) return null;
    const [row] = await db
      .select()
      .from(ssoConfigs)
      .where(and(eq(ssoConfigs.clientId, clientId), eq(ssoConfigs.enabled, true)));
    return row
      ? { issuer: row.issuer, clientId: row.oidcClientId, clientSecret: box.decrypt(row.clientSecretEnc) }
      : null;
  };

  const isMember = async (userId: string, clientId: string | undefined) => {
    if (!clientId) return false;
    const [m] = await db
      .select({ id: memberships.id })
      .from(memberships)
      .where(and(eq(memberships.userId, userId), eq(memberships.clientId, clientId)));
    return m !== undefined;
  };

  function openFlow(sealed: string | undefined, kind: FlowKind): Flow | null {
    if (!sealed) return null;
    try {
      const flow = flowSchema.parse(JSON.parse(box.decrypt(sealed)));
      return flow.provider === kind && flow.expires > Date.now() ? flow : null;
    } catch {
      return null;
    }
  }

  /** A callback never answers with an error page: any failure sends the app a short reason. */
  const callbackRoute = (kind: FlowKind) =>
    app.get(
      `/api/auth/${kind}/callback`,
      {
        config: { access: 'public' },
        schema: {
          tags: ['auth'],
          summary: `Return from ${kind === 'sso' ? 'the organisation’s identity provider' : PROVIDER_NAMES[kind]}; redirects to /auth/callback`,
          response: { 302: z.null() },
        },
      },
      async (request, reply) => {
        try {
          return await finishFlow(request, reply, kind);
        } catch (err) {
          request.log.error({ err, provider: kind }, 'OAuth callback failed');
          return failTo(reply, 'provider_error');
        }
      },
    );

  for (const provider of OAUTH_PROVIDERS) {
    app.get(
      `/api/auth/${provider}`,
      {
        config: { access: 'public' },
        schema: {
          tags: ['auth'],
          summary: `Sign in with ${PROVIDER_NAMES[provider]} (redirects to the provider)`,
          response: { 302: z.null(), 404: messageReply },
        },
      },
      async (request, reply) => {
        const client = config[provider];
        if (!client)
          return reply.code(404).send({ message: `${PROVIDER_NAMES[provider]} sign-in is not configured` });
        return startFlow(request, reply, provider, client);
      },
    );
    callbackRoute(provider);

    // Linking while signed in: we know who the user is, so the provider need not vouch for the address.
    // A POST (CSRF-checked) that answers the URL, so no other site can start it in the user's browser.
    app.post(
      `/api/auth/${provider}/link`,
      {
        config: { access: 'session' },
        schema: {
          tags: ['auth'],
          summary: `Link a ${PROVIDER_NAMES[provider]} account to the signed-in user: answers the URL to open`,
          response: { 200: oauthLinkReply, 403: messageReply, 404: messageReply, 503: messageReply },
        },
      },
      async (request, reply) => {
        const auth = authOf(request);
        if (auth.scopeClientId !== null) return reply.code(403).send({ message: SSO_LINK_DENIED });
        const client = config[provider];
        if (!client)
          return reply.code(404).send({ message: `${PROVIDER_NAMES[provider]} sign-in is not configured` });
        const url = await beginFlow(request, reply, provider, client, { linkUserId: auth.user.id });
        if (!url)
          return reply
            .code(503)
            .send({ message: `${PROVIDER_NAMES[provider]} cannot be reached; try again later` });
        return { url: url.href };
      },
    );
  }

  app.get(
    '/api/auth/sso',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary:
          "Single sign-on: redirects to the identity provider of the user's organisation, else to /auth/callback?error=sso_unavailable (alike for unknown addresses)",
        querystring: ssoStartQuery,
        response: { 302: z.null() },
      },
    },
    async (request, reply) => {
      const user = await findUserByEmail(db, request.query.username);
      // Unknown address, no SSO, or a domain not verified: the same redirect, so that the answer
      // does not tell whether an account exists (issue 37.11).
      if (!user) return failTo(reply, 'sso_unavailable');
      // Only a client that verified the address's domain may vouch for it; among those, the default
      // client's settings win, then the oldest membership's.
      const rows = await db
        .select({
          clientId: ssoConfigs.clientId,
          issuer: ssoConfigs.issuer,
          oidcClientId: ssoConfigs.oidcClientId,
          secret: ssoConfigs.clientSecretEnc,
        })
        .from(memberships)
        .innerJoin(ssoConfigs, eq(ssoConfigs.clientId, memberships.clientId))
        .where(and(eq(memberships.userId, user.id), eq(ssoConfigs.enabled, true)))
        .orderBy(desc(memberships.isDefault), asc(memberships.createdAt));
      let row: (typeof rows)[number] | undefined;
      for (const r of rows) {
        if (await coversAddress(db, r.clientId, user.email)) {
          row = r;
          break;
        }
      }
      if (!row) return failTo(reply, 'sso_unavailable');
      let clientSecret: string;
      try {
        clientSecret = box.decrypt(row.secret);
      } catch (err) {
        // Only if APP_SECRET changed since the settings were saved: the owner has to enter the secret again.
        request.log.error({ err, clientId: row.clientId }, 'cannot decrypt the SSO client secret');
        return failTo(reply, 'provider_error');
      }
      const client = { issuer: row.issuer, clientId: row.oidcClientId, clientSecret };
      return startFlow(request, reply, 'sso', client, {
        userId: user.id,
        clientId: row.clientId,
        loginHint: user.email,
      });
    },
  );
  callbackRoute('sso');
};

function failTo(reply: FastifyReply, reason: OAuthError) {
  return reply.redirect(`${SPA_CALLBACK}?error=${reason}`, 302);
}

function isFalse(v: unknown): boolean {
  return v === false || v === 'false';
}
