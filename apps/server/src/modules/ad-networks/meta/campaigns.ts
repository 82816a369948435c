import type { VendorHttp } from '../../integrations/vendor-http.ts';
import type { AdNetworkCampaignApi, CampaignObjective } from '../port.ts';
import { metaInsightsApi } from './insights.ts';

/**
 * Meta campaigns, ad sets, images, creatives and ads (decision 0026), on the Marketing API's
 * "Buying API" path: campaign → ad set (audience, budget, schedule) → ad (creative). Sources are
 * cited per call; test/fakes/meta.ts refuses what these pages say Meta refuses.
 */

/**
 * Outcome-driven objectives (Marketing API v17.0+ creates campaigns only with the OUTCOME_*
 * objectives: developers.facebook.com/blog/post/2023/02/13/outcome-driven-ad-experiences-update),
 * with an ad-set optimisation goal each supports (Ad Set reference › optimization_goal).
 */
const OBJECTIVES: Record<CampaignObjective, { objective: string; goal: string }> = {
  traffic: { objective: 'OUTCOME_TRAFFIC', goal: 'LINK_CLICKS' },
  awareness: { objective: 'OUTCOME_AWARENESS', goal: 'REACH' },
  engagement: { objective: 'OUTCOME_ENGAGEMENT', goal: 'POST_ENGAGEMENT' },
};

/**
 * The least daily budget Rally lets a person set, in cents: Meta's own minimum depends on the
 * account's currency and the optimisation goal (`GET /act_{id}/minimum_budgets`:
 * min_daily_budget_imp, _high_freq…, Ad Account Minimum Budgets reference); for USD impressions it is
 * $1.00, and the network still refuses a lower one for its goal (subcode 1885272, shown in words).
 */
export const META_MINIMUM_DAILY_BUDGET = 100;

type AdStatusReply = {
  id: string;
  effective_status?: string;
  issues_info?: { error_message?: string; error_summary?: string }[];
  ad_review_feedback?: { global?: Record<string, string> };
};

export function metaCampaignApi(http: VendorHttp, graph: string): AdNetworkCampaignApi {
  const post = <T>(ctx: Parameters<VendorHttp['request']>[0], path: string, body: unknown) =>
    http.request<T>(ctx, { method: 'POST', url: `${graph}${path}`, body });

  return {
    ...metaInsightsApi(http, graph),
    minimumDailyBudget: META_MINIMUM_DAILY_BUDGET,
    // Ads Guide › Image ads: 1:1 (1080x1080) for Feed, 1.91:1 (1200x628) for link ads in Feed and
    // the right column; both at least 1080 px wide or the 1.91:1 link size.
    placements: [
      { size: '1080x1080', label: 'Feed (square)' },
      { size: '1200x628', label: 'Feed link and right column' },
    ],

    async uploadImage(ctx, adAccountId, png, name) {
      // Ad Image reference › Creating: `bytes` (base64) to /act_{id}/adimages answers
      // `{images: {<name>: {hash, url}}}`; the hash names the image in creatives.
      const reply = await post<{ images?: Record<string, { hash?: string }> }>(
        ctx,
        `/${adAccountId}/adimages`,
        { bytes: png.toString('base64'), name },
      );
      const hash = Object.values(reply.images ?? {})[0]?.hash;
      if (!hash) throw new Error('Meta answered the image upload without a hash');
      return { hash };
    },

    async createCampaign(ctx, adAccountId, spec) {
      // Campaign reference and Buying API guide: name, objective, status PAUSED ("so you do not get
      // billed while testing") and special_ad_categories, required since v7.0 ([] when none).
      return post<{ id: string }>(ctx, `/${adAccountId}/campaigns`, {
        name: spec.name,
        objective: OBJECTIVES[spec.objective].objective,
        status: 'PAUSED',
        special_ad_categories: [],
      });
    },

    async createAdSet(ctx, adAccountId, spec) {
      // Ad Set reference and Bidding › Budgets: daily_budget or lifetime_budget in the currency's
      // minor unit; a lifetime budget needs end_time. Basic Targeting: a country is required
      // "unless you use a Custom Audience" — the audience is the targeting. The ad set is ACTIVE:
      // it delivers only while its campaign does, which Rally launches and pauses.
      const budget =
        spec.budget.kind === 'daily'
          ? { daily_budget: spec.budget.minor }
          : { lifetime_budget: spec.budget.minor };
      return post<{ id: string }>(ctx, `/${adAccountId}/adsets`, {
        name: spec.name,
        campaign_id: spec.campaignId,
        ...budget,
        billing_event: 'IMPRESSIONS',
        optimization_goal: OBJECTIVES[spec.objective].goal,
        bid_strategy: 'LOWEST_COST_WITHOUT_CAP',
        targeting: { custom_audiences: [{ id: spec.audienceId }] },
        start_time: spec.startsAt.toISOString(),
        ...(spec.endsAt ? { end_time: spec.endsAt.toISOString() } : {}),
        status: 'ACTIVE',
      });
    },

    async createCreative(ctx, adAccountId, spec) {
      // Ad Creative reference and Object Story Spec: page_id (the page the ad speaks as) and
      // link_data {image_hash, link, message, name (headline), call_to_action {type, value.link}}.
      return post<{ id: string }>(ctx, `/${adAccountId}/adcreatives`, {
        name: spec.name,
        object_story_spec: {
          page_id: spec.pageId,
          link_data: {
            image_hash: spec.imageHash,
            link: spec.link,
            message: spec.message,
            name: spec.headline,
            call_to_action: { type: 'LEARN_MORE', value: { link: spec.link } },
          },
        },
      });
    },

    async createAd(ctx, adAccountId, spec) {
      // Ad reference › Creating: name, adset_id, creative {creative_id}, status.
      return post<{ id: string }>(ctx, `/${adAccountId}/ads`, {
        name: spec.name,
        adset_id: spec.adSetId,
        creative: { creative_id: spec.creativeId },
        status: 'ACTIVE',
      });
    },

    async replaceCreative(ctx, adId, creativeId) {
      // Ad reference › Updating: `creative` points the ad at another creative (it is reviewed again).
      await post(ctx, `/${adId}`, { creative: { creative_id: creativeId } });
      return { adId };
    },

    async setCampaignStatus(ctx, campaignId, status) {
      // Campaign reference › Updating: status ACTIVE or PAUSED.
      await post(ctx, `/${campaignId}`, { status });
    },

    async readStatus(ctx, campaignId, adIds) {
      // Campaign and Ad references › Reading: effective_status (ACTIVE, PAUSED, CAMPAIGN_PAUSED,
      // PENDING_REVIEW, DISAPPROVED, WITH_ISSUES…), issues_info and ad_review_feedback.
      const campaign = await http.request<{ effective_status?: string }>(ctx, {
        url: `${graph}/${campaignId}?fields=id,effective_status`,
      });
      const ads = [];
      for (const id of adIds) {
        const ad = await http.request<AdStatusReply>(ctx, {
          url: `${graph}/${id}?fields=id,effective_status,issues_info,ad_review_feedback`,
        });
        const issues = [
          ...(ad.issues_info ?? []).map((i) => i.error_message ?? i.error_summary ?? ''),
          ...Object.values(ad.ad_review_feedback?.global ?? {}),
        ].filter(Boolean);
        ads.push({ id, effectiveStatus: ad.effective_status ?? 'UNKNOWN', issues: issues.join(' ') || null });
      }
      return { effectiveStatus: campaign.effective_status ?? 'UNKNOWN', ads };
    },
  };
}
