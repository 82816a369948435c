import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Permission } from '@rally/shared';
import { hasValidCsrf } from '../plugins/auth.ts';
import type { AuthContext } from '../plugins/auth.ts';
import { httpError } from './errors.ts';

/**
 * What a route needs (STYLE.md: every route declares its access).
 * - `public`: anyone.
 * - `session`: a signed-in user; no client needed.
 * - `member`: a signed-in member of the client named by `x-client-id`.
 * - `{ permission }`: such a member whose role has the permission.
 */
export type Access = 'public' | 'session' | 'member' | { permission: Permission };

export type RouteAccess = { method: string; url: string; access: Access; csrf: boolean };

export type Tenant = { clientId: string; role: string; permissions: string[] };

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyContextConfig {
    access?: Access;
    /** Set false only for calls that cannot carry the token (public tracking beacons, webhooks). */
    csrf?: boolean;
  }
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    /** Every API route with its declared access, for the access matrix test and the docs. */
    routeAccess: RouteAccess[];
  }
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyRequest {
    /** The client of this request (from `x-client-id`), for member and permission routes. */
    tenant: Tenant | null;
  }
}

export const NOT_AUTHENTICATED = 'Not Authenticated: Sorry, you have to be logged in to access this!';
/** A session started by a client's single sign-on, asked to act in another client (decision 0014). */
export const SSO_SCOPE_DENIED =
  'Access Denied: you signed in through the single sign-on of another client, so this session can only use that client. Sign out and sign in with your password to use this one.';
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Refuses, at registration, any route in this context that does not declare its access. */
export function requireAccessDeclarations(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.config?.access) {
      throw new Error(
        `Route ${String(route.method)} ${route.url} declares no access: set config.access to 'public', 'session', 'member' or { permission }`,
      );
    }
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      app.routeAccess.push({
        method,
        url: route.url,
        access: route.config.access,
        csrf: route.config.csrf !== false,
      });
    }
  });
}

/**
 * The one permission check every API route goes through, before its input is validated: 401 when
 * not signed in, 403 without a valid CSRF token on a write, 422 without a well-formed x-client-id,
 * 403 for a client the user is not a member of, lacks the permission in, or that differs from the
 * client named in the path.
 */
export function enforceAccess(app: FastifyInstance): void {
  app.decorateRequest('tenant', null);
  app.addHook('preValidation', async (request: FastifyRequest, reply: FastifyReply) => {
    const { access, csrf } = request.routeOptions.config;
    if (!access) return; // not-found handler
    if (access !== 'public' && !request.auth) return reply.code(401).send({ message: NOT_AUTHENTICATED });
    if (
      MUTATING.has(request.method) &&
      csrf !== false &&
      !hasValidCsrf(request, app.sessions.csrfToken(request))
    ) {
      return reply.code(403).send({
        message:
          'Access Denied: the x-xsrf-token header is missing or invalid. Please refresh the page and try again.',
      });
    }
    if (access === 'public' || access === 'session' || !request.auth) return;

    const clientId = request.headers['x-client-id'];
    if (typeof clientId !== 'string' || !UUID.test(clientId)) {
      return reply.code(422).send({
        message: 'headers.x-client-id: must be the id (UUID) of the current client',
        errors: [{ field: 'headers.x-client-id', message: 'must be the id (UUID) of the current client' }],
      });
    }
    const params = request.params as Record<string, string | undefined>;
    if (params.clientId !== undefined && params.clientId.toLowerCase() !== clientId.toLowerCase()) {
      return reply
        .code(403)
        .send({ message: 'Access Denied: the client in the path is not the x-client-id client.' });
    }
    if (!scopeAllows(request.auth, clientId)) return reply.code(403).send({ message: SSO_SCOPE_DENIED });
    const self = await app.identity.self(request.auth.user.id);
    const m = self?.clients.find((c) => c.client_id === clientId.toLowerCase());
    if (!m) return reply.code(403).send({ message: 'Access Denied: you are not a member of this client.' });
    if (typeof access === 'object' && !m.permissions.includes(access.permission)) {
      return reply
        .code(403)
        .send({ message: `Access Denied: your role does not have the ${access.permission} permission.` });
    }
    request.tenant = { clientId: clientId.toLowerCase(), role: m.role, permissions: m.permissions };
  });
}

/** Whether the session may act in this client: any of the user's, unless it was started by SSO. */
export function scopeAllows(auth: AuthContext, clientId: string): boolean {
  return auth.scopeClientId === null || auth.scopeClientId === clientId.toLowerCase();
}

/**
 * For changes to the whole account (password, two-step verification): a session started by a
 * client's single sign-on is refused, so that client's identity provider cannot reach beyond it.
 */
export function requireUnscopedSession(request: FastifyRequest): void {
  if (authOf(request).scopeClientId !== null) {
    throw httpError(
      403,
      'Access Denied: you signed in through single sign-on. Sign out and sign in with your password to change your password or two-step verification.',
    );
  }
}

/** The signed-in user of a `session`, `member` or permission route (the access check guarantees it). */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw httpError(401, NOT_AUTHENTICATED);
  return request.auth;
}

/** The client of a `member` or permission route (the access check guarantees it). */
export function tenantOf(request: FastifyRequest): Tenant {
  if (!request.tenant) throw httpError(403, 'Access Denied: Please refresh the page and try again.');
  return request.tenant;
}

/**
 * For a `member` route one of whose uses needs more (a call that both reads and writes, told apart
 * by its body): 403 unless the member's role has `permission`, worded as the access check words it.
 */
export function requirePermission(request: FastifyRequest, permission: Permission): void {
  if (!tenantOf(request).permissions.includes(permission)) {
    throw httpError(403, `Access Denied: your role does not have the ${permission} permission.`);
  }
}
