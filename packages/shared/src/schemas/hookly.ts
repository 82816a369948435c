import { z } from 'zod';

/**
 * Webhooks ("hookly", SPEC.md §7 "Webhook settings under /hookly/client/{id}/settings, plus a test
 * export"): a client's endpoints, the events they subscribe to, and each endpoint's delivery log.
 * Deliveries follow Standard Webhooks (https://www.standardwebhooks.com): headers webhook-id,
 * webhook-timestamp and webhook-signature (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`).
 */

export const WEBHOOK_EVENT_TYPES = [
  'superprospect',
  'click',
  'landing_page_view',
  'sync_finished',
  'import_finished',
  'invoice',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Labels and one-line descriptions for the settings screen. */
export const WEBHOOK_EVENTS: Record<WebhookEventType, { label: string; description: string }> = {
  superprospect: {
    label: 'Superprospect',
    description: 'A target crossed the superprospect rule (a click or enough impressions).',
  },
  click: { label: 'Ad click', description: 'A target clicked an ad.' },
  landing_page_view: { label: 'Landing page view', description: 'A target opened a landing page.' },
  sync_finished: {
    label: 'Sync finished',
    description: 'A sequence platform or CRM sync ended (succeeded, or stopped for good).',
  },
  import_finished: { label: 'Import finished', description: 'A file import ended (done or failed).' },
  invoice: { label: 'Invoice', description: 'An invoice was made, paid or its payment failed.' },
};

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/**
 * Waits before each retry, in seconds: the Standard Webhooks specification's example schedule
 * ("Retries": 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h), over three days in all.
 */
export const WEBHOOK_RETRY_SCHEDULE_SECONDS = [
  5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400,
] as const;
/** Attempts per delivery before it is marked failed: the first and one per scheduled retry. */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_SCHEDULE_SECONDS.length + 1;
/** After a rotation, deliveries are signed with the old secret too for this long. */
export const WEBHOOK_ROTATION_GRACE_HOURS = 24;
export const WEBHOOK_MAX_ENDPOINTS = 20;

const eventsField = z
  .array(z.enum(WEBHOOK_EVENT_TYPES, { message: `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` }))
  .min(1, 'must choose at least one event')
  .max(WEBHOOK_EVENT_TYPES.length, 'lists an event twice')
  .refine((a) => new Set(a).size === a.length, 'lists an event twice');

const urlField = z
  .url({ protocol: /^https?$/, message: 'must be an https:// URL' })
  .max(2000, 'must be at most 2000 characters');

const descriptionField = z.string().trim().max(200, 'must be at most 200 characters');

export const webhookEndpointCreateBody = z.object({
  url: urlField,
  events: eventsField,
  description: descriptionField.optional(),
  enabled: z.boolean().optional(),
});
export type WebhookEndpointCreate = z.infer<typeof webhookEndpointCreateBody>;

export const webhookEndpointChangeBody = z
  .object({
    url: urlField.optional(),
    events: eventsField.optional(),
    description: descriptionField.optional(),
    enabled: z.boolean().optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'must change at least one of url, events, description, enabled',
  });
export type WebhookEndpointChange = z.infer<typeof webhookEndpointChangeBody>;

export const webhookEndpointSchema = z.object({
  id: z.uuid(),
  url: z.string(),
  description: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  enabled: z.boolean(),
  /** The secret's last characters, to tell secrets apart (never the secret itself). */
  secret_hint: z.string(),
  /** Until when deliveries also carry a signature by the secret before the last rotation. */
  previous_secret_expires_at: z.string().nullable(),
  /** Why Rally turned the endpoint off (the receiver answered 410 Gone); null otherwise. */
  disabled_reason: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  /** The newest delivery's status and time, for the list. */
  last_delivery: z.object({ status: z.enum(WEBHOOK_DELIVERY_STATUSES), created_at: z.string() }).nullable(),
});
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

export const webhookSettingsReply = z.object({
  endpoints: z.array(webhookEndpointSchema),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
});
export type WebhookSettings = z.infer<typeof webhookSettingsReply>;

/** A new or rotated endpoint: the only reply that carries the signing secret. */
export const webhookEndpointWithSecretReply = z.object({
  endpoint: webhookEndpointSchema,
  secret: z.string(),
});
export type WebhookEndpointWithSecret = z.infer<typeof webhookEndpointWithSecretReply>;

export const webhookDeliverySchema = z.object({
  id: z.uuid(),
  endpoint_id: z.uuid(),
  event_type: z.enum(WEBHOOK_EVENT_TYPES),
  webhook_id: z.string(),
  is_test: z.boolean(),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  attempts: z.number().int(),
  last_error: z.string().nullable(),
  last_status_code: z.number().int().nullable(),
  next_attempt_at: z.string().nullable(),
  delivered_at: z.string().nullable(),
  created_at: z.string(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

export const webhookDeliveriesQuery = z.object({
  limit: z.coerce
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(200, 'must be at most 200')
    .default(50),
});

export const webhookDeliveriesReply = z.object({ deliveries: z.array(webhookDeliverySchema) });
export type WebhookDeliveries = z.infer<typeof webhookDeliveriesReply>;
