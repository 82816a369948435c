import { createHash } from 'node:crypto';

/**
 * The campaign half of the Meta fake (meta-fake.ts): images, campaigns, ad sets, creatives and
 * ads on the Marketing API's paths. Each rule names the page it follows; where Meta's check is looser
 * or depends on the account, this is stricter, so an adapter mistake fails a test.
 *
 * - `POST /act_{id}/adimages` with `bytes` (base64) → `{images: {name: {hash, url}}}` (Ad Image
 *   reference › Creating). Bytes that are not a PNG or JPEG are refused.
 * - `POST /act_{id}/campaigns`: `name`, `objective` one of the OUTCOME_* objectives (the only ones
 *   v17.0+ creates: developers.facebook.com/blog/post/2023/02/13/outcome-driven-ad-experiences-update),
 *   `special_ad_categories` required, an array, since v7.0 (Campaign reference), `status`.
 * - `POST /act_{id}/adsets`: `campaign_id` of this account; exactly one of `daily_budget` and
 *   `lifetime_budget` in minor units (Bidding › Budgets), at least the account's minimum
 *   (`GET /act_{id}/minimum_budgets`: USD $1.00 for impressions; refused with subcode 1885272, "Your
 *   budget is too low"); a lifetime budget needs `end_time` after `start_time`; `targeting` with a
 *   country or a custom audience of this account (Basic Targeting: "at least one country … unless you
 *   use a Custom Audience"); `billing_event` and `optimization_goal` (Ad Set reference).
 * - `POST /act_{id}/adcreatives`: `object_story_spec` with `page_id` of a page the user may act for and
 *   `link_data` with an `image_hash` of this account's library and an http(s) `link` (Ad Creative
 *   reference, Object Story Spec; the page must be one the person has a role on).
 * - `POST /act_{id}/ads`: `adset_id` and `creative: {creative_id}` of this account (Ad reference).
 * - `POST /{id}`: a campaign's `status` (ACTIVE, PAUSED) or an ad's `creative` (Ad › Updating).
 * - `GET /{id}?fields=…`: `effective_status` (Ad reference: an ad under a paused campaign is
 *   CAMPAIGN_PAUSED), `issues_info` and `ad_review_feedback` (set by `disapprove`).
 */

type Refuse = (message: string, opts?: { subcode?: number; userMessage?: string }) => never;
type Reply = { status: number; body: unknown };

export type FakeMetaCampaign = {
  id: string;
  account: string;
  name: string;
  objective: string;
  status: string;
};
export type FakeMetaAdSet = {
  id: string;
  account: string;
  campaignId: string;
  dailyBudget: number | null;
  lifetimeBudget: number | null;
  startTime: string;
  endTime: string | null;
  audienceIds: string[];
};
export type FakeMetaCreative = {
  id: string;
  account: string;
  pageId: string;
  imageHash: string;
  link: string;
  message: string;
  headline: string;
};
export type FakeMetaAd = {
  id: string;
  account: string;
  adSetId: string;
  creativeId: string;
  status: string;
  rejection: string | null;
};

const OUTCOME_OBJECTIVES = [
  'OUTCOME_APP_PROMOTION',
  'OUTCOME_AWARENESS',
  'OUTCOME_ENGAGEMENT',
  'OUTCOME_LEADS',
  'OUTCOME_SALES',
  'OUTCOME_TRAFFIC',
];
const STATUSES = ['ACTIVE', 'PAUSED'];
/** Minimum daily budget in cents (minimum_budgets, USD, impressions). */
export const FAKE_META_MIN_DAILY_BUDGET = 100;

export function createMetaCampaigns(deps: {
  accounts: () => string[];
  pages: () => string[];
  audienceAccount: (id: string) => string | undefined;
  nextId: () => string;
  refuse: Refuse;
}) {
  const refuse: Refuse = deps.refuse;
  const images = new Map<string, { account: string; bytes: number }>();
  const campaigns = new Map<string, FakeMetaCampaign>();
  const adSets = new Map<string, FakeMetaAdSet>();
  const creatives = new Map<string, FakeMetaCreative>();
  const ads = new Map<string, FakeMetaAd>();

  const parse = (v: unknown): unknown => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return v;
    }
  };
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v : null);
  const required = (body: Record<string, unknown>, name: string) =>
    str(body[name]) ?? refuse(`(#100) The parameter ${name} is required`);
  const minor = (v: unknown) => {
    const n = typeof v === 'string' ? Number(v) : v;
    return typeof n === 'number' && Number.isInteger(n) ? n : null;
  };

  function create(account: string, edge: string, body: Record<string, unknown>): Reply {
    if (edge === 'adimages') {
      const bytes = Buffer.from(
        str(body.bytes) ?? refuse('(#100) The parameter bytes is required'),
        'base64',
      );
      const png = bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      const jpeg = bytes[0] === 0xff && bytes[1] === 0xd8;
      if (!png && !jpeg)
        refuse('(#100) Invalid image: the file is not a supported image format', { subcode: 1487242 });
      const hash = createHash('md5').update(bytes).digest('hex');
      images.set(hash, { account, bytes: bytes.length });
      const name = str(body.name) ?? 'image.png';
      return { status: 200, body: { images: { [name]: { hash, url: `https://fake.fbcdn/${hash}.png` } } } };
    }
    if (edge === 'campaigns') {
      const name = required(body, 'name');
      const objective = required(body, 'objective');
      if (!OUTCOME_OBJECTIVES.includes(objective))
        refuse(`(#100) Param objective must be one of {${OUTCOME_OBJECTIVES.join(', ')}}`);
      const categories = parse(body.special_ad_categories);
      if (!Array.isArray(categories))
        refuse('(#100) The parameter special_ad_categories is required', {
          userMessage: 'Declare whether the campaign is in a special ad category (an empty list when none).',
        });
      const status = str(body.status) ?? 'ACTIVE';
      if (!STATUSES.includes(status)) refuse('(#100) Param status must be one of {ACTIVE, PAUSED}');
      const id = deps.nextId();
      campaigns.set(id, { id, account, name, objective, status });
      return { status: 200, body: { id } };
    }
    if (edge === 'adsets') {
      required(body, 'name');
      const campaign = campaigns.get(required(body, 'campaign_id'));
      if (!campaign || campaign.account !== account)
        refuse('(#100) Param campaign_id is not a campaign of this ad account');
      required(body, 'billing_event');
      required(body, 'optimization_goal');
      const daily = body.daily_budget === undefined ? null : minor(body.daily_budget);
      const lifetime = body.lifetime_budget === undefined ? null : minor(body.lifetime_budget);
      if ((daily === null) === (lifetime === null))
        refuse('(#100) Exactly one of daily_budget and lifetime_budget must be set, in whole minor units');
      if (daily !== null && daily < FAKE_META_MIN_DAILY_BUDGET)
        refuse('(#100) Invalid parameter', {
          subcode: 1885272,
          userMessage: `Your budget is too low. The minimum budget for this ad set is $${(FAKE_META_MIN_DAILY_BUDGET / 100).toFixed(2)}.`,
        });
      const start = Date.parse(required(body, 'start_time'));
      const endText = str(body.end_time);
      const end = endText ? Date.parse(endText) : null;
      if (!Number.isFinite(start)) refuse('(#100) Param start_time must be a date and time');
      if (lifetime !== null && end === null)
        refuse('(#100) end_time is required for an ad set with a lifetime budget');
      if (end !== null && !(end > start)) refuse('(#100) end_time must be after start_time');
      if (
        lifetime !== null &&
        end !== null &&
        lifetime < FAKE_META_MIN_DAILY_BUDGET * Math.ceil((end - start) / 86_400_000)
      )
        refuse('(#100) Invalid parameter', {
          subcode: 1885272,
          userMessage: 'Your budget is too low for the length of the schedule.',
        });
      const targeting = parse(body.targeting) as
        { geo_locations?: { countries?: string[] }; custom_audiences?: { id?: string }[] } | undefined;
      const audienceIds = (targeting?.custom_audiences ?? []).map((a) => String(a.id ?? ''));
      for (const a of audienceIds)
        if (deps.audienceAccount(a) !== account)
          refuse(`(#100) Custom audience ${a} is not usable by this ad account`);
      if (!audienceIds.length && !targeting?.geo_locations?.countries?.length)
        refuse(
          '(#100) Param targeting[geo_locations] must be non-empty: target a country or a Custom Audience',
        );
      const id = deps.nextId();
      adSets.set(id, {
        id,
        account,
        campaignId: campaign.id,
        dailyBudget: daily,
        lifetimeBudget: lifetime,
        startTime: new Date(start).toISOString(),
        endTime: end === null ? null : new Date(end).toISOString(),
        audienceIds,
      });
      return { status: 200, body: { id } };
    }
    if (edge === 'adcreatives') {
      const spec = parse(body.object_story_spec) as
        | {
            page_id?: string;
            link_data?: { image_hash?: string; link?: string; message?: string; name?: string };
          }
        | undefined;
      if (!spec) refuse('(#100) The parameter object_story_spec is required');
      if (!spec.page_id)
        refuse('(#100) Param object_story_spec[page_id] is required: a creative speaks as a page');
      if (!deps.pages().includes(String(spec.page_id)))
        refuse('(#100) Param object_story_spec[page_id] must be a page you have a role on');
      const link = spec.link_data;
      if (!link?.image_hash || images.get(link.image_hash)?.account !== account)
        refuse(
          `(#100) Image hash ${link?.image_hash ?? ''} was not found in this ad account's image library`,
          { subcode: 1487242 },
        );
      if (!link.link || !/^https?:\/\//.test(link.link))
        refuse('(#100) Param object_story_spec[link_data][link] must be a URL');
      const id = deps.nextId();
      creatives.set(id, {
        id,
        account,
        pageId: String(spec.page_id),
        imageHash: link.image_hash,
        link: link.link,
        message: link.message ?? '',
        headline: link.name ?? '',
      });
      return { status: 200, body: { id } };
    }
    if (edge === 'ads') {
      required(body, 'name');
      const adSet = adSets.get(required(body, 'adset_id'));
      if (!adSet || adSet.account !== account)
        refuse('(#100) Param adset_id is not an ad set of this ad account');
      const creative = parse(body.creative) as { creative_id?: string } | undefined;
      const found = creatives.get(String(creative?.creative_id ?? ''));
      if (!found || found.account !== account)
        refuse('(#100) Param creative[creative_id] is not a creative of this ad account');
      const status = str(body.status) ?? 'ACTIVE';
      if (!STATUSES.includes(status)) refuse('(#100) Param status must be one of {ACTIVE, PAUSED}');
      const id = deps.nextId();
      ads.set(id, { id, account, adSetId: adSet.id, creativeId: found.id, status, rejection: null });
      return { status: 200, body: { id } };
    }
    return refuse(`(#100) Unsupported post request to ${edge}`);
  }

  function adEffective(ad: FakeMetaAd): string {
    const campaign = campaigns.get(adSets.get(ad.adSetId)?.campaignId ?? '');
    if (ad.rejection) return 'DISAPPROVED';
    if (campaign?.status === 'PAUSED') return 'CAMPAIGN_PAUSED';
    return ad.status;
  }

  /** A reply for `/{id}` when the id is one of ours, else null (the caller tries audiences). */
  function object(method: string, id: string, body: Record<string, unknown>, fields: string[]): Reply | null {
    const campaign = campaigns.get(id);
    const ad = ads.get(id);
    if (!campaign && !ad && !adSets.has(id) && !creatives.has(id)) return null;
    if (method === 'POST') {
      if (campaign) {
        const status = required(body, 'status');
        if (!STATUSES.includes(status)) refuse('(#100) Param status must be one of {ACTIVE, PAUSED}');
        campaign.status = status;
      } else if (ad) {
        const creative = parse(body.creative) as { creative_id?: string } | undefined;
        if (creative) {
          const found = creatives.get(String(creative.creative_id ?? ''));
          if (!found || found.account !== ad.account)
            refuse('(#100) Param creative[creative_id] is not a creative of this ad account');
          ad.creativeId = found.id;
          ad.rejection = null;
        }
        const status = str(body.status);
        if (status) ad.status = status;
      }
      return { status: 200, body: { success: true } };
    }
    const all: Record<string, unknown> = campaign
      ? {
          id,
          name: campaign.name,
          objective: campaign.objective,
          status: campaign.status,
          effective_status: campaign.status,
        }
      : ad
        ? {
            id,
            status: ad.status,
            effective_status: adEffective(ad),
            creative: { id: ad.creativeId },
            issues_info: [],
            ...(ad.rejection ? { ad_review_feedback: { global: { 'Ad policy': ad.rejection } } } : {}),
          }
        : { id };
    return { status: 200, body: Object.fromEntries(fields.filter((f) => f in all).map((f) => [f, all[f]])) };
  }

  return {
    images,
    campaigns,
    adSets,
    creatives,
    ads,
    create,
    object,
    has: (id: string) => campaigns.has(id) || adSets.has(id) || creatives.has(id) || ads.has(id),
    /** Meta's review refuses the ad (effective_status DISAPPROVED, its words in ad_review_feedback). */
    disapprove: (adId: string, reason: string) => {
      const ad = ads.get(adId);
      if (ad) ad.rejection = reason;
    },
  };
}
