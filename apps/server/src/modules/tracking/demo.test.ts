import { and, count, eq, gte, isNotNull, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { cadenceDays, cadences, engagementEvents, feedItems, targets } from '../../db/schema/index.ts';
import { DEMO_CLIENTS, seedDemo, seedDemoData, seedDemoEngagementData } from '../../db/seed.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeContent } from '../../../test/engagement.ts';
import { seedDemoEngagement } from './demo.ts';

describe('demo engagement seed (issue 7 "Demo")', () => {
  it('60 days of impressions and clicks through the same counters and rule, with content on the days; once', async () => {
    const app = await createTestApp();
    await seedDemo(app.db);
    await seedDemoData(app);
    const acme = DEMO_CLIENTS.acme.id;
    const contentId = await makeContent(app, acme, { title: 'Acme demo ad' });

    const first = await seedDemoEngagementData(app);
    expect(first.events).toBeGreaterThan(100);

    // Ads on for the demo cadences, the demo content on their days.
    const list = await app.db.select().from(cadences).where(eq(cadences.clientId, acme));
    expect(list.length).toBeGreaterThan(0);
    expect(list.every((c) => c.isSuper && c.status === 'active')).toBe(true);
    const days = await app.db.select().from(cadenceDays).where(eq(cadenceDays.clientId, acme));
    expect(days.every((d) => d.contentDays[0]?.content_id === contentId)).toBe(true);

    // Every counter equals its events; super exactly when the rule says so; a super feed item each.
    const rows = await app.db.select().from(targets).where(eq(targets.clientId, DEMO_CLIENTS.agency.id));
    for (const t of [...rows, ...(await app.db.select().from(targets).where(eq(targets.clientId, acme)))]) {
      const [byType] = await app.db
        .select({
          imp: sql<number>`count(*) filter (where ${engagementEvents.type} = 'impression')::int`,
          clk: sql<number>`count(*) filter (where ${engagementEvents.type} = 'click')::int`,
        })
        .from(engagementEvents)
        .where(eq(engagementEvents.targetId, t.id));
      expect({ imp: t.impressions, clk: t.clicks }).toEqual(byType);
      expect(t.superDate !== null).toBe(t.clicks >= 1 || t.impressions >= 15);
    }
    const supers = await app.db
      .select({ n: count() })
      .from(targets)
      .where(and(eq(targets.clientId, acme), isNotNull(targets.superDate)));
    const superFeed = await app.db
      .select({ n: count() })
      .from(feedItems)
      .where(and(eq(feedItems.clientId, acme), eq(feedItems.type, 'super')));
    expect(supers[0]!.n).toBeGreaterThan(0);
    expect(superFeed[0]!.n).toBe(supers[0]!.n);

    // Spread over the last 60 days, with some from the last week.
    const sixtyOneDaysAgo = new Date(Date.now() - 61 * 86_400_000);
    const inRange = await app.db
      .select({ n: count() })
      .from(engagementEvents)
      .where(and(eq(engagementEvents.clientId, acme), gte(engagementEvents.occurredAt, sixtyOneDaysAgo)));
    const all = await app.db
      .select({ n: count() })
      .from(engagementEvents)
      .where(eq(engagementEvents.clientId, acme));
    expect(inRange[0]!.n).toBe(all[0]!.n);
    const lastWeek = await app.db
      .select({ n: count() })
      .from(engagementEvents)
      .where(
        and(
          eq(engagementEvents.clientId, acme),
          gte(engagementEvents.occurredAt, new Date(Date.now() - 7 * 86_400_000)),
        ),
      );
    expect(lastWeek[0]!.n).toBeGreaterThan(0);

    // A second start adds nothing.
    const total = async () => (await app.db.select({ n: count() }).from(engagementEvents))[0]!.n;
    const before = await total();
    expect(await seedDemoEngagementData(app)).toEqual({ events: 0 });
    expect(await total()).toBe(before);
  });

  it('seeded ten minutes into a month, two targets still turn super in that month (the demo balance has uncharged ones)', async () => {
    const app = await createTestApp({ workers: false });
    await seedDemo(app.db);
    await seedDemoData(app);
    const acme = DEMO_CLIENTS.acme.id;
    const now = new Date(Date.UTC(2026, 11, 1, 0, 10));
    await seedDemoEngagement(app, [acme], now);
    const [fresh] = await app.db
      .select({ n: count() })
      .from(targets)
      .where(and(eq(targets.clientId, acme), gte(targets.superDate, new Date(Date.UTC(2026, 11, 1)))));
    expect(fresh!.n).toBeGreaterThanOrEqual(2);
    await app.close();
  });
});
