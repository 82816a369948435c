/**
 * The reporting half of the LinkedIn campaigns fake (test/fakes/linkedin-campaigns.ts), from
 * "Reporting" (learn.microsoft.com/linkedin/marketing, Ads Reporting): `GET /rest/adAnalytics?q=analytics`
 * with pivot, timeGranularity (DAILY, MONTHLY, ALL), dateRange `(start:(year,month,day),end:(…))`,
 * campaignGroups/campaigns/creatives as `List(<encoded urn>)` (Rest.li 2.0 wants URNs encoded inside
 * List), `fields` of known metrics. "The adAnalytics endpoint currently does not support
 * pagination": all elements in one reply; costInLocalCurrency as decimal text.
 *
 * Pivots: CREATIVE, and MEMBER_COMPANY (one of the "professional demographic" pivots, same page):
 * its pivotValues are `urn:li:organization:<id>`; a company with fewer than 3 events (impressions
 * here) in an element is left out for members' privacy (COMPANY_PRIVACY_MINIMUM); "some metrics are
 * not available with professional demographic pivots" (the fake refuses reach for it); the page's
 * Retention table keeps demographic data two years, so older days answer nothing. Any other pivot is
 * refused: the fake does not model it.
 */

type Refusal = { status: number; body: Record<string, unknown> };
type Reply = { status: number; body: unknown; headers?: Record<string, string> };
/** One creative's day as LinkedIn reports it; cost in the account currency's major unit. */
export type FakeLinkedInDay = { impressions: number; clicks: number; cost: string };
/** One company's engagement with a creative on a day (the MEMBER_COMPANY pivot's raw counts). */
export type FakeLinkedInCompanyDay = { impressions: number; clicks: number };

/** "Reporting": professional demographic values under 3 events are not returned. */
export const COMPANY_PRIVACY_MINIMUM = 3;
/** "Reporting" › Retention: professional demographic data is kept two years. */
const DEMOGRAPHIC_KEPT_DAYS = 730;
/** Metrics the fake serves with a demographic pivot (approximateMemberReach is not among them). */
const DEMOGRAPHIC_METRICS = new Set([
  'pivotValues',
  'dateRange',
  'impressions',
  'clicks',
  'costInLocalCurrency',
]);

const METRICS = new Set([
  'pivotValues',
  'dateRange',
  'impressions',
  'clicks',
  'costInLocalCurrency',
  'costInUsd',
  'likes',
  'shares',
  'comments',
  'follows',
  'landingPageClicks',
  'externalWebsiteConversions',
  'approximateMemberReach',
]);

export function linkedInAnalytics(deps: {
  creatives: Map<string, { id: string; campaign: string }>;
  campaigns: Map<string, { group: string }>;
  days: Map<string, Map<string, FakeLinkedInDay>>;
  /** creative id → day → organisation id → counts. */
  companyDays: Map<string, Map<string, Map<string, FakeLinkedInCompanyDay>>>;
  refuse: (status: number, message: string, code?: string) => Refusal;
}) {
  const { creatives, campaigns, days, companyDays, refuse } = deps;
  return function analytics(q: URLSearchParams, rawQuery: string): Reply {
    if (q.get('q') !== 'analytics') throw refuse(400, 'Unknown finder', 'ILLEGAL_ARGUMENT');
    if (!q.get('pivot')) throw refuse(400, 'pivot is required');
    const pivot = q.get('pivot');
    if (pivot !== 'CREATIVE' && pivot !== 'MEMBER_COMPANY')
      throw refuse(400, 'This fake reports the CREATIVE and MEMBER_COMPANY pivots only');
    const granularity = q.get('timeGranularity');
    if (!granularity || !['DAILY', 'MONTHLY', 'ALL'].includes(granularity))
      throw refuse(400, 'timeGranularity must be DAILY, MONTHLY or ALL');
    if (/List\(urn:/.test(rawQuery))
      throw refuse(
        400,
        'URNs inside List() must be URL-encoded (Rest.li protocol 2.0.0)',
        'ILLEGAL_ARGUMENT',
      );
    const fields = (q.get('fields') ?? '').split(',').filter(Boolean);
    const unknown = fields.find((f) => !METRICS.has(f));
    if (!fields.length || unknown) throw refuse(400, `fields: unknown metric ${unknown ?? ''}`);
    const unavailable =
      pivot === 'MEMBER_COMPANY' ? fields.find((f) => !DEMOGRAPHIC_METRICS.has(f)) : undefined;
    if (unavailable)
      throw refuse(
        400,
        `${unavailable} is not available with professional demographic pivots`,
        'ILLEGAL_ARGUMENT',
      );
    const m =
      /^\(start:\(year:(\d+),month:(\d+),day:(\d+)\)(?:,end:\(year:(\d+),month:(\d+),day:(\d+)\))?\)$/.exec(
        q.get('dateRange') ?? '',
      );
    if (!m) throw refuse(400, 'dateRange must be (start:(year:…,month:…,day:…),end:(…))');
    const iso = (y?: string, mo?: string, d?: string) =>
      `${y ?? ''}-${(mo ?? '').padStart(2, '0')}-${(d ?? '').padStart(2, '0')}`;
    const since = iso(m[1], m[2], m[3]);
    const until = m[4] ? iso(m[4], m[5], m[6]) : '9999-12-31';
    if (until < since) throw refuse(400, 'dateRange end is before its start');
    const list = (name: string) =>
      /^List\((.*)\)$/
        .exec(q.get(name) ?? '')?.[1]
        ?.split(',')
        .map((u) => u.split(':').pop() ?? '') ?? [];
    const groupIds = list('campaignGroups');
    const campaignIds = list('campaigns');
    if (!groupIds.length && !campaignIds.length && !list('creatives').length)
      throw refuse(400, 'a facet (campaignGroups, campaigns, creatives or accounts) is required');
    const chosen = [...creatives.values()].filter((c) => {
      const camp = campaigns.get(c.campaign);
      return campaignIds.includes(c.campaign) || (camp && groupIds.includes(camp.group));
    });
    if (pivot === 'MEMBER_COMPANY')
      return companies(
        chosen.map((c) => c.id),
        since,
        until,
        fields,
        granularity,
      );
    const elements = [];
    for (const c of chosen)
      for (const [day, r] of [...(days.get(c.id) ?? new Map<string, FakeLinkedInDay>())].sort()) {
        if (day < since || day > until) continue;
        const [y, mo, d] = day.split('-').map(Number);
        const all: Record<string, unknown> = {
          pivotValues: [`urn:li:sponsoredCreative:${c.id}`],
          dateRange: { start: { year: y, month: mo, day: d }, end: { year: y, month: mo, day: d } },
          impressions: r.impressions,
          clicks: r.clicks,
          costInLocalCurrency: r.cost,
        };
        elements.push(Object.fromEntries(fields.filter((f) => f in all).map((f) => [f, all[f]])));
      }
    return { status: 200, body: { elements, paging: { start: 0, count: 10, links: [] } } };
  };

  /** MEMBER_COMPANY: the chosen creatives' companies summed per day (or over the range, ALL). */
  function companies(
    ids: string[],
    since: string,
    until: string,
    fields: string[],
    granularity: string,
  ): Reply {
    const kept = new Date(Date.now() - DEMOGRAPHIC_KEPT_DAYS * 86_400_000).toISOString().slice(0, 10);
    const sums = new Map<string, { day: string; org: string; impressions: number; clicks: number }>();
    for (const id of ids)
      for (const [day, orgs] of companyDays.get(id) ??
        new Map<string, Map<string, FakeLinkedInCompanyDay>>()) {
        if (day < since || day > until || day < kept) continue;
        const bucket = granularity === 'DAILY' ? day : since;
        for (const [org, r] of orgs) {
          const key = `${bucket}|${org}`;
          const sum = sums.get(key) ?? { day: bucket, org, impressions: 0, clicks: 0 };
          sum.impressions += r.impressions;
          sum.clicks += r.clicks;
          sums.set(key, sum);
        }
      }
    const elements = [...sums.values()]
      // Privacy: a company under the minimum is not in the reply at all.
      .filter((r) => r.impressions >= COMPANY_PRIVACY_MINIMUM)
      .sort((a, b) => (a.day === b.day ? b.impressions - a.impressions : a.day < b.day ? -1 : 1))
      .map((r) => {
        const [y, mo, d] = r.day.split('-').map(Number);
        const all: Record<string, unknown> = {
          pivotValues: [`urn:li:organization:${r.org}`],
          dateRange: { start: { year: y, month: mo, day: d }, end: { year: y, month: mo, day: d } },
          impressions: r.impressions,
          clicks: r.clicks,
          costInLocalCurrency: '0',
        };
        return Object.fromEntries(fields.filter((f) => f in all).map((f) => [f, all[f]]));
      });
    return { status: 200, body: { elements, paging: { start: 0, count: 10, links: [] } } };
  }
}
