import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { BUILT_IN_ROLES } from '@rally/shared';
import { messageReply, registerBody, registerConfirmBody, selfReply } from '@rally/shared/schemas/auth';
import { clients, memberships, users } from '../../db/schema/index.ts';
import { NOT_AUTHENTICATED } from '../../lib/access.ts';
import { createSecretBox } from '../../lib/crypto.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';
import { createLimiter } from '../../lib/rate-limit.ts';
import type { LimitResult } from '../../lib/rate-limit.ts';
import { selfOfSession } from '../../plugins/auth.ts';
import { emails } from './emails.ts';
import { findUserByEmail } from './repository.ts';

/** How long the e-mailed sign-up link works. */
export const REGISTER_LINK_TTL = 24 * 60 * 60_000;
/** Key derivation label of sign-up links: they never open with the key of secrets at rest. */
export const REGISTER_LINK_PURPOSE = 'register-link-v1';
export const REGISTER_ACCEPTED =
  'Check your e-mail: we sent a link to finish creating your account to that address.';
const LINK_INVALID =
  'This sign-up link is invalid, has expired or was already used. Sign in, or sign up again.';

const sealedSignUp = z.object({
  purpose: z.literal('register'),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  company_name: z.string(),
  password_hash: z.string(),
  expires_at: z.number(),
});
export type SealedSignUp = z.infer<typeof sealedSignUp>;

/** What the sign-up link carries, encrypted and authenticated under APP_SECRET (decision 0024). */
export function sealSignUp(appSecret: string, signUp: Omit<SealedSignUp, 'purpose'>): string {
  return createSecretBox(appSecret, REGISTER_LINK_PURPOSE).encrypt(
    JSON.stringify({ purpose: 'register', ...signUp }),
  );
}

function openSignUp(appSecret: string, token: string): SealedSignUp | null {
  try {
    const plain = createSecretBox(appSecret, REGISTER_LINK_PURPOSE).decrypt(token);
    const parsed = sealedSignUp.safeParse(JSON.parse(plain));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // tampered, cut short, or sealed under another key
  }
}

const isUniqueViolation = (err: unknown) => {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === '23505' || e.cause?.code === '23505';
};

function tooMany(reply: FastifyReply, r: LimitResult) {
  const seconds = r.allowed ? 1 : r.retryAfterSeconds;
  return reply
    .code(429)
    .header('retry-after', String(seconds))
    .send({ message: `Too many attempts. Try again in ${seconds} seconds.` });
}

/**
 * Self-serve sign-up (issue 37 item 11). `POST /api/register` answers every address alike — same
 * status, body, no cookie, and the same work (limits, one argon2 hash) before the reply; whether the
 * address has an account is looked up after the reply is sent. A new address is e-mailed a sealed
 * link; an existing one a notice. `POST /api/register/confirm` creates the user and company from the
 * link and signs in, once.
 */
export const registerRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app;
  const store = { redis: app.redis };
  const windowS = config.loginWindowSeconds;
  const limits = {
    ip: createLimiter(store, 'register-ip', config.loginMaxAttempts * 4, windowS),
    address: createLimiter(store, 'register-address', config.loginMaxAttempts, windowS),
    // Guesses of the chosen password with a link in hand.
    confirm: createLimiter(store, 'register-confirm', config.loginMaxAttempts, windowS),
  };

  const pending = new WeakMap<FastifyRequest, Omit<SealedSignUp, 'purpose' | 'expires_at'>>();
  const inFlight = new Set<Promise<void>>();
  app.addHook('onClose', async () => void (await Promise.allSettled(inFlight)));
  const mailAfterReply = async (request: FastifyRequest) => {
    const signUp = pending.get(request);
    if (!signUp) return;
    pending.delete(request);
    const work = (async () => {
      const existing = await findUserByEmail(db, signUp.email);
      if (existing) {
        await app.outbox.enqueue(
          emails.registerExisting(existing.email, `${config.publicUrl}/reset-password`),
        );
        return;
      }
      const token = sealSignUp(config.appSecret, { ...signUp, expires_at: Date.now() + REGISTER_LINK_TTL });
      await app.outbox.enqueue(
        emails.registerConfirm(signUp.email, `${config.publicUrl}/register?confirm=${token}`),
      );
    })().catch((err: unknown) => request.log.error({ err }, 'could not send the sign-up e-mail'));
    inFlight.add(work);
    await work;
    inFlight.delete(work);
  };

  app.post(
    '/api/register',
    {
      config: { access: 'public' },
      onResponse: async (request) => mailAfterReply(request),
      schema: {
        tags: ['auth'],
        summary: 'Sign up: e-mails a link that creates the user and their first client',
        description:
          'Answers 202 alike for every address, with no cookie. A new address gets a link to ' +
          '`/register?confirm=<token>` (valid 24 hours; finish with `POST /v1/api/register/confirm`); ' +
          'an address that already has an account gets a notice instead. 20 sign-ups per IP and 5 per ' +
          'address per LOGIN_WINDOW_SECONDS (4× and 1× LOGIN_MAX_ATTEMPTS).',
        body: registerBody,
        response: { 202: messageReply, 429: messageReply },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const email = b.email.trim().toLowerCase();
      const byIp = await limits.ip.hit(request.ip);
      if (!byIp.allowed) return tooMany(reply, byIp);
      const byAddress = await limits.address.hit(email);
      if (!byAddress.allowed) return tooMany(reply, byAddress);
      // Hashed for every address: the link carries the hash, and a known address costs the same.
      const password_hash = await hashPassword(b.password);
      pending.set(request, {
        email,
        first_name: b.first_name,
        last_name: b.last_name,
        company_name: b.company_name,
        password_hash,
      });
      return reply.code(202).send({ message: REGISTER_ACCEPTED });
    },
  );

  app.post(
    '/api/register/confirm',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Finish a sign-up from its e-mailed link: creates the user and client, signs in',
        description:
          'Needs the link token and the password chosen at sign-up (422 `body.password` if it differs). ' +
          'A link works once and for 24 hours; an expired, altered or used link answers 400.',
        body: registerConfirmBody,
        response: { 201: selfReply, 400: messageReply, 429: messageReply },
      },
    },
    async (request, reply) => {
      const signUp = openSignUp(config.appSecret, request.body.token);
      if (!signUp || signUp.expires_at < Date.now()) return reply.code(400).send({ message: LINK_INVALID });
      // Counted before the check, so guesses sent side by side cannot pass the limit.
      const limited = await limits.confirm.hit(signUp.email);
      if (!limited.allowed) return tooMany(reply, limited);
      if (!(await verifyPassword(signUp.password_hash, request.body.password))) {
        throw fieldError('body.password', 'is not the password you chose when signing up');
      }
      if (await findUserByEmail(db, signUp.email)) return reply.code(400).send({ message: LINK_INVALID });
      let userId: string;
      try {
        userId = await db.transaction(async (tx) => {
          const [u] = await tx
            .insert(users)
            .values({
              email: signUp.email,
              firstName: signUp.first_name,
              lastName: signUp.last_name,
              passwordHash: signUp.password_hash,
            })
            .returning({ id: users.id });
          const [c] = await tx
            .insert(clients)
            .values({ name: signUp.company_name })
            .returning({ id: clients.id });
          if (!u || !c) throw new Error('register: insert failed');
          await tx.insert(memberships).values({
            userId: u.id,
            clientId: c.id,
            role: 'purple_owner',
            permissions: [...BUILT_IN_ROLES.purple_owner],
            isDefault: true,
          });
          return u.id;
        });
      } catch (err) {
        // The same link (or another sign-up of the address) finished at the same moment.
        if (isUniqueViolation(err)) return reply.code(400).send({ message: LINK_INVALID });
        throw err;
      }
      await limits.confirm.reset(signUp.email);
      await app.sessions.start(request, reply, userId, { method: 'sign_up' });
      const self = request.auth ? await app.identity.self(request.auth.user.id) : null;
      if (!self || !request.auth) throw httpError(401, NOT_AUTHENTICATED);
      return reply.code(201).send(selfOfSession(self, request.auth));
    },
  );
};
