import { z } from 'zod';

/**
 * Campaigns on ad networks (issue 39, docs/decisions/0026): an audience's campaign with its budget,
 * schedule and objective set in Rally, created paused, launched and paused from Rally.
 */

export const CAMPAIGN_OBJECTIVE_KEYS = ['traffic', 'awareness', 'engagement'] as const;
export const CAMPAIGN_OBJECTIVE_LABELS: Record<(typeof CAMPAIGN_OBJECTIVE_KEYS)[number], string> = {
  traffic: 'Visits to the landing page',
  awareness: 'Reach (people who see the ad)',
  engagement: 'Engagement with the ad',
};

const iso = z.iso.datetime({ offset: true });

export const adCampaignCreateBody = z
  .object({
    audience_id: z.uuid({ error: 'must be the id (UUID) of a network audience' }),
    content_id: z.uuid({ error: 'must be the id (UUID) of an ad' }),
    name: z
      .string({ error: 'is required' })
      .trim()
      .min(1, 'is required')
      .max(120, 'must be at most 120 characters'),
    objective: z.enum(CAMPAIGN_OBJECTIVE_KEYS, { error: 'must be traffic, awareness or engagement' }),
    budget_kind: z.enum(['daily', 'lifetime'], { error: 'must be daily or lifetime' }),
    /** In the ad account's smallest unit (cents). */
    budget_minor: z
      .number({ error: 'must be a whole number of cents' })
      .int('must be a whole number of cents')
      .positive('must be more than 0')
      .max(100_000_000, 'must be at most 1,000,000.00'),
    starts_at: iso,
    ends_at: iso.nullable().optional(),
  })
  .superRefine((b, ctx) => {
    if (b.ends_at && Date.parse(b.ends_at) <= Date.parse(b.starts_at))
      ctx.addIssue({ code: 'custom', path: ['ends_at'], message: 'must be after the start' });
    if (b.budget_kind === 'lifetime' && !b.ends_at)
      ctx.addIssue({ code: 'custom', path: ['ends_at'], message: 'is required with a lifetime budget' });
  });
export type AdCampaignCreateBody = z.infer<typeof adCampaignCreateBody>;

export const adCampaignAdSchema = z.object({
  size: z.string(),
  label: z.string(),
  /** The network's ad id once made. */
  ad_id: z.string().nullable(),
  effective_status: z.string().nullable(),
  issues: z.string().nullable(),
  /** Rally's render of this placement (what was uploaded). */
  preview_url: z.string(),
});

export const adCampaignSchema = z.object({
  id: z.string(),
  network: z.string(),
  audience_id: z.string(),
  audience_name: z.string(),
  content_id: z.string(),
  name: z.string(),
  objective: z.enum(CAMPAIGN_OBJECTIVE_KEYS),
  budget_kind: z.enum(['daily', 'lifetime']),
  budget_minor: z.number().int(),
  currency: z.string().nullable(),
  starts_at: iso,
  ends_at: iso.nullable(),
  /** The link the ads carry: landing page, per-audience token and UTM parameters (each ad adds utm_content, its size). */
  link: z.string().nullable(),
  /** What Rally asks of the network. */
  status: z.enum(['paused', 'active']),
  sync_state: z.enum(['queued', 'pushing', 'synced', 'failed']),
  sync_error: z.string().nullable(),
  network_campaign_id: z.string().nullable(),
  /** The network's delivery state as last read (Meta effective_status), and its words on issues. */
  effective_status: z.string().nullable(),
  issues: z.string().nullable(),
  status_read_at: iso.nullable(),
  ads: z.array(adCampaignAdSchema),
  created_at: iso,
});
export type AdCampaign = z.infer<typeof adCampaignSchema>;

export const adCampaignListQuery = z.object({
  audience_id: z.uuid({ error: 'must be the id (UUID) of a network audience' }).optional(),
});
export const adCampaignListReply = z.array(adCampaignSchema);
export const adCampaignIdParam = z.object({ id: z.uuid({ error: 'must be the id (UUID) of a campaign' }) });

/** What launching needs to know before it spends: the network's minimum and the placements. */
export const adCampaignOptionsReply = z.object({
  network: z.string(),
  minimum_daily_budget_minor: z.number().int(),
  currency: z.string().nullable(),
  page_name: z.string().nullable(),
  /** `also`: further sizes the same ad carries (Google's responsive display ad: a square too). */
  placements: z.array(
    z.object({ size: z.string(), label: z.string(), also: z.array(z.string()).default([]) }),
  ),
  /** Whether the ads speak as a page chosen in Settings (false on Google Ads: the advertiser). */
  needs_page: z.boolean().default(true),
  /** The budget kinds the network takes (Google Ads: daily only). */
  budget_kinds: z.array(z.enum(['daily', 'lifetime'])).default(['daily', 'lifetime']),
});

/** A campaign's daily results as the network reports them (issue 39 "Results"); money in cents. */
const statCounts = {
  impressions: z.number().int(),
  clicks: z.number().int(),
  spend_minor: z.number().int(),
};
export const adCampaignStatsReply = z.object({
  campaign_id: z.string(),
  network: z.string(),
  /** The ad account's currency (ISO 4217), once the network has said it. */
  currency: z.string().nullable(),
  /** When the results were last pulled, and the network's words when the last pull failed. */
  pulled_at: iso.nullable(),
  error: z.string().nullable(),
  /** Impressions, clicks and spend over the whole campaign. Reach is per day only: people repeat across days. */
  totals: z.object(statCounts),
  /** One row per day with delivery, oldest first; reach is that day's. */
  days: z.array(z.object({ day: z.string(), reach: z.number().int(), ...statCounts })),
  /** One row per ad (placement), with the campaign's totals for it. */
  ads: z.array(z.object({ ad_id: z.string(), label: z.string(), ...statCounts })),
});
export type AdCampaignStats = z.infer<typeof adCampaignStatsReply>;

/**
 * Company-level engagement a network reports (issue 39: LinkedIn's MEMBER_COMPANY pivot). Counts are
 * the network's, per organisation; LinkedIn leaves out companies under its privacy minimum, so the
 * rows do not add up to the campaign's totals. Per-person counts come only from Rally's tags.
 */
export const companyEngagementRow = z.object({
  /** The network's organisation id (LinkedIn: the number of `urn:li:organization:…`). */
  organization_id: z.string(),
  name: z.string().nullable(),
  /** The organisation's website host as the network gives it, lower-cased without "www.". */
  domain: z.string().nullable(),
  /** The CRM account Rally matched it to (by website domain, else vanity name), if any. */
  account_id: z.uuid().nullable(),
  account_name: z.string().nullable(),
  company_id: z.uuid().nullable(),
  impressions: z.number().int(),
  clicks: z.number().int(),
  first_day: z.string(),
  last_day: z.string(),
});
export type CompanyEngagementRow = z.infer<typeof companyEngagementRow>;

/** `GET /v1/ad-networks/campaigns/{id}/companies`: the companies a campaign reached, most impressions first. */
export const adCampaignCompaniesReply = z.object({
  campaign_id: z.uuid(),
  network: z.string(),
  /** Whether the network reports engagement per company at all (LinkedIn does; Meta and Google do not). */
  supported: z.boolean(),
  pulled_at: iso.nullable(),
  /** The smallest count the network reports a company at (LinkedIn's privacy minimum). */
  privacy_minimum: z.number().int().nullable(),
  items: z.array(companyEngagementRow),
});
export type AdCampaignCompanies = z.infer<typeof adCampaignCompaniesReply>;

export const COMPANY_ENGAGEMENT_DAYS_DEFAULT = 90;
export const companyEngagementParams = z.object({
  companyId: z.uuid({ error: 'must be the id (UUID) of a company' }),
});
export const companyEngagementQuery = z
  .object({
    days: z.coerce
      .number({ error: 'must be a whole number of days' })
      .int('must be a whole number of days')
      .min(1, 'must be at least 1')
      .max(730, 'must be at most 730 (LinkedIn keeps company-level data two years)')
      .default(COMPANY_ENGAGEMENT_DAYS_DEFAULT),
  })
  .strict();

/** `GET /v1/ad-networks/company-engagement/{companyId}`: an account's engagement as the networks report it. */
export const companyEngagementReply = z.object({
  company_id: z.uuid(),
  days: z.number().int(),
  since: z.string(),
  /** Per network and campaign, over the last `days` days. */
  items: z.array(
    z.object({
      network: z.string(),
      campaign_id: z.uuid(),
      campaign_name: z.string(),
      impressions: z.number().int(),
      clicks: z.number().int(),
      last_day: z.string(),
    }),
  ),
  totals: z.object({ impressions: z.number().int(), clicks: z.number().int() }),
});
export type CompanyEngagement = z.infer<typeof companyEngagementReply>;
