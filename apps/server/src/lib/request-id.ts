import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const REQUEST_ID = /^[\w.-]{1,128}$/;

/**
 * A request's id: the load balancer's `x-request-id` when it is a plain token, else a new one. Used by
 * Fastify (`genReqId`) and the ad tag's fast lane, which both echo it on the response.
 */
export function requestIdOf(req: Pick<IncomingMessage, 'headers'>): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}
