import { and, asc, eq } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import { authOf, tenantOf } from '../../lib/access.ts';
import type { AuthContext } from '../../plugins/auth.ts';
import { httpError, oneRow } from '../../lib/errors.ts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { BUILT_IN_ROLES } from '@rally/shared';
import { clientSchema, createClientBody, integrationSchema } from '@rally/shared/schemas/auth';
import { clientOverviewQuery, clientOverviewReply } from '@rally/shared/schemas/client-overview';
import { clients, integrations, memberships } from '../../db/schema/index.ts';
import { toIntegrationReply } from '../integrations/index.ts';
import { clientOverview } from './overview.ts';

const scopeOf = (auth: AuthContext): SQL | undefined =>
  auth.scopeClientId ? eq(memberships.clientId, auth.scopeClientId) : undefined;

/** Clients of the signed-in user (an agency's companies) and a client's integrations. */
export const clientRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app;

  app.get(
    '/rest/client',
    {
      config: { access: 'session' },
      schema: {
        tags: ['clients'],
        summary: 'Clients the user is a member of',
        response: { 200: z.array(clientSchema) },
      },
    },
    async (request) =>
      db
        .select({
          id: clients.id,
          name: clients.name,
          parent_id: clients.parentId,
          role: memberships.role,
          is_default: memberships.isDefault,
        })
        .from(memberships)
        .innerJoin(clients, eq(clients.id, memberships.clientId))
        .where(
          and(
            eq(memberships.userId, authOf(request).user.id),
            // A session started by a client's single sign-on lists that client only (decision 0014).
            scopeOf(authOf(request)),
          ),
        )
        .orderBy(asc(clients.name)),
  );

  app.get(
    '/rest/client/overview',
    {
      config: { access: 'session' },
      schema: {
        tags: ['clients'],
        summary: 'The agency view: per client the user belongs to, its numbers and what needs attention',
        description:
          'One row per client of the signed-in user (only the single sign-on client for such a session): ' +
          'new superprospects and pipeline generated in the last `days` days (as Revenue counts them; null ' +
          'without reports.read there), spend billed for them (null without billing_details.read), health ' +
          "and the most urgent thing to do (the feed's attention list, then the setup checklist).",
        querystring: clientOverviewQuery,
        response: { 200: clientOverviewReply },
      },
    },
    async (request) => {
      const auth = authOf(request);
      const rows = await db
        .select({
          id: clients.id,
          name: clients.name,
          parentId: clients.parentId,
          role: memberships.role,
          permissions: memberships.permissions,
        })
        .from(memberships)
        .innerJoin(clients, eq(clients.id, memberships.clientId))
        .where(and(eq(memberships.userId, auth.user.id), scopeOf(auth)))
        .orderBy(asc(clients.name));
      return clientOverview(db, rows, request.query.days);
    },
  );

  app.post(
    '/rest/client',
    {
      config: { access: { permission: 'client.write' } },
      schema: {
        tags: ['clients'],
        summary: 'Create a client under the one named (or the current one); you become its owner',
        description:
          '`parent_id`: the client it is created under, one where your role may create clients (the ' +
          'current one when left out); `null` for a client of its own, not under any other.',
        body: createClientBody,
        response: { 201: clientSchema },
      },
    },
    async (request, reply) => {
      const parentId =
        request.body.parent_id === undefined ? tenantOf(request).clientId : request.body.parent_id;
      // Issue 42 item 13: a parent named explicitly must be a client where the user may create clients.
      if (parentId !== null && parentId !== tenantOf(request).clientId) {
        const [m] = await db
          .select({ permissions: memberships.permissions })
          .from(memberships)
          .where(
            and(
              eq(memberships.userId, authOf(request).user.id),
              eq(memberships.clientId, parentId),
              scopeOf(authOf(request)),
            ),
          );
        if (!m?.permissions.includes('client.write'))
          throw httpError(403, 'Access Denied: you may not create clients under that client.');
      }
      const created = await db.transaction(async (tx) => {
        const c = oneRow(await tx.insert(clients).values({ name: request.body.name, parentId }).returning());
        await tx.insert(memberships).values({
          userId: authOf(request).user.id,
          clientId: c.id,
          role: 'purple_owner',
          permissions: [...BUILT_IN_ROLES.purple_owner],
        });
        return c;
      });
      await app.identity.invalidateUser(authOf(request).user.id);
      return reply.code(201).send({
        id: created.id,
        name: created.name,
        parent_id: created.parentId,
        role: 'purple_owner',
        is_default: false,
      });
    },
  );

  app.get(
    '/rest/client/:clientId/integrations',
    {
      config: { access: 'member' },
      schema: {
        tags: ['clients'],
        summary: "The client's integrations",
        params: z.object({ clientId: z.uuid('must be the id (UUID) of a client') }),
        response: { 200: z.array(integrationSchema) },
      },
    },
    async (request) => {
      const rows = await db
        .select()
        .from(integrations)
        .where(eq(integrations.clientId, tenantOf(request).clientId))
        .orderBy(asc(integrations.id));
      return rows.map(toIntegrationReply);
    },
  );
};
