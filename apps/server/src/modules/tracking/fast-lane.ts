import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { AD_RENDITIONS } from '@rally/shared/schemas/content';
import type { AdRendition } from '@rally/shared/schemas/content';
import { INTERNAL_ERROR_MESSAGE } from '../../lib/errors.ts';
import { requestIdOf } from '../../lib/request-id.ts';
import { adPng, UNKNOWN_TOKEN } from './routes.ts';
import { clientIpOf, judge } from './verdict.ts';

/** A handler that answers the request and returns true, or returns false and leaves it alone. */
export type FastLane = (req: IncomingMessage, res: ServerResponse) => boolean;

// Only what the route's schema (adTagParams) accepts as it is: a plain token and one of the sizes
// or the e-mail rendition (the tag a cadence's e-mails carry, opened by every recipient).
const AD_PATH = new RegExp(`^/t/([A-Za-z0-9_-]{1,128})/ad/(${AD_RENDITIONS.join('|')})\\.png$`);

/**
 * The ad tag (`GET /t/{token}/ad/{size}.png`) answered ahead of Fastify: the hottest path of the
 * product, where routing, schema checks and hooks were a fifth of a request's CPU (issue 19). It
 * answers exactly as the route does (the same verdict and record call, the same image, status,
 * `no-store`, security headers and request id); anything else (a HEAD, a query string, an odd
 * token or size, every other path) goes to Fastify, whose route also serves `app.inject`.
 */
export function adFastLane(app: FastifyInstance): FastLane {
  // The headers as flat lists built once: writeHead with a list writes them as they are, where a
  // setHeader per header copied each into the response's map first (issue 19's profile).
  const security = Object.entries(app.securityHeaders).flat();
  const PNG = [...security, 'cache-control', 'no-store', 'content-type', 'image/png'];
  const JSON_ERROR = [...security, 'content-type', 'application/json; charset=utf-8'];
  const send = (req: IncomingMessage, res: ServerResponse, status: number, fixed: string[], body: Buffer) => {
    res.writeHead(status, [
      ...fixed,
      'x-request-id',
      requestIdOf(req),
      'content-length',
      String(body.length),
    ]);
    res.end(body);
  };
  const json = (message: string) => Buffer.from(JSON.stringify({ message }));

  // The address as Fastify reads it (TRUST_PROXY): Apple's and the gateways' ranges are judged on it.
  const ipOf = clientIpOf(app.config.trustProxy);

  async function serve(req: IncomingMessage, res: ServerResponse, token: string, size: AdRendition) {
    try {
      const { verdict, reason } = judge({ method: 'GET', headers: req.headers, ip: ipOf(req) }, 'impression');
      const out = await app.tracking.record({ token, type: 'impression', size, verdict, reason });
      if (out.status === 'unknown') {
        send(req, res, 404, JSON_ERROR, json(UNKNOWN_TOKEN));
        return;
      }
      send(req, res, 200, PNG, await adPng(app, out.target, size, app.log));
    } catch (err) {
      app.log.error({ err, url: req.url }, 'ad tag failed');
      if (!res.headersSent) send(req, res, 500, JSON_ERROR, json(INTERNAL_ERROR_MESSAGE));
    }
  }

  return (req, res) => {
    if (req.method !== 'GET') return false;
    const m = AD_PATH.exec(req.url ?? '');
    const token = m?.[1];
    if (!token) return false;
    void serve(req, res, token, m[2] as AdRendition);
    return true;
  };
}
