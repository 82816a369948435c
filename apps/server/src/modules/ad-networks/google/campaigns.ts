import { randomBytes } from 'node:crypto';
import { minorDigits } from '../money.ts';
import type { AdapterContext, AdNetworkCampaignApi, PlacementSize } from '../port.ts';
import { googleReportingApi } from './reporting.ts';
import type { GoogleAdsCall } from './reporting.ts';

/**
 * Google Ads campaigns on the Google Ads API's REST interface (issue 39, decision 0026's Google
 * paragraph), in the version the adapter is configured with (v26). Pages, on
 * developers.google.com/google-ads/api:
 * - "Create a campaign" and the Campaign / CampaignBudget references: a budget
 *   (`amount_micros` in the account currency, `period` DAILY, `delivery_method` STANDARD) and a
 *   campaign naming it, created together by `GoogleAdsService.Mutate` (`googleAds:mutate`) with a
 *   temporary resource name (`…/campaignBudgets/-1`) so neither exists without the other
 *   ("Mutates › temporary resource names", atomic unless `partialFailure`). The campaign is PAUSED
 *   ("create campaigns in a paused state"), `advertising_channel_type` DISPLAY, on the Display
 *   Network only, bidding Maximize clicks (`target_spend`), with `start_date_time` / `end_date_time`
 *   ("yyyy-MM-dd HH:mm:ss" in the account's time zone; v23 replaced `start_date` / `end_date`) and
 *   `contains_eu_political_advertising` (required on create: "EU political ads" policy page).
 * - AdGroup (`type` DISPLAY_STANDARD) and AdGroupCriterion with a `user_list` criterion
 *   (`customers/{id}/userLists/{id}`, the Customer Match list): "Customer Match › Target the list".
 * - Asset (`assets:mutate`, `type` IMAGE with `image_asset.data` as base64 bytes): "Upload image assets".
 * - "Create responsive display ads" and ResponsiveDisplayAdInfo: `final_urls`, at least one landscape
 *   (1.91:1, min 600x314) and one square (1:1, min 300x300) marketing image, 1-5 headlines of at
 *   most 30 characters, a long headline of 90, 1-5 descriptions of 90, a business name of 25; made
 *   by `adGroupAds:mutate`. Google has no creative object apart from the ad, so the port's creative
 *   is the ad's content, carried in its id until the ad is made.
 * - Status changes are updates with an `updateMask` ("Mutates › field masks"): campaign `status`
 *   ENABLED / PAUSED; an ad replaced is REMOVED (`remove` operation) once its successor exists, in
 *   the same request.
 * - Reading back and daily results: GAQL through `googleAds:search` (google/reporting.ts).
 * Every call carries `developer-token` and `login-customer-id` (the adapter's `call`).
 * test/fakes/google-ads-campaigns.ts enforces these shapes.
 *
 * Ids handed out are Google's resource names (`customers/{customer}/campaigns/{id}`), which carry
 * their account.
 */

/**
 * Rally's least daily budget on Google, in cents. Google publishes no minimum for Display campaign
 * budgets (only that `amount_micros` must be positive and a multiple of the currency's minimum unit),
 * so Rally asks for $1.00 a day, as on Meta; Google's own refusal still shows in its words.
 */
export const GOOGLE_MINIMUM_DAILY_BUDGET = 100;

/** ResponsiveDisplayAdInfo lengths (characters). */
const MAX = { headline: 30, longHeadline: 90, description: 90, businessName: 25 };

/** Text cut at a word to fit `max` characters, with an ellipsis; Google refuses longer (TOO_LONG). */
export function fit(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** What the port's creative holds for Google: the ad's content until `createAd` makes the ad. */
type Bundle = {
  landscape: string;
  square: string;
  link: string;
  headline: string;
  longHeadline: string;
  description: string;
  businessName: string;
};
const BUNDLE = 'rda:';
const pack = (b: Bundle) => `${BUNDLE}${Buffer.from(JSON.stringify(b)).toString('base64url')}`;
function unpack(id: string): Bundle {
  if (!id.startsWith(BUNDLE)) throw new Error(`Not a Google creative Rally made: ${id.slice(0, 40)}`);
  return JSON.parse(Buffer.from(id.slice(BUNDLE.length), 'base64url').toString('utf8')) as Bundle;
}

/** The customer of a resource name (`customers/123/…`). */
export function customerOf(resourceName: string): string {
  const m = /^customers\/(\d+)\//.exec(resourceName);
  if (!m?.[1]) throw new Error(`Not a Google Ads resource name: ${resourceName}`);
  return m[1];
}
/** The Data Manager API's user list name as the Google Ads API's resource name. */
function userListResource(audienceId: string): string {
  const m = /^accountTypes\/GOOGLE_ADS\/accounts\/(\d+)\/userLists\/(\d+)$/.exec(audienceId);
  if (!m) throw new Error(`Not a Google Ads user list: ${audienceId}`);
  return `customers/${m[1]}/userLists/${m[2]}`;
}

/** The calendar day of `at` in `timeZone` (IANA), as yyyy-MM-dd. */
function dayIn(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);
}

type MutateReply = { results?: { resourceName?: string }[] };
type Row = {
  campaign?: {
    resourceName?: string;
    status?: string;
    primaryStatus?: string;
    primaryStatusReasons?: string[];
  };
  adGroupAd?: {
    resourceName?: string;
    status?: string;
    primaryStatus?: string;
    policySummary?: { approvalStatus?: string; reviewStatus?: string };
  };
  customer?: { descriptiveName?: string; currencyCode?: string; timeZone?: string };
};

export function googleCampaignApi(deps: { call: GoogleAdsCall }): AdNetworkCampaignApi {
  const { call } = deps;
  const mutate = async (ctx: AdapterContext, customer: string, service: string, operations: unknown[]) =>
    ((await call<MutateReply>(ctx, customer, `${service}:mutate`, { operations })).results ?? []).map(
      (r) => r.resourceName ?? '',
    );
  const search = async (ctx: AdapterContext, customer: string, query: string) =>
    (await call<{ results?: Row[] }>(ctx, customer, 'googleAds:search', { query })).results ?? [];
  const account = async (ctx: AdapterContext, customer: string) =>
    (
      await search(
        ctx,
        customer,
        'SELECT customer.descriptive_name, customer.currency_code, customer.time_zone FROM customer',
      )
    )[0]?.customer ?? {};
  const unique = () => randomBytes(3).toString('hex');

  async function createAd(
    ctx: AdapterContext,
    adGroup: string,
    creativeId: string,
    name: string,
    remove?: string,
  ): Promise<string> {
    const b = unpack(creativeId);
    const operations: unknown[] = [
      {
        create: {
          adGroup,
          status: 'ENABLED',
          ad: {
            name,
            finalUrls: [b.link],
            responsiveDisplayAd: {
              marketingImages: [{ asset: b.landscape }],
              squareMarketingImages: [{ asset: b.square }],
              headlines: [{ text: b.headline }],
              longHeadline: { text: b.longHeadline },
              descriptions: [{ text: b.description }],
              businessName: b.businessName,
            },
          },
        },
      },
      ...(remove ? [{ remove }] : []),
    ];
    const [made] = await mutate(ctx, customerOf(adGroup), 'adGroupAds', operations);
    if (!made) throw new Error('Google made the ad without naming it');
    return made;
  }

  return {
    ...googleReportingApi(call),
    minimumDailyBudget: GOOGLE_MINIMUM_DAILY_BUDGET,
    // One responsive display ad carries both marketing images; Google fits it to each placement.
    placements: [{ size: '1200x628', label: 'Responsive display ad', also: ['1080x1080'] }],
    // The ad names the advertiser (business_name): there is no page to choose.
    needsPage: false,
    // Rally makes Display campaigns with a daily budget; a lifetime amount is not spread over days.
    budgetKinds: ['daily'],

    async uploadImage(ctx, adAccountId, png, name) {
      const [asset] = await mutate(ctx, adAccountId, 'assets', [
        {
          create: {
            name: `${name} ${unique()}`,
            type: 'IMAGE',
            imageAsset: { data: png.toString('base64') },
          },
        },
      ]);
      if (!asset) throw new Error('Google answered the image upload without naming the asset');
      return { hash: asset };
    },

    async createCampaign(ctx, adAccountId, spec) {
      const { budget, startsAt } = spec;
      if (!budget || !startsAt) throw new Error('A Google Ads campaign is made with its budget and start');
      if (budget.kind !== 'daily') throw new Error('Rally makes Google Ads campaigns with a daily budget');
      const { currencyCode, timeZone } = await account(ctx, adAccountId);
      const tz = timeZone ?? 'UTC';
      // Micros of the account currency: cents × 10^(6 − 2) for USD.
      const micros = budget.minor * 10 ** (6 - minorDigits(currencyCode ?? null));
      const temp = `customers/${adAccountId}/campaignBudgets/-1`;
      const suffix = unique();
      const reply = await call<{
        mutateOperationResponses?: { campaignResult?: { resourceName?: string } }[];
      }>(ctx, adAccountId, 'googleAds:mutate', {
        mutateOperations: [
          {
            campaignBudgetOperation: {
              create: {
                resourceName: temp,
                // Budget and campaign names are unique per account (DUPLICATE_NAME).
                name: `${spec.name} budget ${suffix}`,
                amountMicros: String(micros),
                period: 'DAILY',
                deliveryMethod: 'STANDARD',
                explicitlyShared: false,
              },
            },
          },
          {
            campaignOperation: {
              create: {
                name: `${spec.name} ${suffix}`,
                status: 'PAUSED',
                advertisingChannelType: 'DISPLAY',
                campaignBudget: temp,
                // Maximize clicks for every Rally objective: Display's reach bidding (viewable
                // CPM) needs a bid Rally would have to invent.
                targetSpend: {},
                networkSettings: {
                  targetGoogleSearch: false,
                  targetSearchNetwork: false,
                  targetContentNetwork: true,
                  targetPartnerSearchNetwork: false,
                },
                startDateTime: `${dayIn(startsAt, tz)} 00:00:00`,
                // The last day served is the one the end instant falls in (an end at midnight
                // ends the day before).
                ...(spec.endsAt
                  ? { endDateTime: `${dayIn(new Date(spec.endsAt.getTime() - 1), tz)} 23:59:59` }
                  : {}),
                containsEuPoliticalAdvertising: 'DOES_NOT_CONTAIN_EU_POLITICAL_ADVERTISING',
              },
            },
          },
        ],
      });
      const made = reply.mutateOperationResponses?.[1]?.campaignResult?.resourceName;
      if (!made) throw new Error('Google made the campaign without naming it');
      return { id: made };
    },

    async createAdSet(ctx, adAccountId, spec) {
      // An ad group and its Customer Match criterion together (temporary ad group name).
      const temp = `customers/${adAccountId}/adGroups/-2`;
      const reply = await call<{
        mutateOperationResponses?: { adGroupResult?: { resourceName?: string } }[];
      }>(ctx, adAccountId, 'googleAds:mutate', {
        mutateOperations: [
          {
            adGroupOperation: {
              create: {
                resourceName: temp,
                name: `${spec.name} ${unique()}`,
                campaign: spec.campaignId,
                status: 'ENABLED',
                type: 'DISPLAY_STANDARD',
              },
            },
          },
          {
            adGroupCriterionOperation: {
              create: {
                adGroup: temp,
                status: 'ENABLED',
                userList: { userList: userListResource(spec.audienceId) },
              },
            },
          },
        ],
      });
      const made = reply.mutateOperationResponses?.[0]?.adGroupResult?.resourceName;
      if (!made) throw new Error('Google made the ad group without naming it');
      return { id: made };
    },

    async createCreative(ctx, adAccountId, spec) {
      const square = spec.moreImages?.find((m) => m.size === ('1080x1080' satisfies PlacementSize));
      if (!square) throw new Error('A responsive display ad needs a square image beside the landscape one');
      const { descriptiveName } = await account(ctx, adAccountId);
      return {
        id: pack({
          landscape: spec.imageHash,
          square: square.hash,
          link: spec.link,
          headline: fit(spec.headline, MAX.headline),
          longHeadline: fit(spec.headline, MAX.longHeadline),
          description: fit(spec.message || spec.headline, MAX.description),
          businessName: fit(descriptiveName || 'Advertiser', MAX.businessName),
        }),
      };
    },

    async createAd(ctx, _adAccountId, spec) {
      return { id: await createAd(ctx, spec.adSetId, spec.creativeId, spec.name) };
    },

    async replaceCreative(ctx, adId, creativeId, adSetId) {
      // Responsive display ads cannot change their content: a new ad in the same ad group, the old
      // one removed in the same atomic request.
      return { adId: await createAd(ctx, adSetId, creativeId, 'Rally', adId) };
    },

    async setCampaignStatus(ctx, campaignId, status) {
      await mutate(ctx, customerOf(campaignId), 'campaigns', [
        {
          update: { resourceName: campaignId, status: status === 'ACTIVE' ? 'ENABLED' : 'PAUSED' },
          updateMask: 'status',
        },
      ]);
    },

    async readStatus(ctx, campaignId, adIds) {
      const customer = customerOf(campaignId);
      const [c] = await search(
        ctx,
        customer,
        `SELECT campaign.resource_name, campaign.status, campaign.primary_status FROM campaign WHERE campaign.resource_name = '${campaignId}'`,
      );
      const rows = await search(
        ctx,
        customer,
        `SELECT ad_group_ad.resource_name, ad_group_ad.status, ad_group_ad.primary_status, ad_group_ad.policy_summary.approval_status, ad_group_ad.policy_summary.review_status FROM ad_group_ad WHERE campaign.resource_name = '${campaignId}'`,
      );
      const ads = adIds.map((id) => {
        const a = rows.find((r) => r.adGroupAd?.resourceName === id)?.adGroupAd;
        const approval = a?.policySummary?.approvalStatus;
        return {
          id,
          effectiveStatus:
            approval === 'DISAPPROVED' ? 'DISAPPROVED' : (a?.primaryStatus ?? a?.status ?? 'UNKNOWN'),
          issues:
            approval === 'DISAPPROVED' || approval === 'APPROVED_LIMITED'
              ? `Google's policy review: ${approval === 'DISAPPROVED' ? 'disapproved' : 'approved with limits'}.`
              : null,
        };
      });
      return { effectiveStatus: c?.campaign?.primaryStatus ?? c?.campaign?.status ?? 'UNKNOWN', ads };
    },
  };
}
