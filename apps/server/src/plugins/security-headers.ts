import fp from 'fastify-plugin';
import helmet from 'helmet';
import type { HelmetOptions } from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Security headers from helmet, computed once at start-up: the policy does not change per request
 * (no nonces), and running helmet's middleware on every request cost about a tenth of a request's CPU.
 */
export function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers = new Map<string, string>();
  const res = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value));
    },
    removeHeader(name: string) {
      headers.delete(name.toLowerCase());
    },
    getHeader(name: string) {
      return headers.get(name.toLowerCase());
    },
  };
  let failure: unknown;
  helmet(options)({} as IncomingMessage, res as unknown as ServerResponse, (err?: unknown) => {
    failure = err;
  });
  if (failure) throw failure;
  return Object.fromEntries(headers);
}

declare module 'fastify' {
  // Module augmentation needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface FastifyInstance {
    securityHeaders: Record<string, string>;
  }
}

export const securityHeaders = fp<{ options: HelmetOptions }>(
  async (app, opts) => {
    const headers = helmetHeaders(opts.options);
    // The ad tag's fast lane (tracking/fast-lane.ts) answers outside Fastify with the same headers.
    app.decorate('securityHeaders', headers);
    app.addHook('onRequest', async (_request, reply) => {
      reply.headers(headers);
    });
  },
  { name: 'security-headers' },
);
