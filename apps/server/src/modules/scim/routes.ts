import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { PRODUCT_NAME } from '@rally/shared';
import { postgresCodeOf } from '../../lib/errors.ts';
import { discovery } from './discovery.ts';
import { SCIM_CONTENT_TYPE, ScimError, errorBody, notFound } from './errors.ts';
import { pageOf } from './filter.ts';
import { createGroupService } from './groups.ts';
import { callerOfToken } from './tokens.ts';
import type { ScimCaller } from './tokens.ts';
import { patchOpsOf } from './user-input.ts';
import { createUserService } from './users.ts';
import { MAX_RESULTS } from './discovery.ts';

export const SCIM_PREFIX = '/scim/v2';

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyRequest {
    /** The client a SCIM bearer token speaks for (SCIM routes only). */
    scim: ScimCaller | null;
  }
}

function callerOf(request: FastifyRequest): ScimCaller {
  if (!request.scim) throw new ScimError(401, 'A provisioning token is required.');
  return request.scim;
}

const excluded = (q: Record<string, unknown>) =>
  String(q.excludedAttributes ?? '')
    .toLowerCase()
    .split(',')
    .map((s) => s.trim())
    .includes('members');

/**
 * SCIM 2.0 (RFC 7643, RFC 7644) at /scim/v2, for a client's identity provider: Users, Groups (the
 * roles) and the discovery endpoints. Outside the /v1 base on purpose:
 * - The caller is a server holding a bearer token (RFC 7644 §2, RFC 6750), never a browser session:
 *   the session cookie is not read here, so a page on another site cannot make a signed-in browser
 *   act through these routes, which is what the CSRF token guards against elsewhere. No CSRF token
 *   is asked for (an identity provider has none to send).
 * - Every query is scoped by the token's client; another client's user is 404 (RFC 7644 §3.12).
 * - Replies are application/scim+json (§3.1) and errors the SCIM envelope (§3.12).
 */
export const scimRoutes: FastifyPluginAsync = async (app) => {
  const baseUrl = `${app.config.publicUrl}${SCIM_PREFIX}`;
  const deps = {
    db: app.db,
    baseUrl,
    forgetUser: (id: string) => app.identity.invalidateUser(id),
  };
  const usersService = createUserService(deps);
  const groups = createGroupService(deps, usersService);
  const disco = discovery(baseUrl);

  // RFC 7644 §3.1: requests may carry application/scim+json (and application/json).
  app.addContentTypeParser(
    'application/scim+json',
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error'),
  );

  // SCIM is described by its own discovery endpoints (RFC 7644 §4), not by the /v1 OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  app.decorateRequest('scim', null);
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const caller = m?.[1] ? await callerOfToken(app.db, m[1]) : null;
    if (!caller) {
      throw new ScimError(
        401,
        m
          ? 'The provisioning token is not valid or was revoked.'
          : 'A provisioning token is required (Authorization: Bearer …).',
      );
    }
    const ua = request.headers['user-agent'];
    request.scim = {
      ...caller,
      origin: { ip: request.ip ?? null, userAgent: typeof ua === 'string' ? ua.slice(0, 500) : null },
    };
  });

  const send = (reply: FastifyReply, status: number, body: unknown) =>
    reply.code(status).type(SCIM_CONTENT_TYPE).send(body);

  app.setErrorHandler((err: FastifyError | ScimError, request, reply) => {
    if (err instanceof ScimError) {
      // RFC 6750 §3: a refused bearer token is answered with its challenge.
      if (err.status === 401) reply.header('WWW-Authenticate', `Bearer realm="${PRODUCT_NAME} SCIM"`);
      return send(reply, err.status, errorBody(err));
    }
    const pgCode = postgresCodeOf(err);
    // Two requests racing for one userName or externalId: the unique index decides (RFC 7644 §3.3).
    if (pgCode === '23505') {
      return send(
        reply,
        409,
        errorBody(
          new ScimError(409, 'userName or externalId is already provisioned in this client', 'uniqueness'),
        ),
      );
    }
    if (pgCode?.startsWith('22')) {
      return send(
        reply,
        400,
        errorBody(new ScimError(400, 'a value cannot be stored as given', 'invalidValue')),
      );
    }
    // Fastify's own refusals: unreadable JSON (400), an unknown media type (415), a body too large (413).
    const status = (err as FastifyError).statusCode ?? 500;
    if (status < 500) {
      return send(
        reply,
        status,
        errorBody(new ScimError(status, err.message, status === 400 ? 'invalidSyntax' : undefined)),
      );
    }
    request.log.error({ err }, 'SCIM request failed');
    return send(reply, 500, errorBody(new ScimError(500, 'Something went wrong. Please try again later.')));
  });
  app.setNotFoundHandler((request, reply) =>
    send(reply, 404, errorBody(notFound(`Not found: ${request.method} ${request.url.split('?')[0]}`))),
  );

  type Q = { Querystring: Record<string, unknown>; Params: { id: string } };

  app.get('/ServiceProviderConfig', async (_r, reply) => send(reply, 200, disco.serviceProviderConfig));
  app.get('/ResourceTypes', async (_r, reply) => send(reply, 200, disco.resourceTypeList));
  app.get<Q>('/ResourceTypes/:id', async (request, reply) => {
    const found = disco.resourceTypes.find((r) => r.id === request.params.id);
    if (!found) throw notFound('There is no such resource type.');
    return send(reply, 200, found);
  });
  app.get('/Schemas', async (_r, reply) => send(reply, 200, disco.schemaList));
  app.get<Q>('/Schemas/:id', async (request, reply) => {
    const found = disco.schemas.find((s) => s.id === request.params.id);
    if (!found) throw notFound('There is no such schema.');
    return send(reply, 200, found);
  });

  app.get<Q>('/Users', async (request, reply) => {
    const q = request.query;
    const filter = typeof q.filter === 'string' ? q.filter : undefined;
    return send(reply, 200, await usersService.list(callerOf(request), filter, pageOf(q, MAX_RESULTS)));
  });
  app.post('/Users', async (request, reply) => {
    const created = await usersService.create(callerOf(request), request.body);
    reply.header('Location', created.meta.location);
    return send(reply, 201, created);
  });
  app.get<Q>('/Users/:id', async (request, reply) =>
    send(reply, 200, await usersService.get(callerOf(request), request.params.id)),
  );
  app.put<Q>('/Users/:id', async (request, reply) =>
    send(reply, 200, await usersService.replace(callerOf(request), request.params.id, request.body)),
  );
  app.patch<Q>('/Users/:id', async (request, reply) =>
    send(
      reply,
      200,
      await usersService.patch(callerOf(request), request.params.id, patchOpsOf(request.body)),
    ),
  );
  app.delete<Q>('/Users/:id', async (request, reply) => {
    await usersService.remove(callerOf(request), request.params.id);
    return reply.code(204).send();
  });

  app.get<Q>('/Groups', async (request, reply) => {
    const q = request.query;
    const filter = typeof q.filter === 'string' ? q.filter : undefined;
    return send(reply, 200, await groups.list(callerOf(request), filter, excluded(q)));
  });
  app.get<Q>('/Groups/:id', async (request, reply) =>
    send(reply, 200, await groups.get(callerOf(request), request.params.id, excluded(request.query))),
  );
  app.patch<Q>('/Groups/:id', async (request, reply) =>
    send(reply, 200, await groups.patch(callerOf(request), request.params.id, patchOpsOf(request.body))),
  );
  app.put<Q>('/Groups/:id', async (request, reply) =>
    send(reply, 200, await groups.replace(callerOf(request), request.params.id, request.body)),
  );
  // The groups are the client's roles: none is made or deleted from outside (RFC 7644 §3.12: 501).
  const fixedGroups = async () => {
    throw new ScimError(
      501,
      "Groups are this client's roles (Admin, Manager, SDR, Viewer); link to those instead.",
    );
  };
  app.post('/Groups', fixedGroups);
  app.delete('/Groups/:id', fixedGroups);
};
