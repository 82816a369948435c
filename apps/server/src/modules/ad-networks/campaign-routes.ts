import { and, desc, eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { uuidToBase58 } from '@rally/shared';
import { messageReply } from '@rally/shared/schemas/auth';
import { adNetworkParam } from '@rally/shared/schemas/ad-networks';
import {
  adCampaignCreateBody,
  adCampaignIdParam,
  adCampaignListQuery,
  adCampaignListReply,
  adCampaignOptionsReply,
  adCampaignSchema,
} from '@rally/shared/schemas/ad-network-campaigns';
import type { AdCampaign } from '@rally/shared/schemas/ad-network-campaigns';
import { adAudiences, adCampaigns, adNetworkConnections, content } from '../../db/schema/index.ts';
import { authOf, tenantOf } from '../../lib/access.ts';
import { randomToken } from '../../lib/crypto.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import { networkAdCopy } from '../creative/index.ts';
import type { AdCampaignService } from './campaign-service.ts';
import { campaignLink } from './campaign-service.ts';
import type { AdNetwork } from './port.ts';
import type { AdNetworkService } from './service.ts';

/** Spending is for cohort.write (owners, admins, managers); SDRs and viewers read only. */
const spend = { permission: 'cohort.write' } as const;
const errors = { 404: messageReply, 409: messageReply };
const NAMES: Record<string, string> = { meta: 'Meta', linkedin: 'LinkedIn', google: 'Google Ads' };
const DAY_MS = 86_400_000;

/** The link every ad of the campaign shares; each ad adds utm_content with its size. */
function sharedLink(landingUrl: string, c: { token: string; name: string }, network: AdNetwork) {
  const url = new URL(campaignLink(landingUrl, c, network, ''));
  url.searchParams.delete('utm_content');
  return url.toString();
}

type Row = {
  c: typeof adCampaigns.$inferSelect;
  audienceName: string;
  network: AdNetwork;
};

/**
 * Campaigns on ad networks (issue 39, decision 0026), under /v1: every member reads; creating,
 * launching, pausing and re-syncing need cohort.write, which SDRs and viewers lack.
 */
export function adCampaignRoutes(
  base: AdNetworkService,
  campaigns: AdCampaignService,
): FastifyPluginAsyncZod {
  return async (app) => {
    const { db } = app;

    const placementsOf = (network: AdNetwork) => base.adapters[network].campaigns?.placements ?? [];

    function reply({ c, audienceName, network }: Row, landingUrl: string | null): AdCampaign {
      const labels = new Map(placementsOf(network).map((p) => [p.size as string, p.label]));
      const sizes = new Set([...labels.keys(), ...c.ads.map((a) => a.size)]);
      return {
        id: c.id,
        network,
        audience_id: c.audienceId,
        audience_name: audienceName,
        content_id: c.contentId,
        name: c.name,
        objective: c.objective,
        budget_kind: c.budgetKind,
        budget_minor: c.budgetMinor,
        currency: c.currency,
        starts_at: c.startsAt.toISOString(),
        ends_at: c.endsAt?.toISOString() ?? null,
        link: landingUrl ? sharedLink(landingUrl, c, network) : null,
        status: c.status,
        sync_state: c.syncState,
        sync_error: c.syncError,
        network_campaign_id: c.networkCampaignId,
        effective_status: c.effectiveStatus,
        issues: c.issues,
        status_read_at: c.statusReadAt?.toISOString() ?? null,
        ads: [...sizes].map((size) => {
          const ad = c.ads.find((a) => a.size === size);
          return {
            size,
            label: labels.get(size) ?? size,
            ad_id: ad?.adId ?? null,
            effective_status: ad?.effectiveStatus ?? null,
            issues: ad?.issues ?? null,
            preview_url: `/content/preview/${uuidToBase58(c.contentId)}/${size}.png`,
          };
        }),
        created_at: c.createdAt.toISOString(),
      };
    }

    const select = () =>
      db
        .select({ c: adCampaigns, audienceName: adAudiences.name, network: adNetworkConnections.network })
        .from(adCampaigns)
        .innerJoin(adAudiences, eq(adAudiences.id, adCampaigns.audienceId))
        .innerJoin(adNetworkConnections, eq(adNetworkConnections.id, adAudiences.connectionId));

    async function one(clientId: string, id: string): Promise<Row> {
      const [row] = await select().where(and(eq(adCampaigns.id, id), eq(adCampaigns.clientId, clientId)));
      if (!row) throw httpError(404, 'Campaign not found.');
      return row;
    }
    const landingOf = async (contentId: string) => (await networkAdCopy(app, contentId))?.landingUrl ?? null;

    app.get(
      '/ad-networks/:network/campaign-options',
      {
        config: { access: 'member' },
        schema: {
          tags: ['ad-networks'],
          summary: 'What a campaign on this network needs: its minimum daily budget, placements and page',
          params: z.object({ network: adNetworkParam }),
          response: { 200: adCampaignOptionsReply, ...errors },
        },
      },
      async (request) => {
        const { network } = request.params;
        const api = base.adapters[network].campaigns;
        if (!api) throw httpError(409, `Rally cannot run campaigns on ${NAMES[network] ?? network} yet.`);
        const [conn] = await db
          .select()
          .from(adNetworkConnections)
          .where(
            and(
              eq(adNetworkConnections.clientId, tenantOf(request).clientId),
              eq(adNetworkConnections.network, network),
            ),
          );
        return {
          network,
          minimum_daily_budget_minor: api.minimumDailyBudget,
          currency: null,
          page_name: conn?.pageName ?? null,
          placements: api.placements.map((p) => ({
            size: p.size,
            label: p.label,
            also: [...(p.also ?? [])],
          })),
          needs_page: api.needsPage !== false,
          budget_kinds: [...(api.budgetKinds ?? ['daily', 'lifetime'])],
        };
      },
    );

    app.get(
      '/ad-networks/campaigns',
      {
        config: { access: 'member' },
        schema: {
          tags: ['ad-networks'],
          summary: 'This client’s network campaigns, optionally of one audience',
          querystring: adCampaignListQuery,
          response: { 200: adCampaignListReply },
        },
      },
      async (request) => {
        const clientId = tenantOf(request).clientId;
        const { audience_id } = request.query;
        const rows = await select()
          .where(
            and(
              eq(adCampaigns.clientId, clientId),
              audience_id ? eq(adCampaigns.audienceId, audience_id) : undefined,
            ),
          )
          .orderBy(desc(adCampaigns.createdAt));
        const links = new Map<string, string | null>();
        for (const r of rows)
          if (!links.has(r.c.contentId)) links.set(r.c.contentId, await landingOf(r.c.contentId));
        return rows.map((r) => reply(r, links.get(r.c.contentId) ?? null));
      },
    );

    app.get(
      '/ad-networks/campaigns/:id',
      {
        config: { access: 'member' },
        schema: {
          tags: ['ad-networks'],
          summary: 'A network campaign: budget, schedule, its ads and the status the network reports',
          params: adCampaignIdParam,
          response: { 200: adCampaignSchema, ...errors },
        },
      },
      async (request) => {
        const row = await one(tenantOf(request).clientId, request.params.id);
        return reply(row, await landingOf(row.c.contentId));
      },
    );

    app.post(
      '/ad-networks/campaigns',
      {
        config: { access: spend },
        schema: {
          tags: ['ad-networks'],
          summary: 'Plan a campaign for a network audience: made paused at the network by a job',
          body: adCampaignCreateBody,
          response: { 201: adCampaignSchema, ...errors },
        },
      },
      async (request, reply201) => {
        const clientId = tenantOf(request).clientId;
        const b = request.body;
        const [audience] = await db
          .select({ a: adAudiences, conn: adNetworkConnections })
          .from(adAudiences)
          .innerJoin(adNetworkConnections, eq(adNetworkConnections.id, adAudiences.connectionId))
          .where(and(eq(adAudiences.id, b.audience_id), eq(adAudiences.clientId, clientId)));
        if (!audience) throw httpError(404, 'No such network audience in this client.');
        const { conn } = audience;
        const name = NAMES[conn.network] ?? conn.network;
        const api = base.adapters[conn.network].campaigns;
        if (!api) throw httpError(409, `Rally cannot run campaigns on ${name} yet.`);
        if (!conn.isActive)
          throw httpError(
            409,
            `${name} stopped accepting Rally: ${conn.inactiveReason ?? 'connect it again.'}`,
          );
        if (!conn.pageId && api.needsPage !== false)
          throw httpError(
            409,
            `Choose the page your ads speak as in Settings › Ad networks › ${name} first.`,
          );
        const [ad] = await db
          .select({ isArchived: content.isArchived })
          .from(content)
          .where(and(eq(content.id, b.content_id), eq(content.clientId, clientId)));
        if (!ad) throw fieldError('body.content_id', 'is not an ad of this client');
        if (ad.isArchived) throw fieldError('body.content_id', 'is archived: unarchive it or pick another');
        const starts = new Date(b.starts_at);
        const ends = b.ends_at ? new Date(b.ends_at) : null;
        if (starts.getTime() < Date.now() - 3600_000)
          throw fieldError('body.starts_at', 'must not be in the past');
        if (api.budgetKinds && !api.budgetKinds.includes(b.budget_kind))
          throw fieldError('body.budget_kind', `must be ${api.budgetKinds.join(' or ')} on ${name}`);
        const min = api.minimumDailyBudget;
        const money = (m: number) => (m / 100).toFixed(2);
        if (b.budget_kind === 'daily' && b.budget_minor < min)
          throw fieldError('body.budget_minor', `must be at least ${money(min)} a day on ${name}`);
        if (b.budget_kind === 'lifetime' && ends) {
          const days = Math.ceil((ends.getTime() - starts.getTime()) / DAY_MS);
          if (b.budget_minor < min * days)
            throw fieldError(
              'body.budget_minor',
              `must be at least ${money(min * days)} for ${days} days on ${name}`,
            );
        }
        const [row] = await db
          .insert(adCampaigns)
          .values({
            clientId,
            audienceId: audience.a.id,
            contentId: b.content_id,
            name: b.name,
            objective: b.objective,
            budgetKind: b.budget_kind,
            budgetMinor: b.budget_minor,
            startsAt: starts,
            endsAt: ends,
            landingUrl: '',
            token: randomToken(12),
            createdBy: authOf(request).user.id,
          })
          .returning();
        if (!row) throw new Error('campaign insert returned nothing');
        await campaigns.requestSync(row.id);
        reply201.code(201);
        return reply(await one(clientId, row.id), await landingOf(row.contentId));
      },
    );

    for (const [action, status, summary] of [
      ['launch', 'active', 'Launch a campaign: the network starts delivering and spending'],
      ['pause', 'paused', 'Pause a campaign: the network stops delivering'],
      ['sync', null, 'Bring a campaign up to date at the network now and read its status back'],
    ] as const) {
      app.post(
        `/ad-networks/campaigns/:id/${action}`,
        {
          config: { access: spend },
          schema: {
            tags: ['ad-networks'],
            summary,
            params: adCampaignIdParam,
            response: { 200: adCampaignSchema, ...errors },
          },
        },
        async (request) => {
          const clientId = tenantOf(request).clientId;
          const row = await one(clientId, request.params.id);
          const [conn] = await db
            .select()
            .from(adNetworkConnections)
            .where(
              and(eq(adNetworkConnections.clientId, clientId), eq(adNetworkConnections.network, row.network)),
            );
          if (!conn?.isActive)
            throw httpError(
              409,
              `${NAMES[row.network] ?? row.network} stopped accepting Rally: ${conn?.inactiveReason ?? 'connect it again.'}`,
            );
          if (status)
            await db
              .update(adCampaigns)
              .set({ status, updatedAt: new Date() })
              .where(eq(adCampaigns.id, row.c.id));
          await campaigns.requestSync(row.c.id);
          return reply(await one(clientId, row.c.id), await landingOf(row.c.contentId));
        },
      );
    }
  };
}
