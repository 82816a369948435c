import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messageReply, fieldErrorReply as errorReply } from '@rally/shared/schemas/auth';
import {
  WEBHOOK_EVENT_TYPES,
  webhookDeliveriesQuery,
  webhookDeliveriesReply,
  webhookEndpointChangeBody,
  webhookEndpointCreateBody,
  webhookEndpointSchema,
  webhookEndpointWithSecretReply,
  webhookSettingsReply,
} from '@rally/shared/schemas/hookly';
import { authOf, tenantOf } from '../../lib/access.ts';

const BASE = '/hookly/client/:clientId/settings';
const clientParam = z.uuid('must be the id (UUID) of a client');
const clientParams = z.object({ clientId: clientParam });
const endpointParams = z.object({
  clientId: clientParam,
  endpointId: z.uuid('must be the id (UUID) of a webhook endpoint'),
});
// Endpoints' URLs and delivery logs are settings, read by those who may change them (issue 37).
const READ = { access: { permission: 'integration.write' } } as const;
const WRITE = READ;
/** Replies that carry the signing secret are not kept for Idempotency-Key replays. */
const WRITE_SECRET = { ...WRITE, secretReply: true } as const;
const TAGS = ['webhooks'];

/**
 * Webhook settings (SPEC.md §7 "Webhook settings under /hookly/client/{id}/settings, plus a test
 * export"): the client's endpoints, a test export per endpoint, and each endpoint's delivery log.
 * Reading and changing both need integration.write (owners and admins; not an SDR or a viewer): a
 * receiver's URL often carries its key, which replies show masked.
 */
export const hooklyRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.webhooks;

  app.get(
    BASE,
    {
      config: READ,
      schema: {
        tags: TAGS,
        summary:
          "The client's webhook endpoints (never their signing secrets; keys in their URLs masked) and the events one may choose",
        params: clientParams,
        response: { 200: webhookSettingsReply },
      },
    },
    async (request) => ({
      endpoints: await service.list(tenantOf(request).clientId),
      events: [...WEBHOOK_EVENT_TYPES],
    }),
  );

  app.post(
    BASE,
    {
      config: WRITE_SECRET,
      schema: {
        tags: TAGS,
        summary: 'Add an endpoint (https URL, events); the reply carries its signing secret, once',
        params: clientParams,
        body: webhookEndpointCreateBody,
        response: { 201: webhookEndpointWithSecretReply, 410: messageReply, 422: errorReply },
      },
    },
    async (request, reply) => {
      const created = await service.create(tenantOf(request).clientId, authOf(request).user.id, request.body);
      return reply.code(201).send(created);
    },
  );

  app.patch(
    `${BASE}/:endpointId`,
    {
      config: WRITE,
      schema: {
        tags: TAGS,
        summary: "Change an endpoint's URL, events, description or whether it is enabled",
        params: endpointParams,
        body: webhookEndpointChangeBody,
        response: { 200: webhookEndpointSchema, 404: messageReply, 422: errorReply },
      },
    },
    async (request) => service.change(tenantOf(request).clientId, request.params.endpointId, request.body),
  );

  app.delete(
    `${BASE}/:endpointId`,
    {
      config: WRITE,
      schema: {
        tags: TAGS,
        summary: 'Delete an endpoint and its delivery log (deliveries under way stop)',
        params: endpointParams,
        response: { 204: z.null(), 404: messageReply },
      },
    },
    async (request, reply) => {
      await service.remove(tenantOf(request).clientId, request.params.endpointId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${BASE}/:endpointId/rotate_secret`,
    {
      config: WRITE_SECRET,
      schema: {
        tags: TAGS,
        summary: 'Replace the signing secret; the reply carries the new one, once',
        params: endpointParams,
        response: { 200: webhookEndpointWithSecretReply, 404: messageReply, 410: messageReply },
      },
    },
    async (request) => service.rotateSecret(tenantOf(request).clientId, request.params.endpointId),
  );

  app.post(
    `${BASE}/:endpointId/test`,
    {
      config: WRITE,
      schema: {
        tags: TAGS,
        summary: 'Test export: queue a sample of each event the endpoint subscribes to',
        params: endpointParams,
        response: { 202: webhookDeliveriesReply, 404: messageReply },
      },
    },
    async (request, reply) => {
      const deliveries = await service.sendTest(tenantOf(request).clientId, request.params.endpointId);
      return reply.code(202).send({ deliveries });
    },
  );

  app.get(
    `${BASE}/:endpointId/deliveries`,
    {
      config: READ,
      schema: {
        tags: TAGS,
        summary: "The endpoint's delivery log, newest first: status, attempts, last error",
        params: endpointParams,
        querystring: webhookDeliveriesQuery,
        response: { 200: webhookDeliveriesReply, 404: messageReply },
      },
    },
    async (request) => ({
      deliveries: await service.deliveries(
        tenantOf(request).clientId,
        request.params.endpointId,
        request.query.limit,
      ),
    }),
  );
};
