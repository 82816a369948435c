import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_MAX_ENDPOINTS,
  WEBHOOK_RETRY_SCHEDULE_SECONDS,
  WEBHOOK_ROTATION_GRACE_HOURS,
} from '@rally/shared/schemas/hookly';
import type {
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointChange,
  WebhookEndpointCreate,
  WebhookEventType,
} from '@rally/shared/schemas/hookly';
import type { Db } from '../../db/client.ts';
import type { SecretBox } from '../../lib/crypto.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import type { JobQueue } from '../../lib/queue.ts';
import { CACHES, createSharedCache } from '../../lib/shared-cache.ts';
import type { SharedCacheDeps } from '../../lib/shared-cache.ts';
import { maskUrl, maskUrlsIn } from '../../lib/mask-url.ts';
import { postDelivery, urlProblem } from './outbound.ts';
import type { OutboundOptions, PostResult } from './outbound.ts';
import * as repo from './repository.ts';
import type { DeliveryRow, EndpointRow } from './repository.ts';
import { sampleData } from './samples.ts';

export const WEBHOOK_JOB = 'webhook-deliver';
export type WebhookJob = { deliveryId: string; attempt: number };

/**
 * How long a client's subscribed events are remembered by the emitters (the ingest path asks often).
 * A change is forgotten on every instance at once (Redis); where other instances could not be told
 * (PostgreSQL without Redis) nothing is remembered: a remembered "no endpoint" lost 3 of 6 clicks
 * on another instance for good (issue 41 item 5).
 */
const SUBSCRIPTIONS_TTL_MS = 10_000;
/** A delivery whose next attempt is this late has lost its job (a crash between steps): queued again. */
const OVERDUE_GRACE_MS = 2 * 60_000;
/** Finished deliveries are kept in the log this long, then pruned. */
export const DELIVERY_RETENTION_DAYS = 30;

/** A new signing secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`,
 * keyed by the base64-decoded part of the secret after `whsec_`.
 */
export function sign(secret: string, webhookId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const mac = createHmac('sha256', key).update(`${webhookId}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * The headers of one attempt (the timestamp is the attempt's, so each is signed afresh). `secrets`:
 * the current secret first, then, during a rotation's grace period, the previous one; the signature
 * header lists one signature per secret, space-separated, as Standard Webhooks specifies for
 * zero-downtime rotation ("Signature scheme").
 */
export function signedHeaders(secrets: string | string[], webhookId: string, body: string, now = new Date()) {
  const timestamp = Math.floor(now.getTime() / 1000);
  const list = Array.isArray(secrets) ? secrets : [secrets];
  return {
    'content-type': 'application/json',
    'user-agent': 'Rally-Webhooks/1',
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': list.map((s) => sign(s, webhookId, timestamp, body)).join(' '),
  };
}

/**
 * The wait before retry `attempt` + 1, in ms: the schedule's entry for it (Standard Webhooks' example
 * schedule, over three days) with up to 10 % jitter so retries of many deliveries spread out, and
 * never sooner than the receiver's Retry-After.
 */
export function retryDelayMs(
  attempt: number,
  schedule: readonly number[],
  retryAfter?: number,
  random = Math.random,
): number {
  const base = (schedule[Math.min(attempt, schedule.length) - 1] ?? 0) * 1000;
  return Math.max(base * (1 + random() * 0.1), retryAfter ?? 0);
}

/** Job ids derived from the delivery and attempt: queueing the same attempt twice queues it once. */
function jobId(deliveryId: string, attempt: number): string {
  const h = createHash('sha256').update(`${deliveryId}:${attempt}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function secretHint(box: SecretBox, row: EndpointRow): string {
  return `…${box.decrypt(row.secretEnc).slice(-4)}`;
}

export function toDeliveryReply(d: DeliveryRow): WebhookDelivery {
  return {
    id: d.id,
    endpoint_id: d.endpointId,
    event_type: d.eventType,
    webhook_id: d.webhookId,
    is_test: d.isTest,
    status: d.status,
    attempts: d.attempts,
    last_error: d.lastError === null ? null : maskUrlsIn(d.lastError),
    last_status_code: d.lastStatusCode,
    next_attempt_at: d.status === 'pending' || d.status === 'retrying' ? iso(d.nextAttemptAt) : null,
    delivered_at: iso(d.deliveredAt),
    created_at: d.createdAt.toISOString(),
  };
}

export type WebhookDeps = {
  db: Db;
  queue: JobQueue;
  box: SecretBox;
  log: FastifyBaseLogger;
  /** ALLOW_PRIVATE_FETCH: endpoints on loopback and private addresses (and plain http) are allowed. */
  allowPrivate: boolean;
  /** Waits before each retry in seconds (its length + 1 attempts in all); tests shorten it. */
  retryScheduleSeconds?: readonly number[];
  /** Per-attempt timeout. Default 20 s (Standard Webhooks recommends 15–30 s). */
  timeoutMs?: number;
  /** Where the subscribed-events cache is shared (default: this process only, one instance). */
  caches?: SharedCacheDeps;
};

/** What the product's features call when something happened (a no-op without a subscribed endpoint). */
export type WebhookEvents = {
  emit(clientId: string, type: WebhookEventType, data: Record<string, unknown>, at?: Date): Promise<void>;
};

/**
 * Webhooks (SPEC.md §7 "hookly", ARCHITECTURE.md §12): endpoints per client, and the deliveries of
 * the events they subscribe to, each a queue job that signs the body the Standard Webhooks way and
 * posts it; a failed attempt is retried on Standard Webhooks' schedule (three days, honouring a
 * Retry-After), a 410 Gone turns the endpoint off, and every attempt is kept in the endpoint's
 * delivery log for DELIVERY_RETENTION_DAYS.
 */
export function createWebhookService(deps: WebhookDeps) {
  const { db, queue, box, log } = deps;
  const outbound: OutboundOptions = { allowPrivate: deps.allowPrivate, timeoutMs: deps.timeoutMs };
  const schedule = deps.retryScheduleSeconds ?? WEBHOOK_RETRY_SCHEDULE_SECONDS;
  const maxAttempts = deps.retryScheduleSeconds ? schedule.length + 1 : WEBHOOK_MAX_ATTEMPTS;
  const subscriptions = createSharedCache<Set<WebhookEventType>>(
    deps.caches ?? { redis: undefined, multiInstance: false, log },
    { name: CACHES.webhookEvents, max: 10_000, ttlMs: SUBSCRIPTIONS_TTL_MS },
  );

  function toReply(
    row: EndpointRow & { lastDelivery?: { status: DeliveryRow['status']; createdAt: Date } | null },
  ): WebhookEndpoint {
    return {
      id: row.id,
      // A receiver's key in its URL is not shown back (issue 37); the stored URL is used as typed.
      url: maskUrl(row.url),
      description: row.description,
      events: [...row.events].sort((a, b) => WEBHOOK_EVENT_TYPES.indexOf(a) - WEBHOOK_EVENT_TYPES.indexOf(b)),
      enabled: row.enabled,
      secret_hint: secretHint(box, row),
      previous_secret_expires_at:
        row.previousSecretEnc && row.previousSecretExpiresAt && row.previousSecretExpiresAt > new Date()
          ? row.previousSecretExpiresAt.toISOString()
          : null,
      disabled_reason: row.enabled ? null : row.disabledReason,
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
      last_delivery: row.lastDelivery
        ? { status: row.lastDelivery.status, created_at: row.lastDelivery.createdAt.toISOString() }
        : null,
    };
  }

  async function checkUrl(url: string): Promise<void> {
    const problem = await urlProblem(url, outbound);
    if (problem) throw fieldError('body.url', problem);
  }

  async function queueAttempt(deliveryId: string, attempt: number, startAfter?: Date): Promise<void> {
    await queue.send<WebhookJob>(
      WEBHOOK_JOB,
      { deliveryId, attempt },
      { id: jobId(deliveryId, attempt), ...(startAfter ? { startAfter } : {}) },
    );
  }

  /** Stores one delivery per endpoint and queues their first attempts. */
  async function enqueue(
    clientId: string,
    endpointIds: string[],
    type: WebhookEventType,
    data: Record<string, unknown>,
    at: Date,
    isTest: boolean,
  ): Promise<DeliveryRow[]> {
    const payload = JSON.stringify({
      type,
      timestamp: at.toISOString(),
      data: { client_id: clientId, ...data },
    });
    const rows = await repo.insertDeliveries(
      db,
      endpointIds.map((endpointId) => ({
        clientId,
        endpointId,
        eventType: type,
        webhookId: `msg_${randomUUID().replaceAll('-', '')}`,
        payload,
        isTest,
      })),
    );
    for (const r of rows) await queueAttempt(r.id, 1);
    return rows;
  }

  /** One attempt of a delivery (the queue job). Idempotent: a finished or recorded attempt is not repeated. */
  async function deliver(job: WebhookJob): Promise<void> {
    const found = await repo.deliveryToSend(db, job.deliveryId);
    if (!found) return; // its endpoint was deleted
    const d = found.delivery;
    if (d.status === 'succeeded' || d.status === 'failed') return;
    if (d.attempts >= job.attempt) {
      // This attempt ran and was recorded, then the process stopped before the next was queued.
      if (d.status === 'retrying') await queueAttempt(d.id, d.attempts + 1, d.nextAttemptAt ?? undefined);
      return;
    }
    let result: PostResult;
    if (!found.enabled) {
      result = { ok: false, status: null, error: 'The endpoint is disabled' };
    } else {
      const secrets = [box.decrypt(found.secretEnc)];
      // During a rotation's grace period the old secret signs too, so receivers can switch over.
      if (
        found.previousSecretEnc &&
        found.previousSecretExpiresAt &&
        found.previousSecretExpiresAt > new Date()
      ) {
        secrets.push(box.decrypt(found.previousSecretEnc));
      }
      result = await postDelivery(
        found.url,
        signedHeaders(secrets, d.webhookId, d.payload),
        d.payload,
        outbound,
      );
    }
    const now = new Date();
    if (result.ok) {
      await repo.recordAttempt(db, d.id, job.attempt, {
        status: 'succeeded',
        lastError: null,
        lastStatusCode: result.status,
        nextAttemptAt: null,
        deliveredAt: now,
      });
      return;
    }
    const last = job.attempt >= maxAttempts || !found.enabled || result.final === true;
    const next = last
      ? null
      : new Date(now.getTime() + retryDelayMs(job.attempt, schedule, result.retryAfterMs));
    let error = result.error;
    if (result.gone) {
      // The receiver no longer wants these webhooks: the endpoint is turned off, saying why.
      const reason = `Turned off by Rally on ${now.toISOString()}: the endpoint answered 410 Gone, which asks senders to stop.`;
      await repo.disableEndpoint(db, d.clientId, d.endpointId, reason);
      await subscriptions.forget(d.clientId);
      error = `${error}. The endpoint was turned off; turn it on again to resume deliveries.`;
    }
    const recorded = await repo.recordAttempt(db, d.id, job.attempt, {
      status: last ? 'failed' : 'retrying',
      lastError: error.slice(0, 500),
      lastStatusCode: result.status,
      nextAttemptAt: next,
      deliveredAt: null,
    });
    log.info(
      { delivery: d.id, attempt: job.attempt, status: result.status, last },
      'webhook delivery attempt failed',
    );
    if (recorded && next) await queueAttempt(d.id, job.attempt + 1, next);
  }

  async function requeueOverdue(): Promise<number> {
    const rows = await repo.overdueDeliveries(db, OVERDUE_GRACE_MS);
    for (const r of rows) await queueAttempt(r.id, r.attempts + 1);
    return rows.length;
  }

  /** Deletes finished deliveries older than the retention; returns how many went. */
  function pruneDeliveries(now = new Date()): Promise<number> {
    return repo.pruneDeliveries(db, new Date(now.getTime() - DELIVERY_RETENTION_DAYS * 86_400_000));
  }

  async function mustFind(clientId: string, id: string): Promise<EndpointRow> {
    const row = await repo.findEndpoint(db, clientId, id);
    if (!row) throw httpError(404, 'There is no such webhook endpoint.');
    return row;
  }

  const events: WebhookEvents = {
    async emit(clientId, type, data, at = new Date()) {
      try {
        const subscribed = await subscriptions.load(clientId, () => repo.subscribedEvents(db, clientId));
        if (!subscribed.has(type)) return;
        const endpoints = await repo.endpointsFor(db, clientId, type);
        if (!endpoints.length) return;
        await enqueue(
          clientId,
          endpoints.map((e) => e.id),
          type,
          data,
          at,
          false,
        );
      } catch (err) {
        log.warn({ err, clientId, type }, 'webhook event not queued');
      }
    },
  };

  return {
    ...events,
    events,
    deliver,
    requeueOverdue,
    pruneDeliveries,

    register() {
      // A job ends when its attempt is recorded; the queue's own retries cover a worker that died.
      // Taken 25 at a time and posted side by side, so a burst of events is not paced by the polling
      // interval, and a slow receiver delays a batch by its timeout once, not each delivery behind it.
      queue.register<WebhookJob>(
        WEBHOOK_JOB,
        (data) => deliver(data),
        { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 120 },
        { batchSize: 25 },
      );
    },

    async list(clientId: string): Promise<WebhookEndpoint[]> {
      return (await repo.listEndpoints(db, clientId)).map(toReply);
    },

    async create(
      clientId: string,
      userId: string,
      body: WebhookEndpointCreate,
    ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
      await checkUrl(body.url);
      if ((await repo.countEndpoints(db, clientId)) >= WEBHOOK_MAX_ENDPOINTS) {
        throw fieldError('body.url', `a client may have at most ${WEBHOOK_MAX_ENDPOINTS} webhook endpoints`);
      }
      const secret = newSecret();
      const row = await repo.insertEndpoint(db, {
        clientId,
        url: body.url,
        events: body.events,
        description: body.description ?? '',
        enabled: body.enabled ?? true,
        secretEnc: box.encrypt(secret),
        createdBy: userId,
      });
      await subscriptions.forget(clientId);
      return { endpoint: toReply({ ...row, lastDelivery: null }), secret };
    },

    async change(clientId: string, id: string, body: WebhookEndpointChange): Promise<WebhookEndpoint> {
      await mustFind(clientId, id);
      if (body.url !== undefined) await checkUrl(body.url);
      const row = await repo.updateEndpoint(db, clientId, id, {
        ...(body.url !== undefined ? { url: body.url } : {}),
        ...(body.events !== undefined ? { events: body.events } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
        // Turned on again by the user: Rally's reason for turning it off no longer applies.
        ...(body.enabled === true ? { disabledReason: null } : {}),
      });
      if (!row) throw httpError(404, 'There is no such webhook endpoint.');
      await subscriptions.forget(clientId);
      const listed = (await repo.listEndpoints(db, clientId)).find((e) => e.id === id);
      return toReply(listed ?? row);
    },

    async rotateSecret(clientId: string, id: string): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
      const current = await mustFind(clientId, id);
      const secret = newSecret();
      // The old secret keeps signing beside the new one for the grace period (zero-downtime
      // rotation); a second rotation within it drops the oldest.
      const row = await repo.updateEndpoint(db, clientId, id, {
        secretEnc: box.encrypt(secret),
        previousSecretEnc: current.secretEnc,
        previousSecretExpiresAt: new Date(Date.now() + WEBHOOK_ROTATION_GRACE_HOURS * 3_600_000),
      });
      if (!row) throw httpError(404, 'There is no such webhook endpoint.');
      const listed = (await repo.listEndpoints(db, clientId)).find((e) => e.id === id);
      return { endpoint: toReply(listed ?? row), secret };
    },

    async remove(clientId: string, id: string): Promise<void> {
      if (!(await repo.deleteEndpoint(db, clientId, id))) {
        throw httpError(404, 'There is no such webhook endpoint.');
      }
      await subscriptions.forget(clientId);
    },

    /** The test export: a sample of each event the endpoint subscribes to, delivered like real ones. */
    async sendTest(clientId: string, id: string): Promise<WebhookDelivery[]> {
      const endpoint = await mustFind(clientId, id);
      const at = new Date();
      const out: DeliveryRow[] = [];
      for (const type of WEBHOOK_EVENT_TYPES.filter((t) => endpoint.events.includes(t))) {
        out.push(...(await enqueue(clientId, [endpoint.id], type, sampleData(type, clientId, at), at, true)));
      }
      return out.map(toDeliveryReply);
    },

    async deliveries(clientId: string, id: string, limit: number): Promise<WebhookDelivery[]> {
      await mustFind(clientId, id);
      return (await repo.listDeliveries(db, clientId, id, limit)).map(toDeliveryReply);
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
