import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DEFAULT_COLORS } from '@rally/shared';
import { fieldErrorReply as errorReply } from '@rally/shared/schemas/auth';
import { adRenderBody, adRenderQuery } from '@rally/shared/schemas/content';
import type { TemplateId } from '@rally/shared/schemas/content';
import { tenantOf } from '../../lib/access.ts';
import { assertFetchableUrl } from '../../lib/guarded-fetch.ts';
import { personaliseText } from '../content/index.ts';
import type { AdInput } from './render.ts';
import type { AdTarget } from './service.ts';
import { creativeOf, personalisationValues } from './service.ts';

/**
 * The prospect whose details fill prospect_* tags in the editor's preview: without one those tags
 * would be emptied (SPEC.md §5) and a line such as "{first name}, your audit is ready" would show
 * as ", your audit is ready".
 */
export const SAMPLE_PROSPECT: AdTarget['prospect'] = {
  firstName: 'Alex',
  lastName: 'Morgan',
  title: 'VP Operations',
  companyName: 'Example Co',
};

/**
 * Live preview for the ad editor under /sc: the PNG of fields not saved yet, drawn by the same
 * renderer and cache as saved ads (`/content/preview/…png`, `/t/{token}/ad/{size}.png`).
 */
export const scCreativeRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/content/render',
    {
      config: { access: 'member' },
      schema: {
        tags: ['content'],
        summary: 'Render unsaved ad fields as a PNG at one ad size (the editor’s live preview)',
        description:
          'Body: template_id, title, image_text, colors, assignee, sdr_img_url and an optional ' +
          'landing_button_name, validated as for a content item. The client’s logo and button name ' +
          'are used as for a saved ad; prospect tags show a sample prospect. Replies image/png.',
        querystring: adRenderQuery,
        body: adRenderBody,
        response: { 200: z.any(), 422: errorReply },
      },
    },
    async (request, reply) => {
      const creative = creativeOf(app);
      const { size } = request.query;
      const body = request.body;
      if (body.sdr_img_url) {
        await assertFetchableUrl('body.sdr_img_url', body.sdr_img_url, {
          allowPrivate: app.config.allowPrivateFetch,
        });
      }
      const brand = await creative.brand(tenantOf(request).clientId);
      const assignee = body.assignee ?? null;
      const values = personalisationValues(assignee, SAMPLE_PROSPECT);
      const text = (plain: string) => personaliseText(plain, values);
      const buttonName = body.landing_button_name ? text(body.landing_button_name) : '';
      const input: AdInput = {
        templateId: body.template_id as TemplateId,
        size,
        imageText: text(body.image_text),
        title: text(body.title),
        colors: { ...DEFAULT_COLORS, ...body.colors },
        assignee,
        repPhoto: body.sdr_img_url || null,
        logo: brand.logoUrl || null,
        cta: buttonName || brand.landingButtonName || undefined,
      };
      const ad = await creative.renderer.render(input);
      return reply
        .type('image/png')
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff')
        .send(ad.png);
    },
  );
};
