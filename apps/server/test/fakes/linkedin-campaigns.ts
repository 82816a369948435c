import type { IncomingHttpHeaders } from 'node:http';
import { linkedInAnalytics } from './linkedin-analytics.ts';
import type { FakeLinkedInCompanyDay, FakeLinkedInDay } from './linkedin-analytics.ts';

export type { FakeLinkedInCompanyDay, FakeLinkedInDay };

/**
 * The campaign half of the LinkedIn fake (test/fakes/linkedin.ts): images, dark posts, campaign
 * groups, campaigns, creatives and ad analytics on the versioned `/rest` paths. Each rule names its
 * page (learn.microsoft.com/linkedin/marketing unless said otherwise); where LinkedIn is loose or
 * depends on the account, this is stricter, so an adapter mistake fails a test.
 *
 * - Images API: `POST /rest/images?action=initializeUpload` `{initializeUploadRequest: {owner}}`
 *   (owner an organisation the member administers; w_organization_social) → `{value: {uploadUrl,
 *   uploadUrlExpiresAt, image}}`; the bytes are PUT to `uploadUrl` with the same bearer token and
 *   must be a PNG or JPEG. An image is usable in a post only once its bytes arrived.
 * - Posts API (Post Schema): `POST /rest/posts` with author (an organisation the member
 *   administers), commentary, visibility, distribution, lifecycleState PUBLISHED, content.media.id
 *   an uploaded image of that organisation, `adContext.dscAdAccount` (a dark post for that account),
 *   `contentLandingPage` an http(s) URL → 201, id (`urn:li:share:…`) in `x-restli-id`.
 * - Campaign Groups: `POST /rest/adAccounts/{id}/adCampaignGroups` with account (the path's), name,
 *   status (DRAFT, ACTIVE, PAUSED) and runSchedule.start → 201, id in `x-restli-id`; GET and
 *   PARTIAL_UPDATE (`{patch: {$set: {status}}}`) at `/adCampaignGroups/{id}`.
 * - Campaigns: `POST /rest/adAccounts/{id}/adCampaigns`: account, campaignGroup of the account,
 *   name, type, costType, objectiveType, locale {country, language}, politicalIntent, runSchedule
 *   {start, end?} (end after start), status (DRAFT, PAUSED, ACTIVE), exactly one of dailyBudget and
 *   totalBudget `{amount: "10.00", currencyCode}` in the account's currency (amount as text); a
 *   daily budget at least $10 (Marketing Solutions Help, "Campaign budgets"), a total budget needs an
 *   end and $10 a day of the schedule; targetingCriteria naming matched audiences of this account
 *   (`urn:li:adTargetingFacet:audienceMatchingSegments` with `urn:li:adSegment:…`, not the DMP
 *   segment's id). Refusals are 400 `{status, serviceErrorCode, code, message}` ("Error Handling").
 * - Creatives: `POST /rest/adAccounts/{id}/creatives` `{campaign, content: {reference}, intendedStatus,
 *   name}`: the campaign and the dark post of this account → 201, `x-restli-id` the URL-encoded
 *   `urn:li:sponsoredCreative:…`; GET and PARTIAL_UPDATE at `/creatives/{encoded urn}`; the
 *   reference cannot change ("reference cannot be modified after creation").
 * - Reporting (`adAnalytics`): test/fakes/linkedin-analytics.ts.
 */

type Refusal = { status: number; body: Record<string, unknown> };
type Reply = { status: number; body: unknown; headers?: Record<string, string> };

export type FakeLinkedInGroup = { id: string; account: string; name: string; status: string };
export type FakeLinkedInCampaign = {
  id: string;
  account: string;
  group: string;
  name: string;
  objectiveType: string;
  dailyBudget: { amount: string; currencyCode: string } | null;
  totalBudget: { amount: string; currencyCode: string } | null;
  start: number;
  end: number | null;
  segments: string[];
  status: string;
};
export type FakeLinkedInPost = {
  id: string;
  account: string;
  author: string;
  image: string;
  title: string;
  commentary: string;
  landingPage: string;
};
export type FakeLinkedInCreative = {
  id: string;
  account: string;
  campaign: string;
  reference: string;
  intendedStatus: string;
  rejection: string | null;
};

const OBJECTIVES = [
  'BRAND_AWARENESS',
  'ENGAGEMENT',
  'JOB_APPLICANT',
  'LEAD_GENERATION',
  'VIDEO_VIEW',
  'WEBSITE_CONVERSION',
  'WEBSITE_VISIT',
];
const CAMPAIGN_STATUSES = ['DRAFT', 'PAUSED', 'ACTIVE'];
const GROUP_STATUSES = ['DRAFT', 'PAUSED', 'ACTIVE', 'ARCHIVED'];
const CREATIVE_STATUSES = ['DRAFT', 'PAUSED', 'ACTIVE', 'ARCHIVED'];
/** Minimum daily budget in USD ("Campaign budgets"). */
export const FAKE_LINKEDIN_MIN_DAILY = 10;
const DAY_MS = 86_400_000;

const refuse = (
  status: number,
  message: string,
  code = 'INVALID_PARAMS',
  serviceErrorCode = 100,
): Refusal => ({
  status,
  body: { status, serviceErrorCode, code, message },
});

export function createLinkedInCampaigns(deps: {
  baseUrl: () => string;
  /** The member's role on an ad account urn, if any. */
  roleOn: (accountUrn: string) => string | undefined;
  currencyOf: (accountId: string) => string | undefined;
  /** Organisations the member administers (urns). */
  adminOf: () => string[];
  /** The account urn of the DMP segment behind an ad segment urn. */
  adSegmentAccount: (adSegmentUrn: string) => string | undefined;
  scopes: (token: unknown) => string[];
}) {
  let next = 610000;
  const uploads = new Map<string, { owner: string; image: string; bytes: number | null }>();
  const images = new Map<string, { owner: string; bytes: number | null }>();
  const posts = new Map<string, FakeLinkedInPost>();
  const groups = new Map<string, FakeLinkedInGroup>();
  const campaigns = new Map<string, FakeLinkedInCampaign>();
  const creatives = new Map<string, FakeLinkedInCreative>();
  /** creative id → day (YYYY-MM-DD) → results. */
  const days = new Map<string, Map<string, FakeLinkedInDay>>();
  const companyDays = new Map<string, Map<string, Map<string, FakeLinkedInCompanyDay>>>();
  const analytics = linkedInAnalytics({ creatives, campaigns, days, companyDays, refuse });

  const need = (token: unknown, method: string, path: string, scope: string) => {
    if (!deps.scopes(token).includes(scope))
      throw refuse(403, `Not enough permissions to access: ${method} ${path}`, 'ACCESS_DENIED');
  };
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v : null);
  const required = (b: Record<string, unknown>, field: string) => {
    const v = b[field];
    if (v === undefined || v === null || v === '')
      throw refuse(400, `/${field} :: field is required but not found and has no default value`);
    return v;
  };
  const ownAccount = (accountId: string, method: string) => {
    const role = deps.roleOn(`urn:li:sponsoredAccount:${accountId}`);
    if (!role) throw refuse(404, `Ad account ${accountId} not found`, 'NOT_FOUND');
    if (method !== 'GET' && role === 'VIEWER')
      throw refuse(403, 'A VIEWER cannot change this ad account', 'ACCESS_DENIED');
  };
  const created = (id: string): Reply => ({ status: 201, body: null, headers: { 'x-restli-id': id } });

  function budget(v: unknown, currency: string, field: string) {
    const b = v as { amount?: unknown; currencyCode?: unknown } | undefined;
    if (typeof b?.amount !== 'string' || !/^\d+(\.\d+)?$/.test(b.amount))
      throw refuse(400, `/${field}/amount :: must be a decimal number as a string`);
    if (b.currencyCode !== currency)
      throw refuse(400, `/${field}/currencyCode :: must be the account currency ${currency}`);
    return { amount: b.amount, currencyCode: currency };
  }

  function createCampaign(accountId: string, b: Record<string, unknown>): Reply {
    const account = `urn:li:sponsoredAccount:${accountId}`;
    if (required(b, 'account') !== account)
      throw refuse(400, '/account :: must be the ad account of the path');
    const group = groups.get(String(required(b, 'campaignGroup')).split(':').pop() ?? '');
    if (!group || group.account !== accountId)
      throw refuse(400, '/campaignGroup :: not a campaign group of this ad account');
    const name = str(required(b, 'name')) ?? '';
    required(b, 'type');
    required(b, 'costType');
    const objectiveType = String(required(b, 'objectiveType'));
    if (!OBJECTIVES.includes(objectiveType)) throw refuse(400, `/objectiveType :: unknown ${objectiveType}`);
    const locale = required(b, 'locale') as { country?: string; language?: string };
    if (!locale.country || !locale.language)
      throw refuse(400, '/locale :: country and language are required');
    required(b, 'politicalIntent');
    const status = String(required(b, 'status'));
    if (!CAMPAIGN_STATUSES.includes(status))
      throw refuse(400, `/status :: must be one of ${CAMPAIGN_STATUSES}`);
    const schedule = required(b, 'runSchedule') as { start?: unknown; end?: unknown };
    if (typeof schedule.start !== 'number')
      throw refuse(400, '/runSchedule/start :: epoch milliseconds required');
    const end = typeof schedule.end === 'number' ? schedule.end : null;
    if (end !== null && end <= schedule.start) throw refuse(400, '/runSchedule/end :: must be after start');
    const currency = deps.currencyOf(accountId) ?? 'USD';
    if ((b.dailyBudget === undefined) === (b.totalBudget === undefined))
      throw refuse(400, 'Exactly one of dailyBudget and totalBudget must be set');
    const daily = b.dailyBudget === undefined ? null : budget(b.dailyBudget, currency, 'dailyBudget');
    const total = b.totalBudget === undefined ? null : budget(b.totalBudget, currency, 'totalBudget');
    if (daily && Number(daily.amount) < FAKE_LINKEDIN_MIN_DAILY)
      throw refuse(
        400,
        `Daily budget must be at least ${FAKE_LINKEDIN_MIN_DAILY.toFixed(2)} ${currency}`,
        'DAILY_BUDGET_TOO_LOW',
      );
    if (total && end === null) throw refuse(400, '/runSchedule/end :: required with a totalBudget');
    if (total && end !== null) {
      const least = FAKE_LINKEDIN_MIN_DAILY * Math.ceil((end - schedule.start) / DAY_MS);
      if (Number(total.amount) < least)
        throw refuse(
          400,
          `Total budget must be at least ${least.toFixed(2)} ${currency}`,
          'TOTAL_BUDGET_TOO_LOW',
        );
    }
    const include = (b.targetingCriteria as { include?: { and?: { or?: Record<string, unknown> }[] } })
      ?.include;
    const segments = (include?.and ?? []).flatMap((c) => {
      const v = c.or?.['urn:li:adTargetingFacet:audienceMatchingSegments'];
      return Array.isArray(v) ? v.map(String) : [];
    });
    if (!include?.and?.length)
      throw refuse(400, '/targetingCriteria/include :: at least one facet is required');
    for (const s of segments)
      if (deps.adSegmentAccount(s) !== account)
        throw refuse(400, `/targetingCriteria :: ${s} is not a matched audience of this ad account`);
    const id = String(next++);
    campaigns.set(id, {
      id,
      account: accountId,
      group: group.id,
      name,
      objectiveType,
      dailyBudget: daily,
      totalBudget: total,
      start: schedule.start,
      end,
      segments,
      status,
    });
    return created(id);
  }

  function createPost(b: Record<string, unknown>): Reply {
    const author = String(required(b, 'author'));
    if (!deps.adminOf().includes(author))
      throw refuse(403, `Member is not an administrator of ${author}`, 'ACCESS_DENIED');
    if (typeof b.commentary !== 'string') throw refuse(400, '/commentary :: field is required');
    required(b, 'visibility');
    required(b, 'distribution');
    if (required(b, 'lifecycleState') !== 'PUBLISHED')
      throw refuse(400, '/lifecycleState :: must be PUBLISHED');
    const ad = b.adContext as { dscAdAccount?: string } | undefined;
    const role = ad?.dscAdAccount ? deps.roleOn(ad.dscAdAccount) : undefined;
    if (!ad?.dscAdAccount || !role || role === 'VIEWER')
      throw refuse(400, '/adContext/dscAdAccount :: an ad account you may advertise from is required');
    const media = (b.content as { media?: { id?: string; title?: string } } | undefined)?.media;
    const image = images.get(media?.id ?? '');
    if (!media?.id || !image || image.owner !== author || image.bytes === null)
      throw refuse(400, `/content/media/id :: ${media?.id ?? ''} is not an uploaded image of ${author}`);
    const landing = str(b.contentLandingPage);
    if (!landing || !/^https?:\/\//.test(landing))
      throw refuse(400, '/contentLandingPage :: a URL is required for website-visit ads');
    const id = `urn:li:share:${next++}`;
    posts.set(id, {
      id,
      account: ad.dscAdAccount.split(':').pop() ?? '',
      author,
      image: media.id,
      title: media.title ?? '',
      commentary: b.commentary,
      landingPage: landing,
    });
    return created(id);
  }

  function creativeView(c: FakeLinkedInCreative) {
    const group = groups.get(campaigns.get(c.campaign)?.group ?? '');
    const serving = !c.rejection && c.intendedStatus === 'ACTIVE' && group?.status === 'ACTIVE';
    return {
      id: `urn:li:sponsoredCreative:${c.id}`,
      account: `urn:li:sponsoredAccount:${c.account}`,
      campaign: `urn:li:sponsoredCampaign:${c.campaign}`,
      content: { reference: c.reference },
      intendedStatus: c.intendedStatus,
      isServing: serving,
      ...(serving
        ? {}
        : { servingHoldReasons: c.rejection ? ['UNDER_REVIEW'] : ['CAMPAIGN_GROUP_STATUS_HOLD'] }),
      review: c.rejection ? { status: 'REJECTED', rejectionReasons: [c.rejection] } : { status: 'APPROVED' },
    };
  }

  function patch(body: unknown, headers: IncomingHttpHeaders): Record<string, unknown> {
    if (headers['x-restli-method'] !== 'PARTIAL_UPDATE')
      throw refuse(400, 'Updates use X-RestLi-Method: PARTIAL_UPDATE', 'ILLEGAL_ARGUMENT');
    const set = (body as { patch?: { $set?: Record<string, unknown> } }).patch?.$set;
    if (!set) throw refuse(400, 'patch.$set is required');
    return set;
  }

  /** A reply for a campaign path, or null when the path is not one of these. */
  function route(
    method: string,
    rel: string,
    q: URLSearchParams,
    rawQuery: string,
    body: unknown,
    headers: IncomingHttpHeaders,
    token: unknown,
  ): Reply | null {
    const b = (body ?? {}) as Record<string, unknown>;
    if (rel === '/images' && method === 'POST' && q.get('action') === 'initializeUpload') {
      need(token, method, rel, 'w_organization_social');
      const owner = String(
        (b.initializeUploadRequest as { owner?: string } | undefined)?.owner ??
          (() => {
            throw refuse(400, '/initializeUploadRequest/owner :: field is required');
          })(),
      );
      if (!deps.adminOf().includes(owner))
        throw refuse(403, `Member is not an administrator of ${owner}`, 'ACCESS_DENIED');
      const key = String(next++);
      const image = `urn:li:image:C4E10AQ${key}`;
      uploads.set(key, { owner, image, bytes: null });
      images.set(image, { owner, bytes: null });
      return {
        status: 200,
        body: {
          value: {
            uploadUrlExpiresAt: Date.now() + 3_600_000,
            uploadUrl: `${deps.baseUrl()}/upload/images/${key}`,
            image,
          },
        },
      };
    }
    if (rel === '/posts' && method === 'POST') {
      need(token, method, rel, 'w_organization_social');
      return createPost(b);
    }
    if (rel === '/adAnalytics' && method === 'GET') {
      need(token, method, rel, 'r_ads_reporting');
      return analytics(q, rawQuery);
    }
    const path = /^\/adAccounts\/(\d+)\/(adCampaignGroups|adCampaigns|creatives)(?:\/([^/]+))?$/.exec(rel);
    if (!path) return null;
    const [, accountId = '', kind, rawId] = path;
    need(token, method, rel, method === 'GET' ? 'r_ads' : 'rw_ads');
    ownAccount(accountId, method);
    if (kind === 'adCampaignGroups' && !rawId && method === 'POST') {
      if (required(b, 'account') !== `urn:li:sponsoredAccount:${accountId}`)
        throw refuse(400, '/account :: must be the ad account of the path');
      const name = String(required(b, 'name'));
      const status = String(required(b, 'status'));
      if (!GROUP_STATUSES.includes(status)) throw refuse(400, `/status :: must be one of ${GROUP_STATUSES}`);
      if (typeof (b.runSchedule as { start?: unknown } | undefined)?.start !== 'number')
        throw refuse(400, '/runSchedule/start :: epoch milliseconds required');
      const id = String(next++);
      groups.set(id, { id, account: accountId, name, status });
      return created(id);
    }
    if (kind === 'adCampaignGroups' && rawId) {
      const g = groups.get(rawId);
      if (!g || g.account !== accountId) throw refuse(404, `Campaign group ${rawId} not found`, 'NOT_FOUND');
      if (method === 'GET')
        return {
          status: 200,
          body: {
            id: Number(g.id),
            account: `urn:li:sponsoredAccount:${g.account}`,
            name: g.name,
            status: g.status,
          },
        };
      const set = patch(body, headers);
      if (set.status !== undefined) {
        if (!GROUP_STATUSES.includes(String(set.status)))
          throw refuse(400, `/status :: must be one of ${GROUP_STATUSES}`);
        g.status = String(set.status);
      }
      return { status: 204, body: null };
    }
    if (kind === 'adCampaigns' && !rawId && method === 'POST') return createCampaign(accountId, b);
    if (kind === 'creatives' && !rawId && method === 'POST') {
      const campaign = campaigns.get(String(required(b, 'campaign')).split(':').pop() ?? '');
      if (!campaign || campaign.account !== accountId)
        throw refuse(400, '/campaign :: not a campaign of this ad account');
      const reference = (b.content as { reference?: string } | undefined)?.reference;
      const post = posts.get(reference ?? '');
      if (!post || post.account !== accountId)
        throw refuse(400, `/content/reference :: ${reference ?? ''} is not a post of this ad account`);
      const intendedStatus = String(required(b, 'intendedStatus'));
      if (!CREATIVE_STATUSES.includes(intendedStatus)) throw refuse(400, '/intendedStatus :: unknown status');
      const id = String(next++);
      creatives.set(id, {
        id,
        account: accountId,
        campaign: campaign.id,
        reference: post.id,
        intendedStatus,
        rejection: null,
      });
      return created(encodeURIComponent(`urn:li:sponsoredCreative:${id}`));
    }
    if (kind === 'creatives' && rawId) {
      const urn = decodeURIComponent(rawId);
      if (!urn.startsWith('urn:li:sponsoredCreative:')) throw refuse(400, 'Creatives are named by their URN');
      const c = creatives.get(urn.split(':').pop() ?? '');
      if (!c || c.account !== accountId) throw refuse(404, `Creative ${urn} not found`, 'NOT_FOUND');
      if (method === 'GET') return { status: 200, body: creativeView(c) };
      const set = patch(body, headers);
      if ('content' in set) throw refuse(422, '/content :: the reference cannot be modified after creation');
      if (set.intendedStatus !== undefined) {
        if (!CREATIVE_STATUSES.includes(String(set.intendedStatus)))
          throw refuse(400, '/intendedStatus :: unknown status');
        c.intendedStatus = String(set.intendedStatus);
      }
      return { status: 204, body: null };
    }
    throw refuse(405, `${method} is not supported on ${rel}`, 'METHOD_NOT_ALLOWED');
  }

  /** `PUT /upload/images/{key}`: the image's bytes (PNG or JPEG). */
  function upload(key: string, bytes: Buffer): Reply {
    const u = uploads.get(key);
    if (!u || u.bytes !== null) throw refuse(404, 'Unknown or used upload URL', 'NOT_FOUND');
    const png = bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const jpeg = bytes[0] === 0xff && bytes[1] === 0xd8;
    if (!png && !jpeg) throw refuse(400, 'The uploaded file is not a PNG or JPEG image');
    u.bytes = bytes.length;
    images.set(u.image, { owner: u.owner, bytes: bytes.length });
    return { status: 201, body: null };
  }

  return {
    images,
    posts,
    groups,
    campaigns,
    creatives,
    route,
    upload,
    /** What LinkedIn reports for a creative on a day (setting a day again is a late correction). */
    setDay: (creativeId: string, day: string, r: FakeLinkedInDay) => {
      const m = days.get(creativeId) ?? new Map<string, FakeLinkedInDay>();
      m.set(day, r);
      days.set(creativeId, m);
    },
    /** What LinkedIn counts for one company (organisation id) on a creative's day, before its privacy minimum. */
    setCompanyDay: (creativeId: string, day: string, organizationId: string, r: FakeLinkedInCompanyDay) => {
      const byDay = companyDays.get(creativeId) ?? new Map<string, Map<string, FakeLinkedInCompanyDay>>();
      const orgs = byDay.get(day) ?? new Map<string, FakeLinkedInCompanyDay>();
      orgs.set(organizationId, r);
      byDay.set(day, orgs);
      companyDays.set(creativeId, byDay);
    },
    /** LinkedIn's review refuses the creative (review.status REJECTED with its reason). */
    reject: (creativeId: string, reason: string) => {
      const c = creatives.get(creativeId);
      if (c) c.rejection = reason;
    },
  };
}
