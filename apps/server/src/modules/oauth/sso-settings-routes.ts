import { eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messageReply, fieldErrorReply as errorReply } from '@rally/shared/schemas/auth';
import { ssoSettingsBody, ssoSettingsReply } from '@rally/shared/schemas/sso';
import { ssoConfigs } from '../../db/schema/index.ts';
import { authOf, tenantOf } from '../../lib/access.ts';
import { createSecretBox } from '../../lib/crypto.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import { FetchBlockedError, assertFetchableUrl, fetchErrorMessage } from '../../lib/guarded-fetch.ts';
import { verifiedDomainsOf } from '../domains/index.ts';
import { createSsoDiscovery, guardedFetchErrorOf } from './discovery.ts';
import { forgetSsoIdentities } from './sso-identities.ts';
import { endSsoSessions, storeSsoNotices } from './sso-change.ts';
import type { Change } from './sso-change.ts';
import { auditRequest } from '../audit/index.ts';

const uuidParam = z.uuid('must be the id (UUID) of a client');
const OWNER = 'purple_owner';
export const SSO_OWNER_ONLY =
  'Access Denied: only an owner of this client can change single sign-on, because it decides who can sign in as its members.';

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
        const outboxIds = change
          ? await storeSsoNotices(tx, app.outbox, {
              clientId,
              change,
              actor,
              issuer: values.issuer,
              domains,
              publicUrl: config.publicUrl,
            })
          : [];
        return { outboxIds, endedFor };
      });
      for (const id of outboxIds) await app.outbox.dispatch(id);
      for (const userId of endedFor) await app.identity.invalidateUser(userId);
      await auditRequest(db, request, {
        action: 'sso.settings_changed',
        target: { kind: 'sso', id: clientId },
        details: {
          // Names of what changed, never the secret itself.
          fields: [
            ...(existing?.issuer !== values.issuer ? ['issuer'] : []),
            ...(existing?.oidcClientId !== values.oidcClientId ? ['client_id'] : []),
            ...(b.client_secret !== undefined ? ['client_secret'] : []),
            ...(existing?.enabled !== values.enabled ? ['enabled'] : []),
          ],
          enabled: values.enabled,
          issuer: values.issuer,
        },
      });
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
