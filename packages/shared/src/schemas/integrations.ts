import { z } from 'zod';
import { integrationSchema } from './auth.ts';

/** Sources connected through the sequence-platform port (SPEC.md §1 "sequence type"). */
export const SEQUENCE_SOURCES = ['salesloft', 'outreach', 'apolloio'] as const;
export type SequenceSourceName = (typeof SEQUENCE_SOURCES)[number];

export const SOURCE_LABELS: Record<string, string> = {
  salesloft: 'Salesloft',
  outreach: 'Outreach',
  apolloio: 'Apollo',
  salesforce: 'Salesforce',
  hubspot: 'HubSpot',
  marketo: 'Marketo',
  fileforce: 'File import',
};

export const sequenceSourceParam = z.enum(SEQUENCE_SOURCES, {
  message: `must be one of ${SEQUENCE_SOURCES.join(', ')}`,
});

export const connectBody = z.object({
  /** Apollo: a master API key. Ignored for OAuth sources. */
  api_key: z.string().trim().min(10, 'must be an API key of at least 10 characters').max(200).optional(),
  /** Where the browser lands after the vendor's consent screen. */
  return_to: z.enum(['onboarding', 'connections']).default('connections'),
});
export const connectReply = z.union([
  z.object({ redirect_url: z.url() }),
  z.object({ integration: integrationSchema }),
]);

/** `GET/POST /sc/action/sync_cadences`: whether the client's sequence integrations are syncing. */
export const syncStateSchema = z.object({
  is_syncing: z.boolean(),
  last_synced_at: z.iso.datetime({ offset: true }).nullable(),
  integrations: z.array(integrationSchema),
});
export type SyncState = z.infer<typeof syncStateSchema>;

export const cadenceSyncReply = z.object({
  id: z.number().int(),
  is_syncing: z.boolean(),
  last_synced_at: z.iso.datetime({ offset: true }).nullable(),
});

/** SPEC.md §3 "Sales rep", extended form. */
export const salesRepSchema = z.object({
  id: z.uuid(),
  client_id: z.uuid(),
  integration_id: z.number().int(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string().nullable(),
  /** The source gave no valid e-mail address for this rep (SPEC.md §5): `email` is null. */
  email_invalid: z.boolean().default(false),
  photo_url: z.string().nullable(),
  title: z.string(),
  selected: z.boolean(),
  active_targets_count: z.number().int(),
  super_targets_count: z.number().int(),
  company_name: z.string(),
  calendar_url: z.string(),
});
export type SalesRep = z.infer<typeof salesRepSchema>;

export const selectSalesRepsBody = z.object({
  selected: z.array(z.uuid('must be the id (UUID) of a sales rep')).max(10_000),
});

const optionalUrl = (what: string) =>
  z
    .string()
    .trim()
    .max(2000)
    .refine((v) => v === '' || /^https?:\/\/\S+$/i.test(v), { message: `must be an http(s) URL (${what})` });

/** An http(s) image URL, or the path of an image uploaded to Rally (`/files/{id}`, served by us). */
const imageRef = z
  .string()
  .trim()
  .max(2000)
  .refine((v) => v === '' || /^https?:\/\/\S+$/i.test(v) || /^\/files\/[0-9a-f-]{36}$/i.test(v), {
    message: 'must be an http(s) URL or an uploaded image',
  });

export const updateSalesRepBody = z
  .object({
    first_name: z.string().trim().max(100),
    last_name: z.string().trim().max(100),
    title: z.string().trim().max(200),
    company_name: z.string().trim().max(200),
    calendar_url: optionalUrl('a booking page'),
    photo_url: imageRef.nullable(),
    selected: z.boolean(),
  })
  .partial();
