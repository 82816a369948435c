import { and, eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { marketoConnectionBody, marketoConnectionReply } from '@rally/shared/schemas/crm';
import { crmIntegrationSettings, integrations } from '../../db/schema/index.ts';
import { tenantOf } from '../../lib/access.ts';
import { createSecretBox } from '../../lib/crypto.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import { toIntegrationReply } from '../integrations/reply.ts';
import { VendorAuthError, VendorError, VendorUnreachableError } from '../integrations/vendor-http.ts';
import { normalizeMarketoBase } from './adapters/marketo/adapter.ts';
import type { ClientCredentials, Credentials } from './port.ts';
import { auditRequest } from '../audit/index.ts';

/** Marketo's REST hosts: one per subscription, named by its Munchkin ID (123-ABC-456). */
const MARKETO_REST_HOST = /^[a-z0-9][a-z0-9-]{0,62}\.mktorest\.com$/i;

const params = z.object({ clientId: z.uuid('must be the id (UUID) of a client') });

/**
 * Connecting Marketo (SPEC.md §7 "CRM integrations"): no OAuth redirect; the owner enters the API
 * user's client id and secret and the subscription's REST base URL. They are checked against
 * Marketo (a token, then one REST call) before anything is stored, sealed with APP_SECRET; a
 * Marketo that cannot be reached is a 502 naming it, refused credentials a 422 naming the field.
 * Disconnecting, settings and "sync now" are the shared …/marketo/client/{id}/settings routes.
 */
export const marketoConnectionRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config, crmSync: sync } = app;
  const box = createSecretBox(config.appSecret);

  async function connection(clientId: string) {
    const [row] = await db
      .select()
      .from(integrations)
      .where(and(eq(integrations.clientId, clientId), eq(integrations.source, 'marketo')));
    return row ?? null;
  }

  function replyOf(row: typeof integrations.$inferSelect | null) {
    let creds: Credentials | null = null;
    if (row?.credentialsEnc) creds = JSON.parse(box.decrypt(row.credentialsEnc)) as Credentials;
    const cc = creds?.kind === 'client_credentials' ? creds : null;
    return {
      source: 'marketo' as const,
      rest_base_url: cc?.baseUrl ?? null,
      client_id_hint: cc ? `…${cc.clientId.slice(-4)}` : null,
      integration: row ? toIntegrationReply(row) : null,
    };
  }

  /**
   * The base URL the server will call. It comes from a user, so unless ALLOW_PRIVATE_FETCH is on
   * (tests' loopback fakes, local development) it is pinned to Marketo's own REST hosts,
   * https://<Munchkin ID>.mktorest.com: the server cannot be made to call anything else.
   */
  function checkedBase(raw: string): string {
    let base: string;
    try {
      base = normalizeMarketoBase(raw);
    } catch {
      throw fieldError('body.rest_base_url', 'must be a URL like https://123-ABC-456.mktorest.com/rest');
    }
    if (config.allowPrivateFetch) return base;
    const url = new URL(base);
    if (url.protocol !== 'https:' || url.port !== '' || !MARKETO_REST_HOST.test(url.hostname)) {
      throw fieldError(
        'body.rest_base_url',
        'must be your Marketo REST endpoint, https://<Munchkin ID>.mktorest.com/rest',
      );
    }
    return base;
  }

  app.get(
    '/integration/crm/marketo/client/:clientId/connection',
    {
      config: { access: 'member' },
      schema: {
        tags: ['crm'],
        summary:
          "Marketo's stored connection: REST base URL, a hint of the client id, state (never the secret)",
        params,
        response: { 200: marketoConnectionReply },
      },
    },
    async (request) => replyOf(await connection(tenantOf(request).clientId)),
  );

  app.post(
    '/integration/crm/marketo/client/:clientId/connection',
    {
      config: { access: { permission: 'integration.write' } },
      schema: {
        tags: ['crm'],
        summary:
          'Connect Marketo with an API user (client id, secret, REST base URL), checked before storing',
        params,
        body: marketoConnectionBody,
        response: { 200: marketoConnectionReply, 502: z.object({ message: z.string() }) },
      },
    },
    async (request, reply) => {
      const clientId = tenantOf(request).clientId;
      const adapter = sync.adapters.marketo;
      if (!adapter?.connect) throw httpError(501, 'Marketo cannot be connected on this server.');
      const b = request.body;
      const baseUrl = checkedBase(b.rest_base_url);
      let creds: Credentials;
      let accountName: string;
      try {
        creds = await adapter.connect({
          kind: 'client_credentials',
          clientId: b.client_id,
          clientSecret: b.client_secret,
          baseUrl,
          accessToken: null,
          expiresAt: null,
        } satisfies ClientCredentials);
        ({ accountName } = await adapter.whoami({
          credentials: () => creds,
          saveCredentials: async (next) => {
            creds = next;
          },
          interactive: true,
        }));
      } catch (err) {
        if (err instanceof VendorAuthError) {
          throw fieldError('body.client_secret', 'Marketo refused this client id and secret');
        }
        const why =
          err instanceof VendorUnreachableError
            ? err.reason
            : err instanceof VendorError
              ? err.message
              : (err as Error).message;
        request.log.warn({ err }, 'Marketo connection check failed');
        // Sent here, not thrown: the error handler hides every 5xx message, and this one is for the user.
        return reply.code(502).send({
          message: `Marketo could not be reached at ${new URL(baseUrl).host} (${why}). Check the REST base URL; nothing was stored.`,
        });
      }
      const sealed = box.encrypt(JSON.stringify(creds));
      const [row] = await db
        .insert(integrations)
        .values({ clientId, source: 'marketo', credentialsEnc: sealed, accountName, isActive: true })
        .onConflictDoUpdate({
          target: [integrations.clientId, integrations.source],
          set: {
            credentialsEnc: sealed,
            accountName,
            isActive: true,
            lastError: null,
            isSyncing: false,
            syncCursor: {},
            updatedAt: new Date(),
          },
        })
        .returning();
      if (!row) throw new Error('integration upsert returned nothing');
      await db
        .insert(crmIntegrationSettings)
        .values({ integrationId: row.id, clientId })
        .onConflictDoNothing();
      await auditRequest(db, request, {
        action: 'crm.connected',
        target: { kind: 'integration', id: row.id },
        details: { source: 'marketo', account: accountName },
      });
      await sync.request(row.id);
      return replyOf(await connection(clientId));
    },
  );
};
