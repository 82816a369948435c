/**
 * The Ads Insights half of the Meta fake (meta-fake.ts): `GET /{campaign-id}/insights`.
 * Rules, each from Meta's pages (developers.facebook.com/docs/marketing-api/insights and its
 * Parameters reference), stricter where Meta is loose:
 * - `level` one of ad, adset, campaign, account; `fields` only known insights fields (an unknown one is
 *   `(#100) … is not valid for fields param`).
 * - `time_range` a JSON object `{since, until}` of YYYY-MM-DD, since ≤ until; a start more than 37
 *   months back is refused with code 3018 ("The start date of the time range cannot be beyond 37
 *   months from the current date").
 * - `time_increment=1` gives one row per day (`date_start` = `date_stop`); `all_days` (the default) one
 *   row for the range. Other increments are refused here (Rally does not use them).
 * - Metrics are decimal text (`"impressions": "361324"`, `"spend": "5339.5"` in the account currency);
 *   days without delivery have no row.
 * - Pages of `limit` rows (default 25) with `paging.cursors` and a `next` URL while more remain
 *   (Graph API › Pagination, cursor-based).
 */

type Refuse = (message: string, opts?: { code?: number }) => never;
type Reply = { status: number; body: unknown };
/** One ad's day as Meta would report it; spend in the account currency's major unit. */
export type FakeMetaDay = { impressions: number; reach: number; clicks: number; spend: string };

const FIELDS = new Set([
  'account_currency',
  'account_id',
  'ad_id',
  'ad_name',
  'adset_id',
  'campaign_id',
  'campaign_name',
  'clicks',
  'cpc',
  'cpm',
  'ctr',
  'date_start',
  'date_stop',
  'frequency',
  'impressions',
  'inline_link_clicks',
  'reach',
  'spend',
]);
const LEVELS = ['ad', 'adset', 'campaign', 'account'];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function createMetaInsights(deps: {
  /** The campaign's account and its ads (ad id → campaign id through the ad set), or null. */
  campaignOf: (id: string) => { account: string; adIds: string[] } | null;
  currencyOf: (account: string) => string;
  refuse: Refuse;
  /**
   * What an ad did on a day when `setDay` did not say (null: no delivery): the demo's network
   * (decision 0037) and the stats bench deliver every day without storing each one.
   */
  delivery?: (adId: string, day: string) => FakeMetaDay | null;
}) {
  /** `${adId}|${day}` → what the ad did that day. */
  const days = new Map<string, FakeMetaDay>();
  let calls = 0;

  function insights(campaignId: string, q: URLSearchParams, selfUrl: string): Reply | null {
    const campaign = deps.campaignOf(campaignId);
    if (!campaign) return null;
    calls++;
    const { refuse } = deps;
    const level = q.get('level') ?? 'campaign';
    if (!LEVELS.includes(level)) refuse(`(#100) level must be one of {${LEVELS.join(', ')}}`);
    if (level !== 'ad') refuse('(#100) This fake reports at level=ad only');
    const fields = (q.get('fields') ?? 'impressions,spend').split(',').filter(Boolean);
    for (const f of fields) if (!FIELDS.has(f)) refuse(`(#100) ${f} is not valid for fields param`);
    let range: { since?: unknown; until?: unknown };
    try {
      range = JSON.parse(q.get('time_range') ?? 'null') as typeof range;
    } catch {
      return refuse('(#100) Param time_range must be a JSON object with since and until');
    }
    const since = String(range?.since ?? '');
    const until = String(range?.until ?? '');
    if (!DAY.test(since) || !DAY.test(until) || since > until)
      refuse('(#100) Param time_range must have since and until as YYYY-MM-DD, since not after until');
    const oldest = new Date();
    oldest.setUTCMonth(oldest.getUTCMonth() - 37);
    if (since < oldest.toISOString().slice(0, 10))
      refuse('(#3018) The start date of the time range cannot be beyond 37 months from the current date', {
        code: 3018,
      });
    const increment = q.get('time_increment') ?? 'all_days';
    if (increment !== '1') refuse('(#100) This fake reports time_increment=1 only');
    const limit = Math.min(Math.max(Number(q.get('limit') ?? '25') || 25, 1), 5000);
    const currency = deps.currencyOf(campaign.account);

    const rows: Record<string, unknown>[] = [];
    const wanted = deps.delivery
      ? generated(deps.delivery, campaign.adIds, since, until)
      : [...days.entries()]
          .map(([key, d]) => ({ adId: key.split('|')[0] ?? '', day: key.split('|')[1] ?? '', d }))
          .filter((x) => campaign.adIds.includes(x.adId) && x.day >= since && x.day <= until);
    wanted.sort((a, b) => (a.day === b.day ? a.adId.localeCompare(b.adId) : a.day.localeCompare(b.day)));
    for (const { adId, day, d } of wanted) {
      const all: Record<string, unknown> = {
        account_currency: currency,
        account_id: campaign.account.replace(/^act_/, ''),
        ad_id: adId,
        campaign_id: campaignId,
        clicks: String(d.clicks),
        date_start: day,
        date_stop: day,
        impressions: String(d.impressions),
        reach: String(d.reach),
        spend: d.spend,
      };
      rows.push(Object.fromEntries(fields.filter((f) => f in all).map((f) => [f, all[f]])));
    }
    const after = Number(Buffer.from(q.get('after') ?? '', 'base64url').toString() || '0');
    const page = rows.slice(after, after + limit);
    const end = after + page.length;
    const paging: Record<string, unknown> = {
      cursors: {
        before: Buffer.from(String(after)).toString('base64url'),
        after: Buffer.from(String(end)).toString('base64url'),
      },
    };
    if (end < rows.length) {
      const next = new URL(selfUrl);
      next.searchParams.set('after', Buffer.from(String(end)).toString('base64url'));
      paging.next = next.toString();
    }
    return { status: 200, body: { data: page, paging } };
  }

  /** Each ad's days in the range: a day set by `setDay` first, else the delivery's. */
  function generated(
    delivery: (adId: string, day: string) => FakeMetaDay | null,
    adIds: string[],
    since: string,
    until: string,
  ) {
    const out: { adId: string; day: string; d: FakeMetaDay }[] = [];
    const last = Date.parse(`${until}T00:00:00Z`);
    for (let t = Date.parse(`${since}T00:00:00Z`); t <= last; t += 86_400_000) {
      const day = new Date(t).toISOString().slice(0, 10);
      for (const adId of adIds) {
        const d = days.get(`${adId}|${day}`) ?? delivery(adId, day);
        if (d) out.push({ adId, day, d });
      }
    }
    return out;
  }

  return {
    insights,
    /** What an ad did on a day (set again: Meta's later correction of that day). */
    setDay: (adId: string, day: string, d: FakeMetaDay) => void days.set(`${adId}|${day}`, d),
    /** Insights calls answered. */
    calls: () => calls,
  };
}
