import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { SESSION_COOKIE, base58ToUuid, pageTitle, unescapeHtml } from '@rally/shared';
import { AD_RENDITIONS } from '@rally/shared/schemas/content';
import type { AdRendition } from '@rally/shared/schemas/content';
import { hashToken } from '../../lib/crypto.ts';
import { testIdOf } from '../tracking/test-tags.ts';
import { isAutomated } from '../tracking/verdict.ts';
import { PUBLIC_PAGE_CSP, contentPreviewHtml, notFoundHtml } from './landing-page.ts';
import { contentWithBrand } from './repository.ts';
import type { RenderedPage } from './service.ts';
import { adInputFor, creativeOf, landingPage, previewLandingPage } from './service.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Checked in the handlers, so a bad id gets the HTML not-found page rather than a JSON 400.
const idParams = z.object({ base58: z.string() });
const previewParams = z.object({ base58: z.string(), resolution: z.string() });

function sendHtml(reply: FastifyReply, status: number, html: string | Buffer, cacheControl: string) {
  return reply
    .code(status)
    .header('content-security-policy', PUBLIC_PAGE_CSP)
    .header('cache-control', cacheControl)
    .type('text/html; charset=utf-8')
    .send(html);
}

function notFound(reply: FastifyReply, title?: string) {
  return sendHtml(reply, 404, notFoundHtml(title), 'no-store');
}

function sendPage(request: FastifyRequest, reply: FastifyReply, page: RenderedPage, cacheControl: string) {
  reply.header('etag', page.etag);
  if (request.headers['if-none-match'] === page.etag) {
    return reply.code(304).header('cache-control', cacheControl).send();
  }
  return sendHtml(reply, 200, page.bytes, cacheControl);
}

/**
 * The signed-in user's client ids, or null without a session. These pages are outside the API
 * bases, where the auth plugin does not look at sessions, so the cookie is checked here (read only).
 */
async function memberClients(app: FastifyInstance, request: FastifyRequest): Promise<Set<string> | null> {
  const token = request.cookies[SESSION_COOKIE];
  if (!token) return null;
  const session = await creativeOf(app).sessionUser(hashToken(token));
  if (!session) return null;
  const self = await app.identity.self(session.userId);
  if (!self) return null;
  // A session started by a client's single sign-on sees that client's previews only.
  const { scopeClientId } = session;
  return new Set(
    self.clients.map((c) => c.client_id).filter((id) => scopeClientId === null || id === scopeClientId),
  );
}

/**
 * Global Privacy Control (`Sec-GPC: 1`, issue 44): the visit's view is recorded as any other, and
 * nothing beyond it. The page is sent without an ETag (a validator a browser returns is an
 * identifier), not to be stored (`no-store`), and its links send no referrer. The page sets no
 * cookie and carries no click id in any case; see docs/privacy.md.
 */
function globalPrivacyControl(request: FastifyRequest): boolean {
  return request.headers['sec-gpc'] === '1';
}

function sendLandingPage(request: FastifyRequest, reply: FastifyReply, page: RenderedPage, gpc: boolean) {
  reply.header('vary', 'Sec-GPC');
  if (gpc) return sendHtml(reply, 200, page.bytes, 'private, no-store');
  return sendPage(request, reply, page, page.targetToken ? 'private, no-cache' : 'public, no-cache');
}

/** Counts the view through the engine's ingest (the path of POST /v1/rest/tracked/view). */
function countView(app: FastifyInstance, request: FastifyRequest, token: string) {
  if (isAutomated(request) || !app.hasDecorator('tracking')) return;
  // A test e-mail's click (issue 38) brings its id: that visit is the user's own, not the prospect's.
  const test = testIdOf(request.query);
  (test ? app.tracking.testTag(test, token, 'view') : Promise.resolve(false))
    .then((isTest) => (isTest ? undefined : app.tracking.recordView(token)))
    .catch((err: unknown) => request.log.warn({ err }, 'landing page view not counted'));
}

/**
 * Server-rendered pages (issue 8), registered at the root before the single-page app's fallback:
 * - `/lp/{base58}` public landing page, personalised by `?t={target token}`;
 * - `/{base58}` the same on a client's verified landing domain (matched by Host);
 * - `/lp/preview` and `/content/preview/{base58}/{size}[.png]` for signed-in members: SPEC.md §2
 *   lists them as app routes behind login, so without a session they fall through to the app, whose
 *   guard sends the visitor to /login and back.
 * Every HTML answer carries PUBLIC_PAGE_CSP: no script runs on these pages.
 */
export const publicPageRoutes: FastifyPluginAsyncZod = async (app) => {
  const creative = creativeOf(app);
  const mainHost = new URL(app.config.publicUrl).hostname.toLowerCase();

  app.get('/lp/preview', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const clients = await memberClients(app, request);
    if (!clients) return reply.callNotFound();
    const asked = (request.query as Record<string, unknown>).client_id;
    const clientId =
      typeof asked === 'string' && clients.has(asked.toLowerCase()) ? asked.toLowerCase() : null;
    return sendPage(request, reply, await previewLandingPage(app, clientId), 'private, no-cache');
  });

  app.get(
    '/lp/:base58',
    { config: { access: 'public' }, schema: { hide: true, params: idParams } },
    async (request, reply) => {
      const id = base58ToUuid(request.params.base58);
      if (!id) return notFound(reply);
      const t = (request.query as Record<string, unknown>).t;
      const token = typeof t === 'string' && t.length > 0 && t.length <= 64 ? t : null;
      const gpc = globalPrivacyControl(request);
      const page = await landingPage(app, id, { token, gpc });
      if (!page) return notFound(reply);
      if (page.targetToken) countView(app, request, page.targetToken);
      return sendLandingPage(request, reply, page, gpc);
    },
  );

  // One segment at the root: on the app's own host (and any host that is not a verified landing
  // domain) this steps aside, so /feed, /login and the rest reach the app as before.
  app.get(
    '/:base58',
    { config: { access: 'public' }, schema: { hide: true, params: idParams } },
    async (request, reply) => {
      const host = request.hostname.toLowerCase().replace(/\.$/, '');
      const id = host === mainHost ? null : base58ToUuid(request.params.base58);
      if (!id) return reply.callNotFound();
      const clientId = await creative.landingDomainClient(host);
      if (!clientId) return reply.callNotFound();
      const t = (request.query as Record<string, unknown>).t;
      const token = typeof t === 'string' && t.length > 0 && t.length <= 64 ? t : null;
      const gpc = globalPrivacyControl(request);
      const page = await landingPage(app, id, { token, clientId, gpc });
      if (!page) return notFound(reply);
      if (page.targetToken) countView(app, request, page.targetToken);
      return sendLandingPage(request, reply, page, gpc);
    },
  );

  app.get(
    '/content/preview/:base58/:resolution',
    { config: { access: 'public' }, schema: { hide: true, params: previewParams } },
    async (request, reply) => {
      const { base58, resolution } = request.params;
      const png = resolution.endsWith('.png');
      const size = (png ? resolution.slice(0, -4) : resolution) as AdRendition;
      const clients = await memberClients(app, request);
      if (!clients) {
        if (png)
          return reply
            .code(401)
            .header('cache-control', 'no-store')
            .send({ message: 'Sign in to see this preview' });
        return reply.callNotFound();
      }
      const title = pageTitle('Content preview');
      const id = base58ToUuid(base58);
      if (!id || !UUID.test(id) || !AD_RENDITIONS.includes(size))
        return png ? reply.code(404).send() : notFound(reply, title);
      const found = await contentWithBrand(app.db, id);
      if (!found || !clients.has(found.content.clientId))
        return png ? reply.code(404).send() : notFound(reply, title);
      const { content, brand } = found;
      if (!png) {
        const html = contentPreviewHtml({
          base58,
          size,
          name: unescapeHtml(content.name ?? ''),
          status: content.status,
          templateId: content.templateId,
        });
        return sendHtml(reply, 200, html, 'private, no-cache');
      }
      const input = adInputFor(content, size, brand);
      const etag = `"${creative.renderer.keyOf(input).slice(0, 32)}"`;
      reply.header('etag', etag).header('cache-control', 'private, no-cache');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      const ad = await creative.renderer.render(input);
      return reply.type('image/png').send(ad.png);
    },
  );
};
