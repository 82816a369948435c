import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { API_PREFIXES } from '../lib/prefixes.ts';
import { LATEST_BUILD_FILE, matchAppRoute } from '@rally/shared';

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Rally</title>
<p>The web app has not been built. Run <code>npm run build</code>, or start with <code>npm start</code>.</p>`;

/** Lets any site frame this reply: no X-Frame-Options, and `frame-ancestors *` in the CSP. */
export function allowFraming(reply: FastifyReply): void {
  reply.removeHeader('x-frame-options');
  const csp = reply.getHeader('content-security-policy');
  if (typeof csp !== 'string') return;
  const directives = csp
    .split(';')
    .map((d) => d.trim())
    .filter((d) => d && !/^frame-ancestors\b/i.test(d));
  reply.header('content-security-policy', [...directives, 'frame-ancestors *'].join(';'));
}

/**
 * Serves the built single-page app. Hashed assets are cached for a year; index.html and the
 * latest-build file are never cached, so a deploy is picked up at once. App paths get the SPA shell
 * with 200 when the shared route table knows them and 404 when it does not (SPEC.md §8).
 */
export const spaPlugin: FastifyPluginAsync<{ webDist: string }> = async (app, opts) => {
  const indexFile = path.join(opts.webDist, 'index.html');
  const built = existsSync(indexFile);
  const shell = built ? readFileSync(indexFile, 'utf8') : NOT_BUILT;
  if (!built) app.log.warn({ webDist: opts.webDist }, 'web app not built; serving a notice instead');

  if (built) {
    await app.register(fastifyStatic, {
      root: opts.webDist,
      prefix: '/',
      index: false,
      // Register a route per built file, so unknown paths fall through to the not-found handler below.
      wildcard: false,
      cacheControl: false,
      // The build writes .br and .gz beside each text asset (apps/web/vite.config.ts precompress).
      preCompressed: true,
      setHeaders(reply, filePath) {
        const rel = path.relative(opts.webDist, filePath).split(path.sep).join('/');
        const hashed = rel.startsWith('assets/');
        reply.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
      // config.access is only required inside the API bases; static files are public by nature.
    });
  }

  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    const isPage =
      (request.method === 'GET' || request.method === 'HEAD') &&
      !API_PREFIXES.some((p) => pathname.startsWith(`${p}/`));
    // A missing file (a stale hashed chunk, /favicon.png) is a plain 404, not the app shell.
    const lastSegment = pathname.split('/').pop() ?? '';
    if (!isPage || lastSegment.includes('.') || pathname === `/${LATEST_BUILD_FILE}`) {
      return reply.code(404).send({ message: `Not found: ${request.method} ${pathname}` });
    }
    const match = matchAppRoute(pathname);
    const known = match !== null;
    // A standalone page (an embedded report link) is made to be shown in other tools' frames; every
    // other page of the app keeps refusing to be framed (clickjacking).
    if (match?.route.standalone) allowFraming(reply);
    return reply
      .code(known ? 200 : 404)
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(shell);
  });
};
