import type { IncomingHttpHeaders } from 'node:http';
import { GaqlError, fieldMaskOf, matches, parseGaql, shape } from './google-ads-gaql.ts';
import { localDate } from '../../src/modules/billing/calendar.ts';

/**
 * The campaign half of the Google Ads fake (test/fakes/google-ads.ts): budgets, Display campaigns,
 * ad groups with a Customer Match criterion, image assets, responsive display ads, status changes,
 * and GAQL search with daily metrics. Each rule names its page (developers.google.com/google-ads/api
 * unless said otherwise); where Google is loose this is stricter, so an adapter mistake fails a test.
 *
 * - "API call structure › Request headers": `developer-token` (checked by google-ads.ts) and
 *   `login-customer-id`, digits only without hyphens (HeaderError INVALID_LOGIN_CUSTOMER_ID); Google
 *   needs it only for access through a manager, this fake on every `customers/{id}/…` call, and it
 *   must be the customer itself or its manager (AuthorizationError USER_PERMISSION_DENIED).
 * - "Mutates": `POST customers/{id}/{service}:mutate` `{operations: [{create | update + updateMask |
 *   remove}], partialFailure?, validateOnly?}` → `{results: [{resourceName}]}`; `googleAds:mutate`
 *   `{mutateOperations: [{campaignBudgetOperation: …}, …]}` → `{mutateOperationResponses}` with
 *   temporary resource names (negative ids) usable by later operations of the request. Without
 *   `partialFailure` a request is atomic: one error and nothing is kept. With it, failed operations
 *   answer an empty result and `partialFailureError` carries a GoogleAdsFailure. An update without
 *   `updateMask` is FieldMaskError FIELD_MASK_MISSING; a field outside the mask is not changed.
 * - Errors: 400 INVALID_ARGUMENT with a GoogleAdsFailure in `details` (`errors[].errorCode`
 *   `{<kind>Error: <ENUM>}`, `message`, `location.fieldPathElements`) and a `requestId` ("Handle
 *   errors"); unknown JSON fields are refused as REST does ("Invalid JSON payload received. Unknown
 *   name …"), which catches fields a version removed (v23: Campaign.start_date/end_date).
 * - CampaignBudget: `name` (unique among the account's budgets, DUPLICATE_NAME), `amountMicros`
 *   positive and a multiple of the currency's minimum unit (NON_MULTIPLE_OF_MINIMUM_CURRENCY_UNIT),
 *   `period` DAILY, `deliveryMethod` STANDARD.
 * - Campaign: `name` unique (DUPLICATE_CAMPAIGN_NAME), `campaignBudget` of the account,
 *   `advertisingChannelType` (DISPLAY here), one bidding strategy, `containsEuPoliticalAdvertising`
 *   (FieldError REQUIRED without it: "EU political ads" policy page), `startDateTime` /
 *   `endDateTime` "yyyy-MM-dd HH:mm:ss" with the end after the start (DateRangeError). Created
 *   PAUSED: Google recommends it ("Create a campaign"), this fake requires it.
 * - AdGroup (campaign of the account, unique name in its campaign, DISPLAY_STANDARD) and
 *   AdGroupCriterion `userList.userList` naming a Customer Match list of the account.
 * - Asset IMAGE: `imageAsset.data` base64 of a PNG, JPEG or GIF (ImageError INVALID_IMAGE).
 * - AdGroupAd with a responsive display ad ("Create responsive display ads", ResponsiveDisplayAdInfo):
 *   `finalUrls` (≥ 1, http(s)), marketing images 1.91:1 ±1% and ≥ 600x314, square ones 1:1 ±1% and
 *   ≥ 300x300 (at least one each, assets of the account), headlines 1-5 of ≤ 30 characters, a long
 *   headline ≤ 90, descriptions 1-5 of ≤ 90, a business name ≤ 25 (StringLengthError TOO_LONG).
 * - Search: google-ads-gaql.ts; pages of `pageRows` rows (10,000 at Google, "Paging through results";
 *   smaller here so tests page), `nextPageToken` on all but the last; a token with another query is
 *   RequestError INVALID_PAGE_TOKEN; `pageSize` is RequestError PAGE_SIZE_NOT_SUPPORTED (v19+).
 * - Quota: when told, 429 RESOURCE_EXHAUSTED with a GoogleAdsFailure QuotaError
 *   RESOURCE_TEMPORARILY_EXHAUSTED and `details.quotaErrorDetails.retryDelay` ("Rate limits").
 * Shortcuts: ads are approved at once (Google reviews within a business day) unless `disapprove`;
 * metrics are what `setDay` says.
 */

type Reply = { status: number; body: unknown };
type Loc = { fieldName: string; index?: number }[];
class Failure extends Error {
  readonly status: number;
  readonly errors: {
    errorCode: Record<string, string>;
    message: string;
    location?: { fieldPathElements: Loc };
  }[];
  constructor(status: number, kind: string, code: string, message: string, at: Loc = []) {
    super(message);
    this.status = status;
    this.errors = [
      { errorCode: { [kind]: code }, message, ...(at.length ? { location: { fieldPathElements: at } } : {}) },
    ];
  }
}

export type FakeGoogleDay = { impressions: number; clicks: number; costMicros: number };
type Budget = { rn: string; name: string; amountMicros: number; status: string };
/**
 * Today in the account's time zone: Google reads a campaign's dates there ("yyyy-MM-dd HH:mm:ss" in the
 * account's time zone, Campaign.start_date_time), so a start "tomorrow" stays PENDING until the
 * account's midnight, not UTC's (a check at 00:40 UTC judged a New York start of tomorrow by UTC's day).
 * Source: the Campaign reference (start_date_time / end_date_time: "in the account's time zone"), and the
 * API team's answer that a date time without a zone "will take the timezone of the effective account"
 * (https://www.mail-archive.com/adwords-api@googlegroups.com/msg22227.html).
 */
const dayIn = (timeZone: string) => localDate(new Date(), timeZone);

type Campaign = {
  rn: string;
  id: string;
  name: string;
  status: string;
  channel: string;
  budget: string;
  bidding: string;
  start: string | null;
  end: string | null;
  eu: string;
};
type AdGroup = { rn: string; id: string; campaign: string; name: string; status: string; type: string };
type Criterion = { rn: string; adGroup: string; userList: string; status: string };
type Asset = { rn: string; name: string; width: number; height: number };
export type FakeGoogleAd = {
  rn: string;
  id: string;
  adGroup: string;
  status: string;
  approval: string;
  name: string;
  finalUrls: string[];
  rda: {
    marketingImages: string[];
    squareMarketingImages: string[];
    headlines: string[];
    longHeadline: string;
    descriptions: string[];
    businessName: string;
  };
};

const KNOWN: Record<string, string[]> = {
  campaignBudget: ['resourceName', 'name', 'amountMicros', 'period', 'deliveryMethod', 'explicitlyShared'],
  campaign: [
    'resourceName',
    'name',
    'status',
    'advertisingChannelType',
    'campaignBudget',
    'targetSpend',
    'manualCpc',
    'manualCpm',
    'maximizeConversions',
    'targetCpa',
    'networkSettings',
    'startDateTime',
    'endDateTime',
    'containsEuPoliticalAdvertising',
  ],
  adGroup: ['resourceName', 'name', 'campaign', 'status', 'type', 'cpcBidMicros', 'cpmBidMicros'],
  adGroupCriterion: ['resourceName', 'adGroup', 'status', 'userList'],
  asset: ['resourceName', 'name', 'type', 'imageAsset'],
  adGroupAd: ['resourceName', 'adGroup', 'status', 'ad'],
};
const BIDDING = ['targetSpend', 'manualCpc', 'manualCpm', 'maximizeConversions', 'targetCpa'];
const SERVICES: Record<string, string> = {
  campaignBudgets: 'campaignBudget',
  campaigns: 'campaign',
  adGroups: 'adGroup',
  adGroupCriteria: 'adGroupCriterion',
  assets: 'asset',
  adGroupAds: 'adGroupAd',
};
const DATE_TIME = /^(\d{4}-\d{2}-\d{2}) \d{2}:\d{2}:\d{2}$/;

/** Width and height of a PNG (IHDR), JPEG (SOFn) or GIF; null when it is none of them. */
function imageSize(bytes: Buffer): { width: number; height: number } | null {
  if (bytes.length > 24 && bytes.toString('latin1', 1, 4) === 'PNG')
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  if (bytes.length > 10 && bytes.toString('latin1', 0, 3) === 'GIF')
    return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    for (let i = 2; i + 9 < bytes.length;) {
      const marker = bytes[i + 1]!;
      const len = bytes.readUInt16BE(i + 2);
      if (marker >= 0xc0 && marker <= 0xc3)
        return { width: bytes.readUInt16BE(i + 7), height: bytes.readUInt16BE(i + 5) };
      i += 2 + len;
    }
  }
  return null;
}

export function createGoogleAdsCampaigns(deps: {
  version: string;
  customers: {
    id: string;
    currencyCode: string;
    timeZone: string;
    manager: boolean;
    descriptiveName: string;
    status: string;
  }[];
  /** Customer Match lists by Google Ads resource name (`customers/{c}/userLists/{id}`). */
  hasUserList: (resourceName: string) => boolean;
  pageRows?: number;
}) {
  const { version } = deps;
  let next = 8_000_000_000;
  const budgets = new Map<string, Budget>();
  const campaigns = new Map<string, Campaign>();
  const adGroups = new Map<string, AdGroup>();
  const criteria = new Map<string, Criterion>();
  const assets = new Map<string, Asset>();
  const ads = new Map<string, FakeGoogleAd>();
  /** ad group ad resource name → day → metrics. */
  const days = new Map<string, Map<string, FakeGoogleDay>>();
  const pageTokens = new Map<string, { query: string; offset: number }>();
  let throttled = 0;
  let throttleSeconds = 10;
  const manager = deps.customers.find((c) => c.manager)?.id;

  const failure = (status: number, code: string, message: string, errors: Failure['errors']) => ({
    status,
    body: {
      error: {
        code: status,
        message,
        status: code,
        details: [
          {
            '@type': `type.googleapis.com/google.ads.googleads.${version}.errors.GoogleAdsFailure`,
            errors,
            requestId: `req${next++}`,
          },
        ],
      },
    },
  });
  const fail = (kind: string, code: string, message: string, at: Loc = []) =>
    new Failure(400, kind, code, message, at);

  /** One create/update/remove of `type`; returns the resource name and an undo. */
  function operate(
    customer: string,
    type: string,
    op: Record<string, unknown>,
    at: Loc,
    temps: Map<string, string>,
  ): { rn: string; undo: () => void } {
    const real = (rn: unknown) => (typeof rn === 'string' ? (temps.get(rn) ?? rn) : rn);
    const ownPrefix = `customers/${customer}/`;
    if (op.remove !== undefined) {
      const rn = String(real(op.remove));
      const store = { campaign: campaigns, adGroupAd: ads, adGroup: adGroups, adGroupCriterion: criteria }[
        type
      ] as Map<string, { status: string }> | undefined;
      const found = store?.get(rn);
      if (!found || !rn.startsWith(ownPrefix))
        throw fail('mutateError', 'RESOURCE_NOT_FOUND', 'The resource was not found.', [
          ...at,
          { fieldName: 'remove' },
        ]);
      const before = found.status;
      found.status = 'REMOVED';
      return { rn, undo: () => void (found.status = before) };
    }
    if (op.update !== undefined) {
      const u = op.update as Record<string, unknown>;
      const mask = typeof op.updateMask === 'string' ? op.updateMask.split(',').filter(Boolean) : [];
      if (!mask.length)
        throw fail(
          'fieldMaskError',
          'FIELD_MASK_MISSING',
          'The field mask must be set for update operations.',
          [...at, { fieldName: 'update_mask' }],
        );
      if (type !== 'campaign' && type !== 'adGroupAd')
        throw fail('requestError', 'UNKNOWN', 'This fake updates campaigns and ad group ads only.', at);
      const store = (type === 'campaign' ? campaigns : ads) as Map<string, { status: string; name: string }>;
      const rn = String(real(u.resourceName));
      const found = store.get(rn);
      if (!found || !rn.startsWith(ownPrefix))
        throw fail('mutateError', 'RESOURCE_NOT_FOUND', 'The resource was not found.', [
          ...at,
          { fieldName: 'update' },
        ]);
      const bad = mask.find((f) => f !== 'status' && f !== 'name');
      if (bad)
        throw fail('fieldMaskError', 'FIELD_NOT_FOUND', `The field mask names an unknown field: ${bad}.`, at);
      if (mask.includes('status') && !['ENABLED', 'PAUSED'].includes(String(u.status)))
        throw fail('fieldError', 'INVALID_VALUE', 'Status must be ENABLED or PAUSED; use remove to remove.', [
          ...at,
          { fieldName: 'update' },
          { fieldName: 'status' },
        ]);
      const before = { ...found };
      if (mask.includes('status')) found.status = String(u.status);
      if (mask.includes('name') && typeof u.name === 'string') found.name = u.name;
      return { rn, undo: () => Object.assign(found, before) };
    }
    const c = op.create as Record<string, unknown> | undefined;
    if (!c || typeof c !== 'object')
      throw fail('requestError', 'UNKNOWN', 'An operation needs create, update or remove.', at);
    const here = [...at, { fieldName: 'create' }];
    const unknown = Object.keys(c).find((k) => !KNOWN[type]!.includes(k));
    if (unknown)
      throw new Failure(
        400,
        'requestError',
        'UNKNOWN',
        `Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`,
        here,
      );
    const required = (field: string) => {
      const v = c[field];
      if (v === undefined || v === null || v === '')
        throw fail('fieldError', 'REQUIRED', 'The required field was not present.', [
          ...here,
          { fieldName: field },
        ]);
      return v;
    };
    const tooLong = (text: string, max: number, field: string) => {
      if (text.length > max)
        throw fail('stringLengthError', 'TOO_LONG', `Too long (${text.length} > ${max}).`, [
          ...here,
          { fieldName: field },
        ]);
    };
    const id = String(next++);
    const made = <T extends { rn: string }>(store: Map<string, T>, path: string, value: Omit<T, 'rn'>) => {
      const rn = `customers/${customer}/${path}`;
      store.set(rn, { ...value, rn } as T);
      if (typeof c.resourceName === 'string' && /\/-\d+$/.test(c.resourceName)) temps.set(c.resourceName, rn);
      return { rn, undo: () => void store.delete(rn) };
    };
    const cust = deps.customers.find((x) => x.id === customer)!;

    if (type === 'campaignBudget') {
      const name = String(required('name'));
      if (
        [...budgets.values()].some(
          (b) => b.rn.startsWith(ownPrefix) && b.name === name && b.status !== 'REMOVED',
        )
      )
        throw fail('campaignBudgetError', 'DUPLICATE_NAME', 'A budget with this name already exists.', [
          ...here,
          { fieldName: 'name' },
        ]);
      const micros = Number(required('amountMicros'));
      const unit = 10 ** (6 - (cust.currencyCode === 'JPY' ? 0 : 2));
      if (!Number.isInteger(micros) || micros <= 0)
        throw fail('campaignBudgetError', 'NON_POSITIVE_AMOUNT', 'The budget amount must be positive.', here);
      if (micros % unit !== 0)
        throw fail(
          'campaignBudgetError',
          'NON_MULTIPLE_OF_MINIMUM_CURRENCY_UNIT',
          'Not a multiple of the currency unit.',
          here,
        );
      if ((c.period ?? 'DAILY') !== 'DAILY' || (c.deliveryMethod ?? 'STANDARD') !== 'STANDARD')
        throw fail(
          'campaignBudgetError',
          'INCOMPATIBLE_CAMPAIGN_TYPE',
          'This fake takes DAILY STANDARD budgets.',
          here,
        );
      return made(budgets, `campaignBudgets/${id}`, { name, amountMicros: micros, status: 'ENABLED' });
    }
    if (type === 'campaign') {
      const name = String(required('name'));
      if (
        [...campaigns.values()].some(
          (x) => x.rn.startsWith(ownPrefix) && x.name === name && x.status !== 'REMOVED',
        )
      )
        throw fail('campaignError', 'DUPLICATE_CAMPAIGN_NAME', 'A campaign with this name already exists.', [
          ...here,
          { fieldName: 'name' },
        ]);
      if (c.status !== 'PAUSED')
        throw fail('fieldError', 'INVALID_VALUE', 'This fake requires campaigns to be created PAUSED.', [
          ...here,
          { fieldName: 'status' },
        ]);
      if (required('advertisingChannelType') !== 'DISPLAY')
        throw fail(
          'campaignError',
          'INCOMPATIBLE_CAMPAIGN_FIELD',
          'This fake makes DISPLAY campaigns only.',
          here,
        );
      const budget = String(real(required('campaignBudget')));
      if (!budgets.has(budget) || !budget.startsWith(ownPrefix))
        throw fail('mutateError', 'RESOURCE_NOT_FOUND', 'The campaign budget was not found.', [
          ...here,
          { fieldName: 'campaign_budget' },
        ]);
      const bidding = BIDDING.filter((b) => c[b] !== undefined);
      if (bidding.length !== 1)
        throw fail(
          'biddingError',
          'BIDDING_STRATEGY_NOT_SUPPORTED',
          'Exactly one bidding strategy must be set.',
          here,
        );
      const eu = String(required('containsEuPoliticalAdvertising'));
      const start = typeof c.startDateTime === 'string' ? DATE_TIME.exec(c.startDateTime)?.[1] : undefined;
      const end = typeof c.endDateTime === 'string' ? DATE_TIME.exec(c.endDateTime)?.[1] : undefined;
      if ((c.startDateTime !== undefined && !start) || (c.endDateTime !== undefined && !end))
        throw fail(
          'dateError',
          'INVALID_FIELD_VALUES_IN_DATE_TIME',
          'Dates are "yyyy-MM-dd HH:mm:ss".',
          here,
        );
      if (start && start < dayIn(cust.timeZone))
        throw fail('dateRangeError', 'CANNOT_SET_DATE_TO_PAST', 'The start date is in the past.', [
          ...here,
          { fieldName: 'start_date_time' },
        ]);
      if (start && end && end < start)
        throw fail(
          'dateRangeError',
          'START_DATE_AFTER_END_DATE',
          'The start date is after the end date.',
          here,
        );
      return made(campaigns, `campaigns/${id}`, {
        id,
        name,
        status: 'PAUSED',
        channel: 'DISPLAY',
        budget,
        bidding: bidding[0]!,
        start: start ?? null,
        end: end ?? null,
        eu,
      });
    }
    if (type === 'adGroup') {
      const campaign = String(real(required('campaign')));
      if (!campaigns.has(campaign) || !campaign.startsWith(ownPrefix))
        throw fail('mutateError', 'RESOURCE_NOT_FOUND', 'The campaign was not found.', [
          ...here,
          { fieldName: 'campaign' },
        ]);
      const name = String(required('name'));
      if ([...adGroups.values()].some((g) => g.campaign === campaign && g.name === name))
        throw fail(
          'adGroupError',
          'DUPLICATE_ADGROUP_NAME',
          'An ad group with this name exists in the campaign.',
          here,
        );
      if ((c.type ?? 'DISPLAY_STANDARD') !== 'DISPLAY_STANDARD')
        throw fail(
          'adGroupError',
          'AD_GROUP_TYPE_NOT_VALID_FOR_ADVERTISING_CHANNEL_TYPE',
          'Display campaigns take DISPLAY_STANDARD.',
          here,
        );
      return made(adGroups, `adGroups/${id}`, {
        id,
        campaign,
        name,
        status: String(c.status ?? 'ENABLED'),
        type: 'DISPLAY_STANDARD',
      });
    }
    if (type === 'adGroupCriterion') {
      const adGroup = String(real(required('adGroup')));
      const group = adGroups.get(adGroup);
      if (!group || !adGroup.startsWith(ownPrefix))
        throw fail('mutateError', 'RESOURCE_NOT_FOUND', 'The ad group was not found.', [
          ...here,
          { fieldName: 'ad_group' },
        ]);
      const list = (c.userList as { userList?: string } | undefined)?.userList;
      if (!list || !list.startsWith(ownPrefix) || !deps.hasUserList(list))
        throw fail('mutateError', 'RESOURCE_NOT_FOUND', 'The user list was not found in this account.', [
          ...here,
          { fieldName: 'user_list' },
          { fieldName: 'user_list' },
        ]);
      return made(criteria, `adGroupCriteria/${group.id}~${id}`, {
        adGroup,
        userList: list,
        status: String(c.status ?? 'ENABLED'),
      });
    }
    if (type === 'asset') {
      if (c.type !== 'IMAGE')
        throw fail('assetError', 'UNSUPPORTED', 'This fake takes IMAGE assets only.', here);
      const data = (c.imageAsset as { data?: string } | undefined)?.data;
      const size = typeof data === 'string' ? imageSize(Buffer.from(data, 'base64')) : null;
      if (!size)
        throw fail('imageError', 'INVALID_IMAGE', 'The image is not a PNG, JPEG or GIF.', [
          ...here,
          { fieldName: 'image_asset' },
        ]);
      return made(assets, `assets/${id}`, { name: String(c.name ?? ''), ...size });
    }
    // adGroupAd: a responsive display ad.
    const adGroup = String(real(required('adGroup')));
    const group = adGroups.get(adGroup);
    if (!group || !adGroup.startsWith(ownPrefix) || group.status === 'REMOVED')
      throw fail('mutateError', 'RESOURCE_NOT_FOUND', 'The ad group was not found.', [
        ...here,
        { fieldName: 'ad_group' },
      ]);
    const ad = (c.ad ?? {}) as Record<string, unknown>;
    const urls = ad.finalUrls;
    if (
      !Array.isArray(urls) ||
      !urls.length ||
      !urls.every((u) => typeof u === 'string' && /^https?:\/\//.test(u))
    )
      throw fail('fieldError', 'REQUIRED_NONEMPTY_LIST', 'At least one http(s) final URL.', [
        ...here,
        { fieldName: 'ad' },
        { fieldName: 'final_urls' },
      ]);
    const r = ad.responsiveDisplayAd as Record<string, unknown> | undefined;
    if (!r)
      throw fail(
        'adError',
        'AD_TYPE_CANNOT_BE_CREATED',
        'This fake makes responsive display ads only.',
        here,
      );
    const images = (field: string, ratio: number, minW: number, minH: number) => {
      const list = r[field];
      const loc = [
        ...here,
        { fieldName: 'ad' },
        { fieldName: 'responsive_display_ad' },
        { fieldName: field },
      ];
      if (!Array.isArray(list) || !list.length)
        throw fail('fieldError', 'REQUIRED_NONEMPTY_LIST', `At least one ${field}.`, loc);
      return list.map((x: { asset?: string }) => {
        const a = assets.get(String(x.asset));
        if (!a || !a.rn.startsWith(ownPrefix))
          throw fail('mutateError', 'RESOURCE_NOT_FOUND', 'The asset was not found.', loc);
        if (Math.abs(a.width / a.height / ratio - 1) > 0.01 || a.width < minW || a.height < minH)
          throw fail(
            'mediaUploadError',
            'ASPECT_RATIO_NOT_ALLOWED',
            `${a.width}x${a.height} does not fit ${field}.`,
            loc,
          );
        return a.rn;
      });
    };
    const texts = (field: string, max: number) => {
      const list = r[field];
      if (!Array.isArray(list) || list.length < 1 || list.length > 5)
        throw fail('fieldError', 'REQUIRED_NONEMPTY_LIST', `Between 1 and 5 ${field}.`, [
          ...here,
          { fieldName: field },
        ]);
      return list.map((t: { text?: string }) => {
        const text = String(t.text ?? '');
        tooLong(text, max, field);
        return text;
      });
    };
    const marketingImages = images('marketingImages', 1.91, 600, 314);
    const squareMarketingImages = images('squareMarketingImages', 1, 300, 300);
    const headlines = texts('headlines', 30);
    const descriptions = texts('descriptions', 90);
    const longHeadline = String((r.longHeadline as { text?: string } | undefined)?.text ?? '');
    if (!longHeadline)
      throw fail('fieldError', 'REQUIRED', 'long_headline is required.', [
        ...here,
        { fieldName: 'long_headline' },
      ]);
    tooLong(longHeadline, 90, 'long_headline');
    const businessName = String(r.businessName ?? '');
    if (!businessName)
      throw fail('fieldError', 'REQUIRED', 'business_name is required.', [
        ...here,
        { fieldName: 'business_name' },
      ]);
    tooLong(businessName, 25, 'business_name');
    return made(ads, `adGroupAds/${group.id}~${id}`, {
      id,
      adGroup,
      status: String(c.status ?? 'ENABLED'),
      approval: 'APPROVED',
      name: String(ad.name ?? ''),
      finalUrls: urls as string[],
      rda: { marketingImages, squareMarketingImages, headlines, longHeadline, descriptions, businessName },
    });
  }

  /** Runs operations; atomic unless partialFailure. */
  function run(
    customer: string,
    ops: { type: string; op: Record<string, unknown>; at: Loc }[],
    body: Record<string, unknown>,
  ) {
    const temps = new Map<string, string>();
    const undos: (() => void)[] = [];
    const results: (string | null)[] = [];
    const errors: Failure['errors'] = [];
    for (const { type, op, at } of ops) {
      try {
        const r = operate(customer, type, op, at, temps);
        undos.push(r.undo);
        results.push(r.rn);
      } catch (err) {
        if (!(err instanceof Failure)) throw err;
        if (!body.partialFailure) {
          for (const u of undos.reverse()) u();
          throw err;
        }
        errors.push(...err.errors);
        results.push(null);
      }
    }
    if (body.validateOnly) for (const u of undos.reverse()) u();
    return { results, errors };
  }

  function campaignStatus(c: Campaign, timeZone: string): string {
    const today = dayIn(timeZone);
    if (c.status === 'REMOVED') return 'REMOVED';
    if (c.status === 'PAUSED') return 'PAUSED';
    if (c.end && c.end < today) return 'ENDED';
    if (c.start && c.start > today) return 'PENDING';
    return 'ELIGIBLE';
  }
  function flatRows(from: string, customer: string): Record<string, unknown>[] {
    const cust = deps.customers.find((x) => x.id === customer)!;
    const custRow = {
      'customer.resource_name': `customers/${cust.id}`,
      'customer.id': cust.id,
      'customer.descriptive_name': cust.descriptiveName,
      'customer.currency_code': cust.currencyCode,
      'customer.time_zone': cust.timeZone,
      'customer.status': cust.status,
      'customer.manager': cust.manager,
    };
    const campRow = (c: Campaign) => ({
      ...custRow,
      'campaign.resource_name': c.rn,
      'campaign.id': c.id,
      'campaign.name': c.name,
      'campaign.status': c.status,
      'campaign.primary_status': campaignStatus(c, cust.timeZone),
      'campaign.advertising_channel_type': c.channel,
      'campaign.campaign_budget': c.budget,
      'campaign.start_date_time': c.start ? `${c.start} 00:00:00` : undefined,
      'campaign.end_date_time': c.end ? `${c.end} 23:59:59` : undefined,
      'campaign.contains_eu_political_advertising': c.eu,
    });
    if (from === 'customer') return [custRow];
    const own = (rn: string) => rn.startsWith(`customers/${customer}/`);
    if (from === 'campaign') return [...campaigns.values()].filter((c) => own(c.rn)).map(campRow);
    const rows: Record<string, unknown>[] = [];
    for (const a of ads.values()) {
      if (!own(a.rn)) continue;
      const g = adGroups.get(a.adGroup)!;
      const c = campaigns.get(g.campaign)!;
      const paused = [a.status, g.status, c.status].includes('PAUSED');
      const base = {
        ...campRow(c),
        'ad_group.resource_name': g.rn,
        'ad_group.id': g.id,
        'ad_group.name': g.name,
        'ad_group.status': g.status,
        'ad_group_ad.resource_name': a.rn,
        'ad_group_ad.status': a.status,
        'ad_group_ad.primary_status':
          a.status === 'REMOVED'
            ? 'REMOVED'
            : a.approval === 'DISAPPROVED'
              ? 'NOT_ELIGIBLE'
              : paused
                ? 'PAUSED'
                : campaignStatus(c, cust.timeZone),
        'ad_group_ad.ad.id': a.id,
        'ad_group_ad.ad.name': a.name,
        'ad_group_ad.policy_summary.approval_status': a.approval,
        'ad_group_ad.policy_summary.review_status': 'REVIEWED',
      };
      const perDay = days.get(a.rn) ?? new Map<string, FakeGoogleDay>();
      if (perDay.size === 0) rows.push(base);
      for (const [day, m] of [...perDay].sort())
        rows.push({
          ...base,
          'segments.date': day,
          'metrics.impressions': String(m.impressions),
          'metrics.clicks': String(m.clicks),
          'metrics.cost_micros': String(m.costMicros),
        });
    }
    return rows;
  }

  function search(customer: string, body: Record<string, unknown>): Reply {
    if (body.pageSize !== undefined)
      throw fail(
        'requestError',
        'PAGE_SIZE_NOT_SUPPORTED',
        "Setting the page size is not supported. Search Responses will have fixed page size of '10000' rows.",
      );
    let q;
    try {
      q = parseGaql(body.query);
    } catch (err) {
      if (err instanceof GaqlError) throw fail('queryError', err.code, err.message, [{ fieldName: 'query' }]);
      throw err;
    }
    const query = String(body.query);
    let offset = 0;
    if (body.pageToken !== undefined) {
      const t = pageTokens.get(String(body.pageToken));
      if (!t || t.query !== query)
        throw fail('requestError', 'INVALID_PAGE_TOKEN', 'Page token is not valid for this query.');
      offset = t.offset;
    }
    const dated = q.select.includes('segments.date');
    const all = flatRows(q.from, customer)
      // Rows with metrics exist only for days with delivery when a date is selected.
      .filter((r) => !dated || r['segments.date'] !== undefined)
      .filter((r) => matches(r, q.where));
    const size = deps.pageRows ?? 10_000;
    const page = all.slice(offset, offset + size);
    let nextPageToken: string | undefined;
    if (offset + size < all.length) {
      nextPageToken = `pt${next++}`;
      pageTokens.set(nextPageToken, { query, offset: offset + size });
    }
    return {
      status: 200,
      body: {
        results: page.map((r) => shape(r, q)),
        fieldMask: fieldMaskOf(q),
        ...(nextPageToken ? { nextPageToken } : {}),
      },
    };
  }

  /** A `customers/{id}/…` call, or null when the path is not one this half answers. */
  function route(
    method: string,
    path: string,
    body: Record<string, unknown>,
    headers: IncomingHttpHeaders,
  ): Reply | null {
    const m = new RegExp(`^/${version}/customers/(\\d+)/([A-Za-z]+):(mutate|search)$`).exec(path);
    if (!m || method !== 'POST') return null;
    const customer = m[1]!;
    try {
      const login = headers['login-customer-id'];
      if (typeof login !== 'string' || !/^\d{10}$/.test(login))
        throw fail(
          'headerError',
          'INVALID_LOGIN_CUSTOMER_ID',
          'The login customer id header must be 10 digits without hyphens.',
        );
      const cust = deps.customers.find((c) => c.id === customer);
      if (!cust || (login !== customer && login !== manager))
        throw new Failure(
          403,
          'authorizationError',
          'USER_PERMISSION_DENIED',
          "User doesn't have permission to access customer.",
        );
      if (throttled > 0) {
        throttled--;
        return failure(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).', [
          {
            errorCode: { quotaError: 'RESOURCE_TEMPORARILY_EXHAUSTED' },
            message: 'Too many requests. Retry in a few seconds.',
            details: {
              quotaErrorDetails: {
                rateScope: 'ACCOUNT',
                rateName: 'RequestsPerOperation',
                retryDelay: `${throttleSeconds}s`,
              },
            },
          } as Failure['errors'][number],
        ]);
      }
      const [, , service, verb] = m;
      if (service === 'googleAds' && verb === 'search') return search(customer, body);
      if (service === 'googleAds' && verb === 'mutate') {
        const list = body.mutateOperations;
        if (!Array.isArray(list) || !list.length)
          throw fail('fieldError', 'REQUIRED_NONEMPTY_LIST', 'mutate_operations is required.');
        const ops = list.map((o: Record<string, unknown>, i) => {
          const key = Object.keys(o)[0] ?? '';
          const type = key.replace(/Operation$/, '');
          if (!KNOWN[type])
            throw fail('requestError', 'UNKNOWN', `Unknown operation ${key}.`, [
              { fieldName: 'mutate_operations', index: i },
            ]);
          return {
            type,
            op: o[key] as Record<string, unknown>,
            at: [{ fieldName: 'mutate_operations', index: i }, { fieldName: key }],
          };
        });
        const { results, errors } = run(customer, ops, body);
        return {
          status: 200,
          body: {
            mutateOperationResponses: results.map((rn, i) =>
              rn ? { [`${ops[i]!.type}Result`]: { resourceName: rn } } : {},
            ),
            ...(errors.length
              ? {
                  partialFailureError: failure(400, 'INVALID_ARGUMENT', 'Partial failure.', errors).body
                    .error,
                }
              : {}),
          },
        };
      }
      const type = SERVICES[service ?? ''];
      if (!type || verb !== 'mutate') return null;
      const list = body.operations;
      if (!Array.isArray(list) || !list.length)
        throw fail('fieldError', 'REQUIRED_NONEMPTY_LIST', 'operations is required.');
      const { results, errors } = run(
        customer,
        list.map((op: Record<string, unknown>, i) => ({
          type,
          op,
          at: [{ fieldName: 'operations', index: i }],
        })),
        body,
      );
      return {
        status: 200,
        body: {
          results: results.map((rn) => (rn ? { resourceName: rn } : {})),
          ...(errors.length
            ? { partialFailureError: failure(400, 'INVALID_ARGUMENT', 'Partial failure.', errors).body.error }
            : {}),
        },
      };
    } catch (err) {
      if (err instanceof Failure)
        return failure(
          err.status,
          err.status === 403 ? 'PERMISSION_DENIED' : 'INVALID_ARGUMENT',
          err.status === 403
            ? 'The caller does not have permission'
            : 'Request contains an invalid argument.',
          err.errors,
        );
      throw err;
    }
  }

  return {
    route,
    budgets,
    campaigns,
    adGroups,
    criteria,
    assets,
    ads,
    /** The results Google reports for an ad (its resource name) on a day (yyyy-MM-dd). */
    setDay: (adResourceName: string, day: string, m: FakeGoogleDay) => {
      const perDay = days.get(adResourceName) ?? new Map<string, FakeGoogleDay>();
      perDay.set(day, m);
      days.set(adResourceName, perDay);
    },
    /** Google's policy review disapproves the ad. */
    disapprove: (adResourceName: string) => {
      const a = ads.get(adResourceName);
      if (a) a.approval = 'DISAPPROVED';
    },
    /** The next `n` Google Ads API calls answer 429 RESOURCE_EXHAUSTED asking to wait `seconds`. */
    throttleNext: (n: number, seconds = 10) => {
      throttled = n;
      throttleSeconds = seconds;
    },
  };
}

export type FakeGoogleAdsCampaigns = ReturnType<typeof createGoogleAdsCampaigns>;
