import { randomUUID } from 'node:crypto';
import { eq, lt, sql } from 'drizzle-orm';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Profile } from '@node-saml/node-saml';
import { fieldErrorReply, messageReply } from '@rally/shared/schemas/auth';
import type { OAuthError } from '@rally/shared/schemas/sso';
import { samlAssertions, samlConfigs, users } from '../../db/schema/index.ts';
import { createSecretBox } from '../../lib/crypto.ts';
import { findUserByEmail } from '../auth/index.ts';
import { coversAddress } from '../domains/index.ts';
import { matchSsoIdentity } from '../oauth/sso-identities.ts';
import { grantMembership, membershipOf } from '../scim/membership.ts';
import { isEncryptedResponse } from './idp-metadata.ts';
import { assertionFacts, serviceProvider, spMetadata } from './service-provider.ts';
import { spKeyOf } from './sp-keys.ts';
import { samlSloRoutes } from './slo-routes.ts';

const SPA_CALLBACK = '/auth/callback';
const REQUEST_TTL_MS = 10 * 60_000;
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const uuidParam = z.uuid('must be the id (UUID) of a client');

/** What the RelayState carries, sealed: which AuthnRequest of which client the response answers. */
const relaySchema = z.object({
  kind: z.literal('saml-relay'),
  clientId: z.uuid(),
  requestId: z.string(),
  expires: z.number(),
});

/**
 * SAML 2.0 sign-in (docs/saml.md): the service provider's metadata, SP-initiated sign-in and the
 * assertion consumer service. A session it starts can act in its client only, like OpenID Connect
 * single sign-on (decision 0014), and it vouches only for addresses on the client's verified domains.
 */
export const samlRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app;
  const box = createSecretBox(config.appSecret);
  // Only this plugin reads form posts (the identity provider posts the response as a form).
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 512 * 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );

  await app.register(samlSloRoutes);

  const configOf = async (clientId: string) => {
    const [row] = await db.select().from(samlConfigs).where(eq(samlConfigs.clientId, clientId));
    return row ?? null;
  };

  app.get(
    '/api/auth/saml/:clientId/metadata',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary: "The service provider's SAML metadata for this client (entity ID, ACS URL)",
        params: z.object({ clientId: uuidParam }),
        response: { 200: z.string(), 404: messageReply },
      },
    },
    async (request, reply) => {
      const row = await configOf(request.params.clientId);
      if (!row) return reply.code(404).send({ message: 'SAML single sign-on is not set up.' });
      const xml = spMetadata(config.publicUrl, row, await spKeyOf(db, box, row));
      return reply.type('application/samlmetadata+xml').send(xml);
    },
  );

  app.get(
    '/api/auth/saml/:clientId/login',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary:
          "SP-initiated SAML sign-in: redirects to the client's identity provider, else to /auth/callback?error=sso_unavailable",
        params: z.object({ clientId: uuidParam }),
        response: { 302: z.null() },
      },
    },
    async (request, reply) => {
      const row = await configOf(request.params.clientId);
      if (!row?.enabled) return failTo(reply, 'sso_unavailable');
      const requestId = `_${randomUUID()}`;
      const relay = box.encrypt(
        JSON.stringify({
          kind: 'saml-relay',
          clientId: row.clientId,
          requestId,
          expires: Date.now() + REQUEST_TTL_MS,
        } satisfies z.infer<typeof relaySchema>),
      );
      const key = await spKeyOf(db, box, row);
      const url = await serviceProvider(config.publicUrl, row, key, { requestId }).getAuthorizeUrlAsync(
        relay,
        undefined,
        {},
      );
      return reply.redirect(url, 302);
    },
  );

  app.post(
    '/api/auth/saml/:clientId/acs',
    {
      // The identity provider's page posts here cross-site: no CSRF token, the signed assertion vouches.
      config: { access: 'public', csrf: false },
      schema: {
        tags: ['auth'],
        summary:
          'Assertion consumer service (HTTP-POST): checks the response, then redirects to /auth/callback',
        params: z.object({ clientId: uuidParam }),
        body: z.object({
          SAMLResponse: z.string({ error: 'is required' }).min(1, 'is required').max(400_000),
          RelayState: z.string().max(4000).optional(),
        }),
        response: { 303: z.null(), 422: fieldErrorReply },
      },
    },
    async (request, reply) => {
      const { clientId } = request.params;
      const row = await configOf(clientId);
      if (!row?.enabled) return failTo(reply, 'not_configured');
      const relay = openRelay(request.body.RelayState, clientId);
      // Unsolicited (IdP-initiated) responses only when the owner turned them on.
      if (!relay && !row.idpInitiated) return failTo(reply, 'idp_initiated_off');

      // Checked before anything is decrypted: the owner asked that assertions travel encrypted only.
      if (row.requireEncryption && !isEncryptedResponse(request.body.SAMLResponse)) {
        request.log.info({ clientId }, 'SAML response refused: assertion not encrypted');
        return failTo(reply, 'assertion_unencrypted');
      }
      let profile: Profile;
      try {
        const key = await spKeyOf(db, box, row);
        const sp = serviceProvider(config.publicUrl, row, key, { expectRequest: relay?.requestId ?? null });
        const result = await sp.validatePostResponseAsync({ SAMLResponse: request.body.SAMLResponse });
        if (!result.profile) throw new Error('no profile');
        profile = result.profile;
      } catch (err) {
        request.log.info({ err, clientId }, 'SAML response refused');
        return failTo(reply, 'assertion_invalid');
      }

      // Each assertion signs in once, on whichever instance sees it first (the key is unique).
      const facts = assertionFacts(profile.getAssertion?.());
      if (!facts) return failTo(reply, 'assertion_invalid');
      await db.delete(samlAssertions).where(lt(samlAssertions.expiresAt, new Date()));
      const fresh = await db
        .insert(samlAssertions)
        .values({ issuer: row.idpEntityId, assertionId: facts.id, expiresAt: facts.notOnOrAfter })
        .onConflictDoNothing()
        .returning({ id: samlAssertions.assertionId });
      if (fresh.length === 0) {
        request.log.warn({ clientId, assertionId: facts.id }, 'SAML assertion replayed');
        return failTo(reply, 'assertion_replayed');
      }

      const attr = (name: string | null) => {
        const v = name ? profile[name] : undefined;
        const first = Array.isArray(v) ? v[0] : v;
        return typeof first === 'string' ? first.trim() : '';
      };
      const subject = profile.nameID ?? '';
      const email = (
        row.emailAttribute
          ? attr(row.emailAttribute)
          : profile.nameIDFormat === EMAIL_FORMAT
            ? subject
            : attr('email') || attr('mail')
      ).toLowerCase();
      if (!email || !subject) return failTo(reply, 'no_email');
      // The client's identity provider vouches only for addresses on its verified domains (37.1).
      if (!(await coversAddress(db, clientId, email))) return failTo(reply, 'domain_unverified');

      let user = await findUserByEmail(db, email);
      const member = user ? await membershipOf(db, clientId, user.id) : null;
      if (!member) {
        if (!row.jitEnabled) return failTo(reply, 'no_account');
        // Just-in-time membership: the account is made (without a password) if there is none.
        await db.transaction(async (tx) => {
          const [found] = await tx
            .select({ id: users.id })
            .from(users)
            .where(sql`lower(${users.email}) = ${email}`);
          let id = found?.id;
          if (!id) {
            const [made] = await tx
              .insert(users)
              .values({
                email,
                firstName: attr(row.firstNameAttribute),
                lastName: attr(row.lastNameAttribute),
              })
              .returning({ id: users.id });
            if (!made) throw new Error('insert returned no row');
            id = made.id;
          }
          await grantMembership(tx, clientId, id, row.jitRole);
        });
        user = await findUserByEmail(db, email);
        if (!user) return failTo(reply, 'no_account');
        request.log.info({ clientId, userId: user.id, role: row.jitRole }, 'SAML just-in-time membership');
      }
      if (!user) return failTo(reply, 'no_account');
      // Matched by the stable subject (NameID) once linked (decision 0015).
      const link = { clientId, userId: user.id, issuer: row.idpEntityId, subject };
      if (!(await matchSsoIdentity(db, link))) return failTo(reply, 'identity_mismatch');
      await app.sessions.start(request, reply, user.id, { scopeClientId: clientId, method: 'saml' });
      return reply.redirect(SPA_CALLBACK, 303);
    },
  );

  function openRelay(sealed: string | undefined, clientId: string) {
    if (!sealed) return null;
    try {
      const relay = relaySchema.parse(JSON.parse(box.decrypt(sealed)));
      return relay.clientId === clientId && relay.expires > Date.now() ? relay : null;
    } catch {
      return null;
    }
  }
};

function failTo(reply: FastifyReply, reason: OAuthError) {
  // After the identity provider's POST, 303 makes the browser GET the app.
  return reply.redirect(`${SPA_CALLBACK}?error=${reason}`, 303);
}
