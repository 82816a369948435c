import { z } from 'zod';

/**
 * Ad networks (issue 39, docs/decisions/0025): a client's connection to a network and the matched
 * audiences Rally keeps there from cohorts, journey stages and cadences.
 */

export const AD_NETWORK_KEYS = ['meta', 'linkedin', 'google'] as const;
export type AdNetworkKey = (typeof AD_NETWORK_KEYS)[number];
export const AD_NETWORK_LABELS: Record<AdNetworkKey, string> = {
  meta: 'Meta (Facebook and Instagram)',
  linkedin: 'LinkedIn',
  google: 'Google Ads (Customer Match)',
};

export const adNetworkParam = z.enum(AD_NETWORK_KEYS, {
  error: `must be an ad network: ${AD_NETWORK_KEYS.join(', ')}`,
});

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
  // Meta `act_123`, LinkedIn sponsored account 123, Google Ads customer 1234567890 (no dashes); the
  // route checks it is one of the login's own.
  ad_account_id: z
    .string({ error: 'must be the id of one of your ad accounts' })
    .trim()
    .regex(
      /^(act_)?\d{1,30}$/,
      'must be an ad account id like act_123 (Meta), 123 (LinkedIn) or 1234567890 (Google Ads, no dashes)',
    ),
  // A Facebook page or a LinkedIn organisation (page) id: digits.
  page_id: z
    .string()
    .trim()
    .regex(/^\d{1,30}$/, 'must be a page id (digits)')
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
  /**
   * Pool it while under the network's minimum (decision 0034): a stage with its cohort, a cadence with
   * its rep's other cadences. Sent again for an existing audience, it changes the choice.
   */
  pool: z.boolean({ error: 'must be true or false' }).optional(),
});

/** What an audience is pooled with, and the counts that decided it. */
export const adAudiencePoolSchema = z.object({
  kind: z.enum(['cohort', 'rep_cadences']),
  /** In words: cohort “Enterprise”, Dana Rep’s cadences. */
  name: z.string(),
  source_count: z.number().int(),
  pool_count: z.number().int(),
  minimum: z.number().int(),
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
  /** The owner chose to pool it while under the minimum. */
  pool_when_small: z.boolean(),
  /** What it is pooled with at the last push; null when it stands alone. */
  pooled_with: adAudiencePoolSchema.nullable(),
  /** The last pooling change in words ("Pooled with …", "Stopped pooling …"). */
  pool_note: z.string().nullable(),
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

/** Before launch: a source's size on each connected network beside its minimum, and the pool proposed. */
export const adAudiencePreviewQuery = z.object({
  source_kind: z.enum(AD_AUDIENCE_SOURCE_KINDS, { error: 'must be cohort, journey_stage or cadence' }),
  source_id: z
    .string({ error: 'must be the id of the cohort, journey stage or cadence' })
    .trim()
    .min(1)
    .max(64),
});
export const adAudiencePreviewSchema = z.object({
  network: z.enum(AD_NETWORK_KEYS),
  minimum_audience: z.number().int(),
  /** Placements that need more (Google's YouTube and lookalike seeds), in words. */
  minimum_note: z.string().nullable(),
  /** Members with an e-mail the network's hashing accepts. */
  count: z.number().int(),
  /** The pool this source could join, counted; null for a cohort or a source with none. */
  pool: z
    .object({ kind: z.enum(['cohort', 'rep_cadences']), name: z.string(), count: z.number().int() })
    .nullable(),
  /** run: at or over the minimum; pool: under it, the pool reaches it; hold: under it even pooled. */
  proposal: z.enum(['run', 'pool', 'hold']),
  explanation: z.string(),
});
export type AdAudiencePreview = z.infer<typeof adAudiencePreviewSchema>;
export const adAudiencePreviewReply = z.array(adAudiencePreviewSchema);
