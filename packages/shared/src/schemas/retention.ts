import { z } from 'zod';

/**
 * A client's retention settings (issue 44, decision 0032): how long raw engagement events, export
 * files, delivery logs and the audit log are kept. A daily job folds older events into the daily
 * rollups (so reports keep their numbers) and deletes the rest.
 */
export const RETENTION_BOUNDS = {
  events_months: { min: 1, max: 120, default: 25 },
  export_files_days: { min: 1, max: 90, default: 7 },
  delivery_logs_days: { min: 1, max: 365, default: 30 },
  audit_log_days: { min: 30, max: 3650, default: 365 },
} as const;
export type RetentionField = keyof typeof RETENTION_BOUNDS;
export const RETENTION_FIELDS = Object.keys(RETENTION_BOUNDS) as RetentionField[];

const bounded = (f: RetentionField) => {
  const { min, max } = RETENTION_BOUNDS[f];
  const message = `must be a whole number from ${min} to ${max}`;
  return z
    .number({ error: message })
    .int({ error: message })
    .min(min, { error: message })
    .max(max, { error: message });
};

export const retentionSettingsSchema = z.object({
  events_months: z.number().int(),
  export_files_days: z.number().int(),
  delivery_logs_days: z.number().int(),
  audit_log_days: z.number().int(),
  /** When they were last saved; null while the defaults apply. */
  updated_at: z.string().nullable(),
});
export type RetentionSettings = z.infer<typeof retentionSettingsSchema>;

/** PATCH: only the fields given change; each within its bounds. */
export const retentionSettingsUpdateBody = z
  .object({
    events_months: bounded('events_months').optional(),
    export_files_days: bounded('export_files_days').optional(),
    delivery_logs_days: bounded('delivery_logs_days').optional(),
    audit_log_days: bounded('audit_log_days').optional(),
  })
  .strict();
export type RetentionSettingsUpdate = z.infer<typeof retentionSettingsUpdateBody>;
