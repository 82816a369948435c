import { z } from 'zod';

/**
 * `GET /v1/rest/client/overview` (issue 42 item 13): the agency view, one row per client the user
 * belongs to. Numbers cover the last `days` days; a number the user's role there may not see is null
 * (reports.read for superprospects and pipeline, billing_details.read for spend).
 */
export const OVERVIEW_DAYS_MAX = 365;
export const clientOverviewQuery = z.object({
  days: z.coerce
    .number({ error: `must be a whole number of days from 1 to ${OVERVIEW_DAYS_MAX}` })
    .int(`must be a whole number of days from 1 to ${OVERVIEW_DAYS_MAX}`)
    .min(1, `must be a whole number of days from 1 to ${OVERVIEW_DAYS_MAX}`)
    .max(OVERVIEW_DAYS_MAX, `must be a whole number of days from 1 to ${OVERVIEW_DAYS_MAX}`)
    .default(30),
});

export const CLIENT_HEALTH = ['healthy', 'needs_attention', 'at_risk'] as const;
export type ClientHealth = (typeof CLIENT_HEALTH)[number];

export const clientOverviewRowSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  parent_id: z.uuid().nullable(),
  role: z.string(),
  /** New superprospects in the window (the Revenue summary's `new_superprospects`). */
  superprospects: z.number().int().nullable(),
  /** Billed for the window's superprospects (invoice lines, as the value report counts spend). */
  spend_cents: z.number().int().nullable(),
  /** Pipeline generated in the window (the Revenue summary's `pipeline_generated_cents`). */
  pipeline_cents: z.number().int().nullable(),
  /** The currency of pipeline (the client's most used) and of spend. */
  currency: z.string(),
  /** at_risk: an integration is off or the card fails; needs_attention: anything else to do. */
  health: z.enum(CLIENT_HEALTH),
  /** How many things need a person (the feed's "Needs your attention" and setup steps not done). */
  attention_count: z.number().int(),
  /** The most urgent of them, with the screen that fixes it (in that client). */
  attention: z.object({ message: z.string(), path: z.string(), label: z.string() }).nullable(),
});
export type ClientOverviewRow = z.infer<typeof clientOverviewRowSchema>;

export const clientOverviewReply = z.object({
  days: z.number().int(),
  clients: z.array(clientOverviewRowSchema),
});
export type ClientOverviewReply = z.infer<typeof clientOverviewReply>;
