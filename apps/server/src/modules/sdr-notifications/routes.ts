import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sdrNotificationsBody, sdrNotificationsSchema } from '@rally/shared/schemas/sdr-notifications';
import { authOf, tenantOf } from '../../lib/access.ts';

const clientIdParam = z.object({ clientId: z.uuid('must be the id (UUID) of a client') });
const path = '/rest/client/:clientId/sdr_notifications';

/** `GET` and `POST /v1/rest/client/{id}/sdr_notifications` (SPEC.md §7). */
export const sdrNotificationRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    path,
    {
      config: { access: { permission: 'reports.read' } },
      schema: {
        tags: ['clients'],
        summary: "Each active rep's e-mail notifications: superprospect e-mails and the digest",
        params: clientIdParam,
        response: { 200: sdrNotificationsSchema },
      },
    },
    async (request) => app.sdrNotifications.list(tenantOf(request).clientId),
  );

  app.post(
    path,
    {
      config: { access: { permission: 'settings.write' } },
      schema: {
        tags: ['clients'],
        summary:
          "Sets reps' e-mail notifications (superprospect e-mail on or off, digest off, daily or weekly)",
        description:
          'Only the reps listed change. A rep of another client is not found (404). E-mails go to the ' +
          "rep's e-mail through the outbox; a digest covers the period since the last one and is not " +
          'sent when nothing happened.',
        params: clientIdParam,
        body: sdrNotificationsBody,
        response: { 200: sdrNotificationsSchema },
      },
    },
    async (request) =>
      app.sdrNotifications.save(tenantOf(request).clientId, authOf(request).user.id, request.body),
  );
};
