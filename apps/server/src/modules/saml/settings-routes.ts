import { eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messageReply, fieldErrorReply as errorReply } from '@rally/shared/schemas/auth';
import { samlSettingsBody, samlSettingsReply } from '@rally/shared/schemas/saml';
import type { SamlSettings } from '@rally/shared/schemas/saml';
import { samlConfigs } from '../../db/schema/index.ts';
import { authOf, tenantOf } from '../../lib/access.ts';
import { createSecretBox } from '../../lib/crypto.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import { auditRequest } from '../audit/index.ts';
import { verifiedDomainsOf } from '../domains/index.ts';
import { SSO_OWNER_ONLY } from '../oauth/sso-settings-routes.ts';
import { endSsoSessions, storeSsoNotices } from '../oauth/sso-change.ts';
import type { Change } from '../oauth/sso-change.ts';
import { forgetSsoIdentities } from '../oauth/sso-identities.ts';
import { describeCertificate, parseIdpMetadata, toPem } from './idp-metadata.ts';
import { fetchIdpMetadata } from './metadata-refresh.ts';
import type { IdpMetadata } from './idp-metadata.ts';
import { spUrls } from './service-provider.ts';
import { newSpKey, spKeyOf } from './sp-keys.ts';

const uuidParam = z.uuid('must be the id (UUID) of a client');
const OWNER = 'purple_owner';

type Row = typeof samlConfigs.$inferSelect;

/**
 * A client's SAML settings. Reading needs client.write; changing them is for owners only, and every
 * member is e-mailed when SAML is turned on or its identity provider changes, as for OpenID Connect
 * (oauth/sso-settings-routes.ts, decision 0014).
 */
export const samlSettingsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app;

  const box = createSecretBox(config.appSecret);

  const replyOf = async (row: Row): Promise<SamlSettings> => {
    const urls = spUrls(config.publicUrl, row.clientId);
    const key = await spKeyOf(db, box, row);
    return {
      enabled: row.enabled,
      idp_entity_id: row.idpEntityId,
      sso_url: row.ssoUrl,
      certificates: row.certificates.map(describeCertificate),
      metadata_url: row.metadataUrl,
      name_id_format: row.nameIdFormat,
      email_attribute: row.emailAttribute,
      first_name_attribute: row.firstNameAttribute,
      last_name_attribute: row.lastNameAttribute,
      jit_enabled: row.jitEnabled,
      jit_role: row.jitRole,
      idp_initiated: row.idpInitiated,
      sp_entity_id: urls.entityId,
      acs_url: urls.acsUrl,
      sp_metadata_url: urls.metadataUrl,
      login_url: urls.loginUrl,
      sp_slo_url: urls.sloUrl,
      slo_url: row.sloUrl,
      sp_certificate: key.certPem,
      sp_certificate_fingerprint: describeCertificate(key.certPem).fingerprint,
      sign_requests: row.signRequests,
      idp_wants_signed_requests: row.idpWantsSignedRequests,
      require_encryption: row.requireEncryption,
      metadata_fetched_at: row.metadataFetchedAt?.toISOString() ?? null,
      metadata_checked_at: row.metadataCheckedAt?.toISOString() ?? null,
      metadata_error: row.metadataError,
      domains: await verifiedDomainsOf(db, row.clientId),
    };
  };

  /** The identity provider from pasted metadata, fetched metadata, or the fields entered by hand. */
  const idpOf = async (
    b: z.infer<typeof samlSettingsBody>,
    stored: typeof samlConfigs.$inferSelect | undefined,
  ): Promise<IdpMetadata> => {
    if (b.metadata_xml) {
      const parsed = parseIdpMetadata(b.metadata_xml);
      if (typeof parsed === 'string') throw fieldError('body.metadata_xml', parsed);
      return parsed;
    }
    if (b.metadata_url) {
      const fetched = await fetchIdpMetadata(b.metadata_url, config.allowPrivateFetch);
      if (typeof fetched === 'string') throw fieldError('body.metadata_url', fetched);
      return fetched;
    }
    if (!b.idp_entity_id) throw fieldError('body.idp_entity_id', 'is required without metadata');
    if (!b.sso_url) throw fieldError('body.sso_url', 'is required without metadata');
    // The screen shows saved settings as fields entered by hand, with the certificates box empty (a
    // certificate is shown by its fingerprint, not its PEM): saved again with no certificate for the
    // same identity provider, the certificates on file stay. A new provider needs its own.
    const same = stored && stored.idpEntityId === b.idp_entity_id ? stored : undefined;
    if (!b.certificates?.length && same?.certificates.length) {
      return {
        entityId: b.idp_entity_id,
        ssoUrl: b.sso_url,
        certificates: same.certificates,
        sloUrl: b.slo_url ?? null,
        wantsSignedRequests: same.idpWantsSignedRequests,
      };
    }
    if (!b.certificates?.length) throw fieldError('body.certificates', 'needs at least one certificate');
    const certificates = b.certificates.map((c, i) => {
      const pem = toPem(c);
      if (!pem) throw fieldError(`body.certificates.${i}`, 'is not an X.509 certificate (PEM or base64)');
      return pem;
    });
    return {
      entityId: b.idp_entity_id,
      ssoUrl: b.sso_url,
      certificates,
      sloUrl: b.slo_url ?? null,
      wantsSignedRequests: false,
    };
  };

  app.get(
    '/rest/client/:clientId/saml',
    {
      config: { access: { permission: 'client.write' } },
      schema: {
        tags: ['clients'],
        summary: "The client's SAML single sign-on settings and what to give the identity provider",
        params: z.object({ clientId: uuidParam }),
        response: { 200: samlSettingsReply, 404: messageReply },
      },
    },
    async (request, reply) => {
      const { clientId } = tenantOf(request);
      const [row] = await db.select().from(samlConfigs).where(eq(samlConfigs.clientId, clientId));
      if (!row) return reply.code(404).send({ message: 'SAML single sign-on is not set up.' });
      return replyOf(row);
    },
  );

  app.put(
    '/rest/client/:clientId/saml',
    {
      config: { access: { permission: 'client.write' } },
      schema: {
        tags: ['clients'],
        summary: "Set the client's SAML single sign-on, owners only",
        params: z.object({ clientId: uuidParam }),
        body: samlSettingsBody,
        response: { 200: samlSettingsReply, 403: messageReply, 422: errorReply },
      },
    },
    async (request) => {
      const tenant = tenantOf(request);
      if (tenant.role !== OWNER) throw httpError(403, SSO_OWNER_ONLY);
      const { clientId } = tenant;
      const b = request.body;
      const [stored] = await db.select().from(samlConfigs).where(eq(samlConfigs.clientId, clientId));
      const idp = await idpOf(b, stored);
      if (config.nodeEnv === 'production' && new URL(idp.ssoUrl).protocol !== 'https:') {
        throw fieldError(
          b.metadata_xml ? 'body.metadata_xml' : 'body.sso_url',
          'the sign-in URL must start with https://',
        );
      }
      const values = {
        enabled: b.enabled,
        idpEntityId: idp.entityId,
        ssoUrl: idp.ssoUrl,
        certificates: idp.certificates,
        metadataUrl: b.metadata_xml ? null : (b.metadata_url ?? null),
        nameIdFormat: b.name_id_format,
        emailAttribute: b.email_attribute ?? null,
        firstNameAttribute: b.first_name_attribute ?? null,
        lastNameAttribute: b.last_name_attribute ?? null,
        jitEnabled: b.jit_enabled,
        jitRole: b.jit_role,
        idpInitiated: b.idp_initiated,
        signRequests: b.sign_requests,
        idpWantsSignedRequests: idp.wantsSignedRequests,
        requireEncryption: b.require_encryption,
        sloUrl: idp.sloUrl,
        // Fetched just now (or not from a URL): the daily re-fetch starts afresh.
        metadataFetchedAt: b.metadata_xml || !b.metadata_url ? null : new Date(),
        metadataCheckedAt: b.metadata_xml || !b.metadata_url ? null : new Date(),
        metadataError: null,
        updatedAt: new Date(),
      };
      // Rally's own key for this client, made once (about 0.1 s) and kept across saves.
      const made = stored?.spCertificate ? null : await newSpKey(box, clientId);
      const keys = made ? { spPrivateKeyEnc: made.spPrivateKeyEnc, spCertificate: made.spCertificate } : {};
      const domains = await verifiedDomainsOf(db, clientId);
      const actor = authOf(request).user;
      const { outboxIds, endedFor, before, row } = await db.transaction(async (tx) => {
        // The row lock orders concurrent saves, so each change is noticed (and mailed) once.
        const [before] = await tx
          .select()
          .from(samlConfigs)
          .where(eq(samlConfigs.clientId, clientId))
          .for('update');
        const [row] = await tx
          .insert(samlConfigs)
          .values({ clientId, ...values, ...keys })
          .onConflictDoUpdate({ target: samlConfigs.clientId, set: { ...values, ...keys } })
          .returning();
        const issuerChanged = before !== undefined && before.idpEntityId !== values.idpEntityId;
        const change: Change =
          values.enabled && !before?.enabled
            ? 'turned_on'
            : values.enabled && issuerChanged
              ? 'issuer_changed'
              : null;
        // A member has one link per client (decision 0015): another provider starts afresh, and the
        // sessions the old one started end.
        if (change || issuerChanged) await forgetSsoIdentities(tx, clientId);
        const endedFor = issuerChanged || !values.enabled ? await endSsoSessions(tx, clientId) : [];
        const outboxIds = change
          ? await storeSsoNotices(tx, app.outbox, {
              clientId,
              change,
              actor,
              issuer: values.idpEntityId,
              domains,
              publicUrl: config.publicUrl,
            })
          : [];
        if (!row) throw new Error('upsert returned no row');
        return { outboxIds, endedFor, before, row };
      });
      for (const id of outboxIds) await app.outbox.dispatch(id);
      for (const userId of endedFor) await app.identity.invalidateUser(userId);
      const changed = (Object.keys(values) as (keyof typeof values)[]).filter(
        (k) =>
          !['updatedAt', 'metadataFetchedAt', 'metadataCheckedAt', 'metadataError'].includes(k) &&
          JSON.stringify(before?.[k]) !== JSON.stringify(values[k]),
      );
      await auditRequest(db, request, {
        action: 'sso.settings_changed',
        target: { kind: 'sso', id: clientId },
        details: { protocol: 'saml', fields: changed, enabled: values.enabled, issuer: values.idpEntityId },
      });
      return replyOf(row);
    },
  );
};
