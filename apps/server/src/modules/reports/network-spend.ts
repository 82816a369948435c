import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { num, rowsOf } from './report-sql.ts';

/**
 * What the ad networks reported spending for a client's campaigns on the days of a range (issue 39
 * "Results": "spend beside Rally's fee, and the ROI line uses both"), per currency of the ad account,
 * in that currency's minor unit. Days are the networks' own (the ad account's time zone).
 */
export async function networkSpend(
  db: Db,
  clientId: string,
  range: { from: Date; to: Date },
): Promise<{ currency: string; cents: number }[]> {
  const first = range.from.toISOString().slice(0, 10);
  // `to` is exclusive: its last day is the one before the instant it names.
  const last = new Date(range.to.getTime() - 1).toISOString().slice(0, 10);
  const result = await db.execute(sql`
    select upper(coalesce(c.currency, 'USD')) as currency, sum(s.spend_minor) as cents
      from ad_network_campaign_stats s
      join ad_network_campaigns c on c.id = s.campaign_id
     where s.client_id = ${clientId} and s.day >= ${first}::date and s.day <= ${last}::date
     group by 1
     order by 2 desc`);
  return rowsOf(result)
    .map((r) => ({ currency: String(r.currency), cents: num(r.cents) }))
    .filter((r) => r.cents > 0);
}
