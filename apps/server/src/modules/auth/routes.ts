import { and, eq, isNull, ne } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  loginBody,
  loginReply,
  magicLinkBody,
  messageReply,
  mfaBody,
  mfaRequiredReply,
  mfaConfirmReply,
  mfaEnrolReply,
  resetBody,
  resetRequestBody,
  selfReply,
  updateSelfBody,
} from '@rally/shared/schemas/auth';
import { authTokens, recoveryCodes, sessions, users } from '../../db/schema/index.ts';
import { NOT_AUTHENTICATED, authOf, requireUnscopedSession } from '../../lib/access.ts';
import { selfOfSession } from '../../plugins/auth.ts';
import { createSecretBox } from '../../lib/crypto.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';
import { createLimiter } from '../../lib/rate-limit.ts';
import type { LimitResult } from '../../lib/rate-limit.ts';
import { auditOrigin, recordAuditForUser } from '../audit/index.ts';
import { emails } from './emails.ts';
import { consumeToken, findUser, findUserByEmail, issueToken, peekToken } from './repository.ts';
import { createMfaGuard } from './mfa-guard.ts';
import { MFA_COOKIE, mfaCookieOptions, startMfaChallenge } from './mfa-challenge.ts';
import { enrolment, hashRecoveryCode, newRecoveryCodes, newTotpSecret, verifyTotp } from './totp.ts';

const MAGIC_LINK_TTL = 15 * 60_000;
const RESET_TTL = 60 * 60_000;
const INVALID_CREDENTIALS = 'Invalid email or password.';
const MFA_REQUIRED = 'Enter the code from your authenticator app to finish signing in.';
const ACCEPTED = 'If an account exists for that address, an e-mail is on its way.';

type MailRequest = { kind: 'magic_link' | 'password_reset'; email: string };

function tooMany(reply: FastifyReply, r: LimitResult) {
  const seconds = r.allowed ? 1 : r.retryAfterSeconds;
  return reply
    .code(429)
    .header('retry-after', String(seconds))
    .send({ message: `Too many attempts. Try again in ${seconds} seconds.` });
}

/** Sign-in, password reset, self and MFA (sign-up: register.ts) (SPEC.md §7 "Authentication and users"). */
export const authRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app;
  const box = createSecretBox(config.appSecret);
  const store = { redis: app.redis };
  const windowS = config.loginWindowSeconds;
  const limits = {
    account: createLimiter(store, 'login-account', config.loginMaxAttempts, windowS),
    ip: createLimiter(store, 'login-ip', config.loginMaxAttempts * 10, windowS),
    mfa: createLimiter(store, 'login-mfa', config.loginMaxAttempts, windowS),
    mail: createLimiter(store, 'mail', config.loginMaxAttempts, windowS),
    // Sign-in links and reset mails asked for from one address, whatever the e-mail addresses (issue 20.6).
    mailIp: createLimiter(store, 'mail-ip', config.loginMaxAttempts * 4, windowS),
  };

  /**
   * Sign-in links and password resets: whether the address has an account is looked up only after the
   * reply has been sent (the route's onResponse hook), so a known and an unknown address do exactly the
   * same work before it (two limiter hits) and the answer's time tells nothing (issue 20.6). The mail
   * itself then goes through the durable outbox.
   */
  const mailRequests = new WeakMap<FastifyRequest, MailRequest>();
  const inFlight = new Set<Promise<void>>();
  app.addHook('onClose', async () => void (await Promise.allSettled(inFlight)));
  const acceptMailRequest = async (
    request: FastifyRequest,
    reply: FastifyReply,
    kind: MailRequest['kind'],
    address: string,
  ) => {
    const email = address.trim().toLowerCase();
    const byIp = await limits.mailIp.hit(request.ip);
    if (!byIp.allowed) return tooMany(reply, byIp);
    const byAddress = await limits.mail.hit(`${kind}:${email}`);
    if (!byAddress.allowed) return tooMany(reply, byAddress);
    mailRequests.set(request, { kind, email });
    return reply.code(202).send({ message: ACCEPTED });
  };
  const sendRequestedMail = async (request: FastifyRequest) => {
    const job = mailRequests.get(request);
    if (!job) return;
    mailRequests.delete(request);
    const work = (async () => {
      const user = await findUserByEmail(db, job.email);
      if (!user) return;
      if (job.kind === 'magic_link') {
        const token = await issueToken(db, 'magic_link', user.id, MAGIC_LINK_TTL);
        await app.outbox.enqueue(emails.magicLink(user.email, `${config.publicUrl}/?token=${token}`));
      } else {
        const token = await issueToken(db, 'password_reset', user.id, RESET_TTL);
        await app.outbox.enqueue(
          emails.passwordReset(user.email, `${config.publicUrl}/reset-password?hash=${token}`),
        );
      }
    })().catch((err: unknown) =>
      request.log.error({ err, kind: job.kind }, 'could not send the requested e-mail'),
    );
    inFlight.add(work);
    await work;
    inFlight.delete(work);
  };
  // Verifying against a real hash for unknown users keeps their answer as slow as a wrong password.
  const dummyHash = hashPassword('not-a-real-password');
  const mfaCookie = mfaCookieOptions(config.secureCookies);

  // Second-factor attempts, counted per account and per IP across sign-ins (issues 20.2, 37.3).
  const mfa = createMfaGuard(app);

  const auditSignInFailed = (
    request: FastifyRequest,
    user: { id: string; email: string },
    reason: 'wrong_password' | 'wrong_code',
  ) =>
    recordAuditForUser(db, user.id, {
      ...auditOrigin(request),
      // No session: the actor is the account someone tried to sign in as.
      actor: { id: user.id, email: user.email },
      action: 'auth.sign_in_failed',
      target: { kind: 'user', id: user.id },
      details: { reason },
    });

  const sendSelf = async (request: FastifyRequest, reply: FastifyReply, status = 200) => {
    const self = request.auth ? await app.identity.self(request.auth.user.id) : null;
    if (!self || !request.auth) throw httpError(401, NOT_AUTHENTICATED);
    return reply.code(status).send(selfOfSession(self, request.auth));
  };

  app.get(
    '/api/auth/csrf',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Get a CSRF token (in the X-Xsrf-Token header)',
        response: { 204: z.null() },
      },
    },
    async (_request, reply) => reply.code(204).send(null),
  );

  app.post(
    '/api/auth',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Sign in with e-mail and password',
        body: loginBody,
        response: { 200: loginReply, 400: messageReply, 429: messageReply },
      },
    },
    async (request, reply) => {
      const email = request.body.email.toLowerCase();
      const byAccount = await limits.account.hit(email);
      if (!byAccount.allowed) return tooMany(reply, byAccount);
      const byIp = await limits.ip.hit(request.ip);
      if (!byIp.allowed) return tooMany(reply, byIp);

      const user = await findUserByEmail(db, email);
      const ok = await verifyPassword(user?.passwordHash ?? (await dummyHash), request.body.password);
      if (!user || !user.passwordHash || !ok) {
        // A known account's failures are on its clients' records; an unknown address has no client.
        if (user) await auditSignInFailed(request, user, 'wrong_password');
        return reply.code(400).send({ message: INVALID_CREDENTIALS });
      }

      if (user.mfaSecretEnc) {
        // The password is half the sign-in: its limit starts again only once the code is right too,
        // else each right password would open five more code guesses (issue 37 item 3).
        await startMfaChallenge(db, reply, user.id, config.secureCookies);
        return { mfa: true };
      }
      await limits.account.reset(email);
      await app.sessions.start(request, reply, user.id, { method: 'password' });
      return { mfa: false };
    },
  );

  app.post(
    '/api/auth/mfa',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Second step of sign-in: a TOTP or recovery code',
        body: mfaBody,
        response: { 200: z.object({ ok: z.literal(true) }), 400: messageReply, 429: messageReply },
      },
    },
    async (request, reply) => {
      const token = request.cookies[MFA_COOKIE];
      const challenge = token ? await peekToken(db, 'mfa_challenge', token) : null;
      if (!token || !challenge)
        return reply.code(400).send({ message: 'Your sign-in has expired. Please sign in again.' });
      const limit = await limits.mfa.hit(challenge.id);
      if (!limit.allowed) return tooMany(reply, limit);
      const user = await findUser(db, challenge.userId);
      if (!user?.mfaSecretEnc)
        return reply.code(400).send({ message: 'Your sign-in has expired. Please sign in again.' });
      // Counted first: locked accounts and addresses, and attempts past the limit, are refused before
      // the code is looked at, even a right one.
      const attempt = await mfa.attempt(user.id, request.ip);
      if (!attempt.allowed) return mfa.lockedReply(reply, attempt.lockedFor);

      const code = request.body.code;
      let ok = /^\d{6}$/.test(code) && verifyTotp(box.decrypt(user.mfaSecretEnc), code);
      if (!ok && !/^\d{6}$/.test(code)) {
        const [used] = await db
          .update(recoveryCodes)
          .set({ usedAt: new Date() })
          .where(
            and(
              eq(recoveryCodes.userId, user.id),
              eq(recoveryCodes.codeHash, hashRecoveryCode(code)),
              isNull(recoveryCodes.usedAt),
            ),
          )
          .returning({ id: recoveryCodes.id });
        ok = used !== undefined;
      }
      if (!ok) {
        await auditSignInFailed(request, user, 'wrong_code');
        const lockedNow = await mfa.failed(user, request.ip, attempt);
        if (lockedNow) return mfa.lockedReply(reply, lockedNow);
        return reply
          .code(400)
          .send({ message: 'That code is not valid. Check your authenticator app and try again.' });
      }
      await mfa.passed(user.id, request.ip);
      await limits.account.reset(user.email.toLowerCase());
      if (!(await consumeToken(db, 'mfa_challenge', token)))
        return reply.code(400).send({ message: 'Your sign-in has expired. Please sign in again.' });
      reply.clearCookie(MFA_COOKIE, mfaCookie);
      await app.sessions.start(request, reply, user.id, { method: 'password_and_code' });
      return { ok: true as const };
    },
  );

  app.post(
    '/api/auth/link',
    {
      config: { access: 'public' },
      onResponse: async (request) => sendRequestedMail(request),
      schema: {
        tags: ['auth'],
        summary: 'E-mail a single-use sign-in link',
        body: magicLinkBody,
        response: { 202: messageReply, 429: messageReply },
      },
    },
    async (request, reply) => acceptMailRequest(request, reply, 'magic_link', request.body.email),
  );

  app.post(
    '/api/logout',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary:
          'Sign out (ends the session); 200 with logout_url when the browser should go on to the identity provider (SAML single logout)',
        response: { 200: z.object({ logout_url: z.string() }), 204: z.null() },
      },
    },
    async (request, reply) => {
      let next: string | null = null;
      const auth = request.auth;
      for (const ask of app.sessions.logoutRedirects) {
        if (!auth) break;
        // Signing out must not fail on a hook: the session ends in any case.
        next = await ask(auth).catch((err: unknown) => {
          request.log.warn({ err }, 'logout redirect failed');
          return null;
        });
        if (next) break;
      }
      await app.sessions.end(request, reply);
      return next ? reply.code(200).send({ logout_url: next }) : reply.code(204).send(null);
    },
  );

  app.get(
    '/api/user/self',
    {
      // Public at the edge: with `Authorization: Bearer <magic-link token>` it signs in; otherwise it needs a session.
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'The signed-in user and their client memberships',
        response: { 200: selfReply, 401: mfaRequiredReply },
      },
    },
    async (request, reply) => {
      const bearer = request.headers.authorization?.match(/^Bearer\s+([\w-]{20,200})$/)?.[1];
      if (bearer) {
        const used = await consumeToken(db, 'magic_link', bearer);
        if (!used) return reply.code(401).send({ message: 'Invalid link' });
        // A link proves the mailbox, not the second factor: a TOTP user gets the same code step as a password.
        const user = await findUser(db, used.userId);
        if (user?.mfaSecretEnc) {
          await startMfaChallenge(db, reply, user.id, config.secureCookies);
          return reply.code(401).send({ message: MFA_REQUIRED, mfa: true as const });
        }
        await app.sessions.start(request, reply, used.userId, { method: 'link' });
      }
      return sendSelf(request, reply);
    },
  );

  app.patch(
    '/api/user/self',
    {
      config: { access: 'session' },
      schema: {
        tags: ['auth'],
        summary: 'Change name or password',
        body: updateSelfBody,
        response: { 200: selfReply },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const b = request.body;
      const user = await findUser(db, auth.user.id);
      if (!user) throw httpError(401, NOT_AUTHENTICATED);
      const changes: Partial<typeof users.$inferInsert> = { updatedAt: new Date() };
      if (b.first_name !== undefined) changes.firstName = b.first_name;
      if (b.last_name !== undefined) changes.lastName = b.last_name;
      if (b.password !== undefined) {
        requireUnscopedSession(request);
        if (user.passwordHash && !(await verifyPassword(user.passwordHash, b.current_password ?? ''))) {
          throw fieldError('body.current_password', 'is not your current password');
        }
        changes.passwordHash = await hashPassword(b.password);
      }
      await db.transaction(async (tx) => {
        await tx.update(users).set(changes).where(eq(users.id, user.id));
        // A new password ends every other session of the account.
        if (changes.passwordHash)
          await tx.delete(sessions).where(and(eq(sessions.userId, user.id), ne(sessions.id, auth.sessionId)));
      });
      await app.identity.invalidateUser(user.id);
      if (changes.passwordHash) {
        await recordAuditForUser(db, user.id, {
          ...auditOrigin(request),
          action: 'auth.password_changed',
          target: { kind: 'user', id: user.id },
        });
      }
      return sendSelf(request, reply);
    },
  );

  app.post(
    '/api/user/reset_password',
    {
      config: { access: 'public' },
      onResponse: async (request) => sendRequestedMail(request),
      schema: {
        tags: ['auth'],
        summary: 'E-mail a password reset link',
        body: resetRequestBody,
        response: { 202: messageReply, 429: messageReply },
      },
    },
    async (request, reply) => acceptMailRequest(request, reply, 'password_reset', request.body.email),
  );

  app.patch(
    '/api/user/reset_password',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Set a new password with a reset link',
        body: resetBody,
        response: { 200: messageReply, 400: messageReply },
      },
    },
    async (request, reply) => {
      const used = await consumeToken(db, 'password_reset', request.body.hash);
      if (!used)
        return reply.code(400).send({ message: 'This link is invalid or has expired. Ask for a new one.' });
      const passwordHash = await hashPassword(request.body.password);
      await db.transaction(async (tx) => {
        await tx.update(users).set({ passwordHash, updatedAt: new Date() }).where(eq(users.id, used.userId));
        await tx.delete(sessions).where(eq(sessions.userId, used.userId));
        await tx
          .update(authTokens)
          .set({ usedAt: new Date() })
          .where(
            and(
              eq(authTokens.userId, used.userId),
              eq(authTokens.kind, 'password_reset'),
              isNull(authTokens.usedAt),
            ),
          );
      });
      await app.identity.invalidateUser(used.userId);
      await limits.account.reset((await findUser(db, used.userId))?.email.toLowerCase() ?? '');
      return { message: 'Your password has been changed. Sign in with your new password.' };
    },
  );

  app.post(
    '/api/user/mfa',
    {
      config: { access: 'session', secretReply: true },
      schema: {
        tags: ['auth'],
        summary: 'Start MFA enrolment: a new TOTP secret and its QR code',
        response: { 200: mfaEnrolReply, 409: messageReply, 410: messageReply },
      },
    },
    async (request, reply) => {
      requireUnscopedSession(request);
      const auth = authOf(request);
      if (auth.user.mfaEnabled)
        return reply
          .code(409)
          .send({ message: 'Two-factor authentication is already on. Turn it off first to enrol again.' });
      const secret = newTotpSecret();
      await db
        .update(users)
        .set({ mfaPendingSecretEnc: box.encrypt(secret) })
        .where(eq(users.id, auth.user.id));
      return enrolment(secret, auth.user.email);
    },
  );

  app.post(
    '/api/user/mfa/confirm',
    {
      config: { access: 'session', secretReply: true },
      schema: {
        tags: ['auth'],
        summary: 'Confirm MFA enrolment with a first code; returns recovery codes',
        body: mfaBody,
        response: { 200: mfaConfirmReply, 409: messageReply, 410: messageReply },
      },
    },
    async (request, reply) => {
      requireUnscopedSession(request);
      const user = await findUser(db, authOf(request).user.id);
      if (!user?.mfaPendingSecretEnc) return reply.code(409).send({ message: 'Start enrolment first.' });
      const secret = box.decrypt(user.mfaPendingSecretEnc);
      if (!verifyTotp(secret, request.body.code)) {
        throw fieldError('body.code', 'is not the current code');
      }
      const codes = newRecoveryCodes();
      await db.transaction(async (tx) => {
        await tx
          .update(users)
          .set({ mfaSecretEnc: user.mfaPendingSecretEnc, mfaPendingSecretEnc: null })
          .where(eq(users.id, user.id));
        await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id));
        await tx
          .insert(recoveryCodes)
          .values(codes.map((c) => ({ userId: user.id, codeHash: hashRecoveryCode(c) })));
      });
      await app.identity.invalidateUser(user.id);
      await recordAuditForUser(db, user.id, {
        ...auditOrigin(request),
        action: 'auth.mfa_enabled',
        target: { kind: 'user', id: user.id },
        details: { method: 'totp' },
      });
      return { recovery_codes: codes };
    },
  );

  app.delete(
    '/api/user/mfa',
    {
      config: { access: 'session' },
      schema: {
        tags: ['auth'],
        summary: 'Turn MFA off (needs a current code)',
        body: mfaBody,
        response: { 204: z.null(), 409: messageReply, 429: messageReply },
      },
    },
    async (request, reply) => {
      requireUnscopedSession(request);
      const user = await findUser(db, authOf(request).user.id);
      if (!user?.mfaSecretEnc)
        return reply.code(409).send({ message: 'Two-factor authentication is not on.' });
      // Guessing the code to turn MFA off counts against the same limit as at sign-in, counted first.
      const attempt = await mfa.attempt(user.id, request.ip);
      if (!attempt.allowed) return mfa.lockedReply(reply, attempt.lockedFor);
      if (!verifyTotp(box.decrypt(user.mfaSecretEnc), request.body.code)) {
        const lockedNow = await mfa.failed(user, request.ip, attempt);
        if (lockedNow) return mfa.lockedReply(reply, lockedNow);
        throw fieldError('body.code', 'is not the current code');
      }
      await mfa.passed(user.id, request.ip);
      await db.transaction(async (tx) => {
        await tx
          .update(users)
          .set({ mfaSecretEnc: null, mfaPendingSecretEnc: null })
          .where(eq(users.id, user.id));
        await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id));
      });
      await app.identity.invalidateUser(user.id);
      await recordAuditForUser(db, user.id, {
        ...auditOrigin(request),
        action: 'auth.mfa_disabled',
        target: { kind: 'user', id: user.id },
      });
      return reply.code(204).send(null);
    },
  );
};
