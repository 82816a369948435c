import { z } from 'zod';
import { serialIdSchema } from './common.ts';

/** SPEC.md §4 / ARCHITECTURE.md §5: draft → active ⇄ paused → finished. */
export const CADENCE_STATUS_VALUES = ['draft', 'active', 'paused', 'finished'] as const;
export type CadenceStatusValue = (typeof CADENCE_STATUS_VALUES)[number];

/** The statuses each status may change to through `PUT /sc/cadence/{id}/change_status`. */
export const CADENCE_STATUS_NEXT: Record<CadenceStatusValue, readonly CadenceStatusValue[]> = {
  draft: ['active'],
  active: ['paused', 'finished'],
  paused: ['active', 'finished'],
  finished: [],
};

export const CADENCE_STATUS_LABELS: Record<CadenceStatusValue, string> = {
  draft: 'Draft',
  active: 'Active',
  paused: 'Paused',
  finished: 'Finished',
};

/** ARCHITECTURE.md §5: what a transition action does once its rule is met. */
export const CADENCE_ACTION_TYPES = ['move_to_day', 'finish'] as const;
export type CadenceActionType = (typeof CADENCE_ACTION_TYPES)[number];
/** ARCHITECTURE.md §5: the rule, measured on the target's current day. */
export const CADENCE_ACTION_RULES = ['impressions_gte', 'clicks_gte', 'days_on_day_gte'] as const;
export type CadenceActionRule = (typeof CADENCE_ACTION_RULES)[number];

export const CADENCE_ACTION_RULE_LABELS: Record<CadenceActionRule, string> = {
  impressions_gte: 'impressions ≥',
  clicks_gte: 'clicks ≥',
  days_on_day_gte: 'days on this day ≥',
};

/**
 * SPEC.md §3 "Cadence action". SPEC names three fields; `move_to_day` also needs to say which day, so
 * it carries `target_day_number` (a day of the same cadence). `finish` ends the target's run.
 */
export const cadenceActionSchema = z
  .object({
    action_type: z.enum(CADENCE_ACTION_TYPES, {
      message: `must be one of ${CADENCE_ACTION_TYPES.join(', ')}`,
    }),
    action_rule: z.enum(CADENCE_ACTION_RULES, {
      message: `must be one of ${CADENCE_ACTION_RULES.join(', ')}`,
    }),
    action_rule_value: z
      .number({ message: 'must be a number' })
      .min(0, 'must be 0 or more')
      .max(1_000_000, 'must be at most 1,000,000'),
    target_day_number: z.number().int('must be a day number').min(1, 'must be a day number').optional(),
  })
  .superRefine((a, ctx) => {
    if (a.action_type === 'move_to_day' && a.target_day_number === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['target_day_number'],
        message: 'is required to move to a day',
      });
    }
  });
export type CadenceAction = z.infer<typeof cadenceActionSchema>;

/** SPEC.md §3 "Content day": a content item shown on the day, and the day's transition actions. */
export const contentDaySchema = z.object({
  content_id: z.uuid('must be the id (UUID) of a content item'),
  day_transition_actions: z.array(cadenceActionSchema).max(10, 'must have at most 10 actions'),
});
export type ContentDay = z.infer<typeof contentDaySchema>;

/**
 * A content day as stored and read back. Replies keep SPEC.md §3's plain strings, so an action this
 * version does not know is shown rather than failing the whole cadence.
 */
export const storedContentDaySchema = z.object({
  content_id: z.string(),
  day_transition_actions: z.array(
    z.object({
      action_type: z.string(),
      action_rule: z.string(),
      action_rule_value: z.number(),
      target_day_number: z.number().int().optional(),
    }),
  ),
});
export type StoredContentDay = z.infer<typeof storedContentDaySchema>;

const count = z.number().int().min(0);

/** SPEC.md §3 "Cadence day", with its target counts. */
export const cadenceDaySchema = z.object({
  day_number: z.number().int(),
  count_total: count,
  count_active: count,
  count_contacted: count,
  count_super: count,
  content_days: z.array(storedContentDaySchema),
});
export type CadenceDay = z.infer<typeof cadenceDaySchema>;

export const cadenceCountsSchema = z.object({
  total: count,
  active: count,
  contacted: count,
  super: count,
});
export type CadenceCounts = z.infer<typeof cadenceCountsSchema>;

/** The owner rep of a cadence (the sequence platform's owner), as a list shows it. */
export const cadenceOwnerSchema = z.object({
  id: z.uuid(),
  first_name: z.string(),
  last_name: z.string(),
  photo_url: z.string().nullable(),
});

const cadenceBase = z.object({
  id: z.number().int(),
  client_id: z.uuid(),
  integration_id: z.number().int(),
  /** The integration's source (salesloft, outreach, apolloio, fileforce…). */
  source: z.string(),
  name: z.string(),
  status: z.enum(CADENCE_STATUS_VALUES),
  is_super: z.boolean(),
  is_syncing: z.boolean(),
  last_synced_at: z.iso.datetime({ offset: true }).nullable(),
  owner_id: z.uuid().nullable(),
  owner: cadenceOwnerSchema.nullable(),
  /** Sales rep ids whose prospects see ads; empty means every rep. */
  selected_sdrs: z.array(z.string()),
  counts: cadenceCountsSchema,
});

/** One row of `GET /sc/cadence`. */
export const cadenceListItemSchema = cadenceBase.extend({ day_count: count });
export type CadenceListItem = z.infer<typeof cadenceListItemSchema>;

/** `GET /sc/cadence/{id}`: SPEC.md §3 "Cadence" with its days. */
export const cadenceSchema = cadenceBase.extend({ days: z.array(cadenceDaySchema) });
export type Cadence = z.infer<typeof cadenceSchema>;

export const cadenceIdParam = z.object({ id: serialIdSchema('a cadence id') });
export const integrationIdQuery = z.object({ integration_id: serialIdSchema('an integration id') });

/** `PUT /sc/cadence/{id}`: every field optional; days not named keep their content. */
export const updateCadenceBody = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
  is_super: z.boolean().optional(),
  selected_sdrs: z
    .array(z.uuid('must be the id (UUID) of a sales rep'))
    .max(10_000, 'must have at most 10,000 sales reps')
    .optional(),
  days: z
    .array(
      z.object({
        day_number: z.number().int('must be a day number').min(1, 'must be a day number'),
        content_days: z.array(contentDaySchema).max(20, 'must have at most 20 content items'),
      }),
    )
    .max(1000)
    .optional(),
});
export type UpdateCadenceBody = z.infer<typeof updateCadenceBody>;

export const changeStatusQuery = z.object({
  integration_id: serialIdSchema('an integration id'),
  client_id: z.uuid('must be the id (UUID) of a client'),
  status: z.enum(CADENCE_STATUS_VALUES, { message: `must be one of ${CADENCE_STATUS_VALUES.join(', ')}` }),
});

export const superAudienceQuery = z.object({
  page: z.coerce.number().int('must be a whole number').min(1, 'must be 1 or more').max(100_000).default(1),
  page_size: z.coerce
    .number()
    .int('must be a whole number')
    .min(1, 'must be 1 or more')
    .max(100, 'must be at most 100')
    .default(25),
  /** Only this cadence's superprospects. */
  cadence_id: serialIdSchema('a cadence id').optional(),
});

/** One superprospect: a target with a super_date (ARCHITECTURE.md §5), newest first. */
export const superAudienceItemSchema = z.object({
  target_id: z.uuid(),
  prospect_id: z.uuid(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string().nullable(),
  title: z.string(),
  company_name: z.string().nullable(),
  cadence_id: z.number().int(),
  cadence_name: z.string(),
  sales_rep_id: z.uuid().nullable(),
  sales_rep_name: z.string().nullable(),
  impressions: count,
  clicks: count,
  super_date: z.iso.datetime({ offset: true }),
});
export type SuperAudienceItem = z.infer<typeof superAudienceItemSchema>;

export const superAudienceReply = z.object({
  items: z.array(superAudienceItemSchema),
  page: z.number().int(),
  page_size: z.number().int(),
  total: count,
});
export type SuperAudience = z.infer<typeof superAudienceReply>;
