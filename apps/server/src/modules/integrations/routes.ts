import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sortSalesReps } from '@rally/shared';
import { messageReply } from '@rally/shared/schemas/auth';
import {
  SOURCE_LABELS,
  cadenceSyncReply,
  connectBody,
  connectReply,
  salesRepSchema,
  selectSalesRepsBody,
  sequenceSourceParam,
  syncStateSchema,
  updateSalesRepBody,
} from '@rally/shared/schemas/integrations';
import type { SalesRep } from '@rally/shared/schemas/integrations';
import { cadenceIdParam, integrationIdQuery } from '@rally/shared/schemas/cadences';
import { cadences, integrations, salesReps, targets } from '../../db/schema/index.ts';
import { authOf, tenantOf } from '../../lib/access.ts';
import { createSecretBox, hmac, randomToken, safeEqual } from '../../lib/crypto.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import { SERVICE_PREFIXES } from '../../lib/prefixes.ts';
import type { Credentials, SequenceAdapter } from './port.ts';
import { toIntegrationReply } from './reply.ts';
import { VendorAuthError, VendorError, VendorUnreachableError } from './vendor-http.ts';
import { auditRequest } from '../audit/index.ts';

const clientIdParam = z.uuid('must be the id (UUID) of a client');
const FLOW_COOKIE = 'rally_vendor_flow';
const FLOW_TTL_MS = 15 * 60_000;

type Flow = { c: string; u: string; s: string; r: 'onboarding' | 'connections'; e: number; n: string };

/**
 * Connecting sequence platforms (OAuth authorization code for Salesloft and Outreach, an API key for
 * Apollo) and disconnecting them, under /v1 (ARCHITECTURE.md §7). Tokens are sealed with APP_SECRET
 * before they are stored.
 */
export const integrationRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config, integrationSync: sync } = app;
  const box = createSecretBox(config.appSecret);
  const base = `${SERVICE_PREFIXES.main}/integration/sequence`;
  const redirectUri = (source: string) => `${config.publicUrl}${base}/${source}/callback`;
  const signFlow = (flow: Flow) => {
    const payload = Buffer.from(JSON.stringify(flow)).toString('base64url');
    return `${payload}.${hmac(config.appSecret, `vendor-flow:${payload}`)}`;
  };
  const readFlow = (state: string): Flow | null => {
    const [payload, mac] = state.split('.');
    if (!payload || !mac || !safeEqual(mac, hmac(config.appSecret, `vendor-flow:${payload}`))) return null;
    const flow = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Flow;
    return flow.e > Date.now() ? flow : null;
  };

  /** Stores the connection (one per source per client) and starts its first sync. */
  async function saveConnection(clientId: string, adapter: SequenceAdapter, creds: Credentials) {
    let current = creds;
    const { accountName, accessNote = null } = await adapter.whoami({
      credentials: () => current,
      saveCredentials: async (next) => {
        current = next;
      },
      // The user is waiting: a vendor that cannot be reached is a 502 at once, not retries for 20 s.
      interactive: true,
    });
    const [row] = await db
      .insert(integrations)
      .values({
        clientId,
        source: adapter.source,
        credentialsEnc: box.encrypt(JSON.stringify(current)),
        accountName,
        accessNote,
        isActive: true,
      })
      .onConflictDoUpdate({
        target: [integrations.clientId, integrations.source],
        set: {
          credentialsEnc: box.encrypt(JSON.stringify(current)),
          accountName,
          accessNote,
          isActive: true,
          lastError: null,
          isSyncing: false,
          updatedAt: new Date(),
        },
      })
      .returning();
    if (!row) throw new Error('integration upsert returned nothing');
    await sync.request(row.id);
    const [fresh] = await db.select().from(integrations).where(eq(integrations.id, row.id));
    return fresh ?? row;
  }

  app.post(
    '/integration/sequence/:source/client/:clientId/connect',
    {
      config: { access: { permission: 'integration.write' } },
      schema: {
        tags: ['integrations'],
        summary: 'Connect a sequence platform: the OAuth consent URL, or an API key checked and stored',
        params: z.object({ source: sequenceSourceParam, clientId: clientIdParam }),
        body: connectBody,
        response: { 200: connectReply, 201: connectReply, 502: messageReply },
      },
    },
    async (request, reply) => {
      const { source } = request.params;
      const adapter = sync.adapters[source];
      const label = SOURCE_LABELS[source] ?? source;
      if (adapter.auth === 'api_key') {
        const apiKey = request.body.api_key;
        if (!apiKey) throw fieldError('body.api_key', `is required to connect ${label}`);
        try {
          const row = await saveConnection(tenantOf(request).clientId, adapter, { kind: 'api_key', apiKey });
          await auditRequest(db, request, {
            action: 'integration.connected',
            target: { kind: 'integration', id: row.id },
            details: { source, auth: 'api_key' },
          });
          return reply.code(201).send({ integration: toIntegrationReply(row) });
        } catch (err) {
          if (err instanceof VendorUnreachableError || (err instanceof VendorError && err.status >= 500)) {
            request.log.warn({ err, source }, 'vendor could not be reached');
            const why = err instanceof VendorUnreachableError ? err.reason : `it answered ${err.status}`;
            throw httpError(
              502,
              `${label} could not be reached (${why}). Nothing was stored; please try again later.`,
            );
          }
          if (err instanceof VendorAuthError || err instanceof VendorError) {
            throw fieldError('body.api_key', `${label} did not accept this key: ${err.message}`);
          }
          throw err;
        }
      }
      const vendor = config.vendors[source as 'salesloft' | 'outreach'];
      if (!vendor.clientId || !vendor.clientSecret || !adapter.authorizeUrl) {
        // The person connecting cannot set environment variables: they read plain words (issue 42
        // item 3); the operator finds what to set in the log and the README.
        request.log.warn(
          `${label} connect refused: set ${source.toUpperCase()}_CLIENT_ID and ${source.toUpperCase()}_CLIENT_SECRET to offer it`,
        );
        throw httpError(400, `${label} is not available on this installation — ask your administrator.`);
      }
      const nonce = randomToken(16);
      const state = signFlow({
        c: tenantOf(request).clientId,
        u: authOf(request).user.id,
        s: source,
        r: request.body.return_to,
        e: Date.now() + FLOW_TTL_MS,
        n: nonce,
      });
      reply.setCookie(FLOW_COOKIE, nonce, {
        path: base,
        httpOnly: true,
        sameSite: 'lax',
        secure: config.secureCookies,
        maxAge: FLOW_TTL_MS / 1000,
      });
      return { redirect_url: adapter.authorizeUrl({ state, redirectUri: redirectUri(source) }) };
    },
  );

  app.get(
    '/integration/sequence/:source/callback',
    {
      // A browser redirect from the vendor: no x-client-id; the signed state names the client.
      config: { access: 'session' },
      schema: {
        tags: ['integrations'],
        summary: "The vendor's OAuth redirect back to Rally",
        params: z.object({ source: sequenceSourceParam }),
        querystring: z.object({
          code: z.string().max(4096).optional(),
          state: z.string().max(4096).optional(),
          error: z.string().max(200).optional(),
          error_description: z.string().max(1000).optional(),
        }),
      },
    },
    async (request, reply) => {
      const { source } = request.params;
      const label = SOURCE_LABELS[source] ?? source;
      const flow = request.query.state ? readFlow(request.query.state) : null;
      const cookieNonce = request.cookies[FLOW_COOKIE];
      reply.clearCookie(FLOW_COOKIE, { path: base });
      const back = (clientId: string | null, to: Flow['r'], params: Record<string, string>) => {
        const path = to === 'onboarding' ? '/onboarding' : '/settings/connections';
        const q = new URLSearchParams({ ...(clientId ? { client_id: clientId } : {}), ...params });
        return reply.redirect(`${path}?${q}`, 302);
      };
      if (
        !flow ||
        flow.s !== source ||
        !cookieNonce ||
        !safeEqual(cookieNonce, flow.n) ||
        flow.u !== authOf(request).user.id
      ) {
        return back(null, 'connections', {
          connect_error: `The ${label} sign-in could not be verified (it expired or came from another browser). Please try again.`,
        });
      }
      if (request.query.error || !request.query.code) {
        return back(flow.c, flow.r, {
          connect_error: `${label} did not grant access${request.query.error ? ` (${request.query.error})` : ''}.`,
        });
      }
      const self = await app.identity.self(flow.u);
      const member = self?.clients.find((c) => c.client_id === flow.c);
      if (!member?.permissions.includes('integration.write')) {
        return back(flow.c, flow.r, {
          connect_error: 'Your role does not have the integration.write permission.',
        });
      }
      const adapter = sync.adapters[source];
      try {
        if (!adapter.exchangeCode) throw new Error(`${label} has no OAuth code exchange`);
        const creds = await adapter.exchangeCode({
          code: request.query.code,
          redirectUri: redirectUri(source),
        });
        const row = await saveConnection(flow.c, adapter, creds);
        await auditRequest(db, request, {
          clientId: flow.c,
          action: 'integration.connected',
          target: { kind: 'integration', id: row.id },
          details: { source, auth: 'oauth' },
        });
      } catch (err) {
        request.log.warn({ err, source }, 'vendor connection failed');
        return back(flow.c, flow.r, {
          connect_error: `${label} could not be connected: ${(err as Error).message}`,
        });
      }
      return back(flow.c, flow.r, { connected: source });
    },
  );

  app.delete(
    '/integration/sequence/:source/client/:clientId',
    {
      config: { access: { permission: 'integration.write' } },
      schema: {
        tags: ['integrations'],
        summary: 'Disconnect: forget the credentials; synced cadences and prospects stay',
        params: z.object({ source: sequenceSourceParam, clientId: clientIdParam }),
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      const updated = await db
        .update(integrations)
        .set({
          credentialsEnc: null,
          isActive: false,
          isSyncing: false,
          syncProgress: null,
          lastError: 'Disconnected. Connect again to resume syncing.',
          updatedAt: new Date(),
        })
        .where(
          and(
            eq(integrations.clientId, tenantOf(request).clientId),
            eq(integrations.source, request.params.source),
          ),
        )
        .returning({ id: integrations.id });
      const [removed] = updated;
      if (!removed) throw httpError(404, `${SOURCE_LABELS[request.params.source]} is not connected.`);
      await auditRequest(db, request, {
        action: 'integration.removed',
        target: { kind: 'integration', id: removed.id },
        details: { source: request.params.source },
      });
      return reply.code(204).send(null);
    },
  );
};

const clientQuery = z.object({ client_id: clientIdParam });

/** Sync controls and sales reps under /sc (SPEC.md §7 "Cadence service"). */
export const scIntegrationRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, integrationSync: sync } = app;

  const sameClient = (request: { query: { client_id: string } } & Parameters<typeof tenantOf>[0]) => {
    if (request.query.client_id.toLowerCase() !== tenantOf(request).clientId) {
      throw httpError(403, 'Access Denied: the client_id query is not the x-client-id client.');
    }
  };

  async function syncState(clientId: string) {
    const rows = await sync.sequenceIntegrations(clientId);
    const times = rows.flatMap((r) => (r.lastSyncedAt ? [r.lastSyncedAt.getTime()] : []));
    return {
      is_syncing: rows.some((r) => r.isSyncing),
      last_synced_at: times.length ? new Date(Math.max(...times)).toISOString() : null,
      integrations: rows.map(toIntegrationReply),
    };
  }

  app.get(
    '/action/sync_cadences',
    {
      config: { access: 'member' },
      schema: {
        tags: ['integrations'],
        summary: "Sync state of the client's sequence platforms",
        querystring: clientQuery,
        response: { 200: syncStateSchema },
      },
    },
    async (request) => {
      sameClient(request);
      return syncState(tenantOf(request).clientId);
    },
  );

  app.post(
    '/action/sync_cadences',
    {
      config: { access: { permission: 'cadence.write' } },
      schema: {
        tags: ['integrations'],
        summary: 'Sync every active sequence platform of the client now',
        querystring: clientQuery,
        response: { 202: syncStateSchema },
      },
    },
    async (request, reply) => {
      sameClient(request);
      const clientId = tenantOf(request).clientId;
      for (const row of await sync.sequenceIntegrations(clientId)) {
        if (row.isActive) await sync.request(row.id);
      }
      return reply.code(202).send(await syncState(clientId));
    },
  );

  const cadenceParams = cadenceIdParam;
  const integrationQuery = integrationIdQuery;

  async function tenantCadence(clientId: string, id: number, integrationId: number) {
    const [row] = await db
      .select()
      .from(cadences)
      .where(
        and(eq(cadences.id, id), eq(cadences.clientId, clientId), eq(cadences.integrationId, integrationId)),
      );
    if (!row) throw httpError(404, 'Cadence not found.');
    return row;
  }

  app.get(
    '/action/sync/cadence/:id',
    {
      config: { access: { permission: 'cadence.write' } },
      schema: {
        tags: ['integrations'],
        summary: 'Sync one cadence now (sets is_syncing, then last_synced_at)',
        params: cadenceParams,
        querystring: integrationQuery,
        response: { 202: cadenceSyncReply },
      },
    },
    async (request, reply) => {
      const cadence = await tenantCadence(
        tenantOf(request).clientId,
        request.params.id,
        request.query.integration_id,
      );
      const [integration] = await db
        .select()
        .from(integrations)
        .where(eq(integrations.id, cadence.integrationId));
      if (!integration?.isActive || integration.source === 'fileforce') {
        throw httpError(
          409,
          integration?.source === 'fileforce'
            ? 'This cadence comes from a file import: import the file again to update it.'
            : `${SOURCE_LABELS[integration?.source ?? ''] ?? 'The integration'} is not connected.`,
        );
      }
      await sync.request(cadence.integrationId, cadence.id);
      const fresh = await tenantCadence(tenantOf(request).clientId, cadence.id, cadence.integrationId);
      return reply.code(202).send({
        id: fresh.id,
        is_syncing: fresh.isSyncing,
        last_synced_at: fresh.lastSyncedAt?.toISOString() ?? null,
      });
    },
  );

  /** Sales reps of the client in the extended form, photos first then by first name (SPEC.md §5). */
  async function listReps(clientId: string, cadenceId?: number): Promise<SalesRep[]> {
    const counts = db
      .select({
        repId: targets.salesRepId,
        active: sql<number>`count(*) filter (where ${targets.isActive})::int`.as('active'),
        super: sql<number>`count(*) filter (where ${targets.superDate} is not null)::int`.as('super'),
      })
      .from(targets)
      .where(
        cadenceId === undefined
          ? eq(targets.clientId, clientId)
          : and(eq(targets.clientId, clientId), eq(targets.cadenceId, cadenceId)),
      )
      .groupBy(targets.salesRepId)
      .as('counts');
    const q = db
      .select({ rep: salesReps, active: counts.active, super: counts.super })
      .from(salesReps)
      .leftJoin(counts, eq(counts.repId, salesReps.id))
      .where(eq(salesReps.clientId, clientId))
      .orderBy(asc(salesReps.firstName));
    const rows = (await q).filter((r) => cadenceId === undefined || r.active !== null);
    return sortSalesReps(
      rows.map(({ rep, active, super: supers }) => ({
        id: rep.id,
        client_id: rep.clientId,
        integration_id: rep.integrationId,
        first_name: rep.firstName,
        last_name: rep.lastName,
        email: rep.email,
        email_invalid: rep.emailInvalid,
        photo_url: rep.photoUrl,
        title: rep.title,
        selected: rep.selected,
        active_targets_count: active ?? 0,
        super_targets_count: supers ?? 0,
        company_name: rep.companyName,
        calendar_url: rep.calendarUrl,
      })),
    );
  }

  app.get(
    '/sdr',
    {
      config: { access: 'member' },
      schema: {
        tags: ['sales reps'],
        summary: "The client's sales reps with their active and super target counts",
        response: { 200: z.array(salesRepSchema) },
      },
    },
    async (request) => listReps(tenantOf(request).clientId),
  );

  app.post(
    '/sdr',
    {
      config: { access: { permission: 'integration.write' } },
      schema: {
        tags: ['sales reps'],
        summary: 'Choose the sales reps whose prospects see ads (all others are deselected)',
        body: selectSalesRepsBody,
        response: { 200: z.array(salesRepSchema) },
      },
    },
    async (request) => {
      const clientId = tenantOf(request).clientId;
      const ids = [...new Set(request.body.selected)];
      await db.transaction(async (tx) => {
        if (ids.length) {
          const known = await tx
            .select({ id: salesReps.id })
            .from(salesReps)
            .where(and(eq(salesReps.clientId, clientId), inArray(salesReps.id, ids)));
          if (known.length !== ids.length)
            throw fieldError('body.selected', 'names a sales rep of another client or none');
        }
        await tx
          .update(salesReps)
          .set({
            selected: ids.length ? inArray(salesReps.id, ids) : sql`false`,
            updatedAt: new Date(),
          })
          .where(eq(salesReps.clientId, clientId));
      });
      return listReps(clientId);
    },
  );

  app.post(
    '/sdr/:id',
    {
      config: { access: { permission: 'settings.write' } },
      schema: {
        tags: ['sales reps'],
        summary: 'Edit a sales rep (title, company name, calendar URL, photo, selected)',
        params: z.object({ id: z.uuid('must be the id (UUID) of a sales rep') }),
        body: updateSalesRepBody,
        response: { 200: salesRepSchema },
      },
    },
    async (request) => {
      const clientId = tenantOf(request).clientId;
      const b = request.body;
      const updated = await db
        .update(salesReps)
        .set({
          ...(b.first_name !== undefined ? { firstName: b.first_name } : {}),
          ...(b.last_name !== undefined ? { lastName: b.last_name } : {}),
          ...(b.title !== undefined ? { title: b.title } : {}),
          ...(b.company_name !== undefined ? { companyName: b.company_name } : {}),
          ...(b.calendar_url !== undefined ? { calendarUrl: b.calendar_url } : {}),
          ...(b.photo_url !== undefined ? { photoUrl: b.photo_url || null } : {}),
          ...(b.selected !== undefined ? { selected: b.selected } : {}),
          updatedAt: new Date(),
        })
        .where(and(eq(salesReps.id, request.params.id), eq(salesReps.clientId, clientId)))
        .returning({ id: salesReps.id });
      if (!updated.length) throw httpError(404, 'Sales rep not found.');
      const rep = (await listReps(clientId)).find((r) => r.id === request.params.id);
      if (!rep) throw httpError(404, 'Sales rep not found.');
      return rep;
    },
  );

  app.get(
    '/sdr/cadence/:id',
    {
      config: { access: 'member' },
      schema: {
        tags: ['sales reps'],
        summary: 'Sales reps with prospects in a cadence (the selected_sdrs picker)',
        params: cadenceParams,
        querystring: integrationQuery,
        response: { 200: z.array(salesRepSchema) },
      },
    },
    async (request) => {
      const clientId = tenantOf(request).clientId;
      const cadence = await tenantCadence(clientId, request.params.id, request.query.integration_id);
      return listReps(clientId, cadence.id);
    },
  );
};
