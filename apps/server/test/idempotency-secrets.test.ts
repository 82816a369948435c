import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { idempotencyKeys } from '../src/db/schema/index.ts';
import { SECRET_SHOWN_ONCE } from '../src/lib/idempotency.ts';
import { createTestApp } from './helpers.ts';
import { makeClient, signedIn } from './http.ts';
import type { Browser } from './http.ts';

const totpNow = (secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();

// Issue 37 item 5: the idempotency store kept whole replies for a day, so TOTP secrets, recovery codes,
// embedded-report tokens and whsec_ signing secrets sat in idempotency_keys in plaintext, and a retry
// with the same key was sent them again.
describe('replies that carry a secret are not kept for Idempotency-Key replays', async () => {
  const app = await createTestApp();
  const acme = await makeClient(app);
  let n = 0;

  /** Sends the write with a fresh key, then the same write again; both replies. */
  const twice = async (b: Browser, method: 'POST', url: string, body?: unknown) => {
    const headers = { 'idempotency-key': `secret-reply-${++n}-${Date.now()}` };
    const first = await b.request({ method, url, payload: body as object, headers });
    const replay = await b.request({ method, url, payload: body as object, headers });
    return { first, replay };
  };
  /** Every kept reply, as text: none may hold the secret. */
  const keptReplies = async () => JSON.stringify(await app.db.select().from(idempotencyKeys));
  const expectNotKeptNorReplayed = async (
    replay: Awaited<ReturnType<typeof twice>>['replay'],
    secrets: string[],
  ) => {
    expect(replay.statusCode).toBe(410);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual({ message: SECRET_SHOWN_ONCE });
    const kept = await keptReplies();
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      expect(replay.body).not.toContain(secret);
      expect(kept).not.toContain(secret);
    }
  };

  it('TOTP enrolment (its secret) and its confirmation (the recovery codes)', async () => {
    const { browser } = await signedIn(app, { [acme]: 'yellow_sdr' });
    const enrol = await twice(browser, 'POST', '/v1/api/user/mfa');
    expect(enrol.first.statusCode).toBe(200);
    const { secret } = enrol.first.json();
    // Before: 200 with the same secret, kept in idempotency_keys.body.
    await expectNotKeptNorReplayed(enrol.replay, [secret]);

    const confirm = await twice(browser, 'POST', '/v1/api/user/mfa/confirm', { code: totpNow(secret) });
    expect(confirm.first.statusCode).toBe(200);
    const codes: string[] = confirm.first.json().recovery_codes;
    expect(codes).toHaveLength(10);
    await expectNotKeptNorReplayed(confirm.replay, codes);
  });

  it('an embedded report link (its token)', async () => {
    const { browser } = await signedIn(app, { [acme]: 'purple_owner' });
    const { first, replay } = await twice(browser, 'POST', `/v1/rest/client/${acme}/reports/embedded`, {
      name: 'Board summary',
      report: 'summary',
    });
    expect(first.statusCode).toBe(201);
    const { token, url } = first.json();
    await expectNotKeptNorReplayed(replay, [token, url]);
  });

  it('a webhook endpoint and a rotated secret (whsec_…)', async () => {
    const { browser } = await signedIn(app, { [acme]: 'purple_owner' });
    const base = `/v1/hookly/client/${acme}/settings`;
    const created = await twice(browser, 'POST', base, {
      url: 'https://hooks.example.com/in',
      events: ['click'],
    });
    expect(created.first.statusCode).toBe(201);
    const { endpoint, secret } = created.first.json();
    expect(secret).toMatch(/^whsec_/);
    await expectNotKeptNorReplayed(created.replay, [secret]);

    const rotated = await twice(browser, 'POST', `${base}/${endpoint.id}/rotate_secret`);
    expect(rotated.first.statusCode).toBe(200);
    const next = rotated.first.json().secret;
    expect(next).not.toBe(secret);
    await expectNotKeptNorReplayed(rotated.replay, [next]);
  });

  it('a refusal carries no secret and is replayed as before; other writes are replayed whole', async () => {
    const { browser } = await signedIn(app, { [acme]: 'purple_owner' });
    const refused = await twice(browser, 'POST', '/v1/api/user/mfa/confirm', { code: '000000' });
    expect(refused.first.statusCode).toBe(409);
    expect(refused.replay.statusCode).toBe(409);
    expect(refused.replay.headers['idempotent-replayed']).toBe('true');
    const client = await twice(browser, 'POST', '/v1/rest/client', { name: 'Initech' });
    expect(client.first.statusCode).toBe(201);
    expect(client.replay.statusCode).toBe(201);
    expect(client.replay.json()).toEqual(client.first.json());
  });
});
