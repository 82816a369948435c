import { and, eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messageReply } from '@rally/shared/schemas/auth';
import {
  AD_NETWORK_KEYS,
  AD_NETWORK_LABELS,
  adAccountsReply,
  adNetworkListReply,
  adNetworkParam,
  adNetworkRedirectReply,
  adNetworkSettingsBody,
} from '@rally/shared/schemas/ad-networks';
import { adNetworkConnections } from '../../db/schema/index.ts';
import { authOf, tenantOf } from '../../lib/access.ts';
import { createSecretBox, hmac, randomToken, safeEqual } from '../../lib/crypto.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import { SERVICE_PREFIXES } from '../../lib/prefixes.ts';
import { VendorAuthError, VendorError, VendorUnreachableError } from '../integrations/vendor-http.ts';
import { adNetworkEnv, adNetworkSetUp } from './availability.ts';
import type { AdNetwork, RemoteAdAccount, RemotePage } from './port.ts';
import type { AdNetworkService } from './service.ts';
import { auditRequest } from '../audit/index.ts';

const FLOW_COOKIE = 'rally_ad_network_flow';
const FLOW_TTL_MS = 15 * 60_000;
/** The signed OAuth state: client, user, network, expiry, nonce (also in a cookie). */
type Flow = { c: string; u: string; s: AdNetwork; e: number; n: string };
const NOT_AVAILABLE = (label: string) =>
  `${label} is not available on this installation — ask your administrator.`;
const write = { permission: 'integration.write' } as const;
const errors = { 400: messageReply, 404: messageReply, 409: messageReply, 502: messageReply };

type Connection = typeof adNetworkConnections.$inferSelect;

/**
 * Settings › Ad networks and the audiences Rally keeps on them (issue 39, decision 0025), under /v1:
 * connecting is for integration.write (owners, admins), running a cohort, stage or cadence on a
 * network for cohort.write (managers too); SDRs and viewers read only.
 */
export function adNetworkRoutes(service: AdNetworkService): FastifyPluginAsyncZod {
  return async (app) => {
    const { db, config } = app;
    const box = createSecretBox(config.appSecret);
    const base = `${SERVICE_PREFIXES.main}/ad-networks`;
    const redirectUri = (network: string) => `${config.publicUrl}${base}/${network}/callback`;
    const label = (n: AdNetwork) => AD_NETWORK_LABELS[n].replace(/ \(.*\)$/, '');
    const available = (n: AdNetwork) => adNetworkSetUp(config.vendors, n);

    const signFlow = (flow: Flow) => {
      const payload = Buffer.from(JSON.stringify(flow)).toString('base64url');
      return `${payload}.${hmac(config.appSecret, `ad-network-flow:${payload}`)}`;
    };
    const readFlow = (state: string): Flow | null => {
      const [payload, mac] = state.split('.');
      if (!payload || !mac || !safeEqual(mac, hmac(config.appSecret, `ad-network-flow:${payload}`)))
        return null;
      const flow = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Flow;
      return flow.e > Date.now() ? flow : null;
    };

    async function connectionOf(clientId: string, network: AdNetwork): Promise<Connection | null> {
      const [row] = await db
        .select()
        .from(adNetworkConnections)
        .where(and(eq(adNetworkConnections.clientId, clientId), eq(adNetworkConnections.network, network)));
      return row ?? null;
    }
    async function activeConnection(clientId: string, network: AdNetwork): Promise<Connection> {
      const row = await connectionOf(clientId, network);
      if (!row)
        throw httpError(409, `${label(network)} is not connected: connect it in Settings › Ad networks.`);
      if (!row.isActive)
        throw httpError(
          409,
          `${label(network)} stopped accepting Rally: ${row.inactiveReason ?? 'connect it again.'}`,
        );
      return row;
    }
    /** A network call from a route: its refusals in words for the user. */
    async function networkCall<T>(
      row: Connection,
      fn: Parameters<AdNetworkService['withNetwork']>[1],
    ): Promise<T> {
      try {
        return (await service.withNetwork(row, fn)) as T;
      } catch (err) {
        if (err instanceof VendorAuthError) throw httpError(409, err.message);
        if (err instanceof VendorError || err instanceof VendorUnreachableError)
          throw httpError(502, `${label(row.network)} did not answer: ${err.message}`);
        throw err;
      }
    }

    app.get(
      '/ad-networks',
      {
        config: { access: 'member' },
        schema: {
          tags: ['ad-networks'],
          summary: 'The ad networks, whether each is set up here, and this client’s connection to each',
          response: { 200: adNetworkListReply },
        },
      },
      async (request) => {
        const clientId = tenantOf(request).clientId;
        return Promise.all(
          AD_NETWORK_KEYS.map(async (network) => {
            const c = await connectionOf(clientId, network);
            return {
              network,
              label: AD_NETWORK_LABELS[network],
              available: available(network),
              minimum_audience: service.adapters[network].minimumAudience,
              connection: c
                ? {
                    id: c.id,
                    account_name: c.accountName,
                    ad_account_id: c.adAccountId,
                    ad_account_name: c.adAccountName,
                    page_id: c.pageId,
                    page_name: c.pageName,
                    is_active: c.isActive,
                    inactive_reason: c.inactiveReason,
                    connected_at: c.createdAt.toISOString(),
                  }
                : null,
            };
          }),
        );
      },
    );

    app.get(
      '/ad-networks/:network/redirect',
      {
        config: { access: write },
        schema: {
          tags: ['ad-networks'],
          summary: "Start connecting an ad network: the network's consent URL to send the browser to",
          params: z.object({ network: adNetworkParam }),
          response: { 200: adNetworkRedirectReply, 400: messageReply },
        },
      },
      async (request, reply) => {
        const { network } = request.params;
        if (!available(network)) {
          request.log.warn(`${label(network)} connect refused: set ${adNetworkEnv(network)} to offer it`);
          throw httpError(400, NOT_AVAILABLE(label(network)));
        }
        const nonce = randomToken(16);
        const state = signFlow({
          c: tenantOf(request).clientId,
          u: authOf(request).user.id,
          s: network,
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
        return {
          redirect_url: service.adapters[network].authorizeUrl({ state, redirectUri: redirectUri(network) }),
        };
      },
    );

    app.get(
      '/ad-networks/:network/callback',
      {
        // A browser redirect from the network: no x-client-id; the signed state names the client.
        config: { access: 'session' },
        schema: {
          tags: ['ad-networks'],
          summary: "The network's OAuth redirect back to Rally",
          params: z.object({ network: adNetworkParam }),
          querystring: z.object({
            code: z.string().max(4096).optional(),
            state: z.string().max(4096).optional(),
            error: z.string().max(200).optional(),
            error_description: z.string().max(1000).optional(),
          }),
        },
      },
      async (request, reply) => {
        const { network } = request.params;
        const flow = request.query.state ? readFlow(request.query.state) : null;
        const nonce = request.cookies[FLOW_COOKIE];
        reply.clearCookie(FLOW_COOKIE, { path: base });
        const back = (clientId: string | null, q: Record<string, string>) =>
          reply.redirect(
            `/settings/ad-networks?${new URLSearchParams({ ...(clientId ? { client_id: clientId } : {}), ...q })}`,
            302,
          );
        if (
          !flow ||
          flow.s !== network ||
          !nonce ||
          !safeEqual(nonce, flow.n) ||
          flow.u !== authOf(request).user.id
        ) {
          return back(null, {
            connect_error: `The ${label(network)} sign-in could not be verified (it expired or came from another browser). Please try again.`,
          });
        }
        if (request.query.error || !request.query.code) {
          return back(flow.c, { connect_error: `${label(network)} did not grant access.` });
        }
        const self = await app.identity.self(flow.u);
        const member = self?.clients.find((c) => c.client_id === flow.c);
        if (!member?.permissions.includes('integration.write')) {
          return back(flow.c, { connect_error: 'Your role does not have the integration.write permission.' });
        }
        try {
          const adapter = service.adapters[network];
          let creds = await adapter.exchangeCode({
            code: request.query.code,
            redirectUri: redirectUri(network),
          });
          const who = await adapter.whoami({
            credentials: () => creds,
            saveCredentials: async (next) => {
              if (next.kind === 'oauth') creds = next;
            },
            interactive: true,
          });
          const sealed = box.encrypt(JSON.stringify(creds));
          await db
            .insert(adNetworkConnections)
            .values({
              clientId: flow.c,
              network,
              credentialsEnc: sealed,
              accountName: who.name,
              connectedBy: flow.u,
            })
            .onConflictDoUpdate({
              target: [adNetworkConnections.clientId, adNetworkConnections.network],
              set: {
                credentialsEnc: sealed,
                accountName: who.name,
                isActive: true,
                inactiveReason: null,
                connectedBy: flow.u,
                updatedAt: new Date(),
              },
            });
          await auditRequest(db, request, {
            clientId: flow.c,
            action: 'ad_network.connected',
            target: { kind: 'ad_network', id: network },
            details: { network, account: who.name },
          });
        } catch (err) {
          request.log.warn({ err, network }, 'ad network connection failed');
          return back(flow.c, {
            connect_error: `${label(network)} could not be connected: ${(err as Error).message}`,
          });
        }
        return back(flow.c, { connected: network });
      },
    );

    app.get(
      '/ad-networks/:network/accounts',
      {
        config: { access: 'member' },
        schema: {
          tags: ['ad-networks'],
          summary: 'The ad accounts and pages the connected person may use, read from the network',
          params: z.object({ network: adNetworkParam }),
          response: { 200: adAccountsReply, ...errors },
        },
      },
      async (request) => {
        const row = await activeConnection(tenantOf(request).clientId, request.params.network);
        return networkCall(row, async (a, ctx) => {
          const [accounts, pages] = [await a.adAccounts(ctx), await a.pages(ctx)];
          return {
            ad_accounts: accounts.map((x) => ({
              id: x.id,
              name: x.name,
              currency: x.currency,
              is_active: x.isActive,
            })),
            pages,
          };
        });
      },
    );

    app.put(
      '/ad-networks/:network',
      {
        config: { access: write },
        schema: {
          tags: ['ad-networks'],
          summary: 'Choose the ad account (and page) Rally creates audiences and ads in',
          params: z.object({ network: adNetworkParam }),
          body: adNetworkSettingsBody,
          response: { 200: messageReply, ...errors },
        },
      },
      async (request) => {
        const { network } = request.params;
        const row = await activeConnection(tenantOf(request).clientId, network);
        const { ad_account_id, page_id } = request.body;
        const { accounts, pages } = await networkCall<{
          accounts: RemoteAdAccount[];
          pages: RemotePage[];
        }>(row, async (a, ctx) => ({
          accounts: await a.adAccounts(ctx),
          pages: page_id ? await a.pages(ctx) : [],
        }));
        const account = accounts.find((x) => x.id === ad_account_id);
        if (!account)
          throw fieldError('body.ad_account_id', `is not an ad account of this ${label(network)} login`);
        if (!account.isActive) throw fieldError('body.ad_account_id', `is not active at ${label(network)}`);
        const page = page_id ? pages.find((p) => p.id === page_id) : null;
        if (page_id && !page)
          throw fieldError('body.page_id', `is not a page this ${label(network)} login manages`);
        await db
          .update(adNetworkConnections)
          .set({
            adAccountId: account.id,
            adAccountName: account.name,
            pageId: page?.id ?? null,
            pageName: page?.name ?? null,
            updatedAt: new Date(),
          })
          .where(eq(adNetworkConnections.id, row.id));
        await auditRequest(db, request, {
          action: 'settings.changed',
          target: { kind: 'ad_network', id: network },
          details: { network, fields: page_id ? ['ad_account_id', 'page_id'] : ['ad_account_id'] },
        });
        return { message: `${label(network)} ad account set to ${account.name}.` };
      },
    );

    app.delete(
      '/ad-networks/:network',
      {
        config: { access: write },
        schema: {
          tags: ['ad-networks'],
          summary: "Disconnect: revokes Rally's access at the network and forgets the tokens and audiences",
          params: z.object({ network: adNetworkParam }),
          response: { 200: messageReply, 404: messageReply },
        },
      },
      async (request) => {
        const { network } = request.params;
        const row = await connectionOf(tenantOf(request).clientId, network);
        if (!row) throw httpError(404, `${label(network)} is not connected.`);
        if (row.isActive) {
          await service
            .withNetwork(row, (a, ctx) => a.revoke(ctx))
            .catch((err: unknown) => request.log.warn({ err, network }, 'revoking at the network failed'));
        }
        await db.delete(adNetworkConnections).where(eq(adNetworkConnections.id, row.id));
        await auditRequest(db, request, {
          action: 'ad_network.removed',
          target: { kind: 'ad_network', id: network },
          details: { network },
        });
        return { message: `${label(network)} disconnected.` };
      },
    );
  };
}
