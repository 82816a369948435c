import type { AdapterContext, AdNetworkCampaignApi, RemoteDailyStat } from '../port.ts';
import { minorDigits } from '../money.ts';

/** A Google Ads API call: POST `customers/{customer}/{method}` with the required headers. */
export type GoogleAdsCall = <T>(
  ctx: AdapterContext,
  customer: string,
  method: string,
  body: unknown,
) => Promise<T>;

/**
 * Daily results of a Google Ads campaign's ads (issue 39 "Results") by GAQL through
 * `GoogleAdsService.Search` (`googleAds:search`), developers.google.com/google-ads/api:
 * - "Google Ads Query Language" / "Segmentation": `segments.date` in SELECT needs a finite date range
 *   in WHERE (`segments.date BETWEEN 'yyyy-MM-dd' AND 'yyyy-MM-dd'`, both included, in the account's
 *   time zone); one row per ad and day with delivery.
 * - "Paging through results": pages of up to 10,000 rows, `nextPageToken` on every page but the last;
 *   the same query is sent with `pageToken` (setting a page size is refused since v19).
 * - Metrics in REST JSON: int64 as decimal text (`"impressions": "1204"`); `metrics.cost_micros` is
 *   in millionths of the account currency (`customer.currency_code`).
 * Reach: Google reports unique users (`metrics.unique_users`) only over a whole range at campaign
 * and ad group level, never per day for an ad, and it does not add up by day; Rally stores no reach
 * for Google rows (0, as LinkedIn's) and the campaign page says the network does not report it.
 */

type StatRow = {
  adGroupAd?: { resourceName?: string };
  segments?: { date?: string };
  metrics?: { impressions?: string; clicks?: string; costMicros?: string };
  customer?: { currencyCode?: string };
};

/** A bound on pages followed: 10,000 rows a page is far beyond a campaign's ads × days. */
const MAX_PAGES = 100;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

const count = (v: string | undefined) => {
  const n = Number(v ?? '0');
  return Number.isFinite(n) && n >= 0 ? Math.round(n) : 0;
};

/** Micros of `currency` in its minor unit (1,230,000 micros of USD → 123 cents), rounded half up. */
export function microsToMinor(micros: string | undefined, currency: string | null): number {
  const m = /^\d+$/.test(micros ?? '') ? BigInt(micros ?? '0') : 0n;
  const per = 10n ** BigInt(6 - minorDigits(currency));
  return Number((m + per / 2n) / per);
}

export function googleReportingApi(call: GoogleAdsCall): Pick<AdNetworkCampaignApi, 'dailyStats'> {
  return {
    async dailyStats(ctx, campaignId, range) {
      if (!DAY.test(range.since) || !DAY.test(range.until)) throw new Error('Dates must be yyyy-MM-dd');
      const customer = /^customers\/(\d+)\/campaigns\/\d+$/.exec(campaignId)?.[1];
      if (!customer) throw new Error(`Not a Google Ads campaign: ${campaignId}`);
      const query = [
        'SELECT ad_group_ad.resource_name, segments.date, metrics.impressions, metrics.clicks,',
        'metrics.cost_micros, customer.currency_code FROM ad_group_ad',
        `WHERE campaign.resource_name = '${campaignId}'`,
        `AND segments.date BETWEEN '${range.since}' AND '${range.until}'`,
      ].join(' ');
      const rows: RemoteDailyStat[] = [];
      let currency: string | null = null;
      let pageToken: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const reply: { results?: StatRow[]; nextPageToken?: string } = await call(
          ctx,
          customer,
          'googleAds:search',
          { query, ...(pageToken ? { pageToken } : {}) },
        );
        for (const r of reply.results ?? []) {
          const adId = r.adGroupAd?.resourceName;
          const day = r.segments?.date;
          if (!adId || !day) continue;
          currency ??= r.customer?.currencyCode ?? null;
          rows.push({
            day,
            adId,
            impressions: count(r.metrics?.impressions),
            reach: 0,
            clicks: count(r.metrics?.clicks),
            spendMinor: microsToMinor(r.metrics?.costMicros, r.customer?.currencyCode ?? null),
          });
        }
        pageToken = reply.nextPageToken || undefined;
        if (!pageToken) break;
      }
      return { currency, rows };
    },
  };
}
