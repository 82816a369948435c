import { createHash } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import { AD_SIZES } from '@rally/shared/schemas/content';
import { SUPER_RULE } from '@rally/shared/schemas/tracking';
import type { Db } from '../../db/client.ts';
import { cadenceDays, cadences, content, engagementEvents, targets } from '../../db/schema/index.ts';
import type { IngestItem, TrackingService } from './service.ts';

const DAY_MS = 86_400_000;

/** A small deterministic generator, so every fresh demo looks the same. */
function prng(seed: string): () => number {
  let s = createHash('sha256').update(seed).digest().readUInt32LE(0) || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4_294_967_296;
  };
}

/** Puts the client's published content on its cadence days, unless some day already has content. */
async function assignDemoContent(db: Db, clientId: string): Promise<void> {
  const [assigned] = await db
    .select({ one: sql`1` })
    .from(cadenceDays)
    .where(and(eq(cadenceDays.clientId, clientId), sql`jsonb_array_length(${cadenceDays.contentDays}) > 0`))
    .limit(1);
  if (assigned) return;
  const published = await db
    .select({ id: content.id })
    .from(content)
    .where(
      and(eq(content.clientId, clientId), eq(content.status, 'published'), eq(content.isArchived, false)),
    )
    .orderBy(asc(content.createdAt), asc(content.id));
  if (published.length === 0) return;
  const days = await db
    .select({ id: cadenceDays.id, dayNumber: cadenceDays.dayNumber })
    .from(cadenceDays)
    .where(eq(cadenceDays.clientId, clientId));
  for (const day of days) {
    const pick = published[(day.dayNumber - 1) % published.length];
    if (!pick) continue;
    await db
      .update(cadenceDays)
      .set({ contentDays: [{ content_id: pick.id, day_transition_actions: [] }] })
      .where(eq(cadenceDays.id, day.id));
  }
}

/** The last six hours, but not before this month began (UTC, the demo billing's time zone). */
function freshWindow(now: Date): { from: number; to: number } {
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const from = Math.max(monthStart, now.getTime() - 6 * 3_600_000);
  // The click comes 90 s after its impression and no later than now.
  return { from, to: Math.max(from, now.getTime() - 90_000) };
}

/**
 * Makes the demo clients' engine alive (issue 7 "Demo"): ads on for their cadences, their published
 * content assigned to days that have none (when a content seed made some), and 60 days of
 * impressions and clicks recorded through the tracking service itself, so counters, superprospects
 * and feed items come from the same rule as live traffic. A client that already has events is
 * left alone, so restarts add nothing.
 */
export async function seedDemoEngagement(
  deps: { db: Db; tracking: TrackingService },
  clientIds: readonly string[],
  now = new Date(),
): Promise<{ events: number }> {
  const { db, tracking } = deps;
  let total = 0;
  for (const clientId of clientIds) {
    const [has] = await db
      .select({ one: sql`1` })
      .from(engagementEvents)
      .where(eq(engagementEvents.clientId, clientId))
      .limit(1);
    // Content may be seeded after the events were (a later start): fill the days then, once.
    await assignDemoContent(db, clientId);
    if (has) continue;

    await db
      .update(cadences)
      .set({ isSuper: true, status: 'active', updatedAt: now })
      .where(eq(cadences.clientId, clientId));

    const rows = await db
      .select({ token: targets.token })
      .from(targets)
      .where(eq(targets.clientId, clientId))
      .orderBy(asc(targets.token));
    const items: IngestItem[] = [];
    // Two targets that the rolls leave unengaged turn super this month (an impression, then a click):
    // early in a month the skewed days can leave none, and the demo's balance then shows no
    // uncharged superprospects (issue 9 "Demo": it shows both, uncharged and invoiced).
    const fresh = freshWindow(now);
    let freshLeft = 2;
    for (const { token } of rows) {
      const rand = prng(`${clientId}:${token}`);
      // Most targets saw a handful of ads; some many (super by impressions); a few clicked.
      const roll = rand();
      const impressions =
        roll < 0.25 ? 0 : roll < 0.8 ? 1 + Math.floor(rand() * 10) : 12 + Math.floor(rand() * 14);
      const clicks = rand() < 0.12 ? 1 + Math.floor(rand() * 2) : 0;
      // Skewed towards recent days, so today's cards and the feed's top have something.
      const when = () => new Date(now.getTime() - Math.pow(rand(), 1.6) * 60 * DAY_MS);
      const seen: Date[] = [];
      for (let i = 0; i < impressions; i++) {
        const size = AD_SIZES[Math.floor(rand() * AD_SIZES.length)] ?? '300x250';
        const at = when();
        seen.push(at);
        items.push({ token, type: 'impression', size, at, allowNoContent: true });
      }
      // A click follows one of the target's impressions by a minute or two.
      for (let i = 0; i < clicks && seen.length > 0; i++) {
        const after = seen[Math.floor(rand() * seen.length)]?.getTime() ?? now.getTime();
        const at = new Date(Math.min(now.getTime(), after + 60_000 + rand() * 60_000));
        items.push({ token, type: 'click', at });
      }
      if (freshLeft > 0 && clicks === 0 && impressions < SUPER_RULE.impressions - 1) {
        freshLeft -= 1;
        const at = new Date(fresh.from + rand() * (fresh.to - fresh.from));
        items.push({ token, type: 'impression', size: '300x250', at, allowNoContent: true });
        items.push({ token, type: 'click', at: new Date(Math.min(now.getTime(), at.getTime() + 90_000)) });
      }
    }
    items.sort((a, b) => (a.at?.getTime() ?? 0) - (b.at?.getTime() ?? 0));
    const outcomes = await tracking.recordMany(items);
    total += outcomes.filter((o) => o.status === 'recorded').length;
  }
  return { events: total };
}
