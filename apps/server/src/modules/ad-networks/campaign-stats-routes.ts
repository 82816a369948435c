import { and, asc, eq, sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messageReply } from '@rally/shared/schemas/auth';
import { adCampaignIdParam, adCampaignStatsReply } from '@rally/shared/schemas/ad-network-campaigns';
import type { AdCampaignStats } from '@rally/shared/schemas/ad-network-campaigns';
import type { Db } from '../../db/client.ts';
import { adAudiences, adCampaignStats, adCampaigns, adNetworkConnections } from '../../db/schema/index.ts';
import { tenantOf } from '../../lib/access.ts';
import { sendCsv } from '../../lib/csv-export.ts';
import type { CsvColumn } from '../../lib/csv-export.ts';
import { httpError } from '../../lib/errors.ts';
import { auditRequest } from '../audit/index.ts';
import type { AdCampaignStats as StatsService } from './campaign-stats.ts';
import type { AdNetworkService } from './service.ts';

const errors = { 404: messageReply, 409: messageReply };
/** Reading results is for every member; pulling them now costs network quota: cohort.write. */
const spend = { permission: 'cohort.write' } as const;

/** The stored results of one campaign of `clientId`, or null when it is not the client's. */
export async function readCampaignStats(
  db: Db,
  base: AdNetworkService,
  clientId: string,
  campaignId: string,
): Promise<AdCampaignStats | null> {
  const [row] = await db
    .select({ c: adCampaigns, network: adNetworkConnections.network })
    .from(adCampaigns)
    .innerJoin(adAudiences, eq(adAudiences.id, adCampaigns.audienceId))
    .innerJoin(adNetworkConnections, eq(adNetworkConnections.id, adAudiences.connectionId))
    .where(and(eq(adCampaigns.id, campaignId), eq(adCampaigns.clientId, clientId)));
  if (!row) return null;
  const mine = and(eq(adCampaignStats.campaignId, campaignId), eq(adCampaignStats.clientId, clientId));
  const sums = {
    impressions: sql<number>`coalesce(sum(${adCampaignStats.impressions}), 0)::float8`,
    clicks: sql<number>`coalesce(sum(${adCampaignStats.clicks}), 0)::float8`,
    spend_minor: sql<number>`coalesce(sum(${adCampaignStats.spendMinor}), 0)::float8`,
  };
  const days = await db
    .select({
      day: adCampaignStats.day,
      reach: sql<number>`coalesce(sum(${adCampaignStats.reach}), 0)::float8`,
      ...sums,
    })
    .from(adCampaignStats)
    .where(mine)
    .groupBy(adCampaignStats.day)
    .orderBy(asc(adCampaignStats.day));
  const ads = await db
    .select({ ad_id: adCampaignStats.networkAdId, ...sums })
    .from(adCampaignStats)
    .where(mine)
    .groupBy(adCampaignStats.networkAdId)
    .orderBy(asc(adCampaignStats.networkAdId));
  const placements = new Map(
    (base.adapters[row.network].campaigns?.placements ?? []).map((p) => [p.size as string, p.label]),
  );
  const labelOf = (adId: string) => {
    const size = row.c.ads.find((a) => a.adId === adId)?.size;
    return size ? `${placements.get(size) ?? size} (${size})` : `Ad ${adId}`;
  };
  const total = (k: 'impressions' | 'clicks' | 'spend_minor') => days.reduce((n, d) => n + Number(d[k]), 0);
  return {
    campaign_id: row.c.id,
    network: row.network,
    currency: row.c.currency,
    pulled_at: row.c.statsPulledAt?.toISOString() ?? null,
    error: row.c.statsError,
    totals: { impressions: total('impressions'), clicks: total('clicks'), spend_minor: total('spend_minor') },
    days: days.map((d) => ({
      day: d.day,
      reach: Number(d.reach),
      impressions: Number(d.impressions),
      clicks: Number(d.clicks),
      spend_minor: Number(d.spend_minor),
    })),
    ads: ads.map((a) => ({
      ad_id: a.ad_id,
      label: labelOf(a.ad_id),
      impressions: Number(a.impressions),
      clicks: Number(a.clicks),
      spend_minor: Number(a.spend_minor),
    })),
  };
}

type Day = AdCampaignStats['days'][number];
const money = (minor: number) => (minor / 100).toFixed(2);

/**
 * A network campaign's results (issue 39 "Results") under /v1: the stored days, the same as CSV,
 * and a pull now. Per-person counts and superprospects stay with Rally's own tags.
 */
export function adCampaignStatsRoutes(base: AdNetworkService, stats: StatsService): FastifyPluginAsyncZod {
  return async (app) => {
    const { db } = app;
    const read = async (clientId: string, id: string) => {
      const found = await readCampaignStats(db, base, clientId, id);
      if (!found) throw httpError(404, 'Campaign not found.');
      return found;
    };

    app.get(
      '/ad-networks/campaigns/:id/stats',
      {
        config: { access: 'member' },
        schema: {
          tags: ['ad-networks'],
          summary: 'A network campaign’s daily results: impressions, reach, clicks and spend per day and ad',
          params: adCampaignIdParam,
          response: { 200: adCampaignStatsReply, ...errors },
        },
      },
      async (request) => read(tenantOf(request).clientId, request.params.id),
    );

    app.get(
      '/ad-networks/campaigns/:id/stats.csv',
      {
        config: { access: 'member' },
        schema: {
          tags: ['ad-networks'],
          summary: 'A network campaign’s daily results as CSV (one line per day)',
          params: adCampaignIdParam,
          response: { 200: z.string().describe('text/csv'), ...errors },
        },
      },
      async (request, reply) => {
        const found = await read(tenantOf(request).clientId, request.params.id);
        const currency = found.currency ?? '';
        const columns: CsvColumn<Day>[] = [
          { header: 'Day', value: (d) => d.day },
          { header: 'Impressions', value: (d) => d.impressions },
          { header: 'Reach', value: (d) => d.reach },
          { header: 'Clicks', value: (d) => d.clicks },
          { header: currency ? `Spend (${currency})` : 'Spend', value: (d) => money(d.spend_minor) },
        ];
        const filename = `campaign-results-${found.campaign_id.slice(0, 8)}.csv`;
        await auditRequest(db, request, {
          action: 'export.downloaded',
          target: { kind: 'ad_campaign', id: found.campaign_id },
          details: { filename },
        });
        return sendCsv(reply, filename, columns, found.days);
      },
    );

    app.post(
      '/ad-networks/campaigns/:id/stats/pull',
      {
        config: { access: spend },
        schema: {
          tags: ['ad-networks'],
          summary: 'Pull a network campaign’s results now (the job does so every hour)',
          params: adCampaignIdParam,
          response: { 200: adCampaignStatsReply, ...errors },
        },
      },
      async (request) => {
        const clientId = tenantOf(request).clientId;
        const before = await read(clientId, request.params.id);
        const [c] = await db
          .select({ remote: adCampaigns.networkCampaignId })
          .from(adCampaigns)
          .where(eq(adCampaigns.id, before.campaign_id));
        if (!c?.remote)
          throw httpError(409, 'This campaign is not at the network yet: it has no results to pull.');
        await stats.pull(before.campaign_id);
        return read(clientId, before.campaign_id);
      },
    );
  };
}
