import { z } from 'zod';

/**
 * `GET /v1/rest/client/{id}/required_attentions` (SPEC.md §7): what needs a person now, each with
 * the screen that fixes it. The list is computed on every call from the client's current state.
 */
export const REQUIRED_ATTENTION_KINDS = [
  /** An integration is inactive (its reason in words): no sync until it is reconnected. */
  'integration_inactive',
  /** A charge failed or waits for the payer's bank, or the card on file has expired. */
  'card_failing',
  /** A cadence with ads on has a day without content: its prospects see no ad that day. */
  'cadence_day_without_content',
  /** A rep whose prospects see ads has no photo: ads and landing pages show initials. */
  'rep_without_photo',
  /** A journey of an active cohort has no stage, or a stage without ads: its accounts there see none. */
  'journey_without_content',
] as const;
export type RequiredAttentionKind = (typeof REQUIRED_ATTENTION_KINDS)[number];

export const requiredAttentionSchema = z.object({
  /** Stable across calls while the problem lasts (e.g. `integration_inactive:12`). */
  id: z.string(),
  kind: z.enum(REQUIRED_ATTENTION_KINDS),
  /** One sentence for the person: what is wrong and what it costs. */
  message: z.string(),
  /** The screen that fixes it: an app path (the web adds client_id) and the words of its link. */
  link: z.object({ path: z.string(), label: z.string() }),
});
export type RequiredAttention = z.infer<typeof requiredAttentionSchema>;

export const requiredAttentionsSchema = z.object({
  items: z.array(requiredAttentionSchema),
  total: z.number().int(),
});
export type RequiredAttentions = z.infer<typeof requiredAttentionsSchema>;
