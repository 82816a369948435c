import { and, eq, lt } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { idempotencyKeys } from '../db/schema/index.ts';
import { hashToken } from './crypto.ts';

const KEY = /^[\w.:-]{8,128}$/;
const KEEP_MS = 24 * 60 * 60 * 1000;
const REPLAYED_HEADERS = ['content-type', 'location'];

declare module 'fastify' {
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyRequest {
    idempotency: { scope: string; key: string; body?: string } | null;
  }
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyContextConfig {
    /**
     * The route's successful reply carries a secret shown only once (a TOTP secret, recovery codes, a
     * token, a signing secret): it is not kept for replays (issue 37 item 5).
     */
    secretReply?: boolean;
  }
}

/** What a replay of a secret-bearing reply answers instead of the secret. */
export const SECRET_SHOWN_ONCE_STATUS = 410;
export const SECRET_SHOWN_ONCE =
  'This request was already applied. Its reply carried a secret that is shown only once and is not kept, so it cannot be sent again; start over to get a new one.';

/**
 * Honours `Idempotency-Key` on POST and PATCH: the first request with a key is applied and its reply
 * kept for a day; a retry with the same key and body gets that reply again (`Idempotent-Replayed:
 * true`) instead of applying the write twice; a retry while the first is still running gets 409 (the
 * app retries it); the same key with a different request gets 422. Keys are per user (or per
 * anonymous browser). A 5xx reply is not kept, so the write may be retried; nor is a binary one.
 * A route marked `secretReply` keeps only that it succeeded: its retry gets 410 without the secret,
 * which is neither written to idempotency_keys nor shown twice.
 */
export function idempotency(app: FastifyInstance): void {
  app.decorateRequest('idempotency', null);

  app.addHook('preValidation', async (request, reply) => {
    if (request.method !== 'POST' && request.method !== 'PATCH') return;
    if (!request.routeOptions.config.access || reply.sent) return;
    const key = request.headers['idempotency-key'];
    if (key === undefined) return;
    if (typeof key !== 'string' || !KEY.test(key)) {
      return reply.code(422).send({
        message: 'headers.idempotency-key: must be 8 to 128 letters, digits, or . _ : -',
        errors: [
          { field: 'headers.idempotency-key', message: 'must be 8 to 128 letters, digits, or . _ : -' },
        ],
      });
    }
    const scope = request.auth ? `user:${request.auth.user.id}` : `anon:${request.csrfSecret ?? request.ip}`;
    const fingerprint = hashToken(
      `${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`,
    );
    const db = app.db;
    await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, new Date(Date.now() - KEEP_MS)));
    const inserted = await db
      .insert(idempotencyKeys)
      .values({ scope, key, fingerprint })
      .onConflictDoNothing()
      .returning();
    if (inserted.length) {
      request.idempotency = { scope, key };
      return;
    }
    const [row] = await db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
    if (!row) return;
    if (row.fingerprint !== fingerprint) {
      return reply.code(422).send({
        message: 'headers.idempotency-key: this key was already used for a different request',
        errors: [
          { field: 'headers.idempotency-key', message: 'this key was already used for a different request' },
        ],
      });
    }
    if (row.statusCode === null)
      return reply
        .code(409)
        .send({ message: 'A request with this Idempotency-Key is still being processed.' });
    reply.code(row.statusCode).header('idempotent-replayed', 'true');
    for (const [name, value] of Object.entries(row.headers ?? {})) reply.header(name, value);
    return reply.send(row.body ?? '');
  });

  // The global compression hook may turn the payload into a stream before onSend below sees it, so
  // keep the serialised body here.
  app.addHook('preSerialization', async (request, _reply, payload) => {
    if (request.idempotency) request.idempotency.body = JSON.stringify(payload);
    return payload;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const idem = request.idempotency;
    if (!idem) return payload;
    request.idempotency = null;
    const where = and(eq(idempotencyKeys.scope, idem.scope), eq(idempotencyKeys.key, idem.key));
    // A binary reply (a rendered image) cannot be kept as text: the key is let go like a 5xx's,
    // so a retry runs again rather than failing on bytes PostgreSQL text cannot hold.
    const binary =
      Buffer.isBuffer(payload) &&
      !/^(text\/|application\/json)/.test(String(reply.getHeader('content-type')));
    if (reply.statusCode >= 500 || binary) {
      await app.db.delete(idempotencyKeys).where(where);
      return payload;
    }
    if (request.routeOptions.config.secretReply && reply.statusCode < 400) {
      await app.db
        .update(idempotencyKeys)
        .set({
          statusCode: SECRET_SHOWN_ONCE_STATUS,
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body: JSON.stringify({ message: SECRET_SHOWN_ONCE }),
        })
        .where(where);
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const v = reply.getHeader(name);
      if (typeof v === 'string') headers[name] = v;
    }
    const body =
      typeof payload === 'string'
        ? payload
        : Buffer.isBuffer(payload)
          ? payload.toString('utf8')
          : (idem.body ?? '');
    await app.db.update(idempotencyKeys).set({ statusCode: reply.statusCode, headers, body }).where(where);
    return payload;
  });
}
