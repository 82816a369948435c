import type { VendorRequest } from '../../integrations/vendor-http.ts';
import type { AdapterContext, AdNetworkCompanyApi, RemoteCompanyDay, RemoteOrganization } from '../port.ts';
import { pad, restliDate } from './campaigns.ts';

/**
 * LinkedIn's company-level engagement (issue 39 "Results"). Pages, on learn.microsoft.com/linkedin:
 * - "Reporting" (marketing/integrations/ads-reporting/ads-reporting): `GET /rest/adAnalytics
 *   ?q=analytics&pivot=MEMBER_COMPANY` groups a campaign's results by the member's company; each
 *   element's `pivotValues` is `[urn:li:organization:<id>]`. MEMBER_* pivots are "professional
 *   demographic" pivots: their values are approximate to protect members' privacy, a value with
 *   fewer than 3 events is not returned (so the companies do not add up to the campaign's totals),
 *   the data arrives 12–24 hours late and is kept two years (the page's "Retention" table), and only
 *   some metrics are available with them (impressions and clicks are). One pivot per `analytics` call;
 *   no pagination.
 * - "Organization Lookup API" (marketing/community-management/organizations/organization-lookup-api):
 *   `GET /rest/organizationsLookup?ids=List(<id>,…)` is a Rest.li BATCH_GET of organisations the
 *   member does not administer, answering `{results: {<id>: {id, localizedName, vanityName,
 *   localizedWebsite, …}}, statuses, errors}`; an id it cannot describe is in `errors`, not `results`.
 * The page gives no per-call maximum: Rally asks 50 at a time, which keeps the URL far below the
 * length LinkedIn answers 414 to (the "Query Tunneling" page). test/fakes/linkedin-analytics.ts and
 * test/fakes/linkedin.ts enforce these shapes.
 */

/** "Reporting": professional demographic values under 3 events are left out. */
export const LINKEDIN_COMPANY_PRIVACY_MINIMUM = 3;
/** "Reporting" › Retention: professional demographic data is kept two years. */
export const LINKEDIN_COMPANY_KEPT_DAYS = 730;
/** Rally's batch for organizationsLookup (no per-call maximum is documented; see above). */
export const LINKEDIN_LOOKUP_BATCH = 50;

type Row = {
  pivotValues?: string[];
  dateRange?: { start?: { year: number; month: number; day: number } };
  impressions?: number;
  clicks?: number;
};
type Org = {
  id?: number;
  localizedName?: string;
  vanityName?: string;
  localizedWebsite?: string;
  website?: { localized?: Record<string, string> };
};

const ORG_URN = /^urn:li:organization:(\d+)$/;

export function linkedInCompanyApi(deps: {
  call: <T>(ctx: AdapterContext, req: VendorRequest) => Promise<T>;
}): AdNetworkCompanyApi {
  const { call } = deps;
  return {
    privacyMinimum: LINKEDIN_COMPANY_PRIVACY_MINIMUM,
    keptDays: LINKEDIN_COMPANY_KEPT_DAYS,
    lookupBatch: LINKEDIN_LOOKUP_BATCH,

    async dailyStats(ctx, campaignId, range) {
      // The port's campaign is a campaign group, named `<account>:<group id>` (campaigns.ts).
      const group = campaignId.slice(campaignId.indexOf(':') + 1);
      const query = [
        'q=analytics',
        'pivot=MEMBER_COMPANY',
        'timeGranularity=DAILY',
        `dateRange=(start:${restliDate(range.since)},end:${restliDate(range.until)})`,
        `campaignGroups=List(${encodeURIComponent(`urn:li:sponsoredCampaignGroup:${group}`)})`,
        'fields=pivotValues,dateRange,impressions,clicks',
      ].join('&');
      const reply = await call<{ elements?: Row[] }>(ctx, { url: `/adAnalytics?${query}` });
      const rows: RemoteCompanyDay[] = [];
      for (const r of reply.elements ?? []) {
        const org = ORG_URN.exec(r.pivotValues?.[0] ?? '')?.[1];
        const start = r.dateRange?.start;
        // Anything but an organisation (LinkedIn may add other company kinds) is not a company Rally can match.
        if (!org || !start) continue;
        rows.push({
          day: `${start.year}-${pad(start.month)}-${pad(start.day)}`,
          organizationId: org,
          impressions: Math.max(0, Math.round(r.impressions ?? 0)),
          clicks: Math.max(0, Math.round(r.clicks ?? 0)),
        });
      }
      return rows;
    },

    async lookup(ctx, ids) {
      if (!ids.length) return [];
      if (ids.length > LINKEDIN_LOOKUP_BATCH)
        throw new Error(`At most ${LINKEDIN_LOOKUP_BATCH} organisations per lookup`);
      const reply = await call<{ results?: Record<string, Org> }>(ctx, {
        url: `/organizationsLookup?ids=List(${ids.map(encodeURIComponent).join(',')})`,
      });
      const found: RemoteOrganization[] = [];
      for (const [id, o] of Object.entries(reply.results ?? {})) {
        const localized = o.website?.localized;
        found.push({
          id: String(o.id ?? id),
          name: o.localizedName ?? null,
          vanityName: o.vanityName ?? null,
          website: o.localizedWebsite ?? (localized ? (Object.values(localized)[0] ?? null) : null),
        });
      }
      return found;
    },
  };
}
