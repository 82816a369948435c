import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AD_RENDITIONS } from '@rally/shared/schemas/content';
import { neutralClickHtml, PUBLIC_PAGE_CSP } from '../creative/index.ts';
import { NEUTRAL_SEGMENT, neutralAd } from '../tracking/index.ts';

const NEUTRAL_PAGE = neutralClickHtml();

/**
 * The neutral pair written into a person's fields once they have left every cadence of the platform
 * (decision 0019): `/t/neutral/{size}.png` is a transparent image of that size and `/t/neutral/c` a
 * plain page. No token, nothing counted, cacheable. Outside the ad tag's path shape
 * (`/t/{token}/ad/{size}.png`), so neither the tag route nor its fast lane sees them.
 */
export const neutralTagRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    `/t/${NEUTRAL_SEGMENT}/:size.png`,
    {
      config: { access: 'public' },
      logLevel: 'warn',
      schema: {
        tags: ['tracking'],
        summary:
          'The neutral ad image written for a person no longer on a cadence: transparent, counts nothing',
        params: z.object({
          size: z.enum(AD_RENDITIONS, { error: `must be one of ${AD_RENDITIONS.join(', ')}` }),
        }),
        // No 422 schema: the validation reply's `errors` (naming params.size) must pass unfiltered.
        response: { 200: z.unknown().describe('image/png') },
      },
    },
    async (request, reply) =>
      reply
        .header('cache-control', 'public, max-age=86400')
        .type('image/png')
        .send(neutralAd(request.params.size)),
  );

  app.get(
    `/t/${NEUTRAL_SEGMENT}/c`,
    {
      config: { access: 'public' },
      logLevel: 'warn',
      schema: {
        tags: ['tracking'],
        summary: 'The neutral click page written for a person no longer on a cadence: counts nothing',
        response: { 200: z.unknown().describe('text/html') },
      },
    },
    async (_request, reply) =>
      reply
        .header('cache-control', 'public, max-age=86400')
        .header('content-security-policy', PUBLIC_PAGE_CSP)
        .type('text/html; charset=utf-8')
        .send(NEUTRAL_PAGE),
  );
};
