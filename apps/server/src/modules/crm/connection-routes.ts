import { and, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  activityDefinitionBody,
  activityDefinitionReply,
  audienceEstimateBody,
  audienceEstimateReply,
  crmListPage,
  crmListQuery,
  mapOwnerBody,
  crmFieldSchema,
  crmFieldsQuery,
  crmOwnerSchema,
  crmRedirectQuery,
  crmRedirectReply,
  crmSettingsBody,
  crmSettingsSchema,
  crmSourceParam,
} from '@rally/shared/schemas/crm';
import type { CrmSettings, CrmSourceName } from '@rally/shared/schemas/crm';
import { SOURCE_LABELS, sequenceSourceParam } from '@rally/shared/schemas/integrations';
import {
  cadenceDays,
  cadences,
  crmAccounts,
  crmActivityCounts,
  crmContacts,
  crmIntegrationSettings,
  crmListMembers,
  salesReps,
  crmLists,
  crmOwners,
  crmStages,
  integrations,
  opportunities,
} from '../../db/schema/index.ts';
import { authOf, tenantOf } from '../../lib/access.ts';
import { createSecretBox, hmac, randomToken, safeEqual } from '../../lib/crypto.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import { SERVICE_PREFIXES } from '../../lib/prefixes.ts';
import { toIntegrationReply } from '../integrations/reply.ts';
import { VendorAuthError, VendorError } from '../integrations/vendor-http.ts';
import type { AdapterContext, CrmAdapter, Credentials } from './port.ts';
import { listsOf } from './repository.ts';
import { pkceChallenge, pkceVerifier, salesforceLoginUrl } from './adapters/salesforce/login-host.ts';
import { auditRequest } from '../audit/index.ts';

const clientIdParam = z.uuid('must be the id (UUID) of a client');
const FLOW_COOKIE = 'rally_crm_flow';
const FLOW_TTL_MS = 15 * 60_000;
type ReturnTo = 'integration' | 'connections';
/** The signed OAuth state; `l`: the Salesforce login host chosen (absent: the configured one). */
type Flow = { c: string; u: string; s: string; r: ReturnTo; e: number; n: string; l?: string };

/** " (invalid_request: missing required code challenge)": the vendor's error and its words, if any. */
const vendorRefusal = (q: { error?: string | undefined; error_description?: string | undefined }) =>
  q.error ? ` (${q.error}${q.error_description ? `: ${q.error_description}` : ''})` : '';

/** The env variables an OAuth CRM needs, named in the 400 when they are missing. */
const ENV_PREFIX: Record<CrmSourceName, string> = {
  salesforce: 'SALESFORCE',
  hubspot: 'HUBSPOT',
  marketo: 'MARKETO',
};

/**
 * Connecting CRMs (SPEC.md §7 "CRM integrations", ARCHITECTURE.md §7): the OAuth redirect and
 * callback (tokens sealed with APP_SECRET), the connection's settings (read, change, disconnect with
 * revocation at the vendor), its active owners and the vendor's fields, under
 * /v1/integration/crm/{source}/….
 */
export const crmConnectionRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config, crmSync: sync } = app;
  const box = createSecretBox(config.appSecret);
  const base = `${SERVICE_PREFIXES.main}/integration/crm`;
  const redirectUri = (source: string) => `${config.publicUrl}${base}/${source}/callback`;
  const label = (source: string) => SOURCE_LABELS[source] ?? source;
  const params = z.object({ source: crmSourceParam, clientId: clientIdParam });

  const signFlow = (flow: Flow) => {
    const payload = Buffer.from(JSON.stringify(flow)).toString('base64url');
    return `${payload}.${hmac(config.appSecret, `crm-flow:${payload}`)}`;
  };
  const readFlow = (state: string): Flow | null => {
    const [payload, mac] = state.split('.');
    if (!payload || !mac || !safeEqual(mac, hmac(config.appSecret, `crm-flow:${payload}`))) return null;
    const flow = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Flow;
    return flow.e > Date.now() ? flow : null;
  };

  function adapterOf(source: CrmSourceName): CrmAdapter {
    const adapter = sync.adapters[source];
    if (!adapter) throw httpError(501, `${label(source)} cannot be connected yet on this server.`);
    return adapter;
  }

  async function connection(clientId: string, source: CrmSourceName) {
    const [row] = await db
      .select()
      .from(integrations)
      .where(and(eq(integrations.clientId, clientId), eq(integrations.source, source)));
    return row ?? null;
  }

  /** An adapter context over the stored credentials; a refused token makes the connection inactive. */
  function contextOf(row: typeof integrations.$inferSelect): AdapterContext {
    if (!row.credentialsEnc || !row.isActive) {
      throw httpError(409, `${label(row.source)} is not connected: connect it first.`);
    }
    let creds = JSON.parse(box.decrypt(row.credentialsEnc)) as Credentials;
    return {
      credentials: () => creds,
      saveCredentials: async (next) => {
        creds = next;
        await db
          .update(integrations)
          .set({ credentialsEnc: box.encrypt(JSON.stringify(next)), updatedAt: new Date() })
          .where(eq(integrations.id, row.id));
      },
    };
  }

  async function vendorCall<T>(row: typeof integrations.$inferSelect, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof VendorAuthError) {
        await db
          .update(integrations)
          .set({ isActive: false, lastError: err.message, updatedAt: new Date() })
          .where(eq(integrations.id, row.id));
        throw httpError(409, err.message);
      }
      if (err instanceof VendorError)
        throw httpError(502, `${label(row.source)} did not answer: ${err.message}`);
      throw err;
    }
  }

  async function settingsOf(clientId: string, source: CrmSourceName): Promise<CrmSettings> {
    const row = await connection(clientId, source);
    const [settings] = row
      ? await db.select().from(crmIntegrationSettings).where(eq(crmIntegrationSettings.integrationId, row.id))
      : [];
    const n = async (
      table:
        | typeof crmStages
        | typeof crmOwners
        | typeof crmAccounts
        | typeof crmContacts
        | typeof crmLists
        | typeof opportunities,
    ) =>
      row
        ? ((await db.select({ n: count() }).from(table).where(eq(table.integrationId, row.id)))[0]?.n ?? 0)
        : 0;
    // Records deleted in the CRM are kept (history, list members) but no longer count, as in the reports.
    const live = async (table: typeof crmAccounts | typeof crmContacts | typeof opportunities) =>
      row
        ? ((
            await db
              .select({ n: count() })
              .from(table)
              .where(and(eq(table.integrationId, row.id), eq(table.isDeleted, false)))
          )[0]?.n ?? 0)
        : 0;
    return {
      source,
      integration: row ? toIntegrationReply(row) : null,
      write_back: settings?.writeBack ?? false,
      outreach_activity_types: settings?.outreachActivityTypes ?? [],
      meeting_activity_types: settings?.meetingActivityTypes ?? [],
      counts: {
        stages: await n(crmStages),
        owners: await n(crmOwners),
        accounts: await live(crmAccounts),
        contacts: await live(crmContacts),
        opportunities: await live(opportunities),
        lists: await n(crmLists),
      },
    };
  }

  app.get(
    '/integration/crm/:source/client/:clientId/redirect',
    {
      config: { access: { permission: 'integration.write' } },
      schema: {
        tags: ['crm'],
        summary: "Start connecting a CRM: the vendor's OAuth consent URL to send the browser to",
        params,
        querystring: crmRedirectQuery,
        response: { 200: crmRedirectReply },
      },
    },
    async (request, reply) => {
      const { source } = request.params;
      const adapter = adapterOf(source);
      if (adapter.auth !== 'oauth' || !adapter.authorizeUrl) {
        throw httpError(400, `${label(source)} connects with its API credentials, not a redirect.`);
      }
      const q = request.query;
      let loginUrl: string | undefined;
      if (source === 'salesforce') {
        loginUrl = await salesforceLoginUrl(config.vendors.salesforce, q, {
          allowPrivate: config.allowPrivateFetch,
        });
      } else if (q.login !== 'production' || q.my_domain !== undefined) {
        throw fieldError('querystring.login', `applies to Salesforce only; ${label(source)} has one login`);
      }
      const vendor = source === 'salesforce' || source === 'hubspot' ? config.vendors[source] : null;
      if (!vendor?.clientId || !vendor.clientSecret) {
        const p = ENV_PREFIX[source];
        // Plain words for the person connecting (issue 42 item 3); the variables for the operator's log.
        request.log.warn(
          `${label(source)} connect refused: set ${p}_CLIENT_ID and ${p}_CLIENT_SECRET to offer it`,
        );
        throw httpError(
          400,
          `${label(source)} is not available on this installation — ask your administrator.`,
        );
      }
      const nonce = randomToken(16);
      const state = signFlow({
        c: tenantOf(request).clientId,
        u: authOf(request).user.id,
        s: source,
        r: q.return_to,
        e: Date.now() + FLOW_TTL_MS,
        n: nonce,
        ...(loginUrl ? { l: loginUrl } : {}),
      });
      reply.setCookie(FLOW_COOKIE, nonce, {
        path: base,
        httpOnly: true,
        sameSite: 'lax',
        secure: config.secureCookies,
        maxAge: FLOW_TTL_MS / 1000,
      });
      const codeChallenge = pkceChallenge(pkceVerifier(config.appSecret, nonce));
      return {
        redirect_url: adapter.authorizeUrl({
          state,
          redirectUri: redirectUri(source),
          codeChallenge,
          ...(loginUrl ? { loginUrl } : {}),
        }),
      };
    },
  );

  app.get(
    '/integration/crm/:source/callback',
    {
      // A browser redirect from the vendor: no x-client-id; the signed state names the client.
      config: { access: 'session' },
      schema: {
        tags: ['crm'],
        summary: "The CRM's OAuth redirect back to Rally",
        params: z.object({ source: crmSourceParam }),
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
      const flow = request.query.state ? readFlow(request.query.state) : null;
      const cookieNonce = request.cookies[FLOW_COOKIE];
      reply.clearCookie(FLOW_COOKIE, { path: base });
      const back = (clientId: string | null, to: ReturnTo, q: Record<string, string>) => {
        const path = to === 'integration' ? `/settings/integrations/${source}` : '/settings/connections';
        const query = new URLSearchParams({ ...(clientId ? { client_id: clientId } : {}), ...q });
        return reply.redirect(`${path}?${query}`, 302);
      };
      if (
        !flow ||
        flow.s !== source ||
        !cookieNonce ||
        !safeEqual(cookieNonce, flow.n) ||
        flow.u !== authOf(request).user.id
      ) {
        return back(null, 'connections', {
          connect_error: `The ${label(source)} sign-in could not be verified (it expired or came from another browser). Please try again.`,
        });
      }
      if (request.query.error || !request.query.code) {
        return back(flow.c, flow.r, {
          connect_error: `${label(source)} did not grant access${vendorRefusal(request.query)}.`,
        });
      }
      const self = await app.identity.self(flow.u);
      const member = self?.clients.find((c) => c.client_id === flow.c);
      if (!member?.permissions.includes('integration.write')) {
        return back(flow.c, flow.r, {
          connect_error: 'Your role does not have the integration.write permission.',
        });
      }
      try {
        const adapter = adapterOf(source);
        if (!adapter.exchangeCode) throw new Error(`${label(source)} has no OAuth code exchange`);
        let creds: Credentials = await adapter.exchangeCode({
          code: request.query.code,
          redirectUri: redirectUri(source),
          codeVerifier: pkceVerifier(config.appSecret, flow.n),
          ...(flow.l ? { loginUrl: flow.l } : {}),
        });
        const { accountName, opportunityUrlTemplate = null } = await adapter.whoami({
          credentials: () => creds,
          saveCredentials: async (next) => {
            creds = next;
          },
          interactive: true,
        });
        const sealed = box.encrypt(JSON.stringify(creds));
        const [row] = await db
          .insert(integrations)
          .values({
            clientId: flow.c,
            source,
            credentialsEnc: sealed,
            accountName,
            opportunityUrlTemplate,
            isActive: true,
          })
          .onConflictDoUpdate({
            target: [integrations.clientId, integrations.source],
            set: {
              credentialsEnc: sealed,
              accountName,
              opportunityUrlTemplate,
              isActive: true,
              lastError: null,
              isSyncing: false,
              // Another org (or the demo) may have been connected before: the first sync reads all.
              syncCursor: {},
              updatedAt: new Date(),
            },
          })
          .returning();
        if (!row) throw new Error('integration upsert returned nothing');
        await db
          .insert(crmIntegrationSettings)
          .values({ integrationId: row.id, clientId: flow.c })
          .onConflictDoNothing();
        await auditRequest(db, request, {
          clientId: flow.c,
          action: 'crm.connected',
          target: { kind: 'integration', id: row.id },
          details: { source, account: accountName },
        });
        await sync.request(row.id);
      } catch (err) {
        request.log.warn({ err, source }, 'CRM connection failed');
        return back(flow.c, flow.r, {
          connect_error: `${label(source)} could not be connected: ${(err as Error).message}`,
        });
      }
      return back(flow.c, flow.r, { connected: source });
    },
  );

  app.get(
    '/integration/crm/:source/client/:clientId/settings',
    {
      config: { access: 'member' },
      schema: {
        tags: ['crm'],
        summary: "The CRM connection's state, sync, write-back switch, activity definitions and counts",
        params,
        response: { 200: crmSettingsSchema },
      },
    },
    async (request) => settingsOf(tenantOf(request).clientId, request.params.source),
  );

  app.post(
    '/integration/crm/:source/client/:clientId/settings',
    {
      config: { access: { permission: 'integration.write' } },
      schema: {
        tags: ['crm'],
        summary: 'Change the write-back switch or the activity definitions, or start a sync now',
        params,
        body: crmSettingsBody,
        response: { 200: crmSettingsSchema },
      },
    },
    async (request) => {
      const clientId = tenantOf(request).clientId;
      const { source } = request.params;
      const row = await connection(clientId, source);
      if (!row) throw httpError(404, `${label(source)} is not connected.`);
      const b = request.body;
      if (b.sync_now && (!row.isActive || !row.credentialsEnc)) {
        throw httpError(
          409,
          `${label(source)} is not connected${row.credentialsEnc ? '' : ' with credentials (a demo connection has nothing to sync)'}: connect it to sync.`,
        );
      }
      const change = {
        ...(b.write_back !== undefined ? { writeBack: b.write_back } : {}),
        ...(b.outreach_activity_types !== undefined
          ? { outreachActivityTypes: [...new Set(b.outreach_activity_types)] }
          : {}),
        ...(b.meeting_activity_types !== undefined
          ? { meetingActivityTypes: [...new Set(b.meeting_activity_types)] }
          : {}),
      };
      await db
        .insert(crmIntegrationSettings)
        .values({ integrationId: row.id, clientId, ...change })
        .onConflictDoUpdate({
          target: crmIntegrationSettings.integrationId,
          set: { ...change, updatedAt: new Date() },
        });
      const fields = Object.keys(change).map((k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
      if (fields.length) {
        await auditRequest(db, request, {
          action: 'settings.changed',
          target: { kind: 'integration', id: row.id },
          details: { source, fields: fields.sort() },
        });
      }
      if (b.sync_now) await sync.request(row.id);
      return settingsOf(clientId, source);
    },
  );

  app.delete(
    '/integration/crm/:source/client/:clientId/settings',
    {
      config: { access: { permission: 'integration.write' } },
      schema: {
        tags: ['crm'],
        summary: 'Disconnect: revoke the tokens at the CRM and forget them; synced data stays',
        params,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      const { source } = request.params;
      const row = await connection(tenantOf(request).clientId, source);
      if (!row) throw httpError(404, `${label(source)} is not connected.`);
      if (row.credentialsEnc) {
        const adapter = sync.adapters[source];
        try {
          await adapter?.revoke?.(JSON.parse(box.decrypt(row.credentialsEnc)) as Credentials);
        } catch (err) {
          // Forgetting the tokens matters more than the vendor hearing of it.
          request.log.warn({ err, source }, 'CRM token revocation failed');
        }
      }
      await db
        .update(integrations)
        .set({
          credentialsEnc: null,
          isActive: false,
          isSyncing: false,
          syncProgress: null,
          lastError: 'Disconnected. Connect again to resume syncing.',
          updatedAt: new Date(),
        })
        .where(eq(integrations.id, row.id));
      await auditRequest(db, request, {
        action: 'crm.removed',
        target: { kind: 'integration', id: row.id },
        details: { source },
      });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/integration/crm/:source/client/:clientId/owners/active',
    {
      config: { access: 'member' },
      schema: {
        tags: ['crm'],
        summary: "The CRM's active owners with the sales rep each maps to",
        params,
        response: { 200: z.array(crmOwnerSchema) },
      },
    },
    async (request) => {
      const row = await connection(tenantOf(request).clientId, request.params.source);
      if (!row) return [];
      const owners = await db
        .select()
        .from(crmOwners)
        .where(and(eq(crmOwners.integrationId, row.id), eq(crmOwners.isActive, true)))
        .orderBy(crmOwners.firstName, crmOwners.lastName, crmOwners.id);
      return owners.map((o) => ({
        id: o.id,
        external_id: o.externalId,
        first_name: o.firstName,
        last_name: o.lastName,
        email: o.email,
        sales_rep_id: o.salesRepId,
        mapped_by_hand: o.mappedByHand,
      }));
    },
  );

  app.get(
    '/integration/crm/:source/client/:clientId/fields',
    {
      config: { access: 'member' },
      schema: {
        tags: ['crm'],
        summary: "The CRM's fields of opportunities or contacts, with picklist values (asked of the CRM)",
        params,
        querystring: crmFieldsQuery,
        response: { 200: z.array(crmFieldSchema) },
      },
    },
    async (request) => {
      const { source } = request.params;
      const row = await connection(tenantOf(request).clientId, source);
      if (!row) throw httpError(409, `${label(source)} is not connected: connect it first.`);
      const adapter = adapterOf(source);
      if (!adapter.fields) return [];
      const ctx = contextOf(row);
      const fields = adapter.fields.bind(adapter);
      return vendorCall(row, () => fields(ctx, request.query.object));
    },
  );

  // Outreach and meeting-activity definitions: which synced activity types count as what.
  for (const [path, column, what] of [
    ['outreach', 'outreachActivityTypes', 'sales outreach'],
    ['meeting_activity', 'meetingActivityTypes', 'meetings'],
  ] as const) {
    const definition = async (clientId: string, source: CrmSourceName) => {
      const row = await connection(clientId, source);
      if (!row) return { activity_types: [], available: [] };
      const [settings] = await db
        .select()
        .from(crmIntegrationSettings)
        .where(eq(crmIntegrationSettings.integrationId, row.id));
      const available = await db
        .select({
          type: crmActivityCounts.activityType,
          contacts: sql<number>`count(*)::int`,
          total: sql<number>`coalesce(sum(${crmActivityCounts.count}), 0)::int`,
        })
        .from(crmActivityCounts)
        .where(eq(crmActivityCounts.integrationId, row.id))
        .groupBy(crmActivityCounts.activityType)
        .orderBy(desc(sql`count(*)`), crmActivityCounts.activityType);
      return { activity_types: settings?.[column] ?? [], available };
    };
    app.get(
      `/integration/crm/:source/client/:clientId/${path}`,
      {
        config: { access: 'member' },
        schema: {
          tags: ['crm'],
          summary: `The CRM activity types that count as ${what}, and those synced`,
          params,
          response: { 200: activityDefinitionReply },
        },
      },
      async (request) => definition(tenantOf(request).clientId, request.params.source),
    );
    app.put(
      `/integration/crm/:source/client/:clientId/${path}`,
      {
        config: { access: { permission: 'integration.write' } },
        schema: {
          tags: ['crm'],
          summary: `Choose the CRM activity types that count as ${what}`,
          params,
          body: activityDefinitionBody,
          response: { 200: activityDefinitionReply },
        },
      },
      async (request) => {
        const clientId = tenantOf(request).clientId;
        const { source } = request.params;
        const row = await connection(clientId, source);
        if (!row) throw httpError(404, `${label(source)} is not connected.`);
        const value = { [column]: [...new Set(request.body.activity_types)] };
        await db
          .insert(crmIntegrationSettings)
          .values({ integrationId: row.id, clientId, ...value })
          .onConflictDoUpdate({
            target: crmIntegrationSettings.integrationId,
            set: { ...value, updatedAt: new Date() },
          });
        return definition(clientId, source);
      },
    );
  }

  app.put(
    '/integration/crm/:source/client/:clientId/owners/:ownerId',
    {
      config: { access: { permission: 'integration.write' } },
      schema: {
        tags: ['crm'],
        summary: 'Map a CRM owner to a sales rep by hand (null: back to matching by e-mail at the next sync)',
        params: params.extend({ ownerId: z.uuid('must be the id (UUID) of a CRM owner') }),
        body: mapOwnerBody,
        response: { 200: crmOwnerSchema },
      },
    },
    async (request) => {
      const clientId = tenantOf(request).clientId;
      const repId = request.body.sales_rep_id;
      if (repId) {
        const [rep] = await db
          .select({ id: salesReps.id })
          .from(salesReps)
          .where(and(eq(salesReps.id, repId), eq(salesReps.clientId, clientId)));
        if (!rep) throw fieldError('body.sales_rep_id', 'names no sales rep of this client');
      }
      const [o] = await db
        .update(crmOwners)
        .set({ salesRepId: repId, mappedByHand: repId !== null, updatedAt: new Date() })
        .where(and(eq(crmOwners.id, request.params.ownerId), eq(crmOwners.clientId, clientId)))
        .returning();
      if (!o) throw httpError(404, 'CRM owner not found.');
      return {
        id: o.id,
        external_id: o.externalId,
        first_name: o.firstName,
        last_name: o.lastName,
        email: o.email,
        sales_rep_id: o.salesRepId,
        mapped_by_hand: o.mappedByHand,
      };
    },
  );

  // Salesforce calls its lists campaigns; HubSpot and Marketo lists. Both paths answer for each.
  for (const path of ['campaign', 'lists']) {
    app.get(
      `/integration/crm/:source/client/:clientId/${path}`,
      {
        config: { access: 'member' },
        schema: {
          tags: ['crm'],
          summary: "This CRM's lists (Salesforce campaigns, HubSpot lists, Marketo static lists), paged",
          params,
          querystring: crmListQuery.omit({ source: true, integration_id: true }),
          response: { 200: crmListPage },
        },
      },
      async (request) => {
        const clientId = tenantOf(request).clientId;
        const q = request.query;
        const row = await connection(clientId, request.params.source);
        if (!row) return { items: [], total: 0, page: q.page, page_size: q.page_size };
        const { items, total } = await listsOf(db, clientId, {
          integrationId: row.id,
          search: q.search,
          page: q.page,
          pageSize: q.page_size,
        });
        return { items, total, page: q.page, page_size: q.page_size };
      },
    );
  }

  app.post(
    '/integration/crm/:source/client/:clientId/audience/estimate',
    {
      config: { access: 'member' },
      schema: {
        tags: ['crm'],
        summary: 'How many contacts and accounts these CRM lists would give (and how many Rally knows)',
        params,
        body: audienceEstimateBody,
        response: { 200: audienceEstimateReply },
      },
    },
    async (request) => {
      const clientId = tenantOf(request).clientId;
      const ids = [...new Set(request.body.list_ids.map((id) => id.toLowerCase()))];
      const lists = await db
        .select({ id: crmLists.id })
        .from(crmLists)
        .innerJoin(integrations, eq(integrations.id, crmLists.integrationId))
        .where(
          and(
            eq(crmLists.clientId, clientId),
            eq(integrations.source, request.params.source),
            inArray(crmLists.id, ids),
          ),
        );
      if (lists.length !== ids.length) {
        throw fieldError(
          'body.list_ids',
          `names a list that is not a ${label(request.params.source)} list of this client`,
        );
      }
      const result = await db.execute(sql`
        with members as (
          select distinct ${crmListMembers.contactId} as contact_id, ${crmListMembers.accountId} as account_id
          from ${crmListMembers}
          where ${crmListMembers.clientId} = ${clientId} and ${inArray(crmListMembers.listId, ids)}
        ),
        contacts as (
          select distinct c.id, c.prospect_id, c.account_id from members
          join crm_contacts c on c.id = members.contact_id and not c.is_deleted
        ),
        accounts as (
          select a.id from (
            select account_id as id from members where account_id is not null
            union select account_id from contacts where account_id is not null
          ) ids join crm_accounts a on a.id = ids.id and not a.is_deleted
        )
        select
          (select count(*) from contacts)::int as contacts,
          (select count(*) from accounts)::int as accounts,
          (select count(distinct prospect_id) from contacts)::int as prospects,
          (select count(distinct a.company_id) from accounts join crm_accounts a on a.id = accounts.id)::int as companies`);
      type Estimate = { contacts: number; accounts: number; prospects: number; companies: number };
      const [row] = (result as unknown as { rows: Estimate[] }).rows;
      return row ?? { contacts: 0, accounts: 0, prospects: 0, companies: 0 };
    },
  );

  // The sequence platforms' cadences (Salesloft) and sequences (Outreach, Apollo) with their steps'
  // days, under the same prefix, for the reports. Both names answer for every sequence platform.
  const sequenceStep = z.object({ day_number: z.number().int(), content_ids: z.array(z.string()) });
  const sequenceReply = z.object({
    id: z.number().int(),
    integration_id: z.number().int(),
    external_id: z.string(),
    name: z.string(),
    status: z.string(),
    is_super: z.boolean(),
    last_synced_at: z.iso.datetime({ offset: true }).nullable(),
    steps: z.array(sequenceStep),
  });
  for (const path of ['cadences', 'sequences']) {
    app.get(
      `/integration/crm/:source/client/:clientId/${path}`,
      {
        config: { access: 'member' },
        schema: {
          tags: ['crm'],
          summary: "A sequence platform's cadences (sequences) with the days of their steps",
          params: z.object({ source: sequenceSourceParam, clientId: clientIdParam }),
          response: { 200: z.array(sequenceReply) },
        },
      },
      async (request) => {
        const clientId = tenantOf(request).clientId;
        const rows = await db
          .select({ cadence: cadences })
          .from(cadences)
          .innerJoin(integrations, eq(integrations.id, cadences.integrationId))
          .where(and(eq(cadences.clientId, clientId), eq(integrations.source, request.params.source)))
          .orderBy(cadences.name, cadences.id);
        const ids = rows.map((r) => r.cadence.id);
        const days = ids.length
          ? await db
              .select()
              .from(cadenceDays)
              .where(inArray(cadenceDays.cadenceId, ids))
              .orderBy(cadenceDays.cadenceId, cadenceDays.dayNumber)
          : [];
        return rows.map(({ cadence: c }) => ({
          id: c.id,
          integration_id: c.integrationId,
          external_id: c.externalId,
          name: c.name,
          status: c.status,
          is_super: c.isSuper,
          last_synced_at: c.lastSyncedAt?.toISOString() ?? null,
          steps: days
            .filter((d) => d.cadenceId === c.id)
            .map((d) => ({ day_number: d.dayNumber, content_ids: d.contentDays.map((cd) => cd.content_id) })),
        }));
      },
    );
  }
};
