import { randomBytes, randomUUID } from 'node:crypto';
import { eq as sqlEq } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type {
  EngagementLast,
  FeedItem,
  FeedPageReply,
  FeedSummary,
  SuperToday,
} from '@rally/shared/schemas/feed';
import {
  cadences,
  engagementEvents,
  feedItems,
  integrations,
  prospects,
  targets,
} from '../../db/schema/index.ts';
import { createSecretBox } from '../../lib/crypto.ts';
import { oauthCredentialsFrom } from '../integrations/vendor-http.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';
import {
  makeCadence,
  makeContent,
  makeProspect,
  makeRep,
  makeTarget,
  showing,
  rawGet,
} from '../../../test/engagement.ts';
import { startFakeSalesloft } from '../../../test/fakes/salesloft.ts';

/**
 * The activity feed (SPEC.md §7 "GET /dashboard/feed; GET /dashboard/feed/data; GET
 * /dashboard/super/today; GET /dashboard/engagement/last"; SPEC.md §9 "feed ... paged by page and
 * page_size") and its live updates (issue 7: "server-sent events; through Redis pub/sub when
 * REDIS_URL is set, so two server instances both push") over real HTTP on loopback.
 */
const DAY = 86_400_000;
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

let app: FastifyInstance;
let base: string;
let clientId: string;
let otherId: string;
let owner: Browser;
let viewer: Browser;
let outsider: Browser;

const baseOf = (a: FastifyInstance) => {
  const address = a.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
};

beforeAll(async () => {
  app = await createTestApp();
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = baseOf(app);
  clientId = await makeClient(app, 'Feedy');
  otherId = await makeClient(app, 'Elsewhere');
  owner = (await signedIn(app, { [clientId]: 'purple_owner' })).browser;
  viewer = (await signedIn(app, { [clientId]: 'grey_viewer' })).browser;
  outsider = (await signedIn(app, { [otherId]: 'purple_owner' })).browser;
});

type Sse = { event: string; id?: string; data: string };

/** An EventSource-like reader of the stream over real HTTP, with the browser's cookies. */
async function openStream(
  b: Browser,
  opts: { base?: string; client?: string; headers?: Record<string, string>; query?: string } = {},
) {
  const controller = new AbortController();
  const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const url = `${opts.base ?? base}/sc/dashboard/feed/stream?client_id=${opts.client ?? clientId}${opts.query ?? ''}`;
  const res = await fetch(url, {
    headers: { cookie, accept: 'text/event-stream', ...opts.headers },
    signal: controller.signal,
  });
  const events: Sse[] = [];
  const comments: string[] = [];
  let buffer = '';
  const waiters: (() => void)[] = [];
  const pump = (async () => {
    if (!res.body || res.status !== 200) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const e: Sse = { event: 'message', data: '' };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line);
            else if (line.startsWith('event: ')) e.event = line.slice(7);
            else if (line.startsWith('id: ')) e.id = line.slice(4);
            else if (line.startsWith('data: ')) e.data += line.slice(6);
          }
          if (e.data || e.event !== 'message') events.push(e);
        }
        for (const w of waiters.splice(0)) w();
      }
    } catch {
      // aborted
    }
  })();
  const until = async (pred: (e: Sse[]) => boolean, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (!pred(events)) {
      if (Date.now() > deadline) throw new Error(`stream: timed out; got ${JSON.stringify(events)}`);
      await Promise.race([new Promise<void>((r) => waiters.push(r)), new Promise((r) => setTimeout(r, 50))]);
    }
  };
  const items = () => events.filter((e) => e.event === 'feed').map((e) => JSON.parse(e.data) as FeedItem);
  return {
    res,
    events,
    comments,
    items,
    ready: () => until((e) => e.some((x) => x.event === 'ready')),
    until,
    async close() {
      controller.abort();
      await pump;
    },
  };
}

async function waitFor(check: () => boolean, ms = 3000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('GET /sc/dashboard/feed/data (SPEC.md §9 "feed ... paged by page and page_size")', () => {
  let ids: number[];
  let prospectId: string;
  let cadenceId: number;

  beforeAll(async () => {
    const [integration] = await app.db
      .insert(integrations)
      .values({ clientId, source: 'fileforce' })
      .returning();
    const [cadence] = await app.db
      .insert(cadences)
      .values({ clientId, integrationId: integration!.id, externalId: 'c', name: 'Q3 Outbound - Feed' })
      .returning();
    cadenceId = cadence!.id;
    const [person] = await app.db
      .insert(prospects)
      .values({
        clientId,
        integrationId: integration!.id,
        externalId: 'p',
        firstName: 'Grace',
        lastName: 'Hopper',
      })
      .returning();
    prospectId = person!.id;
    const now = Date.now();
    // 25 items a minute apart, newest last; one of another client in between.
    const rows = Array.from({ length: 25 }, (_, i) => ({
      clientId,
      type: (['super', 'click', 'view', 'sync', 'import'] as const)[i % 5]!,
      prospectId: i % 5 < 3 ? prospectId : null,
      cadenceId: i % 5 < 3 ? cadenceId : null,
      data: i % 5 < 3 ? { first_name: 'Old', last_name: 'Name', cadence_name: 'Old cadence' } : { n: i },
      createdAt: new Date(now - (25 - i) * 60_000),
    }));
    const inserted = await app.db.insert(feedItems).values(rows).returning({ id: feedItems.id });
    await app.db.insert(feedItems).values({ clientId: otherId, type: 'click', data: {} });
    ids = inserted.map((r) => r.id);
  });

  it('newest first, paged by page and page_size, with total and has_more', async () => {
    const first = (await owner.get('/sc/dashboard/feed/data?page_size=10')).json<FeedPageReply>();
    expect(first).toMatchObject({ page: 1, page_size: 10, total: 25, total_capped: false, has_more: true });
    expect(first.items.map((i) => i.id)).toEqual([...ids].reverse().slice(0, 10));
    const third = (await owner.get('/sc/dashboard/feed/data?page=3&page_size=10')).json<FeedPageReply>();
    expect(third.items.map((i) => i.id)).toEqual([...ids].reverse().slice(20));
    expect(third.has_more).toBe(false);
    // Default page size 20.
    expect((await owner.get('/sc/dashboard/feed/data')).json<FeedPageReply>().items).toHaveLength(20);
  });

  it('items carry type, time and current names (prospect, cadence), else the names stored with them', async () => {
    const page = (await owner.get('/sc/dashboard/feed/data?page_size=100')).json<FeedPageReply>();
    const superItem = page.items.find((i) => i.type === 'super')!;
    expect(superItem).toMatchObject({
      prospect_id: prospectId,
      prospect_name: 'Grace Hopper',
      cadence_id: cadenceId,
      cadence_name: 'Q3 Outbound - Feed',
      company_name: null,
    });
    expect(Date.parse(superItem.created_at)).toBeGreaterThan(Date.now() - 30 * 60_000);
    const importItem = page.items.find((i) => i.type === 'import')!;
    expect(importItem).toMatchObject({ prospect_name: null, cadence_name: null });
    expect(typeof importItem.detail.n).toBe('number');
    // A prospect deleted since: the name at the time.
    const [gone] = await app.db
      .insert(feedItems)
      .values({
        clientId,
        type: 'click',
        prospectId: randomUUID(),
        data: { first_name: 'Ada', last_name: 'Lovelace', cadence_name: 'Gone cadence', impressions: 3 },
        createdAt: new Date(Date.now() - 120 * 60_000),
      })
      .returning({ id: feedItems.id });
    const again = (await owner.get('/sc/dashboard/feed/data?page_size=100')).json<FeedPageReply>();
    expect(again.items.find((i) => i.id === gone!.id)).toMatchObject({
      prospect_name: 'Ada Lovelace',
      cadence_name: 'Gone cadence',
      detail: { impressions: 3 },
    });
    await app.db.delete(feedItems).where(sqlEq(feedItems.id, gone!.id));
  });

  it('type narrows the list; until_id keeps pages steady while new items arrive', async () => {
    const supers = (await owner.get('/sc/dashboard/feed/data?type=super')).json<FeedPageReply>();
    expect(supers.total).toBe(5);
    expect(supers.items.every((i) => i.type === 'super')).toBe(true);
    const top = ids.at(-1)!;
    const [fresh] = await app.db
      .insert(feedItems)
      .values({ clientId, type: 'sync', data: {} })
      .returning({ id: feedItems.id });
    const steady = (
      await owner.get(`/sc/dashboard/feed/data?page=2&page_size=10&until_id=${top}`)
    ).json<FeedPageReply>();
    expect(steady.items.map((i) => i.id)).toEqual([...ids].reverse().slice(10, 20));
    const moved = (await owner.get('/sc/dashboard/feed/data?page_size=1')).json<FeedPageReply>();
    expect(moved.items[0]!.id).toBe(fresh!.id);
    await app.db.delete(feedItems).where(sqlEq(feedItems.id, fresh!.id));
  });

  it('until_id keeps an item stored later but dated earlier (a backfill): the pages add up to the total', async () => {
    const top = ids.at(-1)!;
    // Stored after every other item, dated between the 5th and 6th newest.
    const [late] = await app.db
      .insert(feedItems)
      .values({ clientId, type: 'sync', data: {}, createdAt: new Date(Date.now() - 5.5 * 60_000) })
      .returning({ id: feedItems.id });
    try {
      const first = (
        await owner.get(`/sc/dashboard/feed/data?page=1&page_size=10&until_id=${top}`)
      ).json<FeedPageReply>();
      const second = (
        await owner.get(`/sc/dashboard/feed/data?page=2&page_size=10&until_id=${top}`)
      ).json<FeedPageReply>();
      const third = (
        await owner.get(`/sc/dashboard/feed/data?page=3&page_size=10&until_id=${top}`)
      ).json<FeedPageReply>();
      const seen = [...first.items, ...second.items, ...third.items].map((i) => i.id);
      expect(first.total).toBe(26);
      expect(seen).toHaveLength(26);
      expect(new Set(seen).size).toBe(26);
      expect(first.items.map((i) => i.id)).toContain(late!.id);
    } finally {
      await app.db.delete(feedItems).where(sqlEq(feedItems.id, late!.id));
    }
  });

  it('422 naming the field for a bad page, page_size, type or until_id, and past the newest 10,000', async () => {
    const bad: [string, string][] = [
      ['page=0', 'querystring.page'],
      ['page=x', 'querystring.page'],
      ['page_size=0', 'querystring.page_size'],
      ['page_size=101', 'querystring.page_size'],
      ['type=impression', 'querystring.type'],
      ['until_id=-4', 'querystring.until_id'],
      ['page=101&page_size=100', 'querystring.page'],
    ];
    for (const [q, field] of bad) {
      const res = await owner.get(`/sc/dashboard/feed/data?${q}`);
      expect(res.statusCode, q).toBe(422);
      expect(res.json().errors[0].field, q).toBe(field);
    }
    expect((await owner.get('/sc/dashboard/feed/data?page=100&page_size=100')).statusCode).toBe(200);
  });

  it('any member reads it (a grey_viewer too); a foreign client sees only its own; a non-member gets 403', async () => {
    expect((await viewer.get('/sc/dashboard/feed/data')).json<FeedPageReply>().total).toBe(25);
    const theirs = (await outsider.get('/sc/dashboard/feed/data')).json<FeedPageReply>();
    expect(theirs.total).toBe(1);
    expect(theirs.items.map((i) => i.id)).not.toContain(ids[0]);
    expect((await outsider.get('/sc/dashboard/feed/data', { clientId })).statusCode).toBe(403);
    expect((await new Browser(app).get('/sc/dashboard/feed/data', { clientId })).statusCode).toBe(401);
  });

  it('GET /sc/dashboard/feed: the newest item, counts of the last 7 days by type, the stream', async () => {
    await app.db
      .insert(feedItems)
      .values({ clientId, type: 'view', data: {}, createdAt: new Date(Date.now() - 8 * DAY) });
    const res = await owner.get('/sc/dashboard/feed');
    expect(res.statusCode).toBe(200);
    const body = res.json<FeedSummary>();
    expect(body).toMatchObject({
      latest_id: ids.at(-1),
      last_7_days: { super: 5, click: 5, view: 5, sync: 5, import: 5 },
      stream_url: '/sc/dashboard/feed/stream',
      heartbeat_seconds: 25,
    });
    expect(Date.parse(body.latest_at!)).toBeGreaterThan(Date.now() - 5 * 60_000);
    const empty = (await outsider.get('/sc/dashboard/feed')).json<FeedSummary>();
    expect(empty.last_7_days).toEqual({ super: 0, click: 1, view: 0, sync: 0, import: 0, journey: 0 });
  });
});

describe('GET /sc/dashboard/super/today and /sc/dashboard/engagement/last', () => {
  let client: string;
  let b: Browser;
  beforeAll(async () => {
    // Not across midnight UTC: "today" must be the same day for the inserts and the call.
    const now = new Date();
    const toMidnight =
      Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime();
    if (toMidnight < 20_000) await new Promise((r) => setTimeout(r, toMidnight + 500));
    client = await makeClient(app, 'Cards');
    b = (await signedIn(app, { [client]: 'yellow_sdr' })).browser;
  });

  it('counts targets that became super today and yesterday (UTC), once each, not older ones or other clients', async () => {
    const empty = (await b.get('/sc/dashboard/super/today')).json<SuperToday>();
    expect(empty).toMatchObject({ count: 0, yesterday: 0, time_zone: 'UTC' });
    expect(empty.date).toBe(new Date().toISOString().slice(0, 10));
    const now = new Date();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const cadenceId = await makeCadence(app, client);
    const at = [today + 1, today + 2, today - 1, today - DAY, today - DAY - 1];
    for (const t of at) {
      const target = await makeTarget(app, client, cadenceId);
      await app.db
        .update(targets)
        .set({ superDate: new Date(t) })
        .where(sqlEq(targets.id, target.id));
    }
    await makeTarget(app, client, cadenceId); // never super
    const theirs = await makeTarget(app, otherId, await makeCadence(app, otherId));
    await app.db
      .update(targets)
      .set({ superDate: new Date(today + 5) })
      .where(sqlEq(targets.id, theirs.id));
    const res = await b.get('/sc/dashboard/super/today');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ count: 2, yesterday: 2 });
  });

  it('engagement of the last 7 days against the 7 before, and the latest event with its names', async () => {
    const empty = (await b.get('/sc/dashboard/engagement/last')).json<EngagementLast>();
    expect(empty).toEqual({
      impressions: 0,
      clicks: 0,
      views: 0,
      previous: { impressions: 0, clicks: 0, views: 0 },
      uncounted: [],
      last_event: null,
    });
    const cadenceId = await makeCadence(app, client, { name: 'Cards cadence' });
    const prospectId = await makeProspect(app, client);
    const t = await makeTarget(app, client, cadenceId, { prospectId });
    const now = Date.now();
    const ev = (type: 'impression' | 'click' | 'view', ago: number, c = client, target = t.id) => ({
      clientId: c,
      targetId: target,
      cadenceId,
      type,
      occurredAt: new Date(now - ago),
    });
    await app.db
      .insert(engagementEvents)
      .values([
        ev('impression', DAY),
        ev('impression', 2 * DAY),
        ev('impression', 3 * DAY),
        ev('click', 60_000),
        ev('view', 6 * DAY),
        ev('impression', 8 * DAY),
        ev('click', 10 * DAY),
        ev('view', 20 * DAY),
        ev('click', 1000, otherId, randomUUID()),
      ]);
    const res = await b.get('/sc/dashboard/engagement/last');
    expect(res.statusCode).toBe(200);
    const body = res.json<EngagementLast>();
    const [person] = await app.db.select().from(prospects).where(sqlEq(prospects.id, prospectId));
    expect(body).toMatchObject({
      impressions: 3,
      clicks: 1,
      views: 1,
      previous: { impressions: 1, clicks: 1, views: 0 },
      last_event: {
        type: 'click',
        prospect_name: `${person!.firstName} ${person!.lastName}`.trim(),
        cadence_name: 'Cards cadence',
      },
    });
    expect(Math.abs(Date.parse(body.last_event!.at) - (now - 60_000))).toBeLessThan(1000);
  });

  it('a non-member gets 403 on both; signed out 401', async () => {
    for (const url of ['/sc/dashboard/super/today', '/sc/dashboard/engagement/last', '/sc/dashboard/feed']) {
      expect((await outsider.get(url, { clientId: client })).statusCode, url).toBe(403);
      expect((await new Browser(app).get(url, { clientId: client })).statusCode, url).toBe(401);
    }
  });
});

describe('GET /sc/dashboard/feed/stream (server-sent events)', () => {
  it('a member follows the client: proxy-friendly headers, ready, then each published item once', async () => {
    const s = await openStream(viewer);
    expect(s.res.status).toBe(200);
    expect(s.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(s.res.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(s.res.headers.get('x-accel-buffering')).toBe('no');
    expect(s.res.headers.get('content-encoding')).toBeNull();
    await s.ready();
    expect(app.feedBus.followers(clientId)).toBe(1);
    const item = await app.feedBus.add({ clientId, type: 'sync', data: { source: 'salesloft' } });
    await app.feedBus.add({ clientId: otherId, type: 'sync', data: {} });
    await s.until(() => s.items().length === 1);
    expect(s.items()[0]).toEqual(item);
    expect(s.events.find((e) => e.event === 'feed')!.id).toBe(String(item.id));
    await new Promise((r) => setTimeout(r, 200));
    expect(s.items()).toHaveLength(1); // nothing of the other client, nothing twice
    await s.close();
    // Disconnecting lets go of the subscription.
    await waitFor(() => app.feedBus.followers(clientId) === 0);
  });

  it('a reconnect with Last-Event-ID gets the items it missed first, then live ones', async () => {
    const before = await app.feedBus.add({ clientId, type: 'sync', data: { n: 1 } });
    const missed = [
      await app.feedBus.add({ clientId, type: 'import', data: { n: 2 } }),
      await app.feedBus.add({ clientId, type: 'import', data: { n: 3 } }),
    ];
    const s = await openStream(owner, { headers: { 'last-event-id': String(before.id) } });
    await s.ready();
    expect(s.items().map((i) => i.id)).toEqual(missed.map((m) => m.id));
    const live = await app.feedBus.add({ clientId, type: 'sync', data: { n: 4 } });
    await s.until(() => s.items().length === 3);
    expect(s.items()[2]!.id).toBe(live.id);
    await s.close();
  });

  it("'ready' carries the newest item id, so a stream that got no item still reconnects with Last-Event-ID", async () => {
    const newest = await app.feedBus.add({ clientId, type: 'sync', data: { n: 5 } });
    const s = await openStream(owner);
    await s.ready();
    expect(s.items()).toEqual([]);
    expect(s.events.find((e) => e.event === 'ready')!.id).toBe(String(newest.id));
    await s.close();
    // Items arrive while it is away (Redis gone, say); the reconnect gets exactly those.
    const missed = await app.feedBus.add({ clientId, type: 'import', data: { n: 6 } });
    const again = await openStream(owner, { headers: { 'last-event-id': String(newest.id) } });
    await again.ready();
    expect(again.items().map((i) => i.id)).toEqual([missed.id]);
    expect(again.events.find((e) => e.event === 'ready')!.id).toBe(String(missed.id));
    await again.close();
  });

  it('the engine publishes: an ad click shows up live as a click and a new superprospect (ARCHITECTURE.md §5)', async () => {
    const rep = await makeRep(app, clientId, { firstName: 'Maya' });
    const content = await makeContent(app, clientId, { landingPageUrl: 'https://acme.example/offer' });
    const cadenceId = await makeCadence(app, clientId, { days: { 1: showing(content) } });
    const prospectId = await makeProspect(app, clientId);
    const t = await makeTarget(app, clientId, cadenceId, { repId: rep, prospectId });
    const s = await openStream(owner);
    afterAll(() => s.close());
    await s.ready();
    const res = await rawGet(`${base}/t/${t.token}/c`);
    expect(res.status).toBeLessThan(400);
    await s.until(() => s.items().length >= 2);
    const [clickItem, superItem] = s.items();
    expect(clickItem).toMatchObject({
      type: 'click',
      target_id: t.id,
      prospect_id: prospectId,
      cadence_id: cadenceId,
    });
    expect(superItem).toMatchObject({ type: 'super', target_id: t.id, detail: { reason: 'click' } });
    expect(superItem!.sales_rep_name).toMatch(/^Maya/);
    expect(superItem!.prospect_name).toBeTruthy();
    // And the list has them too.
    const page = (await owner.get('/sc/dashboard/feed/data?page_size=2')).json<FeedPageReply>();
    expect(page.items.map((i) => i.id).sort()).toEqual([clickItem!.id, superItem!.id].sort());
    await s.close();
  });

  it('a finished sync publishes a sync item with the source and what it holds', async () => {
    const fake = await startFakeSalesloft({
      seed: {
        users: [{ id: 1, first_name: 'Rae', last_name: 'Rep', email: 'rae@fake.test' }],
        accounts: [{ id: 1, name: 'Fake Co' }],
        people: [
          { id: 1, first_name: 'Pat', last_name: 'Person', email_address: 'pat@fake.test', account_id: 1 },
        ],
        cadences: [{ id: 1, name: 'Fake cadence', steps: [{ id: 1, day: 1, type: 'email' }] }],
        memberships: [{ id: 1, cadence_id: 1, person_id: 1, user_id: 1, day: 1 }],
      },
    });
    afterAll(() => fake.close());
    const syncApp = await createTestApp({
      env: {
        APP_SECRET: randomBytes(32).toString('hex'),
        SALESLOFT_CLIENT_ID: fake.clientId,
        SALESLOFT_CLIENT_SECRET: fake.clientSecret,
        SALESLOFT_API_URL: fake.apiUrl,
        SALESLOFT_AUTH_URL: fake.authUrl,
      },
      workers: false,
    });
    const c = await makeClient(syncApp, 'Synced');
    const [integration] = await syncApp.db
      .insert(integrations)
      .values({
        clientId: c,
        source: 'salesloft',
        credentialsEnc: createSecretBox(syncApp.config.appSecret).encrypt(
          JSON.stringify(oauthCredentialsFrom(fake.grantTokens())),
        ),
      })
      .returning();
    const heard: FeedItem[] = [];
    const stop = await syncApp.feedBus.subscribe(c, (i) => heard.push(i));
    await syncApp.integrationSync.run({ integrationId: integration!.id });
    stop();
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({
      type: 'sync',
      detail: { source: 'salesloft', cadences: 1, targets: 1 },
    });
    const [stored] = await syncApp.db.select().from(feedItems).where(sqlEq(feedItems.clientId, c));
    expect(stored).toMatchObject({ id: heard[0]!.id, type: 'sync' });
  });

  it('a finished file import publishes an import item with the file name and rows imported', async () => {
    const s = await openStream(owner);
    await s.ready();
    try {
      const csv = [
        'email,first_name,last_name,title,company,website,cadence,day,rep_email',
        'ivy@import.example,Ivy,Import,CTO,Import Co,,Imported cadence,1,rep@import.example',
        'max@import.example,Max,Import,CEO,Import Co,,Imported cadence,2,rep@import.example',
      ].join('\n');
      const form = new FormData();
      form.append('kind', 'targets');
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'people.csv');
      const request = new Request('http://localhost/', { method: 'POST', body: form });
      const files = `/v1/integration/crm/fileforce/client/${clientId}/imports`;
      const up = await owner.post(files, Buffer.from(await request.arrayBuffer()), {
        headers: { 'content-type': request.headers.get('content-type')! },
      });
      expect(up.statusCode, up.body).toBe(201);
      expect((await owner.post(`${files}/${up.json().id}/start`)).statusCode).toBe(202);
      // On PostgreSQL the import runs in a child process that loads the app first: at load 20 (a
      // CI-like run beside other work) the item came after more than 30 s.
      await s.until((e) => e.some((x) => x.event === 'feed' && JSON.parse(x.data).type === 'import'), 90_000);
      expect(s.items().find((i) => i.type === 'import')).toMatchObject({
        type: 'import',
        detail: { file_name: 'people.csv', kind: 'targets', imported_rows: 2, error_rows: 0 },
      });
    } finally {
      // Closed here, not after the file: later tests count this client's open streams.
      await s.close();
    }
  }, 120_000);

  it('refuses: 401 signed out, 422 for a bad client_id, 403 for a client the user is not in', async () => {
    const anon = await fetch(`${base}/sc/dashboard/feed/stream?client_id=${clientId}`);
    expect(anon.status).toBe(401);
    const bad = await openStream(owner, { client: 'nope' });
    expect(bad.res.status).toBe(422);
    expect(((await bad.res.json()) as { errors: { field: string }[] }).errors[0]!.field).toBe(
      'querystring.client_id',
    );
    const foreign = await openStream(outsider);
    expect(foreign.res.status).toBe(403);
    // Refused streams never follow; the previous test's stream may still be closing, so wait for it.
    await waitFor(() => app.feedBus.followers(clientId) === 0, 5000);
  });

  it('closing the server ends open streams instead of waiting for them', async () => {
    const other = await createTestApp();
    await other.listen({ host: '127.0.0.1', port: 0 });
    const c = await makeClient(other, 'Closing');
    const b = (await signedIn(other, { [c]: 'grey_viewer' })).browser;
    const s = await openStream(b, { base: baseOf(other), client: c });
    await s.ready();
    const started = Date.now();
    await other.close();
    expect(Date.now() - started).toBeLessThan(5000);
    await s.close();
  });
});

/** Whether a Redis answers at REDIS_URL (the Redis test is skipped otherwise). */
async function redisAnswers(): Promise<boolean> {
  const r = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    retryStrategy: () => null,
  });
  r.on('error', () => {});
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

describe.skipIf(!(await redisAnswers()))('with REDIS_URL: two server instances on one Redis', () => {
  it('an item published on one instance reaches an open feed page of the other, once', async () => {
    // The sign-in limits live in this Redis too, shared with every other run on the machine (an e2e
    // run signs in from 127.0.0.1 hundreds of times): they must not throttle this test's one sign-in.
    const env = { REDIS_URL, LOGIN_MAX_ATTEMPTS: '1000' };
    const one = await createTestApp({ env });
    const two = await createTestApp({ env });
    await two.listen({ host: '127.0.0.1', port: 0 });
    const c = await makeClient(two, 'Shared');
    const b = (await signedIn(two, { [c]: 'grey_viewer' })).browser;
    const s = await openStream(b, { base: baseOf(two), client: c });
    await s.ready();
    // Instance one stores and publishes (its own database; the client id is what they share).
    const item = await one.feedBus.add({ clientId: c, type: 'sync', data: { source: 'outreach' } });
    await s.until(() => s.items().length === 1);
    expect(s.items()[0]).toEqual(item);
    // Published on two itself: heard back through Redis, delivered once. (The two test databases
    // number items alike; a shared one would not, so this one gets an id of its own.)
    const own = { ...item, id: item.id + 1000, type: 'import' as const };
    two.feedBus.publish(c, own);
    await s.until(() => s.items().length === 2);
    await new Promise((r) => setTimeout(r, 300));
    expect(s.items().map((i) => i.id)).toEqual([item.id, own.id]);
    await s.close();
    await waitFor(() => two.feedBus.followers(c) === 0);
  });
});
