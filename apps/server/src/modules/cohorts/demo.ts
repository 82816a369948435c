import { createHash } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import { AD_SIZES } from '@rally/shared/schemas/content';
import type { Db } from '../../db/client.ts';
import { cohortMembers, cohorts, content, crmLists, crmStages, targets } from '../../db/schema/index.ts';
import type { IngestItem, TrackingService } from '../tracking/index.ts';
import type { JourneyService } from '../journeys/index.ts';
import type { CohortService } from './service.ts';

const DAY_MS = 86_400_000;

/**
 * The demo cohorts' ids: fixed per client and place (0 = from a CRM list, 1 = from filters), so
 * screens, e2e tests and the docs can link to them. A v4-shaped UUID made from a hash.
 */
export function demoCohortId(clientId: string, n: 0 | 1): string {
  const h = createHash('sha256').update(`rally-demo-cohort:${clientId}:${n}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The demo journey's id (on the first demo cohort of the client), fixed like the cohorts'. */
export function demoJourneyId(clientId: string): string {
  const h = createHash('sha256').update(`rally-demo-journey:${clientId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function prng(seed: string): () => number {
  let s = createHash('sha256').update(seed).digest().readUInt32LE(0) || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4_294_967_296;
  };
}

/**
 * Issue 18 "Demo": per demo client, two cohorts — one from its first CRM list, one from prospect
 * filters (engaged prospects) — synced here, showing the client's first published content, with
 * 60 days of impressions, clicks and views recorded through the tracking service (so counters,
 * superprospects and feed items follow the live rule). The first cohort gets a journey (five stages,
 * begun 60 days ago) evaluated week by week as the engagement is recorded, so its accounts move
 * stage over the 60 days. A client that has cohorts is left alone.
 */
export async function seedDemoCohorts(
  deps: { db: Db; tracking: TrackingService; cohorts: CohortService; journeys?: JourneyService },
  clientIds: readonly string[],
  now = new Date(),
): Promise<{ cohorts: number; events: number }> {
  const { db, tracking } = deps;
  let made = 0;
  let events = 0;
  for (const clientId of clientIds) {
    const [has] = await db
      .select({ id: cohorts.id })
      .from(cohorts)
      .where(eq(cohorts.clientId, clientId))
      .limit(1);
    if (has) continue;
    const [list] = await db
      .select({ id: crmLists.id, name: crmLists.name })
      .from(crmLists)
      .where(eq(crmLists.clientId, clientId))
      .orderBy(asc(crmLists.name), asc(crmLists.id))
      .limit(1);
    const published = await db
      .select({ id: content.id })
      .from(content)
      .where(
        and(eq(content.clientId, clientId), eq(content.status, 'published'), eq(content.isArchived, false)),
      )
      .orderBy(asc(content.createdAt), asc(content.id))
      .limit(3);
    const contentId = published[0]?.id ?? null;
    const created = [];
    if (list) {
      created.push(
        await deps.cohorts.createAndSync(
          clientId,
          {
            name: list.name,
            source_kind: 'crm_list',
            crm_list_id: list.id,
            content_id: contentId,
          },
          demoCohortId(clientId, 0),
        ),
      );
    }
    created.push(
      await deps.cohorts.createAndSync(
        clientId,
        {
          name: 'Engaged prospects',
          source_kind: 'filter',
          filters: { engagement: 'engaged' },
          content_id: contentId,
        },
        demoCohortId(clientId, 1),
      ),
    );
    made += created.length;

    const items: IngestItem[] = [];
    for (const cohort of created) {
      const rows = await db
        .select({ token: targets.token })
        .from(cohortMembers)
        .innerJoin(targets, eq(targets.id, cohortMembers.targetId))
        .where(eq(cohortMembers.cohortId, cohort.id))
        .orderBy(asc(targets.token));
      for (const { token } of rows) {
        const rand = prng(`cohort:${token}`);
        const roll = rand();
        const impressions =
          roll < 0.3 ? 0 : roll < 0.85 ? 1 + Math.floor(rand() * 8) : 10 + Math.floor(rand() * 10);
        const clicks = rand() < 0.1 ? 1 : 0;
        const views = clicks && rand() < 0.7 ? 1 : 0;
        const when = () => new Date(now.getTime() - Math.pow(rand(), 1.4) * 60 * DAY_MS);
        const seen: Date[] = [];
        for (let i = 0; i < impressions; i++) {
          const at = when();
          seen.push(at);
          const size = AD_SIZES[Math.floor(rand() * AD_SIZES.length)] ?? '300x250';
          items.push({ token, type: 'impression', size, at, allowNoContent: true });
        }
        for (let i = 0; i < clicks && seen.length > 0; i++) {
          const after = seen[Math.floor(rand() * seen.length)]?.getTime() ?? now.getTime();
          const at = new Date(Math.min(now.getTime(), after + 60_000 + rand() * 60_000));
          items.push({ token, type: 'click', at });
          if (views)
            items.push({ token, type: 'view', at: new Date(Math.min(now.getTime(), at.getTime() + 5_000)) });
        }
      }
    }
    items.sort((a, b) => (a.at?.getTime() ?? 0) - (b.at?.getTime() ?? 0));
    const journeyCohort = created[0];
    if (!deps.journeys || !journeyCohort) {
      const outcomes = await tracking.recordMany(items);
      events += outcomes.filter((o) => o.status === 'recorded').length;
      continue;
    }
    // The journey began 60 days ago; replayed a week at a time, evaluated at the end of each week.
    const start = new Date(now.getTime() - 60 * DAY_MS);
    const [won] = await db
      .select({ id: crmStages.id })
      .from(crmStages)
      .where(and(eq(crmStages.clientId, clientId), eq(crmStages.isWon, true)))
      .orderBy(asc(crmStages.sortOrder))
      .limit(1);
    const ids = published.map((p) => p.id);
    const journey = await deps.journeys.create(
      clientId,
      null,
      {
        cohort_id: journeyCohort.id,
        name: `${journeyCohort.name} journey`,
        stages: [
          { name: 'Unaware', content_ids: ids.slice(0, 1), rules: [], match: 'any' },
          {
            name: 'Aware',
            content_ids: ids.slice(1, 2),
            rules: [{ kind: 'impressions_gte', value: 3 }],
            match: 'any',
          },
          {
            name: 'Engaged',
            content_ids: ids.slice(2, 3),
            rules: [
              { kind: 'clicks_gte', value: 1 },
              { kind: 'impressions_gte', value: 12 },
            ],
            match: 'any',
          },
          { name: 'Opportunity', content_ids: [], rules: [{ kind: 'opportunity_created' }], match: 'any' },
          {
            name: 'Customer',
            content_ids: [],
            rules: won ? [{ kind: 'crm_stage_reached', crm_stage_id: won.id }] : [],
            match: 'any',
          },
        ],
      },
      { id: demoJourneyId(clientId), createdAt: start, evaluate: false },
    );
    await deps.journeys.evaluate(journey.id, start);
    let previous = 0;
    for (let week = 1; week <= 9; week++) {
      const until = Math.min(now.getTime(), start.getTime() + week * 7 * DAY_MS);
      const batch = items.filter((i) => {
        const at = i.at?.getTime() ?? now.getTime();
        return at <= until && at > previous;
      });
      previous = until;
      const outcomes = await tracking.recordMany(batch);
      events += outcomes.filter((o) => o.status === 'recorded').length;
      await deps.journeys.evaluate(journey.id, new Date(until));
    }
  }
  return { cohorts: made, events };
}
