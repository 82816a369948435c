import { z } from 'zod';

/**
 * The ad networks' rows of the reports (issue 39 "Results": "Reports and the Revenue screen show
 * network rows beside tag rows"): per network campaign, what the network reported on the days of the
 * range. Money in the ad account currency's minor unit. Per-person counts and superprospects come only
 * from Rally's own tags, which the other reports count.
 */
const count = z.number().int();

export const networkReportRowSchema = z.object({
  campaign_id: z.string(),
  network: z.string(),
  name: z.string(),
  audience_name: z.string(),
  /** Rally's status for it (paused or active). */
  status: z.string(),
  currency: z.string().nullable(),
  impressions: count,
  clicks: count,
  spend_minor: count,
  /** Days with delivery in the range. */
  days: count,
});
export type NetworkReportRow = z.infer<typeof networkReportRowSchema>;

export const networkReportSchema = z.object({
  range: z.object({ from: z.number().int(), to: z.number().int() }),
  rows: z.array(networkReportRowSchema),
  /** Spend per currency over the rows (accounts may differ in currency). */
  totals: z.array(z.object({ currency: z.string(), impressions: count, clicks: count, spend_minor: count })),
});
export type NetworkReport = z.infer<typeof networkReportSchema>;
