import { describe, expect, it } from 'vitest';
import { makeCadence, makeContent, makeRep, makeTarget, rawGet, showing } from '../engagement.ts';
import { makeClient, makeUser, PASSWORD } from '../http.ts';
import { startReceiver } from '../webhook-receiver.ts';
import {
  CLUSTER_REDIS_READY,
  ClusterBrowser,
  dbOf,
  feedPage,
  startCluster,
  startRedis,
} from './cluster-kit.ts';

const CLICKS = 40;

async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const t = performance.now();
  while (!check()) {
    if (performance.now() - t > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Issue 41, what already held and must keep holding: the SERVICES split (two `main` instances and
 * one serving `/sc` and `/biller`), jobs run once whichever instance queued them, and the live feed
 * across instances.
 */
describe.skipIf(!CLUSTER_REDIS_READY)(
  'SERVICES split over three instances on one PostgreSQL and Redis',
  () => {
    it('each serves its bases only; clicks on two main instances give one webhook each and reach the feed page on the sc instance', async () => {
      const redis = await startRedis();
      const cluster = await startCluster(0, {
        REDIS_URL: redis.url,
        TRACKING_BURST_MS: '0',
        TRACKING_LANDING_VIEW_MS: '0',
        HOLDOUT_DEFAULT_PERCENT: '0',
        // The webhook receiver listens on loopback.
        ALLOW_PRIVATE_FETCH: 'true',
      });
      const [a, b, c] = (
        await Promise.all([
          cluster.add({ SERVICES: 'main' }),
          cluster.add({ SERVICES: 'main' }),
          cluster.add({ SERVICES: 'sc,biller' }),
        ])
      ).map((s) => s.url) as [string, string, string];

      // Each instance answers its own bases only.
      expect((await fetch(`${a}/sc/dashboard/feed`)).status).toBe(404);
      expect((await fetch(`${c}/v1/api/auth/csrf`)).status).toBe(404);
      for (const base of [a, b, c]) expect((await fetch(`${base}/readyz`)).status).toBe(200);

      const db = dbOf(cluster);
      const clientId = await makeClient(db, 'Split Co');
      const owner = await makeUser(db, { [clientId]: 'purple_owner' });
      const rep = await makeRep(db, clientId);
      const content = await makeContent(db, clientId, { landingPageUrl: 'https://split.example/offer' });
      const cadenceId = await makeCadence(db, clientId, { days: { 1: showing(content) } });
      const targets = [];
      for (let i = 0; i < CLICKS; i++)
        targets.push(await makeTarget(db, clientId, cadenceId, { repId: rep }));

      const receiver = await startReceiver();
      const browser = new ClusterBrowser();
      await browser.signIn(a, owner.email, PASSWORD);
      const endpoint = await browser.call('POST', `${a}/v1/hookly/client/${clientId}/settings`, {
        body: { url: receiver.url, events: ['click'] },
        headers: { 'x-client-id': clientId },
      });
      expect(endpoint.status, await endpoint.text()).toBe(201);

      // The feed page is on the sc instance (the session cookie is good on every instance).
      const page = feedPage(c, browser, clientId);
      await until(() => page.readies() === 1, 'the feed page');

      // One click per target, alternately on A and B, all at once.
      const answers = await Promise.all(targets.map((t, i) => rawGet(`${i % 2 ? b : a}/t/${t.token}/c`)));
      for (const res of answers) expect(res.status).toBeLessThan(400);

      const clicksOnPage = () => page.items.filter((i) => i.type === 'click').length;
      await until(
        () => receiver.received.length >= CLICKS && clicksOnPage() >= CLICKS,
        'deliveries and feed',
      );
      // Anything twice would come within the same moments: give it a margin.
      await new Promise((r) => setTimeout(r, 2_000));
      await page.stop();

      const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
      expect(ids).toHaveLength(CLICKS);
      expect(new Set(ids).size).toBe(CLICKS);
      const clicked = receiver.received.map(
        (r) => (JSON.parse(r.body) as { data: { target_id?: string } }).data.target_id,
      );
      expect(new Set(clicked)).toEqual(new Set(targets.map((t) => t.id)));
      const feedTargets = page.items.filter((i) => i.type === 'click').map((i) => i.target_id);
      expect(feedTargets).toHaveLength(CLICKS);
      expect(new Set(feedTargets)).toEqual(new Set(targets.map((t) => t.id)));
    }, 180_000);
  },
);
