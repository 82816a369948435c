import { eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PRODUCT_NAME } from '@rally/shared';
import { messageReply } from '@rally/shared/schemas/auth';
import { ssoSettingsBody, ssoSettingsReply } from '@rally/shared/schemas/sso';
import type { Db } from '../../db/client.ts';
import { clients, memberships, sessions, ssoConfigs, users } from '../../db/schema/index.ts';
import { authOf, tenantOf } from '../../lib/access.ts';
import { createSecretBox } from '../../lib/crypto.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import { FetchBlockedError, assertFetchableUrl, fetchErrorMessage } from '../../lib/guarded-fetch.ts';
import { noticeMail } from '../mail/compose.ts';
import { verifiedDomainsOf } from '../domains/index.ts';
import { createSsoDiscovery, guardedFetchErrorOf } from './discovery.ts';
import { forgetSsoIdentities } from './sso-identities.ts';

const uuidParam = z.uuid('must be the id (UUID) of a client');
const errorReply = messageReply.extend({
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});
const OWNER = 'purple_owner';
export const SSO_OWNER_ONLY =
  'Access Denied: only an owner of this client can change single sign-on, because it decides who can sign in as its members.';

type Change = 'turned_on' | 'issuer_changed' | null;

/** What members are told when single sign-on starts vouching for them, or another provider does. */
function memberNotice(
  to: string,
  change: Exclude<Change, null>,
  c: { client: string; actor: string; issuer: string; domains: string[]; link: string },
) {
  const where = c.domains.length
    ? `addresses at ${c.domains.join(', ')}`
    : 'addresses on the domains the client verifies';
  const subject =
    change === 'turned_on'
      ? `Single sign-on was turned on for ${c.client}`
      : `The single sign-on provider of ${c.client} changed`;
  const first =
    change === 'turned_on'
      ? `${c.actor} turned on single sign-on for ${c.client} on ${PRODUCT_NAME}.`
      : `${c.actor} changed the single sign-on provider of ${c.client} on ${PRODUCT_NAME}.`;
  return noticeMail(
    to,
    subject,
    [
      first,
      `From now on ${c.issuer} can sign members with ${where} in to ${c.client}, without their ${PRODUCT_NAME} password. A session started that way can use ${c.client} only.`,
      `If you did not expect this, tell an owner of ${c.client}. The client's domains and single sign-on settings are here:`,
    ],
    c.link,
  );
}

async function endSsoSessions(db: Pick<Db, 'delete'>, clientId: string): Promise<string[]> {
  const ended = await db
    .delete(sessions)
    .where(eq(sessions.scopeClientId, clientId))
    .returning({ userId: sessions.userId });
  return [...new Set(ended.map((r) => r.userId))];
}

/**
 * A client's single sign-on settings (OpenID Connect). Reading them needs client.write; changing
 * them is for owners only (issue 37.1). Every member is e-mailed when single sign-on is turned on or
 * its issuer changes; an issuer change or turning it off ends the sessions it started.
 */
export const ssoSettingsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app;
  const box = createSecretBox(config.appSecret);
  const discovery = createSsoDiscovery(config);

  app.get(
    '/rest/client/:clientId/sso',
    {
      config: { access: { permission: 'client.write' } },
      schema: {
        tags: ['clients'],
        summary: "The client's single sign-on settings (never the secret) and the domains it speaks for",
        params: z.object({ clientId: uuidParam }),
        response: { 200: ssoSettingsReply, 404: messageReply },
      },
    },
    async (request, reply) => {
      const { clientId } = tenantOf(request);
      const [row] = await db.select().from(ssoConfigs).where(eq(ssoConfigs.clientId, clientId));
      if (!row) return reply.code(404).send({ message: 'Single sign-on is not set up.' });
      return {
        issuer: row.issuer,
        client_id: row.oidcClientId,
        enabled: row.enabled,
        has_secret: true,
        domains: await verifiedDomainsOf(db, clientId),
      };
    },
  );

  app.put(
    '/rest/client/:clientId/sso',
    {
      config: { access: { permission: 'client.write' } },
      schema: {
        tags: ['clients'],
        summary:
          "Set the client's single sign-on (OpenID Connect) settings, owners only; the secret is stored encrypted",
        params: z.object({ clientId: uuidParam }),
        body: ssoSettingsBody,
        response: { 200: ssoSettingsReply, 403: messageReply, 422: errorReply },
      },
    },
    async (request) => {
      const tenant = tenantOf(request);
      if (tenant.role !== OWNER) throw httpError(403, SSO_OWNER_ONLY);
      const { clientId } = tenant;
      const b = request.body;
      if (config.nodeEnv === 'production' && new URL(b.issuer).protocol !== 'https:') {
        throw fieldError('body.issuer', 'must start with https://');
      }
      // Sign-ins will fetch from this issuer: refuse an internal address now (issue 20).
      await assertFetchableUrl('body.issuer', b.issuer, { allowPrivate: config.allowPrivateFetch });
      const [existing] = await db.select().from(ssoConfigs).where(eq(ssoConfigs.clientId, clientId));
      const keptSecret = existing?.oidcClientId === b.client_id ? existing.clientSecretEnc : undefined;
      const clientSecretEnc = b.client_secret === undefined ? keptSecret : box.encrypt(b.client_secret);
      if (clientSecretEnc === undefined) {
        throw fieldError(
          'body.client_secret',
          existing ? 'is required when the client id changes' : 'is required',
        );
      }
      // Catch a mistyped issuer now rather than at the next sign-in.
      if (b.enabled) {
        try {
          await discovery.probe(b.issuer);
        } catch (err) {
          request.log.info({ err, issuer: b.issuer }, 'SSO issuer discovery failed');
          const refused = guardedFetchErrorOf(err);
          throw fieldError(
            'body.issuer',
            refused instanceof FetchBlockedError
              ? fetchErrorMessage(refused)
              : 'no OpenID Connect provider answers at this address (…/.well-known/openid-configuration)',
          );
        }
      }
      const values = {
        issuer: b.issuer,
        oidcClientId: b.client_id,
        clientSecretEnc,
        enabled: b.enabled,
        updatedAt: new Date(),
      };
      const domains = await verifiedDomainsOf(db, clientId);
      const actor = authOf(request).user;
      const { outboxIds, endedFor } = await db.transaction(async (tx) => {
        // The row lock orders concurrent saves, so each change is noticed (and mailed) once.
        const [before] = await tx
          .select()
          .from(ssoConfigs)
          .where(eq(ssoConfigs.clientId, clientId))
          .for('update');
        await tx
          .insert(ssoConfigs)
          .values({ clientId, ...values })
          .onConflictDoUpdate({ target: ssoConfigs.clientId, set: values });
        const issuerChanged = before !== undefined && before.issuer !== values.issuer;
        const change: Change =
          values.enabled && !before?.enabled
            ? 'turned_on'
            : values.enabled && issuerChanged
              ? 'issuer_changed'
              : null;
        // Links to the old provider's accounts mean nothing to the new one; its sessions end too.
        if (issuerChanged) await forgetSsoIdentities(tx, clientId);
        const endedFor = issuerChanged || !values.enabled ? await endSsoSessions(tx, clientId) : [];
        const outboxIds: string[] = [];
        if (change) {
          const [client] = await tx
            .select({ name: clients.name })
            .from(clients)
            .where(eq(clients.id, clientId));
          const members = await tx
            .select({ email: users.email })
            .from(memberships)
            .innerJoin(users, eq(users.id, memberships.userId))
            .where(eq(memberships.clientId, clientId));
          const facts = {
            client: client?.name ?? 'your client',
            actor: `${actor.firstName} ${actor.lastName}`.trim() || actor.email,
            issuer: values.issuer,
            domains,
            link: `${config.publicUrl}/settings/domain?client_id=${clientId}`,
          };
          for (const m of members) {
            outboxIds.push(await app.outbox.store({ ...memberNotice(m.email, change, facts), clientId }, tx));
          }
        }
        return { outboxIds, endedFor };
      });
      for (const id of outboxIds) await app.outbox.dispatch(id);
      for (const userId of endedFor) await app.identity.invalidateUser(userId);
      return {
        issuer: values.issuer,
        client_id: values.oidcClientId,
        enabled: values.enabled,
        has_secret: true,
        domains,
      };
    },
  );
};
