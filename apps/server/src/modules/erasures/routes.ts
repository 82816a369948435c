import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messageReply, fieldErrorReply as errorReply } from '@rally/shared/schemas/auth';
import { erasureBody, erasureListReply, erasureReply } from '@rally/shared/schemas/erasures';
import { tenantOf } from '../../lib/access.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import { auditOrigin } from '../audit/record.ts';
import { erase, listErasures } from './service.ts';

const clientParams = z.object({ clientId: z.uuid({ error: 'must be the id (UUID) of a client' }) });
/** Declared as settings.write (owners and admins); the handler then wants the owner role itself. */
const access = { access: { permission: 'settings.write' } } as const;
const OWNER = 'purple_owner';
export const ERASURE_OWNER_ONLY =
  'Access Denied: only an owner of this client can erase a person, because it cannot be undone.';

/**
 * "Forget this person" (issue 44, decision 0031): erase by e-mail address, and the list of erasure
 * records (keyed hashes only). Owners of the x-client-id client only.
 */
export const erasureRoutes: FastifyPluginAsyncZod = async (app) => {
  const base = '/rest/client/:clientId/erasures';
  const ownerOf = (request: Parameters<typeof tenantOf>[0]) => {
    const tenant = tenantOf(request);
    if (tenant.role !== OWNER) throw httpError(403, ERASURE_OWNER_ONLY);
    return tenant.clientId;
  };

  app.get(
    base,
    {
      config: access,
      schema: {
        tags: ['erasures'],
        summary: "The client's erasure records, newest first (keyed hashes, never addresses), owners only",
        params: clientParams,
        response: { 200: erasureListReply, 403: messageReply, 422: errorReply },
      },
    },
    async (request) => ({ items: await listErasures(app.db, ownerOf(request)) }),
  );

  app.post(
    base,
    {
      config: access,
      schema: {
        tags: ['erasures'],
        summary: 'Forget a person by e-mail address: erases them from every table of the client, owners only',
        description:
          'Removes the prospects, targets, events (rollups follow), CRM contacts, cohort and journey ' +
          'memberships, feed items, report files, outbox messages and webhook deliveries that name the ' +
          'address, takes the person out of ad-network audiences and forgets the CRM write-back. Keeps ' +
          'one record (a keyed hash of the address, when, by whom) and a suppression entry (hash only), ' +
          'so imports and syncs leave the person out until an owner removes that entry. One transaction. ' +
          '201 on the first erasure, 200 when the person was erased before (the same record).',
        params: clientParams,
        body: erasureBody,
        response: { 200: erasureReply, 201: erasureReply, 403: messageReply, 422: errorReply },
      },
    },
    async (request, reply) => {
      const clientId = ownerOf(request);
      const done = await erase(
        app.db,
        app.suppressions.key,
        clientId,
        request.body.email,
        auditOrigin(request),
      );
      if (!done) throw fieldError('body.email', 'must be an e-mail address');
      // Audiences the person was sent to: pushed now so the networks drop them without waiting a day.
      for (const id of done.audiences) {
        await app.adNetworks.requestPush(id).catch((err: unknown) => {
          request.log.warn({ err, audienceId: id }, 'audience push after an erasure not queued');
        });
      }
      return reply.code(done.created ? 201 : 200).send({ erasure: done.erasure, created: done.created });
    },
  );
};
