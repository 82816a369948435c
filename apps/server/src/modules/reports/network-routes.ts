import { sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { reportRangeQuery } from '@rally/shared/schemas/reports';
import { networkReportSchema } from '@rally/shared/schemas/network-report';
import type { NetworkReport } from '@rally/shared/schemas/network-report';
import type { Db } from '../../db/client.ts';
import { tenantOf } from '../../lib/access.ts';
import { num, rowsOf } from './report-sql.ts';
import { epochOf, rangeOf } from './service.ts';

const clientIdParam = z.object({ clientId: z.uuid('must be the id (UUID) of a client') });

/**
 * Every network campaign of the client with what its network reported on the range's days (issue
 * 39), most spend first; a campaign without delivery in the range is listed with zeros, so a paused
 * or new campaign is not missing from the report.
 */
export async function networkReport(
  db: Db,
  clientId: string,
  q: { from?: number; to?: number },
): Promise<NetworkReport> {
  const range = rangeOf(q);
  const first = range.from.toISOString().slice(0, 10);
  const last = new Date(range.to.getTime() - 1).toISOString().slice(0, 10);
  const rows = rowsOf(
    await db.execute(sql`
      select c.id, c.name, c.status, c.currency, a.name as audience_name, n.network,
             coalesce(sum(s.impressions), 0) as impressions, coalesce(sum(s.clicks), 0) as clicks,
             coalesce(sum(s.spend_minor), 0) as spend_minor, count(distinct s.day) as days
        from ad_network_campaigns c
        join ad_audiences a on a.id = c.audience_id
        join ad_network_connections n on n.id = a.connection_id
        left join ad_network_campaign_stats s
          on s.campaign_id = c.id and s.client_id = c.client_id and s.day >= ${first}::date and s.day <= ${last}::date
       where c.client_id = ${clientId}
       group by c.id, a.name, n.network
       order by 9 desc, c.created_at desc`),
  ).map((r) => ({
    campaign_id: String(r.id),
    network: String(r.network),
    name: String(r.name),
    audience_name: String(r.audience_name),
    status: String(r.status),
    currency: r.currency === null ? null : String(r.currency),
    impressions: num(r.impressions),
    clicks: num(r.clicks),
    spend_minor: num(r.spend_minor),
    days: num(r.days),
  }));
  const totals = new Map<
    string,
    { currency: string; impressions: number; clicks: number; spend_minor: number }
  >();
  for (const r of rows) {
    if (!r.days) continue;
    const key = (r.currency ?? 'USD').toUpperCase();
    const t = totals.get(key) ?? { currency: key, impressions: 0, clicks: 0, spend_minor: 0 };
    t.impressions += r.impressions;
    t.clicks += r.clicks;
    t.spend_minor += r.spend_minor;
    totals.set(key, t);
  }
  return { range: epochOf(range), rows, totals: [...totals.values()] };
}

/** GET /report/client/{id}/networks: the ad networks' rows beside the tags' (reports.read). */
export const reportNetworkRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/report/client/:clientId/networks',
    {
      config: { access: { permission: 'reports.read' } },
      schema: {
        tags: ['reports'],
        summary: 'What the ad networks reported for each network campaign on the days of the range',
        params: clientIdParam,
        querystring: reportRangeQuery,
        response: { 200: networkReportSchema },
      },
    },
    async (request) => networkReport(app.db, tenantOf(request).clientId, request.query),
  );
};
