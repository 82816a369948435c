import { z } from 'zod';

/**
 * Journeys (issue 18, SPEC.md §7 "Journeys", docs/decisions/0010): ordered stages for one cohort,
 * each with its ads (content ids) and rules that move an account (a company, or a member without
 * one) to that stage. An account matching several stages sits in the furthest; moves only go
 * forward and each is recorded (a journey move, a feed item).
 */
export const JOURNEY_RULE_KINDS = [
  'impressions_gte',
  'clicks_gte',
  'views_gte',
  'opportunity_created',
  'crm_stage_reached',
  'days_in_stage_gte',
  'network_impressions_gte',
  'network_clicks_gte',
] as const;
export type JourneyRuleKind = (typeof JOURNEY_RULE_KINDS)[number];
export const JOURNEY_RULE_LABELS: Record<JourneyRuleKind, string> = {
  impressions_gte: 'Impressions at least',
  clicks_gte: 'Clicks at least',
  views_gte: 'Landing page views at least',
  opportunity_created: 'An opportunity is created',
  crm_stage_reached: 'An opportunity reaches CRM stage',
  days_in_stage_gte: 'Days in the current stage at least',
  network_impressions_gte: 'Network-reported company impressions at least',
  network_clicks_gte: 'Network-reported company clicks at least',
};
/** Rules that take a number (`value`); crm_stage_reached takes `crm_stage_id`. */
export const JOURNEY_COUNT_RULES: readonly JourneyRuleKind[] = [
  'impressions_gte',
  'clicks_gte',
  'views_gte',
  'days_in_stage_gte',
  'network_impressions_gte',
  'network_clicks_gte',
];
/**
 * Rules on the engagement an ad network reports for the account's company (LinkedIn's company-level
 * results, matched to the CRM account by domain): `value` within the last `days` days. Per-person
 * counts stay with Rally's tags.
 */
export const JOURNEY_NETWORK_RULES: readonly JourneyRuleKind[] = [
  'network_impressions_gte',
  'network_clicks_gte',
];
/** LinkedIn keeps company-level (professional demographic) results for two years. */
export const JOURNEY_RULE_DAYS_MAX = 730;
export const JOURNEY_RULE_DAYS_DEFAULT = 30;
export const JOURNEY_MATCH = ['any', 'all'] as const;
export const DEFAULT_JOURNEY_STAGES = ['Unaware', 'Aware', 'Engaged', 'Opportunity', 'Customer'] as const;
export const JOURNEY_NAME_MAX = 120;
export const JOURNEY_STAGE_NAME_MAX = 60;
export const JOURNEY_STAGES_MAX = 10;
export const JOURNEY_STAGE_CONTENT_MAX = 5;
export const JOURNEY_STAGE_RULES_MAX = 6;
export const JOURNEY_RULE_VALUE_MAX = 100_000;

const uuid = (what: string) => z.uuid({ error: `must be the id (UUID) of ${what}` });

export const journeyRuleSchema = z
  .object({
    kind: z.enum(JOURNEY_RULE_KINDS, { error: `must be one of ${JOURNEY_RULE_KINDS.join(', ')}` }),
    /** The threshold of a count rule (impressions, clicks, views: ≥ 1; days in stage: ≥ 1). */
    value: z
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(JOURNEY_RULE_VALUE_MAX, `must be at most ${JOURNEY_RULE_VALUE_MAX}`)
      .nullish(),
    /** The CRM stage of crm_stage_reached (GET /rest/crm_stage). */
    crm_stage_id: uuid('a CRM stage').nullish(),
    /** The window of a network rule: engagement reported in the last `days` days. */
    days: z
      .number({ error: 'must be a whole number of days' })
      .int('must be a whole number of days')
      .min(1, 'must be at least 1')
      .max(JOURNEY_RULE_DAYS_MAX, `must be at most ${JOURNEY_RULE_DAYS_MAX}`)
      .nullish(),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (JOURNEY_COUNT_RULES.includes(r.kind) && (r.value === undefined || r.value === null)) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: `is required for ${r.kind}` });
    }
    if (JOURNEY_NETWORK_RULES.includes(r.kind) && (r.days === undefined || r.days === null)) {
      ctx.addIssue({ code: 'custom', path: ['days'], message: `is required for ${r.kind}` });
    }
    if (r.kind === 'crm_stage_reached' && !r.crm_stage_id) {
      ctx.addIssue({ code: 'custom', path: ['crm_stage_id'], message: 'is required for crm_stage_reached' });
    }
  });
export type JourneyRule = z.infer<typeof journeyRuleSchema>;

const stageName = z
  .string({ error: 'is required' })
  .trim()
  .min(1, 'is required')
  .max(JOURNEY_STAGE_NAME_MAX, `must be at most ${JOURNEY_STAGE_NAME_MAX} characters`);

/** A stage as sent: its id when it exists (renamed or moved), none for a new one. */
export const journeyStageInput = z
  .object({
    id: uuid('a stage of this journey').optional(),
    name: stageName,
    /** The ads of the stage, the first published one shown (GET /rest/content). */
    content_ids: z
      .array(uuid('a content item'), { error: 'must be a list of content ids' })
      .max(JOURNEY_STAGE_CONTENT_MAX, `must have at most ${JOURNEY_STAGE_CONTENT_MAX} items`)
      .default([]),
    /** What moves an account into this stage; the first stage has none (accounts start there). */
    rules: z
      .array(journeyRuleSchema, { error: 'must be a list of rules' })
      .max(JOURNEY_STAGE_RULES_MAX, `must have at most ${JOURNEY_STAGE_RULES_MAX} rules`)
      .default([]),
    /** any: one rule is enough; all: every rule must hold. */
    match: z.enum(JOURNEY_MATCH, { error: 'must be any or all' }).default('any'),
  })
  .strict();
export type JourneyStageInput = z.infer<typeof journeyStageInput>;

const stagesField = z
  .array(journeyStageInput, { error: 'must be a list of stages' })
  .min(2, 'must have at least 2 stages')
  .max(JOURNEY_STAGES_MAX, `must have at most ${JOURNEY_STAGES_MAX} stages`)
  .superRefine((stages, ctx) => {
    if (stages[0] && stages[0].rules.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: [0, 'rules'],
        message: 'the first stage has no rules: every account starts there',
      });
    }
    const seen = new Set<string>();
    stages.forEach((s, i) => {
      if (s.id && seen.has(s.id))
        ctx.addIssue({ code: 'custom', path: [i, 'id'], message: 'is listed twice' });
      if (s.id) seen.add(s.id);
    });
  });

const journeyName = z
  .string({ error: 'is required' })
  .trim()
  .min(1, 'is required')
  .max(JOURNEY_NAME_MAX, `must be at most ${JOURNEY_NAME_MAX} characters`);

/** `POST /v1/rest/client/{id}/journey`: stages default to Unaware, Aware, Engaged, Opportunity, Customer. */
export const journeyCreateBody = z
  .object({
    cohort_id: uuid('a cohort'),
    name: journeyName,
    stages: stagesField.optional(),
  })
  .strict();
export type JourneyCreateBody = z.infer<typeof journeyCreateBody>;

/** `PUT /v1/rest/client/{id}/journey/{id}`: the whole journey; the stages' order is the list's. */
export const journeyUpdateBody = z
  .object({
    name: journeyName,
    stages: stagesField,
  })
  .strict();
export type JourneyUpdateBody = z.infer<typeof journeyUpdateBody>;

export const journeyStageSchema = z.object({
  id: z.uuid(),
  position: z.number().int(),
  name: z.string(),
  content_ids: z.array(z.uuid()),
  rules: z.array(
    z.object({
      kind: z.enum(JOURNEY_RULE_KINDS),
      value: z.number().int().nullable(),
      crm_stage_id: z.uuid().nullable(),
      /** The window of a network rule (days), else null. */
      days: z.number().int().nullable(),
    }),
  ),
  match: z.enum(JOURNEY_MATCH),
  /** Accounts in the stage now. */
  accounts: z.number().int(),
});
export type JourneyStage = z.infer<typeof journeyStageSchema>;

export const journeySchema = z.object({
  id: z.uuid(),
  client_id: z.uuid(),
  cohort_id: z.uuid(),
  cohort_name: z.string(),
  cohort_status: z.enum(['active', 'paused', 'archived']),
  name: z.string(),
  stages: z.array(journeyStageSchema),
  accounts: z.number().int(),
  moves: z.number().int(),
  evaluated_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type Journey = z.infer<typeof journeySchema>;

export const journeyListReply = z.object({ items: z.array(journeySchema) });
export type JourneyListReply = z.infer<typeof journeyListReply>;

export const clientJourneyParams = z.object({
  clientId: z.uuid({ error: 'must be the id (UUID) of a client' }),
  id: z.uuid({ error: 'must be the id (UUID) of a journey' }),
});
export const clientCohortJourneyParams = z.object({
  clientId: z.uuid({ error: 'must be the id (UUID) of a client' }),
  cohortId: z.uuid({ error: 'must be the id (UUID) of a cohort' }),
});

/** `GET /v1/report/client/{id}/journey/cohorts`: the client's cohorts with their journey, if any. */
export const journeyCohortsReply = z.object({
  items: z.array(
    z.object({
      cohort_id: z.uuid(),
      cohort_name: z.string(),
      status: z.enum(['active', 'paused', 'archived']),
      size: z.number().int(),
      accounts: z.number().int(),
      journey_id: z.uuid().nullable(),
      journey_name: z.string().nullable(),
      stages: z.number().int(),
    }),
  ),
});
export type JourneyCohortsReply = z.infer<typeof journeyCohortsReply>;

const epoch = (what: string) =>
  z.coerce
    .number({ error: `must be epoch seconds (${what})` })
    .int('must be whole epoch seconds')
    .min(0, 'must be epoch seconds')
    .max(4_102_444_800, 'must be before 2100');

export const journeyViewQuery = z
  .object({ from: epoch('from').optional(), to: epoch('to').optional() })
  .strict()
  .refine((q) => q.from === undefined || q.to === undefined || q.from < q.to, {
    path: ['from'],
    message: 'must be before to',
  })
  .refine((q) => q.from === undefined || q.to === undefined || q.to - q.from <= 366 * 86_400, {
    path: ['from'],
    message: 'the range must be at most 366 days',
  });

/** The journey view: accounts by stage now, and at the end of each day of the range (a funnel over time). */
export const journeyViewReply = z.object({
  journey_id: z.uuid(),
  cohort_id: z.uuid(),
  name: z.string(),
  from: z.number().int(),
  to: z.number().int(),
  evaluated_at: z.iso.datetime().nullable(),
  stages: z.array(
    z.object({ id: z.uuid(), position: z.number().int(), name: z.string(), accounts: z.number().int() }),
  ),
  /** Accounts per stage at the end of each UTC day, in the order of `stages`. */
  by_date: z.array(z.object({ date: z.string(), accounts: z.array(z.number().int()) })),
  moves_in_range: z.number().int(),
});
export type JourneyViewReply = z.infer<typeof journeyViewReply>;

export const journeyMovesQuery = z
  .object({
    page: z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(10_000, 'must be at most 10000')
      .default(1),
    page_size: z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(100, 'must be at most 100')
      .default(25),
  })
  .strict();

export const journeyMoveSchema = z.object({
  id: z.number().int(),
  account_id: z.uuid(),
  company_name: z.string().nullable(),
  from_stage_id: z.uuid().nullable(),
  from_stage: z.string().nullable(),
  to_stage_id: z.uuid().nullable(),
  to_stage: z.string(),
  /** The rule kinds of the stage moved into that held. */
  reason: z.string(),
  moved_at: z.iso.datetime(),
});
export type JourneyMove = z.infer<typeof journeyMoveSchema>;
export const journeyMovesReply = z.object({
  items: z.array(journeyMoveSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});
export type JourneyMovesReply = z.infer<typeof journeyMovesReply>;
