import { createHash } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { adAudiences, adCampaigns, adNetworkConnections, cohorts, content } from '../../db/schema/index.ts';
import type { SecretBox } from '../../lib/crypto.ts';
import { demoCohortId } from '../cohorts/index.ts';
import {
  DEMO_META_ACCOUNT,
  DEMO_META_AUDIENCE_ID,
  DEMO_META_CAMPAIGNS,
  DEMO_META_PAGE,
  DEMO_META_TOKEN,
  DEMO_META_TOKEN_EXPIRES,
  DEMO_META_USER,
} from '../../demo-networks/index.ts';
import type { DemoNetworks } from '../../demo-networks/index.ts';
import type { AdCampaignStats } from './campaign-stats.ts';

const DAY_MS = 86_400_000;
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** Fixed like the demo cohorts' ids, so a restart finds them and the docs can link to them. */
function demoId(text: string): string {
  const h = createHash('sha256').update(`rally-demo-network:${text}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
export const demoAdCampaignId = (clientId: string, key: 'live' | 'paused') => demoId(`${clientId}:${key}`);

/**
 * Decision 0037: one demo client gets Meta connected to the demo's in-process fake (the connection,
 * its ad account and page, as the OAuth callback and the account choice leave them), an audience of
 * its "engaged prospects" cohort already at Meta, a live and a paused campaign as a sync leaves them,
 * and their daily results pulled by the production stats job from the fake (about four weeks). Once
 * per client: a client with a Meta connection is left alone; every run (each start) sets the fake's
 * history to count from the day the connection was made, so the numbers stay put across restarts.
 */
export async function seedDemoAdNetwork(
  deps: { db: Db; box: SecretBox; stats: AdCampaignStats; networks: DemoNetworks; userId?: string },
  clientId: string,
  now = new Date(),
): Promise<{ campaigns: number; stats: number }> {
  const { db, box, stats, networks } = deps;
  const [existing] = await db
    .select({ createdAt: adNetworkConnections.createdAt })
    .from(adNetworkConnections)
    .where(and(eq(adNetworkConnections.clientId, clientId), eq(adNetworkConnections.network, 'meta')));
  if (existing) {
    networks.setAnchor(isoDay(existing.createdAt));
    return { campaigns: 0, stats: 0 };
  }
  const cohortId = demoCohortId(clientId, 1);
  const [cohort] = await db.select().from(cohorts).where(eq(cohorts.id, cohortId));
  const [ad] = await db
    .select({ id: content.id })
    .from(content)
    .where(and(eq(content.clientId, clientId), eq(content.isArchived, false)))
    .orderBy(asc(content.createdAt), asc(content.id))
    .limit(1);
  // The cohort and content seeds make these; without them there is nothing to run.
  if (!cohort || !ad) return { campaigns: 0, stats: 0 };
  networks.setAnchor(isoDay(now));

  const made = await db.transaction(async (tx) => {
    const [conn] = await tx
      .insert(adNetworkConnections)
      .values({
        clientId,
        network: 'meta',
        credentialsEnc: box.encrypt(
          JSON.stringify({
            kind: 'oauth',
            accessToken: DEMO_META_TOKEN,
            refreshToken: null,
            expiresAt: new Date(DEMO_META_TOKEN_EXPIRES).toISOString(),
          }),
        ),
        accountName: DEMO_META_USER,
        adAccountId: DEMO_META_ACCOUNT.id,
        adAccountName: DEMO_META_ACCOUNT.name,
        pageId: DEMO_META_PAGE.id,
        pageName: DEMO_META_PAGE.name,
        connectedBy: deps.userId ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: adNetworkConnections.id });
    if (!conn) throw new Error('seed: no Meta connection row');
    // As a push leaves it; the next push (every 6 h) reconciles the members, as for any audience.
    const [audience] = await tx
      .insert(adAudiences)
      .values({
        clientId,
        connectionId: conn.id,
        sourceKind: 'cohort',
        cohortId,
        name: cohort.name,
        networkAudienceId: DEMO_META_AUDIENCE_ID,
        adAccountId: DEMO_META_ACCOUNT.id,
        state: 'ready',
        memberCount: cohort.size,
        matchedLower: cohort.size,
        matchedUpper: Math.round(cohort.size * 1.2),
        matchedAt: now,
        lastPushedAt: now,
        createdBy: deps.userId ?? null,
      })
      .returning({ id: adAudiences.id });
    if (!audience) throw new Error('seed: no audience row');
    const ids: string[] = [];
    for (const c of DEMO_META_CAMPAIGNS) {
      const id = demoAdCampaignId(clientId, c.key);
      await tx.insert(adCampaigns).values({
        id,
        clientId,
        audienceId: audience.id,
        contentId: ad.id,
        name: c.name,
        objective: 'traffic',
        budgetKind: 'daily',
        budgetMinor: c.dailyBudgetMinor,
        currency: DEMO_META_ACCOUNT.currency,
        startsAt: new Date(Date.parse(`${isoDay(now)}T00:00:00Z`) - c.startedDaysAgo * DAY_MS),
        landingUrl: '',
        token: demoId(`${clientId}:${c.key}:token`).replace(/-/g, '').slice(0, 16),
        status: c.status === 'ACTIVE' ? 'active' : 'paused',
        syncState: 'synced',
        networkCampaignId: c.campaignId,
        networkAdSetId: c.adSetId,
        // renderKey '' : the first sync after start draws the ads and puts them on these ads.
        ads: c.ads.map((a) => ({
          size: a.size,
          renderKey: '',
          imageHash: a.imageHash,
          creativeId: a.creativeId,
          adId: a.adId,
          effectiveStatus: c.status === 'ACTIVE' ? 'ACTIVE' : 'CAMPAIGN_PAUSED',
          issues: null,
        })),
        effectiveStatus: c.status,
        statusReadAt: now,
        createdBy: deps.userId ?? null,
        createdAt: now,
        updatedAt: now,
      });
      ids.push(id);
    }
    return ids;
  });
  // The results come the way every campaign's do: the stats job's pull from the network.
  let rows = 0;
  for (const id of made) rows += (await stats.pull(id, now))?.rows ?? 0;
  return { campaigns: made.length, stats: rows };
}
