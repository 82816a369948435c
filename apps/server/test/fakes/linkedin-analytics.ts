/**
 * The reporting half of the LinkedIn campaigns fake (test/fakes/linkedin-campaigns.ts), from
 * "Reporting" (learn.microsoft.com/linkedin/marketing, Ads Reporting): `GET /rest/adAnalytics?q=analytics`
 * with pivot, timeGranularity (DAILY, MONTHLY, ALL), dateRange `(start:(year,month,day),end:(…))`,
 * campaignGroups/campaigns/creatives as `List(<encoded urn>)` (Rest.li 2.0 wants URNs encoded inside
 * List), `fields` of known metrics. "The adAnalytics endpoint currently does not support
 * pagination": all elements in one reply; costInLocalCurrency as decimal text.
 */

type Refusal = { status: number; body: Record<string, unknown> };
type Reply = { status: number; body: unknown; headers?: Record<string, string> };
/** One creative's day as LinkedIn reports it; cost in the account currency's major unit. */
export type FakeLinkedInDay = { impressions: number; clicks: number; cost: string };

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
  refuse: (status: number, message: string, code?: string) => Refusal;
}) {
  const { creatives, campaigns, days, refuse } = deps;
  return function analytics(q: URLSearchParams, rawQuery: string): Reply {
    if (q.get('q') !== 'analytics') throw refuse(400, 'Unknown finder', 'ILLEGAL_ARGUMENT');
    if (!q.get('pivot')) throw refuse(400, 'pivot is required');
    if (q.get('pivot') !== 'CREATIVE') throw refuse(400, 'This fake reports the CREATIVE pivot only');
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
}
