import { z } from 'zod';

/**
 * A client's suppression list (issue 44, decision 0027): people, by e-mail address, whose ad tags
 * serve the neutral image and count nothing in every cadence and cohort of the client, who leave the
 * client's ad-network audiences and whom imports and syncs do not make live targets again.
 */
export const SUPPRESSION_SOURCES = ['opt_out', 'manual', 'import', 'erasure'] as const;
export type SuppressionSource = (typeof SUPPRESSION_SOURCES)[number];
/** The most addresses one CSV upload may carry. */
export const SUPPRESSION_UPLOAD_MAX = 50_000;
export const SUPPRESSION_PAGE_MAX = 200;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const suppressionEmail = z
  .string({ message: 'must be an e-mail address' })
  .trim()
  .max(320, 'must be at most 320 characters')
  .regex(EMAIL, 'must be an e-mail address');

export const suppressionSchema = z.object({
  id: z.string(),
  /** The address as added; null for erasure records, which keep only the keyed hash. */
  email: z.string().nullable(),
  source: z.enum(SUPPRESSION_SOURCES),
  reason: z.string(),
  created_by: z.string().nullable(),
  created_by_name: z.string().nullable(),
  created_at: z.string(),
  removed_at: z.string().nullable(),
  removed_by_name: z.string().nullable(),
  removed_reason: z.string().nullable(),
});
export type Suppression = z.infer<typeof suppressionSchema>;

export const suppressionListQuery = z.object({
  /** `active` (the default): the list in force; `removed`: the history of removals. */
  state: z.enum(['active', 'removed'], { message: 'must be active or removed' }).default('active'),
  limit: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(SUPPRESSION_PAGE_MAX, `must be at most ${SUPPRESSION_PAGE_MAX}`)
    .default(50),
  /** The `next_cursor` of the previous page. */
  cursor: z.string().max(100, 'must be at most 100 characters').optional(),
  /** Part of an address. */
  q: z.string().trim().max(200, 'must be at most 200 characters').optional(),
});
export type SuppressionListQuery = z.infer<typeof suppressionListQuery>;

export const suppressionListReply = z.object({
  items: z.array(suppressionSchema),
  total: z.number().int(),
  next_cursor: z.string().nullable(),
});
export type SuppressionListReply = z.infer<typeof suppressionListReply>;

export const addSuppressionBody = z.object({
  email: suppressionEmail,
  reason: z.string().trim().max(500, 'must be at most 500 characters').default(''),
});
export type AddSuppressionBody = z.infer<typeof addSuppressionBody>;

export const addSuppressionReply = z.object({
  suppression: suppressionSchema,
  /** False when the address was on the list already (the existing entry is returned). */
  created: z.boolean(),
});

export const removeSuppressionBody = z.object({
  reason: z
    .string({ message: 'is required' })
    .trim()
    .min(1, 'is required: say why the person may be shown ads again')
    .max(500, 'must be at most 500 characters'),
});
export type RemoveSuppressionBody = z.infer<typeof removeSuppressionBody>;

export const suppressionIdParams = z.object({
  id: z.string().regex(/^[0-9]{1,18}$/, 'must be a suppression id'),
});

export const uploadSuppressionsReply = z.object({
  added: z.number().int(),
  /** Already on the list. */
  already: z.number().int(),
  /** Lines that are not an address, with their line number (the first 20). */
  invalid: z.array(z.object({ line: z.number().int(), value: z.string() })),
  invalid_count: z.number().int(),
});
export type UploadSuppressionsReply = z.infer<typeof uploadSuppressionsReply>;
