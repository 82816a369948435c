import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RETRY_SCHEDULE_SECONDS,
  WEBHOOK_ROTATION_GRACE_HOURS,
} from '@rally/shared/schemas/hookly';
import type { WebhookDelivery, WebhookEndpointWithSecret } from '@rally/shared/schemas/hookly';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema/index.ts';
import { createTestApp, waitFor } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import { startReceiver, verified } from '../../../test/webhook-receiver.ts';
import { DELIVERY_RETENTION_DAYS, retryDelayMs } from './index.ts';
import { DEFAULT_TIMEOUT_MS, retryAfterMs } from './outbound.ts';

/**
 * How deliveries follow the Standard Webhooks specification (spec/standard-webhooks.md in
 * github.com/standard-webhooks/standard-webhooks): zero-downtime secret rotation, the retry
 * schedule over days, 410 Gone, Retry-After, the request timeout; and the log's retention. Signatures
 * are checked with the official `standardwebhooks` verifier.
 */

describe('the schedule, Retry-After and the timeout (unit)', () => {
  it("retries on the specification's example schedule: 10 attempts over three days, with jitter", () => {
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(10);
    const waits = WEBHOOK_RETRY_SCHEDULE_SECONDS.map((_, i) =>
      retryDelayMs(i + 1, WEBHOOK_RETRY_SCHEDULE_SECONDS, undefined, () => 0),
    );
    expect(waits.map((ms) => ms / 1000)).toEqual([5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]);
    // "Time since start" of the last attempt: 75:35:05 (before: 5 attempts over about 7.5 minutes).
    expect(waits.reduce((a, b) => a + b, 0)).toBe((75 * 3600 + 35 * 60 + 5) * 1000);
    // Up to 10 % jitter.
    expect(retryDelayMs(2, WEBHOOK_RETRY_SCHEDULE_SECONDS, undefined, () => 0.999)).toBeLessThan(330_000);
  });

  it('never retries sooner than Retry-After (seconds or an HTTP date), capped at a day', () => {
    expect(retryAfterMs('120')).toBe(120_000);
    expect(retryAfterMs(new Date(Date.UTC(2030, 0, 1, 0, 1)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(
      60_000,
    );
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs('9999999')).toBe(86_400_000);
    expect(retryDelayMs(1, WEBHOOK_RETRY_SCHEDULE_SECONDS, 120_000, () => 0)).toBe(120_000);
    expect(retryDelayMs(3, WEBHOOK_RETRY_SCHEDULE_SECONDS, 120_000, () => 0)).toBe(1_800_000);
  });

  it('waits 15–30 s for a receiver ("A recommended request timeout … between 15 and 30s"; before: 10 s)', () => {
    expect(DEFAULT_TIMEOUT_MS).toBeGreaterThanOrEqual(15_000);
    expect(DEFAULT_TIMEOUT_MS).toBeLessThanOrEqual(30_000);
  });
});

describe('deliveries (issue 40 item 8)', async () => {
  const app = await createTestApp({ webhookRetrySchedule: [1, 1, 1, 1] });
  const mine = await makeClient(app, 'Acme');
  const { browser: owner } = await signedIn(app, { [mine]: 'purple_owner' });
  const base = `/v1/hookly/client/${mine}/settings`;

  async function create(url: string, events = ['invoice']) {
    const res = await owner.post(base, { url, events });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as WebhookEndpointWithSecret;
  }
  const log = async (endpointId: string) =>
    ((await owner.get(`${base}/${endpointId}/deliveries`)).json() as { deliveries: WebhookDelivery[] })
      .deliveries;
  const settled = (endpointId: string, n: number) =>
    waitFor(async () => {
      const all = await log(endpointId);
      return all.length >= n && all.every((d) => d.status === 'succeeded' || d.status === 'failed')
        ? all
        : null;
    }, 30_000);
  const listed = async (id: string) =>
    (await owner.get(base)).json().endpoints.find((e: { id: string }) => e.id === id);

  it('rotating signs with the old and the new secret, space-separated, for the grace period; then the new only', async () => {
    const receiver = await startReceiver();
    const { endpoint, secret: old } = await create(receiver.url);
    const rotated = await owner.post(`${base}/${endpoint.id}/rotate_secret`);
    expect(rotated.statusCode).toBe(200);
    const fresh = rotated.json().secret as string;
    const ends = Date.parse(rotated.json().endpoint.previous_secret_expires_at);
    expect(ends - Date.now()).toBeGreaterThan((WEBHOOK_ROTATION_GRACE_HOURS - 1) * 3_600_000);

    await owner.post(`${base}/${endpoint.id}/test`);
    await settled(endpoint.id, 1);
    const during = receiver.received[0]!;
    // Before, the rotation swapped the secret at once: one signature, and the old secret failed.
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verified(fresh, during).type).toBe('invoice');
    expect(verified(old, during).type).toBe('invoice');

    // The grace period is over: only the new secret signs.
    await app.db
      .update(webhookEndpoints)
      .set({ previousSecretExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(webhookEndpoints.id, endpoint.id));
    expect((await listed(endpoint.id)).previous_secret_expires_at).toBeNull();
    await owner.post(`${base}/${endpoint.id}/test`);
    await settled(endpoint.id, 2);
    const after = receiver.received[1]!;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verified(fresh, after).type).toBe('invoice');
    expect(() => verified(old, after)).toThrow();
  });

  it('410 Gone turns the endpoint off at once, without retries, and says why; turning it on clears that', async () => {
    const receiver = await startReceiver(() => 410);
    const { endpoint } = await create(receiver.url);
    await owner.post(`${base}/${endpoint.id}/test`);
    const [d] = await settled(endpoint.id, 1);
    // Before: retried 5 times and the endpoint stayed on.
    expect(d).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 410 });
    expect(d!.last_error).toMatch(/410.*turned off/);
    expect(receiver.received).toHaveLength(1);
    const off = await listed(endpoint.id);
    expect(off).toMatchObject({ enabled: false });
    expect(off.disabled_reason).toMatch(/410 Gone/);

    const on = await owner.patch(`${base}/${endpoint.id}`, { enabled: true });
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json()).toMatchObject({ enabled: true, disabled_reason: null });
  });

  it("a Retry-After sets the next attempt no sooner than asked (before: the 1 s schedule's wait)", async () => {
    const receiver = await startReceiver((_r, n) =>
      n === 0 ? { status: 503, headers: { 'retry-after': '120' } } : 200,
    );
    const { endpoint } = await create(receiver.url);
    await owner.post(`${base}/${endpoint.id}/test`);
    const d = await waitFor(async () => {
      const [x] = await log(endpoint.id);
      return x?.status === 'retrying' ? x : null;
    }, 20_000);
    expect(d.last_status_code).toBe(503);
    const waited = Date.parse(d.next_attempt_at!) - receiver.received[0]!.at;
    expect(waited).toBeGreaterThanOrEqual(119_000);
    expect(receiver.received).toHaveLength(1);
  });

  it(`prunes finished deliveries older than ${DELIVERY_RETENTION_DAYS} days; unfinished and recent ones stay`, async () => {
    const receiver = await startReceiver();
    const { endpoint } = await create(receiver.url);
    const old = new Date(Date.now() - (DELIVERY_RETENTION_DAYS + 1) * 86_400_000);
    const row = (status: 'succeeded' | 'failed' | 'retrying', createdAt: Date, n: number) => ({
      clientId: mine,
      endpointId: endpoint.id,
      eventType: 'invoice' as const,
      webhookId: `msg_prune_${n}_${endpoint.id}`,
      payload: '{}',
      status,
      createdAt,
      nextAttemptAt: status === 'retrying' ? new Date(Date.now() + 3_600_000) : null,
    });
    await app.db
      .insert(webhookDeliveries)
      .values([
        row('succeeded', old, 1),
        row('failed', old, 2),
        row('retrying', old, 3),
        row('succeeded', new Date(), 4),
      ]);
    expect(await app.webhooks.pruneDeliveries()).toBeGreaterThanOrEqual(2);
    const left = await app.db
      .select({ webhookId: webhookDeliveries.webhookId })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpoint.id));
    expect(left.map((r) => r.webhookId.split('_')[2]).sort()).toEqual(['3', '4']);
  });
});
