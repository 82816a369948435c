import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requiredAttentionsSchema } from '@rally/shared/schemas/attention';
import { tenantOf } from '../../lib/access.ts';
import { requiredAttentions } from './service.ts';
import { setupChecklist } from './setup.ts';
import { setupChecklistSchema } from '@rally/shared/schemas/setup';

const clientIdParam = z.object({ clientId: z.uuid('must be the id (UUID) of a client') });

/** `GET /v1/rest/client/{id}/required_attentions` (SPEC.md §7): what needs a person now. */
export const attentionRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/rest/client/:clientId/required_attentions',
    {
      // The feed's readers (reports.read); billing items only for those who may see billing.
      config: { access: { permission: 'reports.read' } },
      schema: {
        tags: ['clients'],
        summary: 'What needs a person now, each with the screen that fixes it',
        description:
          'Inactive integrations (with the reason), a failing charge or an expired card (for roles with ' +
          'billing_details.read), cadences with ads on and a day without content, journeys of active cohorts with no stage or a stage ' +
          'without ads. Computed from the current state on each call.',
        params: clientIdParam,
        response: { 200: requiredAttentionsSchema },
      },
    },
    async (request) => {
      const tenant = tenantOf(request);
      return requiredAttentions(app.db, tenant.clientId, {
        billing: tenant.permissions.includes('billing_details.read'),
      });
    },
  );

  app.get(
    '/rest/client/:clientId/setup',
    {
      config: { access: 'member' },
      schema: {
        tags: ['clients'],
        summary: 'The setup checklist: six steps, each done or naming what it blocks (issue 42 item 5)',
        description:
          'Prospects brought in, an ad published, ads on for a cadence, a card on file, a CRM connected ' +
          '(or revenue imported), every chosen sales rep with a photo. ask_owner says the role cannot do ' +
          'a step itself. Computed from the current state on each call.',
        params: clientIdParam,
        response: { 200: setupChecklistSchema },
      },
    },
    async (request) => {
      const tenant = tenantOf(request);
      return setupChecklist(app.db, tenant.clientId, {
        billing: tenant.permissions.includes('billing_details.read'),
        integrations: tenant.permissions.includes('integration.write'),
      });
    },
  );
};
