import { z } from 'zod';

/**
 * `GET` and `POST /v1/rest/client/{id}/sdr_notifications` (SPEC.md §7): per rep, an e-mail when a
 * prospect of theirs becomes a superprospect, and a daily or weekly digest, sent through the outbox.
 */
export const SDR_DIGESTS = ['off', 'daily', 'weekly'] as const;
export type SdrDigest = (typeof SDR_DIGESTS)[number];

export const sdrNotificationSchema = z.object({
  sales_rep_id: z.uuid(),
  name: z.string(),
  /** Where the e-mails go; null when the rep has no valid e-mail (nothing can be sent). */
  email: z.string().nullable(),
  super_email: z.boolean(),
  digest: z.enum(SDR_DIGESTS),
  /** The end of the period the last digest covered; null before the first. */
  last_digest_at: z.iso.datetime({ offset: true }).nullable(),
});
export type SdrNotification = z.infer<typeof sdrNotificationSchema>;
export const sdrNotificationsSchema = z.object({ reps: z.array(sdrNotificationSchema) });
export type SdrNotifications = z.infer<typeof sdrNotificationsSchema>;

export const sdrNotificationsBody = z.object({
  reps: z
    .array(
      z.object({
        sales_rep_id: z.uuid('must be the id (UUID) of a sales rep'),
        super_email: z.boolean({ error: 'must be true or false' }),
        digest: z.enum(SDR_DIGESTS, { message: `must be one of ${SDR_DIGESTS.join(', ')}` }),
      }),
    )
    .min(1, 'must list at least one rep')
    .max(500, 'must list at most 500 reps'),
});
export type SdrNotificationsBody = z.infer<typeof sdrNotificationsBody>;
