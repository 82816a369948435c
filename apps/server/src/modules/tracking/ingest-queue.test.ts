import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import {
  cadenceDays,
  cadences,
  companies,
  content,
  prospects,
  salesReps,
  targets,
} from '../../db/schema/index.ts';
import { adImageFor } from '../creative/index.ts';
import { createTestApp, waitFor } from '../../../test/helpers.ts';
import { makeClient } from '../../../test/http.ts';
import {
  BROWSER_UA,
  makeCadence,
  makeContent,
  makeProspect,
  makeRep,
  makeTarget,
  setWebsite,
  showing,
} from '../../../test/engagement.ts';
import { neutralAd } from './neutral-png.ts';
import { vacuumQueue } from './repository.ts';

/**
 * Issue 19's ingest design, over real HTTP on loopback, on PGlite and PostgreSQL: the tag decides
 * from a per-process cache of the target's state and appends to `ingest_queue`; one consumer folds
 * the queue into events, counters, the superprospect rule and the feed "within a second"
 * (ARCHITECTURE.md §5). These tests hold the cache to the state as it is now, and the fast lane
 * (tracking/fast-lane.ts, real HTTP) to the Fastify route (`app.inject`).
 */
let app: FastifyInstance;
let base: string;
let clientId: string;
let repId: string;
let contentId: string;

beforeAll(async () => {
  app = await createTestApp();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  clientId = await makeClient(app, 'Queue Co');
  repId = await makeRep(app, clientId);
  contentId = await makeContent(app, clientId, { title: 'First ad' });
});
afterAll(() => app.close());

const ua = { 'user-agent': BROWSER_UA };
const adOf = async (token: string) => {
  const res = await fetch(`${base}/t/${token}/ad/300x250.png`, { headers: ua });
  const png = Buffer.from(await res.arrayBuffer());
  await app.tracking.settled();
  return { status: res.status, png };
};
const impressionsOf = async (id: string) =>
  (await app.db.select({ n: targets.impressions }).from(targets).where(eq(targets.id, id)))[0]!.n;
const version = async () => {
  const rows = (await app.db.execute(
    sql`select version::int as v from tracking_state_versions where client_id = ${clientId}`,
  )) as unknown as { rows: { v: number }[] };
  return rows.rows[0]?.v ?? 0;
};

async function servingTarget() {
  const cadenceId = await makeCadence(app, clientId, { days: { 1: showing(contentId) } });
  return { ...(await makeTarget(app, clientId, cadenceId, { repId })), cadenceId };
}

describe('the counts follow the answers', () => {
  it('"within a second" (ARCHITECTURE.md §5): counters and the super feed item appear without anyone waiting for the fold', async () => {
    const t = await servingTarget();
    const answers = await Promise.all(
      Array.from({ length: 15 }, () => fetch(`${base}/t/${t.token}/ad/300x250.png`, { headers: ua })),
    );
    expect(answers.map((r) => r.status)).toEqual(Array.from({ length: 15 }, () => 200));
    // Polled from the last answer for at most the second the architecture allows.
    const answered = Date.now();
    let row: typeof targets.$inferSelect | undefined;
    while (Date.now() - answered <= 1_000) {
      [row] = await app.db.select().from(targets).where(eq(targets.id, t.id));
      if (row?.impressions === 15) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(row).toMatchObject({ impressions: 15 });
    expect(row!.superDate).toBeInstanceOf(Date);
    const feed = (await app.db.execute(
      sql`select count(*)::int as n from feed_items where target_id = ${t.id} and type = 'super'`,
    )) as unknown as { rows: { n: number }[] };
    expect(feed.rows[0]!.n).toBe(1);
    const queued = (await app.db.execute(sql`select count(*)::int as n from ingest_queue`)) as unknown as {
      rows: { n: number }[];
    };
    expect(queued.rows[0]!.n).toBe(0);
  });
  it("an event another process queued (no fold asked for here) is folded by this process's poll: it looks at the queue every second and folds when something is there", async () => {
    const t = await servingTarget();
    await app.tracking.settled();
    // Appended as another instance's answer would be, behind this process's back: no write here
    // schedules a fold, so only the poll (service.ts pollFold) can take it.
    await app.db.execute(sql`
      insert into ingest_queue (client_id, target_id, cadence_id, type, day_number, content_id, size, occurred_at)
      values (${clientId}, ${t.id}, ${t.cadenceId}, 'impression', 1, ${contentId}, '300x250', now())`);
    const impressions = await waitFor(async () => (await impressionsOf(t.id)) || false, 15_000);
    expect(impressions).toBe(1);
    const queued = (await app.db.execute(sql`select count(*)::int as n from ingest_queue`)) as unknown as {
      rows: { n: number }[];
    };
    expect(queued.rows[0]!.n).toBe(0);
  });
  it("the queue's vacuum (the consumer's, every 20,000 events on PostgreSQL) runs beside appends and folds and loses nothing", async () => {
    const t = await servingTarget();
    const answers = Promise.all(
      Array.from({ length: 20 }, () => fetch(`${base}/t/${t.token}/ad/300x250.png`, { headers: ua })),
    );
    await vacuumQueue(app.db);
    expect((await answers).map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 200));
    await vacuumQueue(app.db);
    await app.tracking.settled();
    expect(await impressionsOf(t.id)).toBe(20);
  });
  it("after a vacuum of the caught-up queue, the planner sizes a refilled queue by its pages, not as empty (the fold's plans depend on it)", async () => {
    await app.tracking.settled();
    // Rows the consumer never sees (rolled back): pages that a vacuum then finds empty.
    const fill = (tx: Parameters<Parameters<typeof app.db.transaction>[0]>[0]) =>
      tx.execute(sql`insert into ingest_queue (client_id, target_id, cadence_id, type, day_number, occurred_at)
        select gen_random_uuid(), gen_random_uuid(), 1, 'impression', 1, now() from generate_series(1, 2000)`);
    const rollback = new Error('rolled back');
    const inTx = <T>(fn: (tx: Parameters<Parameters<typeof app.db.transaction>[0]>[0]) => Promise<T>) =>
      app.db
        .transaction(async (tx) => {
          const out = await fn(tx);
          throw Object.assign(rollback, { out });
        })
        .catch((err: unknown) => {
          if (err !== rollback) throw err;
          return (rollback as Error & { out: T }).out;
        });
    await inTx(fill);
    await vacuumQueue(app.db);
    const estimate = await inTx(async (tx) => {
      await fill(tx);
      const plan = (await tx.execute(sql`explain (format json) select * from ingest_queue`)) as unknown as {
        rows: { 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] | string }[];
      };
      const doc = plan.rows[0]!['QUERY PLAN'];
      return (typeof doc === 'string' ? (JSON.parse(doc) as [{ Plan: { 'Plan Rows': number } }]) : doc)[0]
        .Plan['Plan Rows'];
    });
    // Without the vacuum's truncation it is 1: no rows per page at the last vacuum, times any pages.
    expect(estimate).toBeGreaterThan(500);
  });
});

describe('the cached state is the state as it is now', () => {
  it('a cadence paused after its target was served stops counting at once, and counts again when resumed', async () => {
    const t = await servingTarget();
    expect(await adOf(t.token)).toMatchObject({ status: 200 });
    expect(await impressionsOf(t.id)).toBe(1);
    const before = await version();
    await app.db.update(cadences).set({ status: 'paused' }).where(eq(cadences.id, t.cadenceId));
    expect(await version()).toBeGreaterThan(before);
    const paused = await adOf(t.token);
    expect(paused.png.equals(neutralAd('300x250'))).toBe(true);
    expect(await impressionsOf(t.id)).toBe(1);
    await app.db.update(cadences).set({ status: 'active' }).where(eq(cadences.id, t.cadenceId));
    const resumed = await adOf(t.token);
    expect(resumed.png.equals(neutralAd('300x250'))).toBe(false);
    expect(await impressionsOf(t.id)).toBe(2);
  });

  it("a day's content swapped, a rep deselected, a target finished or deleted: each shows on the next request", async () => {
    const t = await servingTarget();
    const first = await adOf(t.token);
    const other = await makeContent(app, clientId, { title: 'Second ad, other words' });
    await app.db
      .update(cadenceDays)
      .set({ contentDays: showing(other) })
      .where(eq(cadenceDays.cadenceId, t.cadenceId));
    const second = await adOf(t.token);
    expect(second.png.equals(first.png)).toBe(false);
    expect(second.png.equals(neutralAd('300x250'))).toBe(false);
    expect(await impressionsOf(t.id)).toBe(2);

    // Content archived: no content for the day, nothing counted.
    await app.db.update(content).set({ isArchived: true }).where(eq(content.id, other));
    expect((await adOf(t.token)).png.equals(neutralAd('300x250'))).toBe(true);
    expect(await impressionsOf(t.id)).toBe(2);
    await app.db.update(content).set({ isArchived: false }).where(eq(content.id, other));

    await app.db.update(salesReps).set({ selected: false }).where(eq(salesReps.id, repId));
    expect((await adOf(t.token)).png.equals(neutralAd('300x250'))).toBe(true);
    expect(await impressionsOf(t.id)).toBe(2);
    await app.db.update(salesReps).set({ selected: true }).where(eq(salesReps.id, repId));
    expect((await adOf(t.token)).png.equals(neutralAd('300x250'))).toBe(false);
    expect(await impressionsOf(t.id)).toBe(3);

    await app.db.update(targets).set({ isActive: false }).where(eq(targets.id, t.id));
    expect((await adOf(t.token)).png.equals(neutralAd('300x250'))).toBe(true);
    expect(await impressionsOf(t.id)).toBe(3);

    await app.db.delete(targets).where(eq(targets.id, t.id));
    expect((await adOf(t.token)).status).toBe(404);
  });

  it('the image follows an edit of its content or of its rep on the next request, though served images are kept per state', async () => {
    const own = await makeContent(app, clientId, { title: 'Kept image' });
    const cadenceId = await makeCadence(app, clientId, { days: { 1: showing(own) } });
    const t = await makeTarget(app, clientId, cadenceId, { repId });
    const first = await adOf(t.token);
    expect((await adOf(t.token)).png.equals(first.png)).toBe(true);

    // As the content service saves an edit: the row's updated_at is the content's version.
    await app.db
      .update(content)
      .set({ title: 'Edited words', updatedAt: new Date() })
      .where(eq(content.id, own));
    const edited = await adOf(t.token);
    expect(edited.png.equals(first.png)).toBe(false);

    const [rep] = await app.db.select().from(salesReps).where(eq(salesReps.id, repId));
    await app.db.update(salesReps).set({ firstName: 'Renamed' }).where(eq(salesReps.id, repId));
    const renamed = await adOf(t.token);
    await app.db.update(salesReps).set({ firstName: rep!.firstName }).where(eq(salesReps.id, repId));
    expect(renamed.png.equals(edited.png)).toBe(false);
    expect(await impressionsOf(t.id)).toBe(4);
  });

  it("an ad naming the prospect follows a change of the prospect's name, title or company (or the company's name) on the next request, though its image is kept per state too (issue 43)", async () => {
    const tagged = await makeContent(app, clientId, { title: 'Named ad' });
    const tag = (id: string) => `&lt;span data-id="${id}"&gt;x&lt;/span&gt;`;
    await app.db
      .update(content)
      .set({
        imageText: `Hi ${tag('prospect_first_name')} ${tag('prospect_last_name')} at ${tag('prospect_company_name')}`,
        title: `For the ${tag('prospect_title')}`,
        updatedAt: new Date(),
      })
      .where(eq(content.id, tagged));
    const cadenceId = await makeCadence(app, clientId, { days: { 1: showing(tagged) } });
    const prospectId = await makeProspect(app, clientId);
    const t = await makeTarget(app, clientId, cadenceId, { repId, prospectId });
    const seen: Buffer[] = [(await adOf(t.token)).png];
    // Served again from the kept key: the same picture.
    expect((await adOf(t.token)).png.equals(seen[0]!)).toBe(true);
    const differs = async () => {
      const png = (await adOf(t.token)).png;
      const fresh = seen.every((earlier) => !earlier.equals(png));
      seen.push(png);
      return fresh;
    };
    const [person] = await app.db.select().from(prospects).where(eq(prospects.id, prospectId));
    await app.db.update(prospects).set({ firstName: 'Robin' }).where(eq(prospects.id, prospectId));
    expect(await differs()).toBe(true);
    await app.db.update(prospects).set({ lastName: 'Okafor' }).where(eq(prospects.id, prospectId));
    expect(await differs()).toBe(true);
    await app.db.update(prospects).set({ title: 'Head of Freight' }).where(eq(prospects.id, prospectId));
    expect(await differs()).toBe(true);
    await app.db
      .update(companies)
      .set({ name: 'Renamed Freight' })
      .where(eq(companies.id, person!.companyId!));
    expect(await differs()).toBe(true);
    const [other] = await app.db
      .insert(companies)
      .values({ clientId, integrationId: person!.integrationId, externalId: 'other-co', name: 'Other Co' })
      .returning({ id: companies.id });
    await app.db.update(prospects).set({ companyId: other!.id }).where(eq(prospects.id, prospectId));
    expect(await differs()).toBe(true);
    // The names it shows are the ones rendered for the person as they now are.
    const [row] = await app.db.select().from(content).where(eq(content.id, tagged));
    const [rep] = await app.db.select().from(salesReps).where(eq(salesReps.id, repId));
    const expected = await adImageFor(app, {
      content: row!,
      size: '300x250',
      target: {
        rep: rep!,
        prospect: {
          firstName: 'Robin',
          lastName: 'Okafor',
          title: 'Head of Freight',
          companyName: 'Other Co',
        },
      },
    });
    expect(seen.at(-1)!.equals(expected!.png)).toBe(true);
    expect(await impressionsOf(t.id)).toBe(7);
  });

  it("the client's state version moves on each change the decision reads, once per transaction, and not on counter updates", async () => {
    const t = await servingTarget();
    let v = await version();
    const moved = async () => {
      const now = await version();
      const changed = now > v;
      v = now;
      return changed;
    };
    await app.db.update(targets).set({ impressions: 99, dayImpressions: 9 }).where(eq(targets.id, t.id));
    expect(await moved()).toBe(false);
    await app.db.update(targets).set({ dayNumber: 2 }).where(eq(targets.id, t.id));
    expect(await moved()).toBe(true);
    await app.db.update(targets).set({ dayNumber: 2 }).where(eq(targets.id, t.id));
    expect(await moved()).toBe(false);
    await setWebsite(app, clientId, 'https://queue.example');
    expect(await moved()).toBe(true);
    await app.db.update(salesReps).set({ title: 'VP' }).where(eq(salesReps.id, repId));
    expect(await moved()).toBe(true);
    // The prospect's fields an ad may name, and its company's name (migration 0065); not the rest.
    const prospectId = await makeProspect(app, clientId);
    v = await version();
    await app.db
      .update(prospects)
      .set({ photoUrl: 'https://people.example/kendall.png' })
      .where(eq(prospects.id, prospectId));
    expect(await moved()).toBe(false);
    await app.db.update(prospects).set({ firstName: 'Kendall' }).where(eq(prospects.id, prospectId));
    expect(await moved()).toBe(false);
    await app.db.update(prospects).set({ firstName: 'Robin' }).where(eq(prospects.id, prospectId));
    expect(await moved()).toBe(true);
    const [person] = await app.db.select().from(prospects).where(eq(prospects.id, prospectId));
    await app.db
      .update(companies)
      .set({ website: 'https://co.example' })
      .where(eq(companies.id, person!.companyId!));
    expect(await moved()).toBe(false);
    await app.db.update(companies).set({ name: 'Renamed Co' }).where(eq(companies.id, person!.companyId!));
    expect(await moved()).toBe(true);
    // Many rows of one client in one transaction: one step.
    await app.db.transaction(async (tx) => {
      await tx.update(targets).set({ dayNumber: 3 }).where(eq(targets.clientId, clientId));
      await tx.update(cadences).set({ name: 'Renamed' }).where(eq(cadences.id, t.cadenceId));
    });
    expect(await version()).toBe(v + 1);
  });
});

describe('the fast lane answers as the route does', () => {
  it('the same status, headers and image over real HTTP (the lane) as through app.inject (the Fastify route), and 404 for an unknown token', async () => {
    const t = await servingTarget();
    const viaLane = await fetch(`${base}/t/${t.token}/ad/728x90.png`, {
      headers: { ...ua, 'x-request-id': 'lane-check-1' },
    });
    const lanePng = Buffer.from(await viaLane.arrayBuffer());
    const viaRoute = await app.inject({
      url: `/t/${t.token}/ad/728x90.png`,
      headers: { ...ua, 'x-request-id': 'lane-check-1' },
    });
    expect(viaLane.status).toBe(viaRoute.statusCode);
    expect(lanePng.equals(viaRoute.rawPayload)).toBe(true);
    const skip = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
    const laneHeaders = Object.fromEntries([...viaLane.headers].filter(([k]) => !skip.has(k)));
    const routeHeaders = Object.fromEntries(
      Object.entries(viaRoute.headers)
        .filter(([k]) => !skip.has(k))
        .map(([k, value]) => [k, String(value)]),
    );
    expect(laneHeaders).toEqual(routeHeaders);
    expect(laneHeaders['x-request-id']).toBe('lane-check-1');
    expect(laneHeaders['content-security-policy']).toBeTruthy();
    await app.tracking.settled();
    expect(await impressionsOf(t.id)).toBe(2);

    const unknownLane = await fetch(`${base}/t/nobody-has-this/ad/300x250.png`, { headers: ua });
    const unknownRoute = await app.inject({ url: '/t/nobody-has-this/ad/300x250.png', headers: ua });
    expect(unknownLane.status).toBe(404);
    expect(await unknownLane.json()).toEqual(unknownRoute.json());
    expect(unknownLane.headers.get('content-type')).toBe(unknownRoute.headers['content-type']);
  });

  it('the e-mail rendition (decision 0020) too: the lane answers as the route does, with the 1200 × 600 PNG, and both count', async () => {
    const t = await servingTarget();
    const headers = { ...ua, 'x-request-id': 'lane-check-email' };
    const viaLane = await fetch(`${base}/t/${t.token}/ad/email.png`, { headers });
    const lanePng = Buffer.from(await viaLane.arrayBuffer());
    const viaRoute = await app.inject({ url: `/t/${t.token}/ad/email.png`, headers });
    expect(viaLane.status).toBe(200);
    expect(viaRoute.statusCode).toBe(200);
    expect(lanePng.equals(viaRoute.rawPayload)).toBe(true);
    expect([lanePng.readUInt32BE(16), lanePng.readUInt32BE(20)]).toEqual([1200, 600]);
    const skip = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
    const laneHeaders = Object.fromEntries([...viaLane.headers].filter(([k]) => !skip.has(k)));
    const routeHeaders = Object.fromEntries(
      Object.entries(viaRoute.headers)
        .filter(([k]) => !skip.has(k))
        .map(([k, value]) => [k, String(value)]),
    );
    expect(laneHeaders).toEqual(routeHeaders);
    await app.tracking.settled();
    expect(await impressionsOf(t.id)).toBe(2);
    const sizes = (await app.db.execute(
      sql`select size from engagement_events where target_id = ${t.id} order by id`,
    )) as unknown as { rows: { size: string }[] };
    expect(sizes.rows.map((r) => r.size)).toEqual(['email', 'email']);
  });

  it('what the lane does not take goes to the route: a size outside the four is a 422 naming params.size', async () => {
    const t = await servingTarget();
    const res = await fetch(`${base}/t/${t.token}/ad/301x250.png`, { headers: ua });
    expect(res.status).toBe(422);
    expect(JSON.stringify(await res.json())).toContain('size');
    await app.tracking.settled();
    expect(await impressionsOf(t.id)).toBe(0);
  });
});
