import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  engagementLastReply,
  feedPageQuery,
  feedPageReply,
  feedStreamQuery,
  feedSummaryReply,
  superTodayReply,
} from '@rally/shared/schemas/feed';
import type { FeedItem } from '@rally/shared/schemas/feed';
import { SSO_SCOPE_DENIED, authOf, scopeAllows, tenantOf } from '../../lib/access.ts';
import { httpError } from '../../lib/errors.ts';
import { SERVICE_PREFIXES } from '../../lib/prefixes.ts';
import {
  engagementLast,
  feedAfter,
  feedCount,
  feedNewestId,
  feedPage,
  feedSummary,
  superToday,
} from './repository.ts';

/** Comments on an idle stream, so proxies and browsers keep it open (most time out after 30-60 s). */
export const HEARTBEAT_SECONDS = 25;
/** How long EventSource waits before it reconnects after the stream drops. */
const RETRY_MS = 3000;

/**
 * The activity feed under /sc (SPEC.md §7 "GET /dashboard/feed; GET /dashboard/feed/data;
 * GET /dashboard/super/today; GET /dashboard/engagement/last"), and its live updates as server-sent
 * events (issue 7: "live updates pushed to open pages").
 */
export const feedRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app;
  const streamPath = '/dashboard/feed/stream';

  app.get(
    '/dashboard/feed',
    {
      config: { access: 'member' },
      schema: {
        tags: ['feed'],
        summary: 'The feed at a glance: the newest item, items of each type in 7 days, the live stream',
        response: { 200: feedSummaryReply },
      },
    },
    async (request) => ({
      ...(await feedSummary(db, tenantOf(request).clientId, new Date())),
      stream_url: `${SERVICE_PREFIXES.sc}${streamPath}`,
      heartbeat_seconds: HEARTBEAT_SECONDS,
    }),
  );

  app.get(
    '/dashboard/feed/data',
    {
      config: { access: 'member' },
      schema: {
        tags: ['feed'],
        summary: 'Feed items, newest first, paged by page and page_size (SPEC.md §9)',
        description:
          'New superprospects, ad clicks, landing page views, finished syncs and file imports. `type` ' +
          'narrows to one kind; `until_id` (the first item id of page 1) keeps later pages steady ' +
          'while new items arrive. The newest 10,000 items are reachable by page.',
        querystring: feedPageQuery,
        response: { 200: feedPageReply },
      },
    },
    async (request) => {
      const q = request.query;
      const filter = { clientId: tenantOf(request).clientId, type: q.type, untilId: q.until_id };
      const offset = (q.page - 1) * q.page_size;
      const [items, count] = await Promise.all([
        feedPage(db, filter, offset, q.page_size),
        feedCount(db, filter),
      ]);
      return {
        items,
        page: q.page,
        page_size: q.page_size,
        total: count.total,
        total_capped: count.capped,
        has_more: offset + items.length < count.total || count.capped,
      };
    },
  );

  app.get(
    '/dashboard/super/today',
    {
      config: { access: 'member' },
      schema: {
        tags: ['feed'],
        summary: 'New superprospects today, and yesterday for comparison (UTC days)',
        response: { 200: superTodayReply },
      },
    },
    async (request) => superToday(db, tenantOf(request).clientId, new Date()),
  );

  app.get(
    '/dashboard/engagement/last',
    {
      config: { access: 'member' },
      schema: {
        tags: ['feed'],
        summary: 'Impressions, clicks and views of the last 7 days (and the 7 before), the latest event',
        response: { 200: engagementLastReply },
      },
    },
    async (request) => engagementLast(db, tenantOf(request).clientId, new Date()),
  );

  const open = new Set<ServerResponse>();
  // Streams never go idle: end them, or closing the server would wait for them forever.
  app.addHook('preClose', async () => {
    for (const res of open) res.end();
  });
  // Redis back after an outage: items other instances published meanwhile never reached these
  // streams. Ended, each browser reconnects (after RETRY_MS) with Last-Event-ID and is replayed
  // what it missed (issue 41 item 4).
  app.redis?.onResume(() => {
    if (open.size) app.log.info({ streams: open.size }, 'feed: redis is back; streams sent to reconnect');
    for (const res of open) res.end();
  });

  app.get(
    streamPath,
    {
      // EventSource cannot send x-client-id: the client comes in the query and membership is checked here.
      config: { access: 'session' },
      schema: {
        tags: ['feed'],
        summary: 'Live feed items as server-sent events (text/event-stream)',
        description:
          '`event: feed` with a feed item as data, for each new item of the client; `event: ready` once ' +
          `following; a comment every ${HEARTBEAT_SECONDS} s. A reconnecting EventSource sends ` +
          'Last-Event-ID and gets the items it missed (up to 100) first.',
        querystring: feedStreamQuery,
      },
    },
    async (request, reply) => {
      const clientId = request.query.client_id.toLowerCase();
      const auth = authOf(request);
      if (!scopeAllows(auth, clientId)) throw httpError(403, SSO_SCOPE_DENIED);
      const self = await app.identity.self(auth.user.id);
      if (!self?.clients.some((c) => c.client_id === clientId)) {
        throw httpError(403, 'Access Denied: you are not a member of this client.');
      }
      const header = request.headers['last-event-id'];
      const lastId =
        request.query.last_event_id ??
        (typeof header === 'string' && /^\d{1,15}$/.test(header) ? Number(header) : undefined);

      const res = reply.raw;
      let replaying = true;
      const held: FeedItem[] = [];
      // Items sent by the replay, which may also arrive live (stored before the replay read them,
      // published after the subscription): sent once.
      const replayed = new Set<number>();
      // The newest item id this stream has accounted for: given to the browser on 'ready' too, so a
      // reconnect always carries a Last-Event-ID, even when no item came before the stream ended.
      let cursor = lastId ?? 0;
      const send = (item: FeedItem) => {
        if (replayed.has(item.id) || res.destroyed) return;
        cursor = Math.max(cursor, item.id);
        res.write(`id: ${item.id}\nevent: feed\ndata: ${JSON.stringify(item)}\n\n`);
      };
      // Follow first, then replay what was missed, so nothing falls between the two.
      const unsubscribe = await app.feedBus.subscribe(clientId, (item) => {
        if (replaying) held.push(item);
        else send(item);
      });
      reply.hijack();
      res.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        // nginx and similar proxies would otherwise buffer the stream.
        'x-accel-buffering': 'no',
        'x-request-id': request.id,
      });
      open.add(res);
      const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_SECONDS * 1000);
      heartbeat.unref();
      const cleanUp = () => {
        clearInterval(heartbeat);
        unsubscribe();
        open.delete(res);
      };
      res.on('close', cleanUp);
      if (res.destroyed) cleanUp();
      try {
        res.write(`retry: ${RETRY_MS}\n\n`);
        if (lastId !== undefined) {
          for (const item of await feedAfter(db, clientId, lastId)) {
            send(item);
            replayed.add(item.id);
          }
        } else {
          cursor = Math.max(cursor, await feedNewestId(db, clientId));
        }
        replaying = false;
        for (const item of held.splice(0)) send(item);
        res.write(`id: ${cursor}\nevent: ready\ndata: {}\n\n`);
      } catch (err) {
        request.log.warn({ err }, 'feed stream: replay failed');
        res.end();
      }
    },
  );
};
