// Ad delivery and engagement tracking (ARCHITECTURE.md §5; SPEC.md §7 POST /rest/tracked/view).
import { z } from 'zod';
import { AD_RENDITIONS } from './content.ts';

/** Tokens are made by the server (24 URL-safe characters); anything longer is refused unread. */
export const trackingTokenSchema = z
  .string({ error: 'must be the token of an ad tag' })
  .min(1, { error: 'must be the token of an ad tag' })
  .max(128, { error: 'must be the token of an ad tag' });

/** `GET /t/{token}/ad/{size}.png`: one of SPEC.md §3 "Ad sizes", or `email` (the e-mail rendition). */
export const adTagParams = z.object({
  token: trackingTokenSchema,
  size: z.enum(AD_RENDITIONS, { error: `must be one of ${AD_RENDITIONS.join(', ')}` }),
});

export const clickTagParams = z.object({ token: trackingTokenSchema });

/** `POST /v1/rest/tracked/view`: a landing page view of the target with this token. */
export const trackedViewBody = z.object({ token: trackingTokenSchema });
export type TrackedViewBody = z.infer<typeof trackedViewBody>;

/** `recorded` is false for traffic that is not counted (bots, prefetch, ads off for the cadence). */
export const trackedViewReply = z.object({ recorded: z.boolean() });
export type TrackedViewReply = z.infer<typeof trackedViewReply>;

/** ARCHITECTURE.md §5: the superprospect rule, for screens that explain it. */
export const SUPER_RULE = { clicks: 1, impressions: 15 } as const;

/** What an engagement feed item (`super`, `click`, `view`) carries in its `data`. */
export const engagementFeedDataSchema = z.object({
  first_name: z.string(),
  last_name: z.string(),
  company_name: z.string().nullable(),
  cadence_name: z.string(),
  sales_rep_name: z.string().nullable(),
  day_number: z.number().int(),
  impressions: z.number().int(),
  clicks: z.number().int(),
  views: z.number().int(),
  /** `super` only: what made the target super. */
  reason: z.enum(['click', 'impressions']).optional(),
});
export type EngagementFeedData = z.infer<typeof engagementFeedDataSchema>;
