import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { adAudiences, adCampaignStats, adCampaigns } from '../apps/server/src/db/schema/index.ts';
import { makeCohort } from '../apps/server/test/ad-network-kit.ts';
import { makeContent } from '../apps/server/test/engagement.ts';
import { startFakeMeta } from '../apps/server/test/fakes/meta.ts';
import { report, sampleRss, scratchDatabase } from './lib.ts';
import { metaBenchApp } from './meta-bench-app.ts';

const DAY_MS = 86_400_000;
const iso = (t: number) => new Date(t).toISOString().slice(0, 10);

/**
 * Issue 39 "Figures": stats for BENCH_STATS_CAMPAIGNS (1,000) Meta campaigns × BENCH_STATS_DAYS (90)
 * days, two ads each (one per Meta placement), pulled by the stats job's own `pull` (what each
 * `ad-campaign-stats` job runs, one campaign after another) from the Meta fake over loopback, into a
 * scratch database: seconds, rows/s, requests, peak RSS of this process. Baseline in the same run:
 * the same insights pages fetched with plain `fetch` (no database), and the same rows written with
 * plain multi-row INSERTs into the emptied stats table (no network).
 */
export async function run() {
  const campaigns = Number(process.env.BENCH_STATS_CAMPAIGNS ?? 1_000);
  const days = Number(process.env.BENCH_STATS_DAYS ?? 90);
  const serverUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  // Every ad delivers every day: numbers from the ad id and the day, cheap to make.
  const fake = await startFakeMeta({
    delivery: (adId, day) => {
      const n = (Number(adId.slice(-6)) * 31 + Number(day.slice(-2)) * 7) % 1000;
      return {
        impressions: 1_000 + n,
        reach: 800 + n,
        clicks: 10 + (n % 40),
        spend: `${12 + (n % 30)}.${n % 100}`,
      };
    },
  });
  const db = await scratchDatabase(serverUrl);
  let app: FastifyInstance | undefined;
  try {
    const started = await metaBenchApp(fake, db.url);
    app = started.app;
    const { clientId, token, connection } = started;
    const cohort = await makeCohort(app, clientId, 'Bench', 10);
    const contentId = await makeContent(app, clientId, { landingPageUrl: 'https://bench.test/' });
    const [audience] = await app.db
      .insert(adAudiences)
      .values({
        clientId,
        connectionId: connection.id,
        sourceKind: 'cohort',
        cohortId: cohort.cohortId,
        name: 'Bench',
        networkAudienceId: '23849999999999',
        adAccountId: 'act_1001',
        state: 'ready',
      })
      .returning();

    // The campaigns at the fake (as a sync leaves them) and in Rally, started `days` days ago.
    const now = new Date();
    const startsAt = new Date(Date.parse(`${iso(now.getTime())}T00:00:00Z`) - (days - 1) * DAY_MS);
    const ids: string[] = [];
    for (let i = 0; i < campaigns; i++) {
      const campaignId = String(23840000000000 + i * 10);
      const adSetId = String(23840000000000 + i * 10 + 1);
      fake.campaigns.campaigns.set(campaignId, {
        id: campaignId,
        account: 'act_1001',
        name: `Bench ${i}`,
        objective: 'OUTCOME_TRAFFIC',
        status: 'ACTIVE',
      });
      fake.campaigns.adSets.set(adSetId, {
        id: adSetId,
        account: 'act_1001',
        campaignId,
        dailyBudget: 5_000,
        lifetimeBudget: null,
        startTime: startsAt.toISOString(),
        endTime: null,
        audienceIds: [],
      });
      for (const k of [2, 3]) {
        const adId = String(23840000000000 + i * 10 + k);
        fake.campaigns.ads.set(adId, {
          id: adId,
          account: 'act_1001',
          adSetId,
          creativeId: '0',
          status: 'ACTIVE',
          rejection: null,
        });
      }
    }
    for (let i = 0; i < campaigns; i += 500) {
      const rows = await app.db
        .insert(adCampaigns)
        .values(
          Array.from({ length: Math.min(500, campaigns - i) }, (_, j) => ({
            clientId,
            audienceId: audience!.id,
            contentId,
            name: `Bench ${i + j}`,
            objective: 'traffic' as const,
            budgetKind: 'daily' as const,
            budgetMinor: 5_000,
            currency: 'USD',
            startsAt,
            landingUrl: '',
            token: `bench${i + j}`,
            status: 'active' as const,
            syncState: 'synced' as const,
            networkCampaignId: String(23840000000000 + (i + j) * 10),
            networkAdSetId: String(23840000000000 + (i + j) * 10 + 1),
          })),
        )
        .returning({ id: adCampaigns.id, remote: adCampaigns.networkCampaignId });
      ids.push(...rows.map((r) => r.id));
    }
    console.log(
      `ad-stats: ${campaigns} campaigns × ${days} days × 2 ads; ${serverUrl ? 'postgres' : 'pglite'}`,
    );

    // The job first (its peak RSS without the baseline's pages held): each campaign's pull, as the
    // queue runs them (one after another here).
    const before = fake.requests.length;
    const rss = sampleRss();
    const tj = performance.now();
    let jobRows = 0;
    for (const id of ids) jobRows += (await app.adCampaignStats.pull(id, now))?.rows ?? 0;
    const jobSeconds = (performance.now() - tj) / 1000;
    const peakMiB = rss.stop();
    const jobRequests = fake.requests.slice(before).filter((r) => r.path.endsWith('/insights')).length;
    const [stored] = await app.db.select({ n: sql<number>`count(*)::int` }).from(adCampaignStats);
    if (stored?.n !== campaigns * days * 2 || jobRows !== stored.n)
      throw new Error(`stored ${stored?.n} rows, pulled ${jobRows}; expected ${campaigns * days * 2}`);

    // Baseline 1, after the job: the same pages with plain fetch (what the adapter asks: level=ad, a day each).
    const range = JSON.stringify({ since: iso(startsAt.getTime()), until: iso(now.getTime()) });
    const fields = 'ad_id,date_start,date_stop,impressions,reach,clicks,spend,account_currency';
    const tf = performance.now();
    let fetchRequests = 0;
    let fetchRows = 0;
    type Page = { data: Record<string, string>[]; paging?: { next?: string } };
    const fetched: { campaign: number; page: Page }[] = [];
    for (let i = 0; i < campaigns; i++) {
      const q = new URLSearchParams({
        level: 'ad',
        time_increment: '1',
        time_range: range,
        fields,
        limit: '500',
      });
      let url: string | undefined =
        `${fake.url}/${fake.version}/${23840000000000 + i * 10}/insights?${q.toString()}`;
      while (url) {
        const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        if (!res.ok) throw new Error(`baseline: ${res.status} ${await res.text()}`);
        const page = (await res.json()) as Page;
        fetchRequests++;
        fetchRows += page.data.length;
        fetched.push({ campaign: i, page });
        url = page.paging?.next;
      }
    }
    const fetchSeconds = (performance.now() - tf) / 1000;

    // Baseline 2: the same rows with plain INSERTs (1,000 a statement) into the emptied table.
    await app.db.delete(adCampaignStats);
    const rows = fetched.flatMap(({ campaign, page }) =>
      page.data.map((r) => ({
        campaignId: ids[campaign]!,
        clientId,
        networkAdId: r.ad_id!,
        day: r.date_start!,
        impressions: Number(r.impressions),
        reach: Number(r.reach),
        clicks: Number(r.clicks),
        spendMinor: Math.round(Number(r.spend) * 100),
      })),
    );
    const ti = performance.now();
    for (let i = 0; i < rows.length; i += 1_000)
      await app.db.insert(adCampaignStats).values(rows.slice(i, i + 1_000));
    const insertSeconds = (performance.now() - ti) / 1000;
    const baselineSeconds = fetchSeconds + insertSeconds;

    report(
      'ad-stats pull',
      `${jobSeconds.toFixed(1)} s, ${jobRequests} req`,
      `${baselineSeconds.toFixed(1)} s, ${fetchRequests} req`,
      jobSeconds / baselineSeconds,
    );
    console.log(
      `    ${jobRows} rows, ${Math.round(jobRows / jobSeconds)} rows/s (baseline ${Math.round(fetchRows / baselineSeconds)} rows/s: fetch ${fetchSeconds.toFixed(1)} s + INSERT ${insertSeconds.toFixed(1)} s); peak RSS ${peakMiB.toFixed(0)} MiB`,
    );
  } finally {
    await app?.close();
    await db.drop();
    await fake.close();
  }
}
