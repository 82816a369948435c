import { and, asc, eq, gte, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { adAudiences, adCampaignStats, adCampaigns, adNetworkConnections } from '../../db/schema/index.ts';
import type { JobQueue } from '../../lib/queue.ts';
import { VendorAuthError, VendorError } from '../integrations/vendor-http.ts';
import { networkWords } from './campaign-service.ts';
import { pullCompanyStats } from './company-stats.ts';
import type { CompanyPull } from './company-stats.ts';
import type { AdNetworkService } from './service.ts';

export const AD_CAMPAIGN_STATS_JOB = 'ad-campaign-stats';
/**
 * Days pulled again on every pull: the networks revise recent days (Meta's attribution windows
 * reach 28 days after a click), so each pull replaces them and a late correction lands.
 */
export const STATS_REVISION_DAYS = 28;
/** Meta keeps insights for 37 months; an older start is pulled from there. */
const KEPT_MONTHS = 37;
const NAMES: Record<string, string> = { meta: 'Meta', linkedin: 'LinkedIn', google: 'Google Ads' };
const CHUNK = 1_000;
const DAY_MS = 86_400_000;

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const maxDay = (...days: string[]) => days.reduce((a, b) => (a > b ? a : b));

/**
 * What a pull did: the days asked for and the rows the network gave, and the company-level pull
 * where the network reports one (null when that failed); null when nothing was asked.
 */
export type StatsPull = { since: string; until: string; rows: number; companies?: CompanyPull | null } | null;

/**
 * Daily results of network campaigns (issue 39 "Results"): a job per campaign pulls its ads' days
 * from the network and replaces the stored rows of those days in one transaction, under the
 * campaign's row lock (two pulls at once store each day once). The first pull reaches back to the
 * campaign's start; later ones to STATS_REVISION_DAYS ago.
 */
export function createAdCampaignStats(deps: {
  db: Db;
  queue: JobQueue;
  base: AdNetworkService;
  log: FastifyBaseLogger;
}) {
  const { db, queue, base, log } = deps;

  async function pull(campaignId: string, now = new Date()): Promise<StatsPull> {
    const [found] = await db
      .select({ c: adCampaigns, conn: adNetworkConnections })
      .from(adCampaigns)
      .innerJoin(adAudiences, eq(adAudiences.id, adCampaigns.audienceId))
      .innerJoin(adNetworkConnections, eq(adNetworkConnections.id, adAudiences.connectionId))
      .where(eq(adCampaigns.id, campaignId));
    const remoteId = found?.c.networkCampaignId;
    if (!found || !remoteId) return null;
    const { c, conn } = found;
    const name = NAMES[conn.network] ?? conn.network;
    const note = (statsError: string | null) =>
      db.update(adCampaigns).set({ statsError }).where(eq(adCampaigns.id, c.id));
    if (!conn.isActive) {
      await note(`${name} is not connected: ${conn.inactiveReason ?? 'connect it again'}`);
      return null;
    }
    const api = base.adapters[conn.network].campaigns;
    if (!api) return null;
    const until = isoDay(now);
    const kept = new Date(now);
    kept.setUTCMonth(kept.getUTCMonth() - KEPT_MONTHS);
    kept.setUTCDate(kept.getUTCDate() + 1);
    const since = maxDay(
      isoDay(c.startsAt),
      isoDay(kept),
      c.statsPulledAt ? isoDay(new Date(now.getTime() - STATS_REVISION_DAYS * DAY_MS)) : '0000-00-00',
    );
    if (since > until) {
      // Not started yet: nothing to ask for.
      await db
        .update(adCampaigns)
        .set({ statsPulledAt: now, statsError: null })
        .where(eq(adCampaigns.id, c.id));
      return null;
    }
    let got: Awaited<ReturnType<typeof api.dailyStats>>;
    try {
      got = await base.withNetwork(conn, (_adapter, ctx) => api.dailyStats(ctx, remoteId, { since, until }));
    } catch (err) {
      await note(`${name} refused the results: ${networkWords(err)}`);
      if (err instanceof VendorAuthError) return null;
      if (err instanceof VendorError && err.status >= 400 && err.status < 500) return null;
      throw err;
    }
    await db.transaction(async (tx) => {
      await tx.execute(sql`select 1 from ${adCampaigns} where ${adCampaigns.id} = ${c.id} for update`);
      await tx
        .delete(adCampaignStats)
        .where(
          and(
            eq(adCampaignStats.campaignId, c.id),
            gte(adCampaignStats.day, since),
            lte(adCampaignStats.day, until),
          ),
        );
      for (let i = 0; i < got.rows.length; i += CHUNK) {
        await tx
          .insert(adCampaignStats)
          .values(
            got.rows.slice(i, i + CHUNK).map((r) => ({
              campaignId: c.id,
              clientId: c.clientId,
              networkAdId: r.adId,
              day: r.day,
              impressions: r.impressions,
              reach: r.reach,
              clicks: r.clicks,
              spendMinor: r.spendMinor,
              pulledAt: now,
            })),
          )
          .onConflictDoUpdate({
            target: [adCampaignStats.campaignId, adCampaignStats.networkAdId, adCampaignStats.day],
            set: {
              impressions: sql`excluded.impressions`,
              reach: sql`excluded.reach`,
              clicks: sql`excluded.clicks`,
              spendMinor: sql`excluded.spend_minor`,
              pulledAt: sql`excluded.pulled_at`,
            },
          });
      }
      await tx
        .update(adCampaigns)
        .set({
          statsPulledAt: now,
          statsError: null,
          currency: c.currency ?? got.currency,
        })
        .where(eq(adCampaigns.id, c.id));
    });
    let companies: CompanyPull | null = null;
    if (api.companies) {
      // Company-level results are extra: their failure leaves the campaign's own results stored.
      try {
        companies = await pullCompanyStats({
          db,
          log,
          api: api.companies,
          run: (fn) => base.withNetwork(conn, (_adapter, ctx) => fn(ctx)),
          campaign: { id: c.id, clientId: c.clientId, remoteId, network: conn.network },
          range: { since, until },
          now,
        });
      } catch (err) {
        log.warn({ err, campaignId: c.id }, 'company-level results pull failed; the next pull tries again');
      }
    }
    // `companies` only where the network reports them (LinkedIn).
    return { since, until, rows: got.rows.length, ...(api.companies ? { companies } : {}) };
  }

  async function requestPull(campaignId: string): Promise<void> {
    await queue.send(AD_CAMPAIGN_STATS_JOB, { campaignId }, { singletonKey: campaignId });
  }

  /** Queues a pull of each campaign at the network whose results are older than `maxAgeMs`. */
  async function requestDue(maxAgeMs: number, now = new Date()): Promise<number> {
    const due = await db
      .select({ id: adCampaigns.id })
      .from(adCampaigns)
      .innerJoin(adAudiences, eq(adAudiences.id, adCampaigns.audienceId))
      .innerJoin(adNetworkConnections, eq(adNetworkConnections.id, adAudiences.connectionId))
      .where(
        and(
          eq(adNetworkConnections.isActive, true),
          isNotNull(adCampaigns.networkCampaignId),
          or(
            isNull(adCampaigns.statsPulledAt),
            lt(adCampaigns.statsPulledAt, new Date(now.getTime() - maxAgeMs)),
          ),
        ),
      )
      .orderBy(asc(adCampaigns.statsPulledAt));
    for (const c of due) await requestPull(c.id);
    return due.length;
  }

  function register(): void {
    queue.register<{ campaignId: string }>(
      AD_CAMPAIGN_STATS_JOB,
      async (data) => {
        try {
          await pull(data.campaignId);
        } catch (err) {
          log.warn(
            { err, campaignId: data.campaignId },
            'campaign results pull failed; the queue retries it',
          );
          throw err;
        }
      },
      { policy: 'stately', retryLimit: 3, retryDelay: 60, retryBackoff: true },
    );
  }

  return { pull, requestPull, requestDue, register };
}

export type AdCampaignStats = ReturnType<typeof createAdCampaignStats>;
