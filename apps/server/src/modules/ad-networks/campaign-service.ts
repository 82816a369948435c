import { createHash } from 'node:crypto';
import { and, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { adAudiences, adCampaigns, adNetworkConnections, content } from '../../db/schema/index.ts';
import type { AdCampaignAd } from '../../db/schema/index.ts';
import type { JobQueue } from '../../lib/queue.ts';
import { VendorAuthError, VendorError } from '../integrations/vendor-http.ts';
import type { AdNetwork, PlacementSize } from './port.ts';
import type { AdNetworkService } from './service.ts';

export const AD_CAMPAIGN_SYNC_JOB = 'ad-campaign-sync';
const NETWORK_NAMES: Record<string, string> = { meta: 'Meta', linkedin: 'LinkedIn', google: 'Google Ads' };

type Campaign = typeof adCampaigns.$inferSelect;

/** What the campaign service needs of the creative module (index.ts builds it from the app). */
export type CampaignCreatives = {
  /** The ad at `size`, personalisation from each field's fallback (no prospect); null: no content. */
  render(contentId: string, size: PlacementSize): Promise<{ png: Buffer; key: string } | null>;
  /** The ad's headline and primary text with fallbacks filled, and where it should link. */
  copy(contentId: string): Promise<{ headline: string; message: string; landingUrl: string | null } | null>;
};

/**
 * The link an ad carries: the landing page with the campaign's token (`rly_a`, one per audience's
 * campaign) and UTM parameters naming the network, the campaign and the placement.
 */
export function campaignLink(
  landingUrl: string,
  c: { token: string; name: string },
  network: AdNetwork,
  size: string,
): string {
  const url = new URL(landingUrl);
  url.searchParams.set('rly_a', c.token);
  url.searchParams.set('utm_source', network);
  url.searchParams.set('utm_medium', 'paid_social');
  url.searchParams.set('utm_campaign', c.name);
  url.searchParams.set('utm_content', size);
  return url.toString();
}

/**
 * The network's own words from a refusal (Graph's error_user_msg or message, Google Ads' GoogleAdsFailure
 * errors), else the error's.
 */
export function networkWords(err: unknown): string {
  if (err instanceof VendorError) {
    try {
      const body = JSON.parse(err.body) as {
        error?: {
          message?: string;
          error_user_msg?: string;
          // Google Ads: a GoogleAdsFailure in details carries the words of each error.
          details?: { errors?: { message?: string }[] }[];
        };
      };
      const e = body.error;
      const google = (e?.details ?? []).flatMap((d) => (d.errors ?? []).flatMap((x) => x.message ?? []));
      if (google.length) return google.join(' ').slice(0, 500);
      if (e?.error_user_msg || e?.message) return (e.error_user_msg ?? e.message ?? '').slice(0, 500);
    } catch {
      // Not JSON: the status line below says what there is.
    }
  }
  return (err as Error).message.slice(0, 500);
}

/**
 * Network campaigns (decision 0026): one job makes or brings up to date everything a campaign needs
 * at the network — campaign (paused), ad set (audience, budget, schedule), an image, creative and ad
 * per placement — storing each id as it is made, then sets Rally's status and reads the network's
 * back. Run again it only changes what differs: a creative whose render or texts changed is
 * replaced on its ad.
 */
export function createAdCampaignService(deps: {
  db: Db;
  queue: JobQueue;
  base: AdNetworkService;
  creatives: CampaignCreatives;
  log: FastifyBaseLogger;
}) {
  const { db, queue, base, creatives, log } = deps;

  async function set(id: string, values: Partial<Campaign>) {
    await db
      .update(adCampaigns)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(adCampaigns.id, id));
  }

  async function requestSync(id: string): Promise<void> {
    await set(id, { syncState: 'queued', syncError: null });
    await queue.send(AD_CAMPAIGN_SYNC_JOB, { campaignId: id }, { singletonKey: id });
  }

  /** The job (idempotent): see the service's comment. */
  async function sync(campaignId: string): Promise<void> {
    const [found] = await db
      .select({ c: adCampaigns, a: adAudiences, conn: adNetworkConnections })
      .from(adCampaigns)
      .innerJoin(adAudiences, eq(adAudiences.id, adCampaigns.audienceId))
      .innerJoin(adNetworkConnections, eq(adNetworkConnections.id, adAudiences.connectionId))
      .where(eq(adCampaigns.id, campaignId));
    if (!found) return;
    const { c, a: audience, conn } = found;
    const name = NETWORK_NAMES[conn.network] ?? conn.network;
    const fail = (syncError: string) => set(c.id, { syncState: 'failed', syncError });
    if (!conn.isActive) return fail(`${name} is not connected: ${conn.inactiveReason ?? 'connect it again'}`);
    const api = base.adapters[conn.network].campaigns;
    if (!api) return fail(`Rally cannot run campaigns on ${name} yet.`);
    if (!conn.pageId && api.needsPage !== false)
      return fail(`Choose the page your ads speak as in Settings › Ad networks › ${name}.`);
    const adAccountId = audience.adAccountId ?? conn.adAccountId;
    if (!audience.networkAudienceId || !adAccountId) {
      if (audience.state === 'held' || audience.state === 'failed')
        return fail(
          `The audience is not usable on ${name}: ${audience.heldReason ?? audience.pushError ?? ''}`,
        );
      // Still being pushed: the queue tries again later.
      await set(c.id, { syncError: `Waiting for the audience to reach ${name}.` });
      throw new Error('audience not on the network yet');
    }
    const audienceId = audience.networkAudienceId;
    await set(c.id, { syncState: 'pushing', syncError: null });
    try {
      const copy = await creatives.copy(c.contentId);
      if (!copy) return await fail('The ad this campaign shows no longer exists.');
      const landingUrl = copy.landingUrl;
      if (!landingUrl)
        return await fail(
          'Give the ad a landing page (or the client a website) before it runs on a network.',
        );
      const result = await base.withNetwork(conn, async (adapter, ctx) => {
        const net = adapter.campaigns;
        if (!net) throw new Error('no campaign API');
        let campaignRemoteId = c.networkCampaignId;
        if (!campaignRemoteId) {
          campaignRemoteId = (
            await net.createCampaign(ctx, adAccountId, {
              name: `Rally · ${c.name}`,
              objective: c.objective,
              budget: { kind: c.budgetKind, minor: c.budgetMinor },
              startsAt: c.startsAt,
              endsAt: c.endsAt,
            })
          ).id;
          await set(c.id, { networkCampaignId: campaignRemoteId });
        }
        let adSetId = c.networkAdSetId;
        if (!adSetId) {
          adSetId = (
            await net.createAdSet(ctx, adAccountId, {
              name: `Rally · ${audience.name}`,
              campaignId: campaignRemoteId,
              objective: c.objective,
              audienceId,
              budget: { kind: c.budgetKind, minor: c.budgetMinor },
              startsAt: c.startsAt,
              endsAt: c.endsAt,
            })
          ).id;
          await set(c.id, { networkAdSetId: adSetId });
        }
        const ads: AdCampaignAd[] = [...c.ads];
        for (const placement of net.placements) {
          const rendered = await creatives.render(c.contentId, placement.size);
          if (!rendered) throw new Error('The ad could not be drawn.');
          // Further images the same ad carries (Google: the square beside the landscape).
          const more: { size: PlacementSize; png: Buffer; key: string }[] = [];
          for (const size of placement.also ?? []) {
            const r = await creatives.render(c.contentId, size);
            if (!r) throw new Error('The ad could not be drawn.');
            more.push({ size, ...r });
          }
          const link = campaignLink(landingUrl, c, conn.network, placement.size);
          // Pixels, texts and link together: any change makes a new creative on the same ad.
          const renderKey = createHash('sha256')
            .update(
              JSON.stringify([rendered.key, ...more.map((m) => m.key), copy.headline, copy.message, link]),
            )
            .digest('hex');
          const at = ads.findIndex((x) => x.size === placement.size);
          let entry = at >= 0 ? ads[at] : undefined;
          const fresh = !entry || entry.renderKey !== renderKey;
          if (fresh) {
            const { hash } = await net.uploadImage(
              ctx,
              adAccountId,
              rendered.png,
              `rally-${c.id}-${placement.size}.png`,
              conn.pageId ?? '',
            );
            const moreImages = [];
            for (const m of more) {
              const name = `rally-${c.id}-${m.size}.png`;
              const up = await net.uploadImage(ctx, adAccountId, m.png, name, conn.pageId ?? '');
              moreImages.push({ size: m.size, hash: up.hash });
            }
            const { id: creativeId } = await net.createCreative(ctx, adAccountId, {
              name: `Rally · ${c.name} · ${placement.size}`,
              pageId: conn.pageId ?? '',
              imageHash: hash,
              link,
              headline: copy.headline,
              message: copy.message,
              ...(moreImages.length ? { moreImages } : {}),
            });
            entry = {
              size: placement.size,
              renderKey,
              imageHash: hash,
              creativeId,
              adId: entry?.adId ?? null,
            };
            if (entry.adId)
              entry.adId = (await net.replaceCreative(ctx, entry.adId, creativeId, adSetId)).adId;
            if (at >= 0) ads[at] = entry;
            else ads.push(entry);
            await set(c.id, { ads });
          }
          if (entry && !entry.adId) {
            entry.adId = (
              await net.createAd(ctx, adAccountId, {
                name: `Rally · ${c.name} · ${placement.label}`,
                adSetId,
                creativeId: entry.creativeId,
              })
            ).id;
            await set(c.id, { ads });
          }
        }
        await net.setCampaignStatus(ctx, campaignRemoteId, c.status === 'active' ? 'ACTIVE' : 'PAUSED');
        const read = await net.readStatus(
          ctx,
          campaignRemoteId,
          ads.flatMap((x) => (x.adId ? [x.adId] : [])),
        );
        for (const x of ads) {
          const r = read.ads.find((s) => s.id === x.adId);
          x.effectiveStatus = r?.effectiveStatus ?? null;
          x.issues = r?.issues ?? null;
        }
        return { ads, read };
      });
      const issues = result.read.ads.flatMap((x) => (x.issues ? [x.issues] : [])).join(' ');
      await set(c.id, {
        syncState: 'synced',
        syncError: null,
        ads: result.ads,
        effectiveStatus: result.read.effectiveStatus,
        issues: issues || null,
        statusReadAt: new Date(),
        creativesSyncedAt: new Date(),
      });
    } catch (err) {
      await fail(`${name} refused: ${networkWords(err)}`);
      // A refused token or a refusal in the network's words will not change by retrying.
      if (err instanceof VendorAuthError) return;
      if (err instanceof VendorError && err.status >= 400 && err.status < 500) return;
      throw err;
    }
  }

  /**
   * Queues a sync of each campaign whose ad was edited in Rally since its creatives were made, and of
   * each whose status was read more than `maxAgeMs` ago, on an active connection.
   */
  async function requestDue(maxAgeMs: number): Promise<number> {
    const due = await db
      .select({ id: adCampaigns.id })
      .from(adCampaigns)
      .innerJoin(content, eq(content.id, adCampaigns.contentId))
      .innerJoin(adAudiences, eq(adAudiences.id, adCampaigns.audienceId))
      .innerJoin(adNetworkConnections, eq(adNetworkConnections.id, adAudiences.connectionId))
      .where(
        and(
          eq(adNetworkConnections.isActive, true),
          inArray(adCampaigns.syncState, ['synced']),
          or(
            isNull(adCampaigns.statusReadAt),
            lt(adCampaigns.statusReadAt, new Date(Date.now() - maxAgeMs)),
            gt(content.updatedAt, sql`coalesce(${adCampaigns.creativesSyncedAt}, 'epoch'::timestamptz)`),
          ),
        ),
      );
    for (const c of due) await requestSync(c.id);
    return due.length;
  }

  function register(): void {
    queue.register<{ campaignId: string }>(
      AD_CAMPAIGN_SYNC_JOB,
      async (data) => {
        try {
          await sync(data.campaignId);
        } catch (err) {
          log.warn({ err, campaignId: data.campaignId }, 'campaign sync failed; the queue retries it');
          throw err;
        }
      },
      { policy: 'stately', retryLimit: 5, retryDelay: 30, retryBackoff: true },
    );
  }

  return { sync, requestSync, requestDue, register };
}

export type AdCampaignService = ReturnType<typeof createAdCampaignService>;
