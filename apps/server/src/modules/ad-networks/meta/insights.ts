import type { VendorHttp } from '../../integrations/vendor-http.ts';
import { majorToMinor } from '../money.ts';
import type { AdNetworkCampaignApi, RemoteDailyStat } from '../port.ts';

/**
 * Daily results of a campaign's ads from the Ads Insights API (issue 39 "Results"):
 * `GET /{campaign-id}/insights` with `level=ad` (one row per ad), `time_increment=1` (one row per
 * day) and `time_range={"since","until"}` (YYYY-MM-DD in the ad account's time zone), as the Insights
 * API page and its Parameters reference describe. Metrics come back as decimal text ("impressions":
 * "361324", "spend": "5339.5" in the account currency); days without delivery have no row; lists are
 * paged with `paging.next` (Graph API › Pagination). Source: developers.facebook.com/docs/marketing-api/insights.
 */

type InsightRow = {
  ad_id?: string;
  date_start?: string;
  impressions?: string;
  reach?: string;
  clicks?: string;
  spend?: string;
  account_currency?: string;
};

const FIELDS = 'ad_id,date_start,date_stop,impressions,reach,clicks,spend,account_currency';
/** A bound on pages followed: a campaign's ads × 37 months of days is far below it at 500 a page. */
const MAX_PAGES = 200;

const count = (v: string | undefined) => {
  const n = Number(v ?? '0');
  return Number.isFinite(n) && n >= 0 ? Math.round(n) : 0;
};

export function metaInsightsApi(http: VendorHttp, graph: string): Pick<AdNetworkCampaignApi, 'dailyStats'> {
  const origin = new URL(graph).origin;
  return {
    async dailyStats(ctx, campaignId, range) {
      const params = new URLSearchParams({
        level: 'ad',
        time_increment: '1',
        time_range: JSON.stringify({ since: range.since, until: range.until }),
        fields: FIELDS,
        limit: '500',
      });
      let url: string | undefined = `${graph}/${campaignId}/insights?${params.toString()}`;
      const rows: RemoteDailyStat[] = [];
      let currency: string | null = null;
      for (let page = 0; url && page < MAX_PAGES; page++) {
        const reply: { data?: InsightRow[]; paging?: { next?: string } } = await http.request(ctx, { url });
        for (const r of reply.data ?? []) {
          if (!r.ad_id || !r.date_start) continue;
          currency ??= r.account_currency ?? null;
          rows.push({
            day: r.date_start,
            adId: r.ad_id,
            impressions: count(r.impressions),
            reach: count(r.reach),
            clicks: count(r.clicks),
            spendMinor: majorToMinor(r.spend, r.account_currency ?? null) ?? 0,
          });
        }
        const next = reply.paging?.next;
        // Only Graph's own next page: a link elsewhere is not followed with the token.
        url = next && new URL(next).origin === origin ? next : undefined;
      }
      return { currency, rows };
    },
  };
}
