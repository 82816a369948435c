import { z } from 'zod';

/**
 * Ad networks (issue 39, docs/decisions/0025): a client's connection to a network and the matched
 * audiences Rally keeps there from cohorts, journey stages and cadences.
 */

export const AD_NETWORK_KEYS = ['meta'] as const;
export type AdNetworkKey = (typeof AD_NETWORK_KEYS)[number];
export const AD_NETWORK_LABELS: Record<AdNetworkKey, string> = { meta: 'Meta (Facebook and Instagram)' };

export const adNetworkParam = z.enum(AD_NETWORK_KEYS, { error: 'must be an ad network: meta' });

const iso = z.iso.datetime({ offset: true });

export const adNetworkConnectionSchema = z.object({
  id: z.string(),
  account_name: z.string().nullable(),
  ad_account_id: z.string().nullable(),
  ad_account_name: z.string().nullable(),
  page_id: z.string().nullable(),
  page_name: z.string().nullable(),
  is_active: z.boolean(),
  /** Why the network stopped accepting Rally's token, in its words. */
  inactive_reason: z.string().nullable(),
  connected_at: iso,
});

export const adNetworkSchema = z.object({
  network: z.enum(AD_NETWORK_KEYS),
  label: z.string(),
  /** Set up on this installation (decision 0023); false: "Not available on this installation". */
  available: z.boolean(),
  /** The smallest matched audience the network delivers to. */
  minimum_audience: z.number().int(),
  connection: adNetworkConnectionSchema.nullable(),
});
export type AdNetworkInfo = z.infer<typeof adNetworkSchema>;
export const adNetworkListReply = z.array(adNetworkSchema);

export const adNetworkRedirectReply = z.object({ redirect_url: z.string() });

export const adAccountsReply = z.object({
  ad_accounts: z.array(
    z.object({ id: z.string(), name: z.string(), currency: z.string().nullable(), is_active: z.boolean() }),
  ),
  pages: z.array(z.object({ id: z.string(), name: z.string() })),
});

export const adNetworkSettingsBody = z.object({
  ad_account_id: z
    .string({ error: 'must be the id of one of your ad accounts' })
    .trim()
    .regex(/^act_\d{1,30}$/, 'must be a Meta ad account id like act_123'),
  page_id: z
    .string()
    .trim()
    .regex(/^\d{1,30}$/, 'must be a Facebook page id (digits)')
    .nullable()
    .optional(),
});

export const AD_AUDIENCE_SOURCE_KINDS = ['cohort', 'journey_stage', 'cadence'] as const;
export const adAudienceCreateBody = z.object({
  network: adNetworkParam,
  source_kind: z.enum(AD_AUDIENCE_SOURCE_KINDS, { error: 'must be cohort, journey_stage or cadence' }),
  /** A cohort or journey stage id (UUID), or a cadence id (a whole number). */
  source_id: z.union([z.string().trim().min(1).max(64), z.number().int().positive()], {
    error: 'must be the id of the cohort, journey stage or cadence',
  }),
});

export const adAudienceSchema = z.object({
  id: z.string(),
  network: z.enum(AD_NETWORK_KEYS),
  source_kind: z.enum(AD_AUDIENCE_SOURCE_KINDS),
  source_id: z.string(),
  name: z.string(),
  network_audience_id: z.string().nullable(),
  state: z.enum(['new', 'queued', 'pushing', 'ready', 'held', 'failed']),
  /** Why the audience is held (under the network's minimum), in words for the user. */
  held_reason: z.string().nullable(),
  push_error: z.string().nullable(),
  /** Members with an e-mail Rally could hash at the last push. */
  member_count: z.number().int(),
  /** The network's matched size, a lower bound (Meta approximate_count_lower_bound). */
  matched_lower: z.number().int().nullable(),
  matched_upper: z.number().int().nullable(),
  minimum_audience: z.number().int(),
  last_pushed_at: iso.nullable(),
  last_push: z.object({ added: z.number(), removed: z.number(), requests: z.number() }).nullable(),
});
export type AdAudience = z.infer<typeof adAudienceSchema>;

export const adAudienceListQuery = z.object({
  source_kind: z
    .enum(AD_AUDIENCE_SOURCE_KINDS, { error: 'must be cohort, journey_stage or cadence' })
    .optional(),
  source_id: z.string().trim().max(64).optional(),
});
export const adAudienceListReply = z.array(adAudienceSchema);
export const adAudienceIdParam = z.object({ id: z.uuid({ error: 'must be the id (UUID) of an audience' }) });
