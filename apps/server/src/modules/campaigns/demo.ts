import { createHash } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { campaigns, cohorts } from '../../db/schema/index.ts';
import { demoCohortId } from '../cohorts/index.ts';
import type { CampaignService } from './service.ts';

const DAY_MS = 86_400_000;

/** The demo campaign's id: fixed per client, so screens, e2e tests and the docs can link to it. */
export function demoCampaignId(clientId: string): string {
  const h = createHash('sha256').update(`rally-demo-campaign:${clientId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * Issue 18 "Demo": per demo client, one campaign on its first demo cohort (the CRM list one, else
 * the filter one): a flight from two weeks ago to a month ahead, active with the cohort's content
 * (a draft when it has none). Run after the cohort seed. A client that has campaigns is left alone.
 */
export async function seedDemoCampaigns(
  deps: { db: Db; campaigns: CampaignService },
  clientIds: readonly string[],
  now = new Date(),
): Promise<{ campaigns: number }> {
  let made = 0;
  for (const clientId of clientIds) {
    const [has] = await deps.db
      .select({ id: campaigns.id })
      .from(campaigns)
      .where(eq(campaigns.clientId, clientId))
      .limit(1);
    if (has) continue;
    const ids = [demoCohortId(clientId, 0), demoCohortId(clientId, 1)];
    const found = await deps.db
      .select({ id: cohorts.id, name: cohorts.name })
      .from(cohorts)
      .where(inArray(cohorts.id, ids));
    const cohort = ids.map((id) => found.find((c) => c.id === id)).find(Boolean);
    if (!cohort) continue;
    const draft = await deps.campaigns.create(
      clientId,
      null,
      {
        cohort_id: cohort.id,
        name: `${cohort.name}: spring flight`,
        starts_on: day(new Date(now.getTime() - 14 * DAY_MS)),
        ends_on: day(new Date(now.getTime() + 30 * DAY_MS)),
        status: 'draft',
      },
      demoCampaignId(clientId),
    );
    if (draft.content_id) await deps.campaigns.update(clientId, draft.id, { status: 'active' });
    made++;
  }
  return { campaigns: made };
}
