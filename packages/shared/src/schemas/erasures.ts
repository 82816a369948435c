import { z } from 'zod';
import { suppressionEmail } from './suppressions.ts';

/**
 * Erasure of a person by e-mail address (issue 44, decision 0031): everything the client holds about
 * them goes, and only a record stays — the address's keyed hash, when and by whom — with an entry on
 * the suppression list (hash only) so that a later import or sync does not bring them back.
 */
export const erasureBody = z.object({
  email: suppressionEmail,
  /** The owner typed the address twice in the confirmation dialog; the API wants it said. */
  confirm: z.literal(true, { message: 'must be true (erasure cannot be undone)' }),
});
export type ErasureBody = z.infer<typeof erasureBody>;

/** How many of each thing went. */
export const erasureCountsSchema = z.object({
  prospects: z.number().int(),
  targets: z.number().int(),
  events: z.number().int(),
  uncounted_events: z.number().int(),
  crm_contacts: z.number().int(),
  cohort_memberships: z.number().int(),
  journey_memberships: z.number().int(),
  feed_items: z.number().int(),
  export_files: z.number().int(),
  outbox_messages: z.number().int(),
  webhook_deliveries: z.number().int(),
  audience_members: z.number().int(),
  crm_write_backs: z.number().int(),
});
export type ErasureCounts = z.infer<typeof erasureCountsSchema>;

export const erasureSchema = z.object({
  id: z.string(),
  /** HMAC-SHA256 of the normalised address under a key derived from the app's secret. */
  email_hash: z.string(),
  erased_at: z.string(),
  erased_by: z.string().nullable(),
  erased_by_name: z.string().nullable(),
  counts: erasureCountsSchema,
});
export type Erasure = z.infer<typeof erasureSchema>;

export const erasureReply = z.object({
  erasure: erasureSchema,
  /** False when the person had been erased before (the one record is updated). */
  created: z.boolean(),
});
export type ErasureReply = z.infer<typeof erasureReply>;

export const erasureListReply = z.object({ items: z.array(erasureSchema) });
export type ErasureListReply = z.infer<typeof erasureListReply>;
