import { and, eq } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Profile } from '@node-saml/node-saml';
import { messageReply } from '@rally/shared/schemas/auth';
import { samlConfigs, sessions, ssoIdentities } from '../../db/schema/index.ts';
import { createSecretBox } from '../../lib/crypto.ts';
import { recordAudit } from '../audit/index.ts';
import { serviceProvider } from './service-provider.ts';
import { spKeyOf } from './sp-keys.ts';

const SIGNED_OUT = '/login';
const uuidParam = z.uuid('must be the id (UUID) of a client');
const message = z.string().min(1, 'is required').max(400_000, 'must be at most 400000 characters');

/**
 * SAML single logout (docs/saml.md "Single logout"): signing out of a SAML session sends a signed
 * LogoutRequest to the identity provider; the provider's LogoutRequest (HTTP-POST, or HTTP-Redirect
 * with a signature) ends that member's sessions of this client and is answered with a signed
 * LogoutResponse; the provider's LogoutResponse to ours lands the browser on the sign-in page.
 * Registered inside the SAML plugin, which parses form posts.
 */
export const samlSloRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app;
  const box = createSecretBox(config.appSecret);

  const configOf = async (clientId: string) => {
    const [row] = await db.select().from(samlConfigs).where(eq(samlConfigs.clientId, clientId));
    return row ?? null;
  };

  // SP-initiated: /api/logout asks each registered hook for where the browser goes next.
  app.sessions.logoutRedirects.push(async (auth) => {
    if (!auth.scopeClientId) return null;
    const row = await configOf(auth.scopeClientId);
    if (!row?.enabled || !row.sloUrl) return null;
    const [link] = await db
      .select({ subject: ssoIdentities.subject })
      .from(ssoIdentities)
      .where(
        and(
          eq(ssoIdentities.clientId, row.clientId),
          eq(ssoIdentities.userId, auth.user.id),
          eq(ssoIdentities.issuer, row.idpEntityId),
        ),
      );
    if (!link) return null;
    const key = await spKeyOf(db, box, row);
    const who = { issuer: row.idpEntityId, nameID: link.subject, nameIDFormat: row.nameIdFormat };
    return serviceProvider(config.publicUrl, row, key, { sign: true }).getLogoutUrlAsync(
      who as Profile,
      '',
      {},
    );
  });

  /** Checks a logout message, and for a LogoutRequest ends the member's sessions and answers. */
  async function handle(
    request: FastifyRequest,
    reply: FastifyReply,
    clientId: string,
    m: {
      SAMLRequest?: string | undefined;
      SAMLResponse?: string | undefined;
      RelayState?: string | undefined;
    },
    redirect: { query: Record<string, string>; raw: string } | null,
  ) {
    const row = await configOf(clientId);
    if (!row?.enabled) return reply.code(404).send({ message: 'SAML single sign-on is not set up.' });
    const key = await spKeyOf(db, box, row);
    const sp = serviceProvider(config.publicUrl, row, key, { sign: true });
    if (m.SAMLResponse) {
      // The answer to our LogoutRequest: the Rally session ended already; checked, then home.
      try {
        if (redirect) await sp.validateRedirectAsync(redirect.query, redirect.raw);
        else await sp.validatePostResponseAsync({ SAMLResponse: m.SAMLResponse });
      } catch (err) {
        request.log.info({ err, clientId }, 'SAML LogoutResponse refused');
      }
      return reply.redirect(SIGNED_OUT, 303);
    }
    let profile: Profile;
    try {
      // node-saml accepts an unsigned redirect; a LogoutRequest must be signed (it ends sessions).
      if (redirect && !redirect.query.Signature) throw new Error('unsigned LogoutRequest');
      const result = redirect
        ? await sp.validateRedirectAsync(redirect.query, redirect.raw)
        : await sp.validatePostRequestAsync({ SAMLRequest: m.SAMLRequest ?? '' });
      if (!result.profile) throw new Error('no LogoutRequest');
      profile = result.profile;
      if (profile.issuer !== row.idpEntityId) throw new Error('another issuer');
    } catch (err) {
      request.log.info({ err, clientId }, 'SAML LogoutRequest refused');
      return reply
        .code(400)
        .send({ message: 'The LogoutRequest is not signed by this client’s identity provider.' });
    }
    const [link] = await db
      .select({ userId: ssoIdentities.userId })
      .from(ssoIdentities)
      .where(
        and(
          eq(ssoIdentities.clientId, clientId),
          eq(ssoIdentities.issuer, row.idpEntityId),
          eq(ssoIdentities.subject, profile.nameID),
        ),
      );
    if (link) {
      // Only the sessions this client's single sign-on started: a password session stays.
      const ended = await db
        .delete(sessions)
        .where(and(eq(sessions.userId, link.userId), eq(sessions.scopeClientId, clientId)))
        .returning({ id: sessions.id });
      await app.identity.invalidateUser(link.userId);
      await recordAudit(db, {
        clientId,
        actor: null,
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
        action: 'sso.single_logout',
        target: { kind: 'user', id: link.userId },
        details: { protocol: 'saml', sessions: ended.length },
      });
    }
    if (!row.sloUrl) return reply.code(200).send({ message: 'Signed out.' });
    const url = await sp.getLogoutResponseUrlAsync(profile, m.RelayState ?? '', {}, true);
    return reply.redirect(url, 302);
  }

  const bodyOrQuery = z.object({
    SAMLRequest: message.optional(),
    SAMLResponse: message.optional(),
    RelayState: z.string().max(4000, 'must be at most 4000 characters').optional(),
    SigAlg: z.string().max(200).optional(),
    Signature: z.string().max(4000).optional(),
  });
  const oneOf = <T extends { SAMLRequest?: string | undefined; SAMLResponse?: string | undefined }>(
    v: T,
    ctx: z.RefinementCtx,
  ) => {
    if (!v.SAMLRequest && !v.SAMLResponse) {
      ctx.addIssue({ code: 'custom', path: ['SAMLRequest'], message: 'is required (or SAMLResponse)' });
    }
  };
  const summary =
    'Single logout service: a LogoutRequest from the identity provider (ends the member’s SAML sessions of this client, answers a LogoutResponse) or its LogoutResponse to ours';

  app.post(
    '/api/auth/saml/:clientId/slo',
    {
      // Posted cross-site by the identity provider's page: the XML signature vouches, no CSRF token.
      config: { access: 'public', csrf: false },
      schema: {
        tags: ['auth'],
        summary: `${summary} (HTTP-POST)`,
        params: z.object({ clientId: uuidParam }),
        body: bodyOrQuery.superRefine(oneOf),
        response: { 200: messageReply, 302: z.null(), 303: z.null(), 400: messageReply, 404: messageReply },
      },
    },
    async (request, reply) => handle(request, reply, request.params.clientId, request.body, null),
  );

  app.get(
    '/api/auth/saml/:clientId/slo',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary: `${summary} (HTTP-Redirect; a LogoutRequest must carry SigAlg and Signature)`,
        params: z.object({ clientId: uuidParam }),
        querystring: bodyOrQuery.superRefine(oneOf),
        response: { 200: messageReply, 302: z.null(), 303: z.null(), 400: messageReply, 404: messageReply },
      },
    },
    async (request, reply) => {
      const raw = request.url.split('?')[1] ?? '';
      const query = Object.fromEntries(
        Object.entries(request.query).filter((e): e is [string, string] => typeof e[1] === 'string'),
      );
      return handle(request, reply, request.params.clientId, request.query, { query, raw });
    },
  );
};
