import { parse } from 'csv-parse/sync';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { crmAccounts, crmContacts } from '../src/db/schema/index.ts';
import { createTestApp } from './helpers.ts';
import { Browser, signedIn } from './http.ts';
import { RANGE, daysAgo, fieldsOf, standardScene } from './reports-world.ts';

/**
 * Issue 17, the account reports (docs/reports.md "Accounts"): alignment of sales outreach and ads,
 * one target's stats and timeline, one account's buying group; each with its export.
 */
describe('account reports: alignment, target, buying group (issue 17)', async () => {
  const app = await createTestApp();
  const s = await standardScene(app, 'Acme');
  const foreign = await standardScene(app, 'Foreign');
  const { browser: owner } = await signedIn(app, { [s.clientId]: 'purple_owner' });
  const { browser: sdr } = await signedIn(app, { [s.clientId]: 'yellow_sdr' });
  const { browser: viewer } = await signedIn(app, { [s.clientId]: 'grey_viewer' });
  const base = `/v1/report/client/${s.clientId}`;

  it('alignment: accounts worked by outreach, by ads, or both, counted and listed', async () => {
    const res = await sdr.get(`${base}/alignment?${RANGE}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.outreach_activity_types).toEqual(['Call', 'Email']);
    // Delta has meetings only (not the outreach definition): in neither; the foreign client's are apart.
    expect(body.counts).toEqual({ both: 1, outreach_only: 1, ads_only: 1, total: 3 });
    expect(body.total).toBe(3);
    const byName = Object.fromEntries(body.items.map((a: { name: string }) => [a.name, a]));
    expect(byName['Acme Alpha']).toMatchObject({
      account_id: s.alpha,
      segment: 'both',
      outreach_activities: 4, // the calls; the tasks are not outreach
      outreach_contacts: 1,
      last_outreach_at: daysAgo(5).toISOString(),
      impressions: 3,
      clicks: 1,
      views: 1,
      engaged_prospects: 1,
    });
    expect(byName['Acme Beta']).toMatchObject({
      segment: 'ads_only',
      impressions: 1,
      outreach_activities: 0,
    });
    expect(byName['Acme Gamma']).toMatchObject({
      segment: 'outreach_only',
      outreach_activities: 2,
      impressions: 0,
    });
    expect(body.items[0].segment).toBe('both');

    const only = await owner.get(`${base}/alignment?${RANGE}&segment=outreach_only`);
    expect(only.json().items.map((a: { name: string }) => a.name)).toEqual(['Acme Gamma']);
    expect(only.json().counts.total).toBe(3); // the counts stay those of every segment
    // The accounts engaged with the ads (both and ads only): as many as the summary's engaged accounts.
    const engaged = await owner.get(`${base}/alignment?${RANGE}&segment=engaged`);
    expect(engaged.statusCode, engaged.body).toBe(200);
    expect(
      engaged
        .json()
        .items.map((a: { name: string }) => a.name)
        .sort(),
    ).toEqual(['Acme Alpha', 'Acme Beta']);
    expect(engaged.json().total).toBe((await owner.get(`${base}/summary?${RANGE}`)).json().engaged_accounts);
    const paged = await owner.get(`${base}/alignment?${RANGE}&page=2&page_size=2`);
    expect(paged.json()).toMatchObject({ total: 3, page: 2, page_size: 2 });
    expect(paged.json().items).toHaveLength(1);
    // Past the last page: no rows, the same counts.
    const past = await owner.get(`${base}/alignment?${RANGE}&page=5&page_size=2`);
    expect(past.json()).toMatchObject({
      counts: { both: 1, outreach_only: 1, ads_only: 1, total: 3 },
      items: [],
    });
  });

  it('alignment: the range decides — outreach last done and engagement before it are not counted', async () => {
    // The last 4 days: Alpha's calls (5 days ago) and its engagement (10-12 days ago) are out;
    // Gamma's e-mails (3 days ago) and Bo's impression (2 days ago) are in.
    const from = Math.floor(daysAgo(4).getTime() / 1000);
    const res = await owner.get(`${base}/alignment?from=${from}`);
    expect(res.json().counts).toEqual({ both: 0, outreach_only: 1, ads_only: 1, total: 2 });
  });

  it('alignment/export: CSV with the same rows', async () => {
    const res = await owner.get(`${base}/alignment/export?${RANGE}&segment=all`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="alignment-all-\d{4}-\d\d-\d\d-/,
    );
    const rows = parse(res.body) as string[][];
    expect(rows[0]).toEqual([
      'Account',
      'Website',
      'Worked by',
      'Outreach activities',
      'Contacts reached out to',
      'Last outreach',
      'Impressions',
      'Clicks',
      'Landing page views',
      'Engaged prospects',
      'Last engagement',
    ]);
    expect(rows.slice(1).map((r) => [r[0], r[2]])).toEqual([
      ['Acme Alpha', 'both'],
      ['Acme Beta', 'ads_only'],
      ['Acme Gamma', 'outreach_only'],
    ]);
  });

  it('target/{id}: the target, its stats in the range and its timeline', async () => {
    const t = await sdr.get(`${base}/target/${s.avery.targetId}`);
    expect(t.statusCode, t.body).toBe(200);
    expect(t.json()).toMatchObject({
      target_id: s.avery.targetId,
      prospect_id: s.avery.prospectId,
      name: 'Avery Stone',
      company_id: s.alpha,
      company_name: 'Acme Alpha',
      cadence_name: 'Acme outbound',
      sales_rep: 'Maya Lindgren',
      super_date: daysAgo(8).toISOString(),
    });

    const stats = await owner.get(`${base}/target/${s.avery.targetId}/stats?${RANGE}`);
    expect(stats.statusCode, stats.body).toBe(200);
    expect(stats.json()).toMatchObject({
      impressions: 3,
      clicks: 1,
      views: 1,
      ctr: 0.3333,
      days_engaged: 3,
      first_engaged_at: daysAgo(12).toISOString(),
      last_engaged_at: daysAgo(10).toISOString(),
      outreach_activities: 4,
      last_outreach_at: daysAgo(5).toISOString(),
      open_opportunities: 1,
      open_pipeline_cents: 500_000,
      by_content: [{ content_id: s.adA, name: 'Acme ad A', impressions: 3, clicks: 1, views: 1 }],
    });

    const acts = await owner.get(`${base}/target/${s.avery.targetId}/activities?${RANGE}`);
    expect(acts.statusCode, acts.body).toBe(200);
    const items = acts.json().items as { kind: string; at: string; detail: string; count: number | null }[];
    expect(acts.json().total).toBe(9);
    // Newest first: the stage move 4 days ago, the calls, the tasks, the engagement, the creation.
    expect(items.map((i) => i.kind)).toEqual([
      'stage_move',
      'crm_activity',
      'crm_activity',
      'click',
      'impression',
      'view',
      'impression',
      'impression',
      'stage_move',
    ]);
    expect(items[0]).toMatchObject({
      detail: 'Alpha expansion: Prospecting → Qualification',
      opportunity_id: s.alphaDeal,
      at: daysAgo(4).toISOString(),
    });
    expect(items[1]).toMatchObject({ detail: 'Call', count: 4 });
    expect(items.at(-1)?.detail).toBe('Alpha expansion: created in Prospecting');
    const page2 = await owner.get(
      `${base}/target/${s.avery.targetId}/activities?${RANGE}&page=2&page_size=4`,
    );
    expect(page2.json().items.map((i: { kind: string }) => i.kind)).toEqual([
      'impression',
      'view',
      'impression',
      'impression',
    ]);

    const csv = await owner.get(`${base}/target/${s.avery.targetId}/activities/export?${RANGE}`);
    expect(csv.statusCode).toBe(200);
    const rows = parse(csv.body) as string[][];
    expect(rows[0]).toEqual(['When', 'Kind', 'Detail', 'Count']);
    expect(rows).toHaveLength(10);
  });

  it('buying_group/{account}: the people of the account grouped by opportunity contact role', async () => {
    const res = await sdr.get(`${base}/buying_group/${s.alpha}?${RANGE}`);
    expect(res.statusCode, res.body).toBe(200);
    const g = res.json();
    expect(g.account).toEqual({ id: s.alpha, name: 'Acme Alpha', website: 'https://alpha.example' });
    expect(g).toMatchObject({ members: 3, engaged_members: 1, open_opportunities: 1 });
    expect(g.roles.map((r: { role: string }) => r.role)).toEqual(['Decision Maker', 'Evaluator', 'No role']);
    expect(g.roles[0]).toMatchObject({ impressions: 3, clicks: 1, views: 1 });
    expect(g.roles[0].members).toEqual([
      expect.objectContaining({
        prospect_id: s.avery.prospectId,
        contact_id: s.averyContact,
        name: 'Avery Stone',
        is_primary: true,
        impressions: 3,
        clicks: 1,
        views: 1,
        super_date: daysAgo(8).toISOString(),
        outreach_activities: 4,
        target_id: s.avery.targetId,
      }),
    ]);
    expect(g.roles[1].members[0]).toMatchObject({ name: 'Blake Rivera', impressions: 0 });
    // A CRM contact of the account without a prospect is in the group too.
    expect(g.roles[2].members[0]).toMatchObject({ prospect_id: null, contact_id: s.casey, target_id: null });

    const csv = await owner.get(`${base}/buying_group/${s.alpha}/export?${RANGE}`);
    expect(csv.statusCode).toBe(200);
    const rows = parse(csv.body) as string[][];
    expect(rows.slice(1).map((r) => [r[0], r[2]])).toEqual([
      ['Decision Maker', 'Avery Stone'],
      ['Evaluator', 'Blake Rivera'],
      ['No role', 'Casey Noprospect'],
    ]);
  });

  it("another client's target or account is not found (404), and its numbers never count here", async () => {
    for (const url of [
      `${base}/target/${foreign.avery.targetId}`,
      `${base}/target/${foreign.avery.targetId}/stats`,
      `${base}/target/${foreign.avery.targetId}/activities`,
      `${base}/target/${foreign.avery.targetId}/activities/export`,
      `${base}/buying_group/${foreign.alpha}`,
      `${base}/buying_group/${foreign.alpha}/export`,
    ]) {
      const res = await owner.get(url);
      expect(res.statusCode, url).toBe(404);
    }
    const names = (await owner.get(`${base}/alignment?${RANGE}`))
      .json()
      .items.map((a: { name: string }) => a.name);
    expect(names.some((n: string) => n.startsWith('Foreign'))).toBe(false);
  });

  it('bad input is a 422 naming the field', async () => {
    const cases: [string, string][] = [
      [`${base}/alignment?segment=everyone`, 'querystring.segment'],
      [`${base}/alignment?page_size=0`, 'querystring.page_size'],
      [
        `${base}/alignment?from=${Math.floor(daysAgo(1).getTime() / 1000)}&to=${Math.floor(daysAgo(2).getTime() / 1000)}`,
        'querystring.to',
      ],
      [`${base}/alignment/export?segment=x`, 'querystring.segment'],
      [`${base}/target/not-a-uuid`, 'params.targetId'],
      [`${base}/target/${s.avery.targetId}/stats?from=soon`, 'querystring.from'],
      [`${base}/target/${s.avery.targetId}/activities?page=0`, 'querystring.page'],
      [`${base}/target/${s.avery.targetId}/activities/export?to=1.5`, 'querystring.to'],
      [`${base}/buying_group/acme`, 'params.accountId'],
      [`${base}/buying_group/${s.alpha}/export?from=0`, 'querystring.from'],
    ];
    for (const [url, field] of cases) {
      const res = await owner.get(url);
      expect(res.statusCode, url).toBe(422);
      expect(fieldsOf(res), url).toEqual([field]);
    }
  });

  it('CRM contacts and accounts deleted in the CRM count no more (issue 16)', async () => {
    const gone = (table: typeof crmContacts | typeof crmAccounts, id: string, isDeleted: boolean) =>
      app.db.update(table).set({ isDeleted }).where(eq(table.id, id));
    const [gammaAccount] = await app.db
      .select({ id: crmAccounts.id })
      .from(crmAccounts)
      .where(and(eq(crmAccounts.clientId, s.clientId), eq(crmAccounts.companyId, s.gamma)));
    await gone(crmContacts, s.casey, true);
    await gone(crmAccounts, gammaAccount!.id, true);
    try {
      // Gamma's only outreach came through its (deleted) CRM account.
      const alignment = (await sdr.get(`${base}/alignment?${RANGE}`)).json();
      expect(alignment.counts).toEqual({ both: 1, outreach_only: 0, ads_only: 1, total: 2 });
      const group = (await sdr.get(`${base}/buying_group/${s.alpha}?${RANGE}`)).json();
      expect(group.members).toBe(2);
      expect(group.roles.map((r: { role: string }) => r.role)).toEqual(['Decision Maker', 'Evaluator']);
    } finally {
      await gone(crmContacts, s.casey, false);
      await gone(crmAccounts, gammaAccount!.id, false);
    }
  });

  it('401 signed out; 403 without reports.read', async () => {
    const anon = new Browser(app);
    anon.clientId = s.clientId;
    const urls = [
      `${base}/alignment`,
      `${base}/alignment/export`,
      `${base}/target/${s.avery.targetId}`,
      `${base}/target/${s.avery.targetId}/stats`,
      `${base}/target/${s.avery.targetId}/activities`,
      `${base}/target/${s.avery.targetId}/activities/export`,
      `${base}/buying_group/${s.alpha}`,
      `${base}/buying_group/${s.alpha}/export`,
    ];
    for (const url of urls) {
      expect((await anon.get(url)).statusCode, url).toBe(401);
      const res = await viewer.get(url);
      expect(res.statusCode, url).toBe(403);
      expect(res.json().message).toMatch(/reports\.read/);
    }
  });
});
