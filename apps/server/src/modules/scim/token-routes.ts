import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messageReply, fieldErrorReply as errorReply } from '@rally/shared/schemas/auth';
import {
  scimTokenBody,
  scimTokenCreatedReply,
  scimTokenParams,
  scimTokensReply,
} from '@rally/shared/schemas/scim';
import { authOf, tenantOf } from '../../lib/access.ts';
import { httpError } from '../../lib/errors.ts';
import { createScimToken, listScimTokens, revokeScimToken } from './tokens.ts';

const clientParams = z.object({ clientId: z.uuid({ error: 'must be the id (UUID) of a client' }) });
const OWNER = 'purple_owner';
export const SCIM_OWNER_ONLY =
  'Access Denied: only an owner of this client can make or revoke provisioning tokens, because they decide who becomes a member.';

/**
 * A client's SCIM provisioning tokens (docs/scim.md). Reading the list needs client.write, like the
 * single sign-on settings beside it; making and revoking are for owners only (a token adds and
 * removes members), checked by role as for single sign-on (docs/decisions/0014).
 */
export const scimTokenRoutes: FastifyPluginAsyncZod = async (app) => {
  const base = '/rest/client/:clientId/scim-tokens';
  const baseUrl = `${app.config.publicUrl}/scim/v2`;

  app.get(
    base,
    {
      config: { access: { permission: 'client.write' } },
      schema: {
        tags: ['clients'],
        summary: "The client's SCIM provisioning tokens (never the tokens themselves) and the SCIM base URL",
        params: clientParams,
        response: { 200: scimTokensReply },
      },
    },
    async (request) => ({
      base_url: baseUrl,
      tokens: await listScimTokens(app.db, tenantOf(request).clientId),
    }),
  );

  app.post(
    base,
    {
      config: { access: { permission: 'client.write' } },
      schema: {
        tags: ['clients'],
        summary: 'Make a SCIM provisioning token (owners only); the token is in this reply only',
        params: clientParams,
        body: scimTokenBody,
        response: { 201: scimTokenCreatedReply, 403: messageReply, 422: errorReply },
      },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      if (tenant.role !== OWNER) throw httpError(403, SCIM_OWNER_ONLY);
      const user = authOf(request).user;
      const made = await createScimToken(app.db, {
        clientId: tenant.clientId,
        name: request.body.name,
        defaultRole: request.body.default_role,
        createdBy: { id: user.id, name: `${user.firstName} ${user.lastName}`.trim() || user.email },
      });
      return reply.code(201).send({ ...made, base_url: baseUrl });
    },
  );

  app.delete(
    `${base}/:id`,
    {
      config: { access: { permission: 'client.write' } },
      schema: {
        tags: ['clients'],
        summary: 'Revoke a SCIM provisioning token (owners only): it stops working at once',
        params: scimTokenParams,
        response: { 204: z.null(), 403: messageReply, 404: messageReply },
      },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      if (tenant.role !== OWNER) throw httpError(403, SCIM_OWNER_ONLY);
      if (!(await revokeScimToken(app.db, tenant.clientId, request.params.id))) {
        return reply.code(404).send({ message: 'This client has no such provisioning token.' });
      }
      return reply.code(204).send(null);
    },
  );
};
