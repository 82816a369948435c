import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { messageReply } from '@rally/shared/schemas/auth';
import { OAUTH_PROVIDERS, oauthIdentitiesReply } from '@rally/shared/schemas/sso';
import { authOf } from '../../lib/access.ts';
import { listOAuthIdentities, unlinkOAuthIdentity } from './oauth-identities.ts';

/** The signed-in user's Google and Microsoft accounts that sign them in (docs/decisions/0015). */
export const oauthIdentityRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app;

  app.get(
    '/api/auth/identities',
    {
      config: { access: 'session' },
      schema: {
        tags: ['auth'],
        summary: 'The Google and Microsoft accounts linked to the signed-in user',
        response: { 200: oauthIdentitiesReply },
      },
    },
    async (request) => {
      const rows = await listOAuthIdentities(db, authOf(request).user.id);
      return {
        identities: rows.map((r) => ({
          provider: r.provider as (typeof OAUTH_PROVIDERS)[number],
          email: r.email,
          linked_at: r.createdAt.toISOString(),
        })),
      };
    },
  );

  app.delete(
    '/api/auth/:provider/link',
    {
      config: { access: 'session' },
      schema: {
        tags: ['auth'],
        summary: 'Unlink a Google or Microsoft account: it no longer signs the user in',
        params: z.object({ provider: z.enum(OAUTH_PROVIDERS) }),
        response: { 204: z.null(), 403: messageReply, 404: messageReply },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      // Reaches beyond the client whose single sign-on started the session (decision 0014).
      if (auth.scopeClientId !== null)
        return reply.code(403).send({ message: 'Access Denied: sign in with your password to change this.' });
      if (!(await unlinkOAuthIdentity(db, auth.user.id, request.params.provider)))
        return reply.code(404).send({ message: 'No account of that provider is linked to you.' });
      return reply.code(204).send(null);
    },
  );
};
