import { z } from 'zod';
import { ATTRIBUTION_WINDOW_MAX_DAYS } from './reports.ts';

/**
 * Incrementality (issue 45; docs/reports.md "Lift"): randomised holdouts per cadence and cohort, and
 * the lift report that compares the exposed with the held out.
 */

export const HOLDOUT_MAX_PERCENT = 50;
/** The relative lift in the meeting rate the power calculation looks for, by default. */
export const LIFT_DEFAULT_MIN_PERCENT = 50;

export const LIFT_SCOPES = ['client', 'cadence', 'cohort'] as const;

export const liftQuery = z
  .object({
    scope: z.enum(LIFT_SCOPES, { error: 'must be client, cadence or cohort' }).default('client'),
    id: z.string().trim().max(64, 'must be at most 64 characters').optional(),
    window_days: z.coerce
      .number({ error: 'must be a whole number of days' })
      .int('must be a whole number of days')
      .min(1, 'must be at least 1')
      .max(ATTRIBUTION_WINDOW_MAX_DAYS, `must be at most ${ATTRIBUTION_WINDOW_MAX_DAYS}`)
      .optional(),
    min_lift: z.coerce
      .number({ error: 'must be a whole number of percent' })
      .int('must be a whole number of percent')
      .min(5, 'must be at least 5')
      .max(500, 'must be at most 500')
      .default(LIFT_DEFAULT_MIN_PERCENT),
  })
  .superRefine((q, ctx) => {
    if (q.scope === 'client') {
      if (q.id !== undefined)
        ctx.addIssue({ code: 'custom', path: ['id'], message: 'must be left out for the client' });
    } else if (q.id === undefined || q.id === '') {
      ctx.addIssue({ code: 'custom', path: ['id'], message: `must name the ${q.scope}` });
    } else if (q.scope === 'cadence' && !/^\d{1,9}$/.test(q.id)) {
      ctx.addIssue({ code: 'custom', path: ['id'], message: 'must be the id (a number) of a cadence' });
    } else if (q.scope === 'cohort' && !z.uuid().safeParse(q.id).success) {
      ctx.addIssue({ code: 'custom', path: ['id'], message: 'must be the id (UUID) of a cohort' });
    }
  });
export type LiftQuery = z.infer<typeof liftQuery>;

const group = z.object({
  targets: z.number().int(),
  meetings: z.number().int(),
  with_opportunity: z.number().int(),
  opportunities: z.number().int(),
  pipeline: z.number(),
  won: z.number(),
  superprospects: z.number().int(),
});
const rates = z.object({
  meetings: z.number().nullable(),
  with_opportunity: z.number().nullable(),
  pipeline: z.number().nullable(),
  won: z.number().nullable(),
});
const difference = z
  .object({
    difference: z.number(),
    low: z.number(),
    high: z.number(),
    /** The interval excludes zero. */
    excludes_zero: z.boolean(),
    method: z.enum(['newcombe', 'welch']),
  })
  .nullable();

export const liftReportSchema = z.object({
  scope: z.object({ kind: z.enum(LIFT_SCOPES), id: z.string().nullable(), name: z.string() }),
  window_days: z.number().int(),
  min_lift_percent: z.number().int(),
  currency: z.string(),
  /** Share of the assigned targets held out (0–1). */
  held_out_share: z.number(),
  groups: z.object({ exposed: group, held_out: group }),
  /** Per 100 targets: people with a meeting, people with an opportunity created; amounts in currency. */
  per_100: z.object({ exposed: rates, held_out: rates }),
  /** Exposed minus held out, per 100 targets, with its 95 % interval. */
  lift: z.object({
    meetings: difference,
    with_opportunity: difference,
    pipeline: difference,
    won: difference,
  }),
  status: z.enum(['no_holdout', 'not_enough_data', 'measured']),
  /** Targets still needed (both groups together, at the current share) for the power asked; null when unknown. */
  targets_needed: z.number().int().nullable(),
  message: z.string(),
  cost: z.object({
    /** The Rally fee of the exposed group's superprospects in the window, in dollars. */
    rally_fee: z.number(),
    /** Ad spend on the networks for the scope; null until network results exist (issue 39). */
    ad_spend: z.number().nullable(),
    per_incremental_meeting: z.number().nullable(),
    per_incremental_opportunity: z.number().nullable(),
  }),
});
export type LiftReport = z.infer<typeof liftReportSchema>;

export const holdoutSchema = z.object({
  cadence_id: z.number().int(),
  name: z.string(),
  kind: z.enum(['sequence', 'cohort']),
  cohort_id: z.string().nullable(),
  holdout_percent: z.number().int(),
  exposed: z.number().int(),
  held_out: z.number().int(),
});
export type Holdout = z.infer<typeof holdoutSchema>;
export const holdoutListSchema = z.object({ items: z.array(holdoutSchema) });

export const holdoutBody = z
  .object({
    holdout_percent: z
      .number({ error: 'must be a whole number of percent' })
      .int('must be a whole number of percent')
      .min(0, 'must be at least 0')
      .max(HOLDOUT_MAX_PERCENT, `must be at most ${HOLDOUT_MAX_PERCENT}`),
  })
  .strict();
export type HoldoutBody = z.infer<typeof holdoutBody>;
