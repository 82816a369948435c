import { and, eq, gt } from 'drizzle-orm';
import fp from 'fastify-plugin';
import type { Self } from '@rally/shared/schemas/auth';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '@rally/shared';
import { sessions, users } from '../db/schema/index.ts';
import { hashToken, hmac, randomToken, safeEqual } from '../lib/crypto.ts';
import { API_PREFIXES } from '../lib/prefixes.ts';
import { CACHES, cacheDepsOf, createSharedCache } from '../lib/shared-cache.ts';
import { selfOf } from '../modules/auth/repository.ts';
import { auditOrigin, recordAuditForUser } from '../modules/audit/record.ts';

/** Readable by scripts, holds no secret: lets the app know a session cookie exists (SPEC.md §4). */
export const SESSION_HINT_COOKIE = 'rally_has_auth_token';
/** Anonymous CSRF secret, so that sign-in forms are protected before any session exists. */
export const CSRF_COOKIE = 'rally_csrf';
export const CSRF_HEADER = 'x-xsrf-token';

export type AuthUser = {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  mfaEnabled: boolean;
};
export type AuthContext = {
  user: AuthUser;
  sessionId: string;
  /**
   * The one client a session started by that client's single sign-on may act in; null for a
   * session started any other way (docs/decisions/0014).
   */
  scopeClientId: string | null;
};

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyRequest {
    /** The signed-in user and session, or null. */
    auth: AuthContext | null;
    csrfSecret: string | null;
  }
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    sessions: SessionService;
    identity: IdentityCache;
  }
}

export type SessionService = {
  /**
   * Starts a new session (ending the request's current one: the id is rotated at every sign-in).
   * `scopeClientId`: a session started by that client's single sign-on, usable in that client only.
   * `method`: how the user proved who they are, for the audit log's sign-in entry.
   */
  start(
    request: FastifyRequest,
    reply: FastifyReply,
    userId: string,
    opts?: { scopeClientId?: string; method?: SignInMethod },
  ): Promise<AuthContext>;
  end(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  csrfToken(request: FastifyRequest): string;
  /**
   * Asked in turn at sign-out, before the session ends: the first URL returned is where the browser
   * goes next (SAML single logout sends it to the identity provider). Modules push theirs.
   */
  logoutRedirects: ((auth: AuthContext) => Promise<string | null>)[];
};

/** How a session was started, as the audit log records it. */
export type SignInMethod =
  | 'password'
  | 'password_and_code'
  | 'link'
  | 'google'
  | 'microsoft'
  | 'sso'
  | 'saml'
  | 'sign_up'
  | 'invitation';

const SLIDE_AFTER_MS = 60 * 60 * 1000;

/**
 * Session lookups and each user's memberships, kept for a few seconds in process: on the embedded
 * database every query costs most of a millisecond, and a signed-in page makes many calls. Writes
 * that change a user, their memberships or sessions forget the entries at once, on this instance
 * and, through Redis, on every other; with PostgreSQL and no Redis nothing is kept, since other
 * instances could not be told (docs/decisions/0004, 0021).
 */
export const IDENTITY_CACHE_TTL_MS = 5_000;

export type IdentityCache = {
  /** The self reply (user and memberships), cached. */
  self(userId: string): Promise<Self | null>;
  /**
   * Forget what is cached about a user, on every instance: call after changing them, their
   * memberships or sessions. The returned promise (never rejected) settles once the others are told.
   */
  invalidateUser(userId: string): Promise<void>;
};

type CachedSession = { auth: AuthContext; lastSeenAt: number; expiresAt: number };

function isApi(url: string): boolean {
  return API_PREFIXES.some((p) => url === p || url.startsWith(`${p}/`));
}

/**
 * Sessions and CSRF for the API bases: resolves the session cookie on every API request, sends the
 * CSRF token in `X-Xsrf-Token` on every API response, and offers start/end of sessions.
 */
export const authPlugin = fp(
  async (app) => {
    const { config, db } = app;
    const ttlMs = config.sessionTtlDays * 86_400_000;
    const cookieBase = { path: '/', sameSite: 'lax' as const, secure: config.secureCookies };

    const setSessionCookies = (reply: FastifyReply, token: string, expires: Date) => {
      reply.setCookie(SESSION_COOKIE, token, { ...cookieBase, httpOnly: true, expires });
      reply.setCookie(SESSION_HINT_COOKIE, '1', { ...cookieBase, httpOnly: false, expires });
    };

    const csrfToken = (request: FastifyRequest) =>
      hmac(config.appSecret, `csrf|${request.csrfSecret ?? ''}|${request.auth?.sessionId ?? ''}`);

    app.decorateRequest('auth', null);
    app.decorateRequest('csrfSecret', null);

    const cacheDeps = cacheDepsOf(app);
    // Sessions by token hash, tagged with their user; self replies by user id.
    const sessionCache = createSharedCache<CachedSession>(cacheDeps, {
      name: CACHES.sessions,
      max: 10_000,
      ttlMs: IDENTITY_CACHE_TTL_MS,
    });
    const selfCache = createSharedCache<Self>(cacheDeps, {
      name: CACHES.self,
      max: 10_000,
      ttlMs: IDENTITY_CACHE_TTL_MS,
    });
    const identity: IdentityCache = {
      async self(userId) {
        const hit = selfCache.get(userId);
        if (hit) return hit;
        const t = selfCache.ticket();
        const self = await selfOf(db, userId);
        if (self) t.set(userId, self);
        return self;
      },
      async invalidateUser(userId) {
        await Promise.all([selfCache.forget(userId), sessionCache.forgetTag(userId)]);
      },
    };
    app.decorate('identity', identity);

    app.addHook('onRequest', async (request, reply) => {
      if (!isApi(request.url)) return;
      let csrf = request.cookies[CSRF_COOKIE];
      if (!csrf || !/^[\w-]{20,64}$/.test(csrf)) {
        csrf = randomToken(24);
        reply.setCookie(CSRF_COOKIE, csrf, { ...cookieBase, httpOnly: true, maxAge: 365 * 86_400 });
      }
      request.csrfSecret = csrf;

      const token = request.cookies[SESSION_COOKIE];
      if (!token) return;
      const now = new Date();
      const tokenHash = hashToken(token);
      const cached = sessionCache.get(tokenHash);
      const ticket = sessionCache.ticket();
      if (cached && cached.expiresAt > now.getTime() && now.getTime() - cached.lastSeenAt <= SLIDE_AFTER_MS) {
        request.auth = cached.auth;
        return;
      }
      const [row] = await db
        .select({
          sessionId: sessions.id,
          scopeClientId: sessions.scopeClientId,
          lastSeenAt: sessions.lastSeenAt,
          expiresAt: sessions.expiresAt,
          id: users.id,
          email: users.email,
          firstName: users.firstName,
          lastName: users.lastName,
          mfaSecretEnc: users.mfaSecretEnc,
        })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(and(eq(sessions.tokenHash, tokenHash), gt(sessions.expiresAt, now)));
      if (!row) return;
      request.auth = {
        sessionId: row.sessionId,
        scopeClientId: row.scopeClientId,
        user: {
          id: row.id,
          email: row.email,
          firstName: row.firstName,
          lastName: row.lastName,
          mfaEnabled: row.mfaSecretEnc !== null,
        },
      };
      // Sliding expiry, written at most once an hour so that reads stay reads.
      let lastSeenAt = row.lastSeenAt.getTime();
      let expiresAt = row.expiresAt.getTime();
      if (now.getTime() - lastSeenAt > SLIDE_AFTER_MS) {
        const next = new Date(now.getTime() + ttlMs);
        await db
          .update(sessions)
          .set({ lastSeenAt: now, expiresAt: next })
          .where(eq(sessions.id, row.sessionId));
        setSessionCookies(reply, token, next);
        lastSeenAt = now.getTime();
        expiresAt = next.getTime();
      }
      ticket.set(tokenHash, { auth: request.auth, lastSeenAt, expiresAt }, row.id);
    });

    app.addHook('onSend', async (request, reply) => {
      if (request.csrfSecret !== null) reply.header('X-Xsrf-Token', csrfToken(request));
    });

    const service: SessionService = {
      async start(request, reply, userId, opts = {}) {
        const old = request.cookies[SESSION_COOKIE];
        if (old) {
          await db.delete(sessions).where(eq(sessions.tokenHash, hashToken(old)));
          // After the delete: an instance that looks the session up again finds it gone.
          await sessionCache.forget(hashToken(old));
        }
        const token = randomToken();
        const expiresAt = new Date(Date.now() + ttlMs);
        const [row] = await db
          .insert(sessions)
          .values({
            tokenHash: hashToken(token),
            userId,
            expiresAt,
            userAgent: request.headers['user-agent'] ?? null,
            ip: request.ip,
            scopeClientId: opts.scopeClientId ?? null,
          })
          .returning({ id: sessions.id });
        const [user] = await db.select().from(users).where(eq(users.id, userId));
        if (!row || !user) throw new Error('session insert failed');
        setSessionCookies(reply, token, expiresAt);
        request.auth = {
          sessionId: row.id,
          scopeClientId: opts.scopeClientId ?? null,
          user: {
            id: user.id,
            email: user.email,
            firstName: user.firstName,
            lastName: user.lastName,
            mfaEnabled: user.mfaSecretEnc !== null,
          },
        };
        // In each client the user is in (only the SSO client for its sessions): docs/decisions/0028.
        await recordAuditForUser(
          db,
          user.id,
          {
            ...auditOrigin(request),
            action: 'auth.sign_in',
            target: { kind: 'user', id: user.id },
            details: { method: opts.method ?? 'password', ...(opts.scopeClientId ? { sso: true } : {}) },
          },
          opts.scopeClientId ?? null,
        );
        return request.auth;
      },
      async end(request, reply) {
        const token = request.cookies[SESSION_COOKIE];
        if (token) {
          await db.delete(sessions).where(eq(sessions.tokenHash, hashToken(token)));
          // After the delete, and before the reply: the sign-out holds on every instance at once.
          await sessionCache.forget(hashToken(token));
        }
        request.auth = null;
        reply.clearCookie(SESSION_COOKIE, { ...cookieBase, httpOnly: true });
        reply.clearCookie(SESSION_HINT_COOKIE, { ...cookieBase });
      },
      csrfToken,
      logoutRedirects: [],
    };
    app.decorate('sessions', service);
  },
  { name: 'auth', dependencies: [] },
);

/**
 * The self reply as this session sees it: a session started by a client's single sign-on lists
 * that client only, and says so in `sso_client_id` (docs/decisions/0014).
 */
export function selfOfSession(self: Self, auth: AuthContext): Self {
  if (!auth.scopeClientId) return self;
  const scope = auth.scopeClientId;
  return {
    ...self,
    clients: self.clients.filter((c) => c.client_id === scope).map((c) => ({ ...c, is_default: true })),
    sso_client_id: scope,
  };
}

/** True when the request carries the CSRF token of its own session (or anonymous cookie). */
export function hasValidCsrf(request: FastifyRequest, expected: string): boolean {
  const sent = request.headers[CSRF_HEADER];
  return typeof sent === 'string' && safeEqual(sent, expected);
}
