import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { eq, inArray, sql } from 'drizzle-orm';
import { engagementEvents, opportunities, prospects, targets } from '../src/db/schema/index.ts';
import { FEED_TOTAL_CAP, reportFeed } from '../src/modules/reports/signals.ts';
import { makeCadence, makeIntegration } from './engagement.ts';
import { createTestApp } from './helpers.ts';
import { Browser, signedIn } from './http.ts';
import { RANGE, daysAgo, epoch, fieldsOf, standardScene } from './reports-world.ts';

/**
 * Issue 17, the signal reports (docs/reports.md "Signals"): dashboard stats, superprospects acted
 * on (signals/utilization), the report feed, open opportunities by recent engagement; with exports.
 */
describe('signal reports: dashboard, utilization, feed, priority (issue 17)', async () => {
  const app = await createTestApp();
  const s = await standardScene(app, 'Acme');
  const foreign = await standardScene(app, 'Foreign');
  const { browser: owner } = await signedIn(app, { [s.clientId]: 'purple_owner' });
  const { browser: sdr } = await signedIn(app, { [s.clientId]: 'yellow_sdr' });
  const { browser: viewer } = await signedIn(app, { [s.clientId]: 'grey_viewer' });
  const base = `/v1/report/client/${s.clientId}`;

  it('dashboard/stats: the headline numbers of the range, this client only', async () => {
    const res = await sdr.get(`${base}/dashboard/stats?${RANGE}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      currency: 'USD',
      active_cadences: 1,
      active_targets: 5, // Avery, Blake, Bo, Cleo, the old superprospect
      engaged_targets: 2,
      engaged_accounts: 2,
      impressions: 4,
      clicks: 1,
      views: 1,
      ctr: 0.25,
      new_superprospects: 3,
      superprospects_contacted: 1,
      open_opportunities: 2,
      open_pipeline_cents: 1_400_000,
    });

    // Not counted: an inactive target, a target of a paused cadence, an open deal in another
    // currency (the main one stays USD), and the other client's.
    const paused = await makeCadence(app, s.clientId, { status: 'paused', name: 'Paused' });
    const [extraProspect] = await app.db
      .insert(prospects)
      .values({
        clientId: s.clientId,
        integrationId: await makeIntegration(app, s.clientId),
        externalId: randomUUID(),
        firstName: 'Ina',
        lastName: 'Active',
        email: 'ina@example.com',
      })
      .returning({ id: prospects.id });
    const extra = await app.db
      .insert(targets)
      .values([
        { clientId: s.clientId, cadenceId: s.cadenceId, prospectId: extraProspect!.id, isActive: false },
        { clientId: s.clientId, cadenceId: paused, prospectId: extraProspect!.id },
      ])
      .returning({ id: targets.id });
    const eur = await s.deal(s.beta, { name: 'Beta euro', amount: 70_000, created: daysAgo(3) });
    await app.db.update(opportunities).set({ currency: 'EUR' }).where(eq(opportunities.id, eur));
    // The minute's result (issue 43, reports-dashboard-cache.test.ts) forgotten: computed afresh.
    const forget = () => app.db.execute(sql`delete from report_results`);
    await forget();
    const again = await sdr.get(`${base}/dashboard/stats?${RANGE}`);
    expect(again.json()).toMatchObject({
      currency: 'USD',
      active_cadences: 1,
      active_targets: 5,
      open_opportunities: 2,
      open_pipeline_cents: 1_400_000,
    });
    // Made active, the first one counts.
    await app.db.update(targets).set({ isActive: true }).where(eq(targets.id, extra[0]!.id));
    await forget();
    expect((await sdr.get(`${base}/dashboard/stats?${RANGE}`)).json().active_targets).toBe(6);
    await app.db.delete(targets).where(
      inArray(
        targets.id,
        extra.map((t) => t.id),
      ),
    );
    await app.db.delete(prospects).where(eq(prospects.id, extraProspect!.id));
    await app.db.delete(opportunities).where(eq(opportunities.id, eur));
  });

  it('signals/utilization: superprospects of the range, the share contacted by outreach after becoming super', async () => {
    const res = await owner.get(`${base}/signals/utilization?${RANGE}`);
    expect(res.statusCode, res.body).toBe(200);
    const u = res.json();
    expect(u).toMatchObject({ superprospects: 3, contacted: 1, share: 0.3333, total: 3 });
    expect(u.outreach_activity_types).toEqual(['Call', 'Email']);
    expect(u.items).toEqual([
      expect.objectContaining({
        target_id: s.bo.targetId,
        name: 'Bo Lindqvist',
        super_date: daysAgo(1).toISOString(),
        contacted_at: null,
        days_to_contact: null,
      }),
      // Her last call came before she became super: not acted on.
      expect.objectContaining({ target_id: s.cleo.targetId, contacted_at: null }),
      expect.objectContaining({
        target_id: s.avery.targetId,
        name: 'Avery Stone',
        company_name: 'Acme Alpha',
        sales_rep: 'Maya Lindgren',
        contacted_at: daysAgo(5).toISOString(),
        days_to_contact: 3,
      }),
    ]);
    const not = await owner.get(`${base}/signals/utilization?${RANGE}&filter=not_contacted`);
    expect(not.json().items.map((i: { target_id: string }) => i.target_id)).toEqual([
      s.bo.targetId,
      s.cleo.targetId,
    ]);
    expect(not.json()).toMatchObject({ superprospects: 3, contacted: 1, total: 2 });

    // From 7 days ago: Avery (super 8 days ago) is out of the range; Bo and Cleo are in, not contacted.
    const later = await owner.get(`${base}/signals/utilization?from=${epoch(daysAgo(7))}`);
    expect(later.json()).toMatchObject({ superprospects: 2, contacted: 0, share: 0 });
    const none = await owner.get(`${base}/signals/utilization?from=978307200&to=1009843200`);
    expect(none.json()).toMatchObject({ superprospects: 0, share: null, items: [] });

    const csv = await owner.get(`${base}/signals/utilization/export?${RANGE}&filter=contacted`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-disposition']).toMatch(/filename="signals-utilization-contacted-/);
    const rows = parse(csv.body) as string[][];
    expect(rows[0]?.[0]).toBe('Prospect');
    expect(rows.slice(1).map((r) => r[0])).toEqual(['Avery Stone']);
  });

  it('signals/utilization: pages of one are the whole list in order; totals per filter, also past the last page', async () => {
    for (const [filter, total] of [
      ['all', 3],
      ['contacted', 1],
      ['not_contacted', 2],
    ] as const) {
      const whole = (
        await owner.get(`${base}/signals/utilization?${RANGE}&filter=${filter}&page_size=200`)
      ).json();
      expect(whole.items, filter).toHaveLength(total);
      const ids: string[] = [];
      for (let page = 1; page <= total + 1; page++) {
        const res = (
          await owner.get(`${base}/signals/utilization?${RANGE}&filter=${filter}&page=${page}&page_size=1`)
        ).json();
        expect(res, `${filter} page ${page}`).toMatchObject({ superprospects: 3, contacted: 1, total, page });
        ids.push(...res.items.map((i: { target_id: string }) => i.target_id));
      }
      expect(ids, filter).toEqual(whole.items.map((i: { target_id: string }) => i.target_id));
    }
  });

  it('feed: clicks, views, new superprospects and stage moves, newest first, paged', async () => {
    const res = await sdr.get(`${base}/feed?${RANGE}&page=1&page_size=3`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ total: 7, page: 1, page_size: 3 });
    expect(res.json().items.map((i: { kind: string; title: string }) => [i.kind, i.title])).toEqual([
      ['super', 'Bo Lindqvist'],
      ['super', 'Cleo Early'],
      ['stage_move', 'Alpha expansion'],
    ]);
    expect(res.json().items[2]).toMatchObject({
      detail: 'Alpha: Prospecting → Qualification',
      opportunity_id: s.alphaDeal,
      target_id: null,
    });
    const next = await sdr.get(`${base}/feed?${RANGE}&page=2&page_size=3`);
    expect(next.json().items.map((i: { kind: string }) => i.kind)).toEqual(['super', 'click', 'view']);
    expect(next.json().items[1]).toMatchObject({ target_id: s.avery.targetId, title: 'Avery Stone' });
    const last = await sdr.get(`${base}/feed?${RANGE}&page=3&page_size=3`);
    expect(last.json().items.map((i: { detail: string }) => i.detail)).toEqual([
      'Alpha: created in Prospecting',
    ]);

    const csv = await owner.get(`${base}/feed/export?${RANGE}`);
    expect(csv.statusCode).toBe(200);
    const rows = parse(csv.body) as string[][];
    expect(rows[0]).toEqual(['When', 'Kind', 'Who or what', 'Detail']);
    expect(rows).toHaveLength(8);
  });

  it('feed: every page of every size is a slice of the whole, newest first; the total past the last page', async () => {
    const whole = (await sdr.get(`${base}/feed?${RANGE}&page_size=200`)).json();
    expect(whole.total).toBe(7);
    const key = (i: { at: string; kind: string; target_id: string | null; opportunity_id: string | null }) =>
      `${i.at}|${i.kind}|${i.target_id}|${i.opportunity_id}`;
    for (let size = 1; size <= 8; size++) {
      const seen: string[] = [];
      for (let page = 1; page <= Math.ceil(7 / size) + 1; page++) {
        const res = (await sdr.get(`${base}/feed?${RANGE}&page=${page}&page_size=${size}`)).json();
        expect(res, `page ${page} of ${size}`).toMatchObject({ total: 7, page, page_size: size });
        seen.push(...res.items.map(key));
      }
      expect(seen, `pages of ${size}`).toEqual(whole.items.map(key));
    }
    // An event of this client on another client's target is no item and not counted.
    await app.db.insert(engagementEvents).values({
      clientId: s.clientId,
      targetId: foreign.avery.targetId,
      cadenceId: foreign.cadenceId,
      type: 'click',
      occurredAt: daysAgo(1),
    });
    const after = (await sdr.get(`${base}/feed?${RANGE}&page_size=200`)).json();
    expect(after.total).toBe(7);
    expect(after.items.map(key)).toEqual(whole.items.map(key));
  });

  it('feed: the total counts at most the cap; the items stay exact', async () => {
    const q = { from: epoch(daysAgo(60)), to: epoch(daysAgo(-1)), page: 1, page_size: 50 };
    const capped = await reportFeed(app.db, s.clientId, q, { totalCap: 5 });
    expect(capped.total).toBe(5);
    expect(capped.items).toHaveLength(7);
    for (const cap of [1, 2, 3, 4, 6]) {
      expect((await reportFeed(app.db, s.clientId, q, { totalCap: cap })).total, `cap ${cap}`).toBe(cap);
    }
    for (const cap of [7, 8, 1_000]) {
      expect((await reportFeed(app.db, s.clientId, q, { totalCap: cap })).total, `cap ${cap}`).toBe(7);
    }
    expect(FEED_TOTAL_CAP).toBe(1_000);
  });

  it('pipeline/priority: open opportunities ranked by their account engagement of the last days', async () => {
    // A revenue file import's row has no closed flag, only the stage's text: "Closed Won" is not open.
    await app.db.insert(opportunities).values({
      clientId: s.clientId,
      integrationId: await makeIntegration(app, s.clientId),
      externalId: randomUUID(),
      name: 'Alpha (file, won)',
      accountName: 'Alpha',
      companyId: s.alpha,
      amountCents: 100,
      stage: 'Closed Won',
    });
    const res = await owner.get(`${base}/pipeline/priority`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ days: 30, total: 2 });
    expect(res.json().items).toEqual([
      expect.objectContaining({
        opportunity_id: s.alphaDeal,
        account_name: 'Alpha',
        impressions: 3,
        clicks: 1,
        views: 1,
        engaged_prospects: 1,
        score: 13,
        last_engaged_at: daysAgo(10).toISOString(),
      }),
      expect.objectContaining({ opportunity_id: s.betaDeal, score: 1 }),
    ]);
    // In the last 5 days only Bo's impression (Beta) counts: Beta first.
    const recent = await owner.get(`${base}/pipeline/priority?days=5`);
    expect(recent.json().items.map((o: { opportunity_id: string }) => o.opportunity_id)).toEqual([
      s.betaDeal,
      s.alphaDeal,
    ]);
    expect(recent.json().items[1]).toMatchObject({ score: 0, last_engaged_at: null });

    const csv = await owner.get(`${base}/pipeline/priority/export?days=30`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-disposition']).toMatch(/filename="pipeline-priority-30d.csv"/);
    const rows = parse(csv.body) as string[][];
    expect(rows.slice(1).map((r) => [r[0], r[3], r[6]])).toEqual([
      ['Alpha expansion', '5000', '13'],
      ['Beta platform', '9000', '1'],
    ]);
  });

  it("another client's data never shows", async () => {
    const feed = await owner.get(`${base}/feed?${RANGE}&page_size=200`);
    const ids = feed.json().items.map((i: { target_id: string | null }) => i.target_id);
    expect(ids).not.toContain(foreign.avery.targetId);
    const prio = await owner.get(`${base}/pipeline/priority?page_size=200`);
    expect(prio.json().items.map((o: { opportunity_id: string }) => o.opportunity_id)).not.toContain(
      foreign.alphaDeal,
    );
    const util = await owner.get(`${base}/signals/utilization?${RANGE}`);
    expect(util.json().items.map((i: { target_id: string }) => i.target_id)).not.toContain(
      foreign.avery.targetId,
    );
  });

  it('bad input is a 422 naming the field', async () => {
    const cases: [string, string][] = [
      [`${base}/dashboard/stats?from=yesterday`, 'querystring.from'],
      [`${base}/dashboard/stats?from=${epoch(daysAgo(1))}&to=${epoch(daysAgo(3))}`, 'querystring.to'],
      [`${base}/signals/utilization?filter=maybe`, 'querystring.filter'],
      [`${base}/signals/utilization/export?filter=maybe`, 'querystring.filter'],
      [`${base}/feed?page_size=500`, 'querystring.page_size'],
      [`${base}/feed?page=-1`, 'querystring.page'],
      [`${base}/feed/export?to=x`, 'querystring.to'],
      [`${base}/pipeline/priority?days=400`, 'querystring.days'],
      [`${base}/pipeline/priority/export?days=0`, 'querystring.days'],
    ];
    for (const [url, field] of cases) {
      const res = await owner.get(url);
      expect(res.statusCode, url).toBe(422);
      expect(fieldsOf(res), url).toEqual([field]);
    }
  });

  it('401 signed out; 403 without reports.read', async () => {
    const anon = new Browser(app);
    anon.clientId = s.clientId;
    for (const path of [
      'dashboard/stats',
      'signals/utilization',
      'signals/utilization/export',
      'feed',
      'feed/export',
      'pipeline/priority',
      'pipeline/priority/export',
    ]) {
      expect((await anon.get(`${base}/${path}`)).statusCode, path).toBe(401);
      const res = await viewer.get(`${base}/${path}`);
      expect(res.statusCode, path).toBe(403);
      expect(res.json().message).toMatch(/reports\.read/);
    }
  });
});
