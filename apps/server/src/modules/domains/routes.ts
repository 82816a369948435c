import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messageReply, fieldErrorReply as errorReply } from '@rally/shared/schemas/auth';
import {
  clientDomainSchema,
  clientDomainsReply,
  domainBody,
  domainParams,
} from '@rally/shared/schemas/domains';
import { tenantOf } from '../../lib/access.ts';

const clientParams = z.object({ clientId: z.uuid({ error: 'must be the id (UUID) of a client' }) });
const SETTINGS_WRITE = { access: { permission: 'settings.write' } } as const;

/**
 * A client's domains, verified by a DNS TXT record (docs/decisions/0013). Reading them is open to
 * members (the single sign-on settings say which domains it speaks for); changing them needs
 * settings.write.
 */
export const domainRoutes: FastifyPluginAsyncZod = async (app) => {
  const base = '/rest/client/:clientId/domains';

  app.get(
    base,
    {
      config: { access: 'member' },
      schema: {
        tags: ['clients'],
        summary: "The client's domains, whether each is verified, and the TXT record that verifies it",
        params: clientParams,
        response: { 200: clientDomainsReply },
      },
    },
    async (request) => app.domains.list(tenantOf(request).clientId),
  );

  app.post(
    base,
    {
      config: SETTINGS_WRITE,
      schema: {
        tags: ['clients'],
        summary: 'Add a domain (unverified until its TXT record is found)',
        params: clientParams,
        body: domainBody,
        response: { 201: clientDomainSchema, 409: errorReply, 422: errorReply },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await app.domains.add(tenantOf(request).clientId, request.body.domain)),
  );

  app.post(
    `${base}/:id/verify`,
    {
      config: SETTINGS_WRITE,
      schema: {
        tags: ['clients'],
        summary: "Look for the domain's TXT record now; verified when it holds the client's value",
        params: domainParams,
        response: { 200: clientDomainSchema, 404: messageReply },
      },
    },
    async (request) => app.domains.verify(tenantOf(request).clientId, request.params.id),
  );

  app.delete(
    `${base}/:id`,
    {
      config: SETTINGS_WRITE,
      schema: {
        tags: ['clients'],
        summary: 'Remove a domain: single sign-on stops vouching for its addresses',
        params: domainParams,
        response: { 204: z.null(), 404: messageReply },
      },
    },
    async (request, reply) => {
      if (!(await app.domains.remove(tenantOf(request).clientId, request.params.id))) {
        return reply.code(404).send({ message: 'This client has no such domain.' });
      }
      return reply.code(204).send(null);
    },
  );
};
