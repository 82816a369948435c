import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AdRendition } from '@rally/shared/schemas/content';
import { z } from 'zod';
import { messageReply } from '@rally/shared/schemas/auth';
import {
  adTagParams,
  clickTagParams,
  trackedViewBody,
  trackedViewReply,
} from '@rally/shared/schemas/tracking';
import { PUBLIC_PAGE_CSP, leavingHtml, neutralClickHtml } from '../creative/landing-page.ts';
import { adImage } from './ad-image.ts';
import { neutralAd } from './neutral-png.ts';
import type { TargetState } from './repository.ts';
import { goesStraight } from './click-trust.ts';
import { adsRunFor, clickDestination } from './service.ts';
import { testIdOf } from './test-tags.ts';
import { isAutomated, judge } from './verdict.ts';

export const UNKNOWN_TOKEN = 'Not found: no ad tag has this token';
// Lenient: a tag sits in other people's e-mails and pages, whose tools may append their own
// parameters; a `test` that is no test id of the target is simply not a test.
const tagQuery = z
  .object({ test: z.unknown().optional().describe('The id of a test e-mail of this target (issue 38)') })
  .loose();
const NEUTRAL_CLICK_PAGE = neutralClickHtml();

/** The ad a target is shown: its day's content for its rep while ads run for it, else the neutral one. */
export async function adPng(
  app: FastifyInstance,
  target: TargetState,
  size: AdRendition,
  log: FastifyBaseLogger,
): Promise<Buffer> {
  if (!adsRunFor(target) || !target.content) return neutralAd(size);
  try {
    return await adImage(app, target, size);
  } catch (err) {
    // The impression is already counted; a blank beats a broken image on someone's page.
    log.error({ err, contentId: target.content.id }, 'ad image failed; served the neutral image');
    return neutralAd(size);
  }
}

/**
 * The public ad and click tags, outside the API bases (they are embedded in other sites, e-mails and
 * ad networks: no session, no CSRF, no x-client-id). Every answer is `no-store`, so each view reaches
 * us. Request logs are off here: this is the hottest path of the product.
 */
export const trackingTagRoutes: FastifyPluginAsyncZod = async (app) => {
  const tracking = app.tracking;
  const appHost = new URL(app.config.publicUrl).hostname;

  app.get(
    '/t/:token/ad/:size.png',
    {
      config: { access: 'public' },
      logLevel: 'warn',
      // A PNG is compressed already; skipping the gzip hook saves about a tenth of this route's time.
      compress: false,
      schema: {
        tags: ['tracking'],
        summary: "The ad for the target's current day, personalised with its sales rep; counts an impression",
        description:
          '`size` is one of the four ad sizes or `email` (the e-mail rendition: 1200 × 600 pixels, shown ' +
          'at 600 × 300). With `test` (the id of a test e-mail of this target, issue 38) the ad is served ' +
          'and the test marked opened, and nothing is counted.',
        querystring: tagQuery,
        params: adTagParams,
        response: { 200: z.unknown().describe('image/png'), 404: messageReply },
      },
    },
    async (request, reply) => {
      const { token, size } = request.params;
      const test = testIdOf(request.query);
      let target: TargetState | null;
      if (test && (await tracking.testTag(test, token, 'open'))) {
        target = await tracking.peek(token);
      } else {
        // Every impression is stored with its verdict; only a person's counts (decision 0017).
        const { verdict, reason } = judge(request, 'impression');
        const out = await tracking.record({ token, type: 'impression', size, verdict, reason });
        target = out.status === 'unknown' ? null : out.target;
      }
      if (!target) return reply.code(404).send({ message: UNKNOWN_TOKEN });
      const png = await adPng(app, target, size, request.log);
      return reply.code(200).header('cache-control', 'no-store').type('image/png').send(png);
    },
  );

  app.get(
    '/t/:token/c',
    {
      config: { access: 'public' },
      logLevel: 'warn',
      compress: false,
      schema: {
        tags: ['tracking'],
        summary:
          "Counts a click and redirects to the landing page with the target's token (else the content's " +
          "landing page URL, the client's website, the rep's calendar); with none of them, a neutral page. " +
          "A destination off the client's verified domains gets a page naming it instead of a redirect",
        params: clickTagParams,
        querystring: tagQuery,
        response: { 200: z.unknown().describe('text/html'), 302: z.null(), 404: messageReply },
      },
    },
    async (request, reply) => {
      const { token } = request.params;
      const test = testIdOf(request.query);
      const isTest = test !== null && (await tracking.testTag(test, token, 'click'));
      let target: TargetState | null;
      if (isTest) {
        target = await tracking.peek(token);
      } else {
        const { verdict, reason } = judge(request, 'click');
        const out = await tracking.record({ token, type: 'click', verdict, reason });
        target = out.status === 'unknown' ? null : out.target;
      }
      if (!target) return reply.code(404).send({ message: UNKNOWN_TOKEN });
      const to = clickDestination(target);
      if (!to) {
        // The click is counted: the visitor gets a page, not an error (a cohort member has no rep
        // calendar to fall back on, so this is where a stage's ad without a landing page lands
        // while the client has no website either).
        return reply
          .code(200)
          .header('cache-control', 'no-store')
          .header('content-security-policy', PUBLIC_PAGE_CSP)
          .type('text/html; charset=utf-8')
          .send(NEUTRAL_CLICK_PAGE);
      }
      // Not on a domain the client verified: a page names the destination (no open redirect).
      if (!goesStraight(to, target, appHost)) {
        return reply
          .code(200)
          .header('cache-control', 'no-store')
          .header('content-security-policy', PUBLIC_PAGE_CSP)
          .header('referrer-policy', 'no-referrer')
          .type('text/html; charset=utf-8')
          .send(leavingHtml(to));
      }
      // A test e-mail's click carries its id on to our landing page, which then counts no view.
      const landing = isTest && to.startsWith('/lp/') ? `${to}&test=${test}` : to;
      return reply.header('cache-control', 'no-store').redirect(landing, 302);
    },
  );
};

/** Landing page views, under the main API base (SPEC.md §7 POST /rest/tracked/view). */
export const trackingApiRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/rest/tracked/view',
    {
      // Sent by a landing page to visitors who have no session with us, so no CSRF token either.
      config: { access: 'public', csrf: false },
      logLevel: 'warn',
      schema: {
        tags: ['tracking'],
        summary: 'Counts a landing page view of the target with this token',
        body: trackedViewBody,
        response: { 200: trackedViewReply, 404: messageReply },
      },
    },
    async (request, reply) => {
      const { token } = request.body;
      if (isAutomated(request)) {
        const target = await app.tracking.peek(token);
        if (!target) return reply.code(404).send({ message: UNKNOWN_TOKEN });
        return { recorded: false };
      }
      const out = await app.tracking.recordView(token);
      if (out.status === 'unknown') return reply.code(404).send({ message: UNKNOWN_TOKEN });
      return { recorded: out.status === 'recorded' };
    },
  );
};
