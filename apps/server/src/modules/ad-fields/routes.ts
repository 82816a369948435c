import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  adFieldsBody,
  adFieldsCreateError,
  adFieldsListReply,
  adFieldsSettingsSchema,
  availableFieldsReply,
} from '@rally/shared/schemas/ad-delivery';
import { messageReply } from '@rally/shared/schemas/auth';
import { serialIdSchema } from '@rally/shared/schemas/common';
import { tenantOf } from '../../lib/access.ts';
import { CreateRefused } from './service.ts';

const clientParam = z.object({ clientId: z.uuid('must be the id (UUID) of a client') });
const connectionParams = clientParam.extend({ integrationId: serialIdSchema('the id of a connection') });

/**
 * The ad fields of each connection (issue 38, ARCHITECTURE.md §13): which two fields of the vendor's
 * person record hold each target's ad image and click URLs, and how the write-back stands. Reading
 * is for every member (the cadence's e-mail step shows the status; nothing secret is in it);
 * choosing and creating fields need `integration.write`, as connecting does.
 */
export const adFieldsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/rest/client/:clientId/ad_fields',
    {
      config: { access: 'member' },
      schema: {
        tags: ['ad-fields'],
        summary:
          "The ad fields of each of the client's connections (Salesloft, Outreach, Apollo, HubSpot, Salesforce, Marketo)",
        params: clientParam,
        response: { 200: adFieldsListReply },
      },
    },
    async (request) => ({ items: await app.adFields.list(tenantOf(request).clientId) }),
  );

  app.put(
    '/rest/client/:clientId/ad_fields/:integrationId',
    {
      config: { access: { permission: 'integration.write' } },
      schema: {
        tags: ['ad-fields'],
        summary:
          'Choose the two fields (API names from …/available) and turn writing on or off; turning it on queues a write',
        params: connectionParams,
        body: adFieldsBody,
        response: { 200: adFieldsSettingsSchema, 404: messageReply, 409: messageReply, 502: messageReply },
      },
    },
    async (request) =>
      app.adFields.update(tenantOf(request).clientId, request.params.integrationId, request.body),
  );

  app.get(
    '/rest/client/:clientId/ad_fields/:integrationId/available',
    {
      // Asks the vendor on the owner's behalf: for those who may choose the fields.
      config: { access: { permission: 'integration.write' } },
      schema: {
        tags: ['ad-fields'],
        summary: "The fields of the vendor's person record that can hold a URL (asked of the vendor)",
        params: connectionParams,
        response: { 200: availableFieldsReply, 404: messageReply, 409: messageReply, 502: messageReply },
      },
    },
    async (request) => ({
      items: await app.adFields.available(tenantOf(request).clientId, request.params.integrationId),
    }),
  );

  app.post(
    '/rest/client/:clientId/ad_fields/:integrationId/create',
    {
      config: { access: { permission: 'integration.write' } },
      schema: {
        tags: ['ad-fields'],
        summary:
          "Rally creates the two fields through the vendor's API where it allows, sets them and turns writing on; else 422 with what to create",
        params: connectionParams,
        response: {
          200: adFieldsSettingsSchema,
          404: messageReply,
          409: messageReply,
          422: adFieldsCreateError,
          502: messageReply,
        },
      },
    },
    async (request, reply) => {
      try {
        return await app.adFields.create(tenantOf(request).clientId, request.params.integrationId);
      } catch (err) {
        if (err instanceof CreateRefused) {
          return reply.code(422).send({ message: err.message, instructions: err.instructions });
        }
        throw err;
      }
    },
  );
};
