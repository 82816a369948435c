import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from '@rally/shared/schemas/hookly';
import { clients, users } from './identity.ts';

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
};

const clientRef = () =>
  uuid('client_id')
    .notNull()
    .references(() => clients.id, { onDelete: 'cascade' });

/**
 * A client's webhook endpoint (SPEC.md §7 "Webhook settings under /hookly/client/{id}/settings"):
 * where Rally posts the events it subscribes to. The signing secret (`whsec_…`, Standard Webhooks)
 * is sealed with APP_SECRET; it is shown to the user once, when made or rotated.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: clientRef(),
    url: text('url').notNull(),
    description: text('description').notNull().default(''),
    events: text('events', { enum: WEBHOOK_EVENT_TYPES }).array().notNull(),
    secretEnc: text('secret_enc').notNull(),
    /**
     * The secret before the last rotation, sealed, and until when deliveries are still signed with it
     * beside the new one (Standard Webhooks: both signatures, space-separated, for zero-downtime
     * rotation). Null once the grace period is over or when never rotated.
     */
    previousSecretEnc: text('previous_secret_enc'),
    previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true }),
    enabled: boolean('enabled').notNull().default(true),
    /** Why Rally turned the endpoint off (e.g. the receiver answered 410 Gone); cleared on enabling. */
    disabledReason: text('disabled_reason'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [index('webhook_endpoints_client_idx').on(t.clientId)],
);

/**
 * One event for one endpoint, and how its delivery went: sent by a queue job, retried with backoff,
 * kept for the endpoint's delivery log. `payload` is the exact body signed and sent.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: clientRef(),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventType: text('event_type', { enum: WEBHOOK_EVENT_TYPES }).notNull(),
    /** The `webhook-id` header: the same on every attempt, so receivers can drop duplicates. */
    webhookId: text('webhook_id').notNull(),
    payload: text('payload').notNull(),
    isTest: boolean('is_test').notNull().default(false),
    status: text('status', { enum: WEBHOOK_DELIVERY_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    lastStatusCode: integer('last_status_code'),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).defaultNow(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('webhook_deliveries_webhook_id_idx').on(t.webhookId),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt),
    // The sweep that queues again deliveries whose job was lost looks only at unfinished ones.
    index('webhook_deliveries_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`status in ('pending', 'retrying')`),
  ],
);
