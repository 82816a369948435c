import type { VendorHttp, VendorRequest } from '../../integrations/vendor-http.ts';
import { majorToMinor, minorDigits } from '../money.ts';
import type { AdapterContext, AdNetworkCampaignApi, CampaignObjective, RemoteDailyStat } from '../port.ts';

/**
 * LinkedIn campaigns, creatives and daily results (issue 39, decision 0026's LinkedIn paragraph) on
 * the versioned Marketing API. Pages, on learn.microsoft.com/linkedin/marketing:
 * - "Create and Manage Campaign Groups" (`/rest/adAccounts/{id}/adCampaignGroups`): the port's
 *   campaign. Launch and pause act on it: a paused group stops every campaign in it.
 * - "Create and Manage Campaigns" (`/rest/adAccounts/{id}/adCampaigns`): the port's ad set; it holds
 *   the targeting (the matched audience), the budget (`dailyBudget` or `totalBudget`, `{amount,
 *   currencyCode}` with the amount as decimal text in the account currency), `runSchedule` (epoch
 *   ms), `objectiveType`, `locale`, `type`, `costType` and `status` (DRAFT, PAUSED, ACTIVE…).
 * - "Images API" (`/rest/images?action=initializeUpload` → `{value: {uploadUrl, image}}`, then PUT
 *   the bytes to `uploadUrl`): the image is owned by the organisation the ads speak as.
 * - "Posts API" / "Post Schema": the port's creative is a dark post (`adContext.dscAdAccount`, not on
 *   the page's feed) authored by the organisation, with `content.media {id, title}`,
 *   `contentLandingPage` (required for WEBSITE_VISIT) and `contentCallToActionLabel`.
 * - "Create and Manage Creatives" (`/rest/adAccounts/{id}/creatives`): the port's ad, a sponsored
 *   creative whose `content.reference` is that post. The reference cannot change after creation
 *   (adCreatives: "reference cannot be modified after creation"), so an edit makes a new creative
 *   and archives the old one.
 * - "Reporting" (`/rest/adAnalytics?q=analytics`): one pivot, DAILY granularity, a `dateRange`,
 *   `fields`; the endpoint "does not support pagination".
 * Rest.li creates answer 201 with the new id in `x-restli-id`. test/fakes/linkedin-campaigns.ts
 * enforces these shapes.
 *
 * LinkedIn nests campaigns and creatives under their ad account in every path, and the port names
 * them by id alone: the ids handed out here carry their account, `<account>:<id>`.
 */

/** Rally's objectives as LinkedIn's objectiveType ("Campaigns" › objectiveType). */
const OBJECTIVES: Record<CampaignObjective, string> = {
  traffic: 'WEBSITE_VISIT',
  awareness: 'BRAND_AWARENESS',
  engagement: 'ENGAGEMENT',
};

/**
 * LinkedIn's least daily budget for a campaign, in cents: $10 a day (Marketing Solutions Help,
 * "Campaign budgets", linkedin.com/help/lms/answer/a422101; a total budget needs the same per day of
 * its schedule, which Rally's plan route checks). Other currencies have their own minimum, which
 * LinkedIn refuses in its own words.
 */
export const LINKEDIN_MINIMUM_DAILY_BUDGET = 1_000;

export type LinkedInCampaignDeps = {
  http: VendorHttp;
  /** A versioned `/rest` call (LinkedIn-Version, X-Restli-Protocol-Version added). */
  call: <T>(ctx: AdapterContext, req: VendorRequest) => Promise<T>;
  /** The `x-restli-id` of the context's last reply. */
  createdId: (ctx: AdapterContext) => string | undefined;
  /** The DMP segment's ad segment URN, which targeting names (read from the segment). */
  adSegmentOf: (ctx: AdapterContext, segmentId: string) => Promise<string | null>;
};

const urn = {
  account: (id: string) => `urn:li:sponsoredAccount:${id}`,
  group: (id: string) => `urn:li:sponsoredCampaignGroup:${id}`,
  campaign: (id: string) => `urn:li:sponsoredCampaign:${id}`,
  creative: (id: string) => `urn:li:sponsoredCreative:${id}`,
  org: (id: string) => `urn:li:organization:${id}`,
};
const idOfUrn = (u: string) => decodeURIComponent(u).slice(decodeURIComponent(u).lastIndexOf(':') + 1);
/** `<account>:<id>` ↔ its parts. */
const join = (account: string, id: string) => `${account}:${id}`;
function split(compound: string): { account: string; id: string } {
  const at = compound.indexOf(':');
  if (at < 1) throw new Error(`Not a LinkedIn id Rally made: ${compound}`);
  return { account: compound.slice(0, at), id: compound.slice(at + 1) };
}
/** Minor units as LinkedIn's decimal text ("1000" cents → "10.00"). */
function minorToAmount(minor: number, currency: string | null): string {
  const digits = minorDigits(currency);
  return digits ? (minor / 10 ** digits).toFixed(digits) : String(minor);
}
/** A Rest.li 2.0 date: `(year:2026,month:3,day:1)`. */
export function restliDate(day: string): string {
  const [y, m, d] = day.split('-').map(Number);
  return `(year:${y},month:${m},day:${d})`;
}
export const pad = (n: number) => String(n).padStart(2, '0');

type CreativeReply = {
  id: string;
  campaign?: string;
  intendedStatus?: string;
  isServing?: boolean;
  servingHoldReasons?: string[];
  review?: { status?: string; rejectionReasons?: string[] };
};
type AnalyticsRow = {
  pivotValues?: string[];
  dateRange?: { start?: { year: number; month: number; day: number } };
  impressions?: number;
  clicks?: number;
  costInLocalCurrency?: string;
};

export function linkedInCampaignApi(deps: LinkedInCampaignDeps): AdNetworkCampaignApi {
  const { call, http } = deps;
  const created = (ctx: AdapterContext, what: string) => {
    const id = deps.createdId(ctx);
    if (!id) throw new Error(`LinkedIn created a ${what} without naming it (no x-restli-id)`);
    return idOfUrn(id);
  };
  const currencyOf = async (ctx: AdapterContext, account: string) =>
    (await call<{ currency?: string }>(ctx, { url: `/adAccounts/${encodeURIComponent(account)}` }))
      .currency ?? null;
  const creativePath = (account: string, id: string) =>
    `/adAccounts/${account}/creatives/${encodeURIComponent(urn.creative(id))}`;
  const partialUpdate = (ctx: AdapterContext, url: string, set: Record<string, unknown>) =>
    call(ctx, {
      method: 'POST',
      url,
      headers: { 'X-RestLi-Method': 'PARTIAL_UPDATE' },
      body: { patch: { $set: set } },
    });

  const createAd: AdNetworkCampaignApi['createAd'] = async (ctx, adAccountId, spec) => {
    // Creatives › Create: campaign, content.reference (the post), intendedStatus, name.
    await call(ctx, {
      method: 'POST',
      url: `/adAccounts/${adAccountId}/creatives`,
      body: {
        campaign: urn.campaign(split(spec.adSetId).id),
        content: { reference: spec.creativeId },
        intendedStatus: 'ACTIVE',
        name: spec.name,
      },
    });
    return { id: join(adAccountId, created(ctx, 'creative')) };
  };

  return {
    minimumDailyBudget: LINKEDIN_MINIMUM_DAILY_BUDGET,
    // Advertising specifications, Single Image Ads: 1.91:1 (1200x628 recommended, landscape) and
    // 1:1 (1080x1080) are both accepted for Sponsored Content.
    placements: [
      { size: '1200x628', label: 'Feed (landscape)' },
      { size: '1080x1080', label: 'Feed (square)' },
    ],

    async uploadImage(ctx, _adAccountId, png, _name, pageId) {
      // Images API › Initialize Image Upload: owner is the organisation; the reply's uploadUrl takes
      // the bytes by PUT with the same token, and `image` (urn:li:image:…) names it in posts.
      const init = await call<{ value?: { uploadUrl?: string; image?: string } }>(ctx, {
        method: 'POST',
        url: '/images?action=initializeUpload',
        body: { initializeUploadRequest: { owner: urn.org(pageId) } },
      });
      const { uploadUrl, image } = init.value ?? {};
      if (!uploadUrl || !image) throw new Error('LinkedIn answered the image upload without a URL');
      await http.request(ctx, {
        method: 'PUT',
        url: uploadUrl,
        headers: { 'content-type': 'application/octet-stream' },
        body: png,
      });
      return { hash: image };
    },

    async createCampaign(ctx, adAccountId, spec) {
      // Campaign Groups › Create: account, name, status, runSchedule.start. DRAFT: nothing in it
      // serves until Rally launches it (ACTIVE).
      await call(ctx, {
        method: 'POST',
        url: `/adAccounts/${adAccountId}/adCampaignGroups`,
        body: {
          account: urn.account(adAccountId),
          name: spec.name,
          status: 'DRAFT',
          runSchedule: { start: Date.now() },
        },
      });
      return { id: join(adAccountId, created(ctx, 'campaign group')) };
    },

    async createAdSet(ctx, adAccountId, spec) {
      // Campaigns › Create. Targeting by a matched audience: the facet audienceMatchingSegments with
      // the segment's ad segment URN (DMP Segments › destinations[].destinationSegmentId).
      const segment = await deps.adSegmentOf(ctx, spec.audienceId);
      if (!segment) throw new Error('LinkedIn has not made the audience usable for targeting yet');
      const currencyCode = (await currencyOf(ctx, adAccountId)) ?? 'USD';
      const money = { amount: minorToAmount(spec.budget.minor, currencyCode), currencyCode };
      await call(ctx, {
        method: 'POST',
        url: `/adAccounts/${adAccountId}/adCampaigns`,
        body: {
          account: urn.account(adAccountId),
          campaignGroup: urn.group(split(spec.campaignId).id),
          name: spec.name,
          type: 'SPONSORED_UPDATES',
          costType: 'CPM',
          objectiveType: OBJECTIVES[spec.objective],
          // The ads' language; Rally renders English copy.
          locale: { country: 'US', language: 'en' },
          offsiteDeliveryEnabled: false,
          audienceExpansionEnabled: false,
          politicalIntent: 'NOT_POLITICAL',
          ...(spec.budget.kind === 'daily' ? { dailyBudget: money } : { totalBudget: money }),
          runSchedule: {
            start: spec.startsAt.getTime(),
            ...(spec.endsAt ? { end: spec.endsAt.getTime() } : {}),
          },
          targetingCriteria: {
            include: { and: [{ or: { 'urn:li:adTargetingFacet:audienceMatchingSegments': [segment] } }] },
          },
          // ACTIVE under a DRAFT group: it serves only once Rally launches the group.
          status: 'ACTIVE',
        },
      });
      return { id: join(adAccountId, created(ctx, 'campaign')) };
    },

    async createCreative(ctx, adAccountId, spec) {
      // Posts API (Post Schema): a dark post for ads (adContext.dscAdAccount), authored by the
      // organisation, with the image, its headline (media title), the text (commentary) and the
      // landing page with a Learn more button. Not distributed to the page's feed.
      await call(ctx, {
        method: 'POST',
        url: '/posts',
        body: {
          author: urn.org(spec.pageId),
          commentary: spec.message,
          visibility: 'PUBLIC',
          distribution: { feedDistribution: 'NONE', targetEntities: [], thirdPartyDistributionChannels: [] },
          content: { media: { id: spec.imageHash, title: spec.headline } },
          contentLandingPage: spec.link,
          contentCallToActionLabel: 'LEARN_MORE',
          lifecycleState: 'PUBLISHED',
          isReshareDisabledByAuthor: false,
          adContext: { dscAdAccount: urn.account(adAccountId), dscStatus: 'ACTIVE', dscName: spec.name },
        },
      });
      const post = deps.createdId(ctx);
      if (!post) throw new Error('LinkedIn created a post without naming it (no x-restli-id)');
      return { id: decodeURIComponent(post) };
    },

    createAd,

    async replaceCreative(ctx, adId, creativeId, adSetId) {
      // The post of a creative cannot change: a new creative in the same campaign, the old archived
      // (Creatives › Update: intendedStatus ARCHIVED, by PARTIAL_UPDATE).
      const { account, id } = split(adId);
      const next = await createAd(ctx, account, { name: 'Rally', adSetId, creativeId });
      await partialUpdate(ctx, creativePath(account, id), { intendedStatus: 'ARCHIVED' });
      return { adId: next.id };
    },

    async setCampaignStatus(ctx, campaignId, status) {
      // Campaign Groups › Update: status ACTIVE or PAUSED, by PARTIAL_UPDATE.
      const { account, id } = split(campaignId);
      await partialUpdate(ctx, `/adAccounts/${account}/adCampaignGroups/${id}`, { status });
    },

    async readStatus(ctx, campaignId, adIds) {
      // Campaign Groups › Get (status); Creatives › Get: intendedStatus, isServing,
      // servingHoldReasons and review (status, rejectionReasons).
      const { account, id } = split(campaignId);
      const group = await call<{ status?: string }>(ctx, {
        url: `/adAccounts/${account}/adCampaignGroups/${id}`,
      });
      const ads = [];
      for (const adId of adIds) {
        const part = split(adId);
        const c = await call<CreativeReply>(ctx, { url: creativePath(part.account, part.id) });
        const rejected = c.review?.status === 'REJECTED';
        const issues = [...(c.review?.rejectionReasons ?? []), ...(c.servingHoldReasons ?? [])];
        ads.push({
          id: adId,
          effectiveStatus: rejected
            ? 'REJECTED'
            : group.status !== 'ACTIVE'
              ? `CAMPAIGN_GROUP_${group.status ?? 'UNKNOWN'}`
              : (c.intendedStatus ?? 'UNKNOWN'),
          issues: issues.join(' ') || null,
        });
      }
      return { effectiveStatus: group.status ?? 'UNKNOWN', ads };
    },

    async dailyStats(ctx, campaignId, range) {
      // Reporting › Analytics finder: pivot CREATIVE, timeGranularity DAILY, the campaign group's
      // creatives; no pagination. Days without delivery have no element. LinkedIn gives no per-day
      // reach for creatives (approximateMemberReach is only for whole ranges of campaigns and
      // accounts, and is not additive by day), so reach is 0 here.
      const { account, id } = split(campaignId);
      const currency = await currencyOf(ctx, account);
      const query = [
        'q=analytics',
        'pivot=CREATIVE',
        'timeGranularity=DAILY',
        `dateRange=(start:${restliDate(range.since)},end:${restliDate(range.until)})`,
        `campaignGroups=List(${encodeURIComponent(urn.group(id))})`,
        'fields=pivotValues,dateRange,impressions,clicks,costInLocalCurrency',
      ].join('&');
      const reply = await call<{ elements?: AnalyticsRow[] }>(ctx, { url: `/adAnalytics?${query}` });
      const rows: RemoteDailyStat[] = [];
      for (const r of reply.elements ?? []) {
        const creative = r.pivotValues?.[0];
        const start = r.dateRange?.start;
        if (!creative || !start) continue;
        rows.push({
          day: `${start.year}-${pad(start.month)}-${pad(start.day)}`,
          adId: join(account, idOfUrn(creative)),
          impressions: Math.max(0, Math.round(r.impressions ?? 0)),
          reach: 0,
          clicks: Math.max(0, Math.round(r.clicks ?? 0)),
          spendMinor: majorToMinor(r.costInLocalCurrency, currency) ?? 0,
        });
      }
      return { currency, rows };
    },
  };
}
