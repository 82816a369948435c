import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import {
  clientSettings,
  invoiceLines,
  invoices,
  companies,
  crmAccounts,
  crmClientSettings,
  crmContacts,
  crmStages,
  engagementEvents,
  integrations,
  opportunities,
  opportunityStageHistory,
  prospects,
  targets,
} from '../../db/schema/index.ts';
import { createTestApp, sendWhenIdle } from '../../../test/helpers.ts';
import { makeCadence, makeIntegration } from '../../../test/engagement.ts';
import { opportunitiesIn, opportunityPages, rowsOf } from './repository.ts';
import { recomputeAttribution, refreshAttribution } from './attribution.ts';
import { ATTRIBUTION_JOB } from './jobs.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';

/**
 * Issue 17, the attribution model of docs/reports.md over real rows: "an opportunity is generated
 * when its account had an engaged target (impression, click or landing page view) within the
 * attribution window before the opportunity was created; progressed when it moved into a later
 * selected or valuable stage after such an engagement; revenue influenced is the closed-won amount of
 * opportunities engaged before they closed. Window default 90 days, a client setting."
 */
const DAY = 86_400_000;
const now = Date.now();
const daysAgo = (n: number) => new Date(now - n * DAY);
const epoch = (d: Date) => Math.floor(d.getTime() / 1000);
const RANGE = `from=${epoch(daysAgo(60))}&to=${epoch(new Date(now + DAY))}`;
const STAGES = ['Prospecting', 'Qualification', 'Proposal', 'Closed Won', 'Closed Lost'] as const;
type Stage = (typeof STAGES)[number];
const fieldsOf = (res: { json(): unknown }) =>
  ((res.json() as { errors?: { field: string }[] }).errors ?? []).map((e) => e.field);

describe('pipeline and revenue reports (issue 17)', async () => {
  const app = await createTestApp();

  /** A client with a CRM stage catalogue, a cadence, and helpers to add accounts, engagement and deals. */
  async function world(name: string) {
    const clientId = await makeClient(app, name);
    const fileIntegration = await makeIntegration(app, clientId);
    const [crm] = await app.db.insert(integrations).values({ clientId, source: 'salesforce' }).returning();
    const stageRows = await app.db
      .insert(crmStages)
      .values(
        STAGES.map((key, n) => ({
          clientId,
          integrationId: crm!.id,
          key,
          label: key,
          sortOrder: n + 1,
          isClosed: key.startsWith('Closed'),
          isWon: key === 'Closed Won',
        })),
      )
      .returning();
    const stage = Object.fromEntries(stageRows.map((s) => [s.key, s.id])) as Record<Stage, string>;
    const cadenceId = await makeCadence(app, clientId);

    async function company(companyName: string, website?: string) {
      const [c] = await app.db
        .insert(companies)
        .values({
          clientId,
          integrationId: fileIntegration,
          externalId: randomUUID(),
          name: companyName,
          website,
        })
        .returning();
      return c!.id;
    }
    /** A prospect (of `companyId`, or of none) in the cadence, engaged at the given moments. */
    async function engaged(
      companyId: string | null,
      at: Date[],
      opts: { email?: string; type?: 'impression' | 'click' | 'view' } = {},
    ) {
      const [p] = await app.db
        .insert(prospects)
        .values({
          clientId,
          integrationId: fileIntegration,
          externalId: randomUUID(),
          firstName: 'Kendall',
          lastName: `Ellery ${randomUUID().slice(0, 4)}`,
          email: opts.email ?? `p-${randomUUID().slice(0, 8)}@example.com`,
          companyId,
        })
        .returning();
      const [t] = await app.db.insert(targets).values({ clientId, cadenceId, prospectId: p!.id }).returning();
      for (const occurredAt of at) {
        await app.db
          .insert(engagementEvents)
          .values({ clientId, targetId: t!.id, cadenceId, type: opts.type ?? 'impression', occurredAt });
      }
      return p!.id;
    }
    async function deal(
      companyId: string | null,
      opts: {
        name?: string;
        amount?: number;
        created: Date | null;
        stage?: Stage;
        closeDate?: Date;
        currency?: string;
      },
    ) {
      const s = opts.stage ?? 'Prospecting';
      const [o] = await app.db
        .insert(opportunities)
        .values({
          clientId,
          integrationId: crm!.id,
          externalId: randomUUID(),
          name: opts.name ?? `Deal ${randomUUID().slice(0, 4)}`,
          accountName: 'Account',
          companyId,
          amountCents: opts.amount ?? 100_000,
          currency: opts.currency ?? 'USD',
          stage: s,
          stageId: stage[s],
          crmCreatedAt: opts.created,
          isClosed: s.startsWith('Closed'),
          isWon: s === 'Closed Won',
          closeDate: opts.closeDate?.toISOString().slice(0, 10),
        })
        .returning();
      return o!.id;
    }
    async function moved(opportunityId: string, from: Stage | null, to: Stage, at: Date) {
      await app.db.insert(opportunityStageHistory).values({
        clientId,
        opportunityId,
        externalId: randomUUID(),
        fromStageId: from ? stage[from] : null,
        fromStage: from,
        toStageId: stage[to],
        toStage: to,
        changedAt: at,
      });
    }
    return { clientId, crmId: crm!.id, stage, company, engaged, deal, moved };
  }

  const w = await world('Acme');
  const other = await world('Foreign');
  const { browser: owner } = await signedIn(app, { [w.clientId]: 'purple_owner' });
  const { browser: sdr } = await signedIn(app, { [w.clientId]: 'yellow_sdr' });
  const { browser: viewer } = await signedIn(app, { [w.clientId]: 'grey_viewer' });
  const base = `/v1/report/client/${w.clientId}`;

  // A: engaged 10 days before its opportunity was created → generated.
  const a = await w.company('Alpha');
  await w.engaged(a, [daysAgo(30)]);
  const dealA = await w.deal(a, { name: 'Alpha expansion', amount: 500_000, created: daysAgo(20) });
  // B: engaged 100 days before creation: outside the 90-day window, inside a 120-day one.
  const b = await w.company('Beta');
  await w.engaged(b, [daysAgo(120)]);
  const dealB = await w.deal(b, { name: 'Beta platform', amount: 70_000, created: daysAgo(20) });
  // C: engaged only after its opportunity was created → not generated.
  const c = await w.company('Gamma');
  await w.engaged(c, [daysAgo(5)]);
  await w.deal(c, { name: 'Gamma pilot', amount: 30_000, created: daysAgo(10) });
  // D: won; engaged after creation but before closing → revenue influenced, not generated.
  const d = await w.company('Delta');
  await w.engaged(d, [daysAgo(15)], { type: 'click' });
  const dealD = await w.deal(d, {
    name: 'Delta renewal',
    amount: 900_000,
    created: daysAgo(40),
    stage: 'Closed Won',
    closeDate: daysAgo(3),
  });
  // E: won before its account ever engaged → not influenced.
  const e = await w.company('Epsilon');
  await w.engaged(e, [daysAgo(2)]);
  await w.deal(e, {
    name: 'Epsilon deal',
    amount: 250_000,
    created: daysAgo(50),
    stage: 'Closed Won',
    closeDate: daysAgo(10),
  });
  // F: moved forward before any engagement, then forward into a chosen stage after one, then back.
  const f = await w.company('Phi');
  await w.engaged(f, [daysAgo(12)]);
  const dealF = await w.deal(f, {
    name: 'Phi rollout',
    amount: 120_000,
    created: daysAgo(70),
    stage: 'Qualification',
  });
  await w.moved(dealF, null, 'Prospecting', daysAgo(70));
  await w.moved(dealF, 'Prospecting', 'Qualification', daysAgo(30));
  await w.moved(dealF, 'Qualification', 'Proposal', daysAgo(8));
  await w.moved(dealF, 'Proposal', 'Qualification', daysAgo(4));
  // G: the prospect has no company; the e-mail's domain is the CRM account's → tied, generated.
  const g = await w.company('Gridline');
  await app.db.insert(crmAccounts).values({
    clientId: w.clientId,
    integrationId: w.crmId,
    externalId: randomUUID(),
    name: 'Gridline',
    domain: 'gridline.example',
    companyId: g,
  });
  await w.engaged(null, [daysAgo(9)], { email: 'lee@gridline.example', type: 'view' });
  const dealG = await w.deal(g, {
    name: '=HYPERLINK("http://evil","x")',
    amount: 40_000,
    created: daysAgo(6),
  });
  // H: a revenue file import's row has no created date: won after an engagement, it is influenced
  // revenue, but it is never created or generated pipeline.
  const h = await w.company('Helix');
  await w.engaged(h, [daysAgo(20)]);
  const dealH = await w.deal(h, {
    name: 'Helix (file)',
    amount: 60_000,
    created: null,
    stage: 'Closed Won',
    closeDate: daysAgo(5),
  });
  await app.db
    .insert(crmClientSettings)
    .values({ clientId: w.clientId, selectedStageIds: [w.stage.Proposal] });

  // The foreign client: an engaged, generated deal of its own that must never show here.
  const fx = await other.company('Foreign Co');
  await other.engaged(fx, [daysAgo(30)]);
  const foreignDeal = await other.deal(fx, {
    name: 'Foreign deal',
    amount: 10_000_000,
    created: daysAgo(20),
  });

  it('pipeline/generated lists exactly the opportunities engaged within the window before creation', async () => {
    const res = await sdr.get(`${base}/pipeline/generated?${RANGE}`);
    expect(res.statusCode, res.body).toBe(200);
    const names = res
      .json()
      .items.map((o: { name: string }) => o.name)
      .sort();
    expect(names).toEqual(['=HYPERLINK("http://evil","x")', 'Alpha expansion']);
    const alpha = res.json().items.find((o: { id: string }) => o.id === dealA);
    expect(alpha.generated_engaged_at).toBe(daysAgo(30).toISOString());
    expect(alpha.engaged_prospects).toBe(1);
    // Their number and amount in all and per month of creation (UTC), whatever the page.
    const month = (d: Date) => d.toISOString().slice(0, 7);
    const months = new Map<string, { opportunities: number; amount_cents: number }>();
    for (const [d, cents] of [
      [daysAgo(20), 500_000],
      [daysAgo(6), 40_000],
    ] as const) {
      const m = months.get(month(d)) ?? { opportunities: 0, amount_cents: 0 };
      months.set(month(d), { opportunities: m.opportunities + 1, amount_cents: m.amount_cents + cents });
    }
    expect(res.json()).toMatchObject({
      total: 2,
      amount_cents: 540_000,
      currency: 'USD',
      by_month: [...months].map(([m, v]) => ({ month: m, ...v })),
      page: 1,
      page_size: 50,
    });
    // Pages of one, newest first: G (created 6 days ago), then A.
    const first = (await sdr.get(`${base}/pipeline/generated?${RANGE}&page_size=1`)).json();
    const second = (await sdr.get(`${base}/pipeline/generated?${RANGE}&page_size=1&page=2`)).json();
    expect([first.items[0].id, second.items[0].id]).toEqual([dealG, dealA]);
    expect([first.total, second.total, first.amount_cents]).toEqual([2, 2, 540_000]);
    const past = (await sdr.get(`${base}/pipeline/generated?${RANGE}&page_size=1&page=3`)).json();
    expect([past.items, past.total]).toEqual([[], 2]);
    expect(fieldsOf(await sdr.get(`${base}/pipeline/generated?${RANGE}&page_size=201`))).toEqual([
      'querystring.page_size',
    ]);
    expect(fieldsOf(await sdr.get(`${base}/pipeline/progressed?${RANGE}&page=0`))).toEqual([
      'querystring.page',
    ]);
  });

  it('the attribution window is the client setting: 120 days makes Beta generated too', async () => {
    await app.db
      .insert(clientSettings)
      .values({
        clientId: w.clientId,
        colors: { background: '#ffffff', text: '#000000', accent: '#000000' },
        attributionWindowDays: 120,
      })
      .onConflictDoUpdate({ target: clientSettings.clientId, set: { attributionWindowDays: 120 } });
    try {
      const res = await owner.get(`${base}/pipeline/generated?${RANGE}`);
      expect(res.json().window_days).toBe(120);
      expect(res.json().items.map((o: { id: string }) => o.id)).toContain(dealB);
    } finally {
      await app.db.update(clientSettings).set({ attributionWindowDays: 90 });
    }
  });

  it('pipeline/progressed counts the forward move into a selected stage after an engagement, only', async () => {
    const res = await owner.get(`${base}/pipeline/progressed?${RANGE}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().items).toEqual([
      expect.objectContaining({
        opportunity_id: dealF,
        from_stage: 'Qualification',
        to_stage: 'Proposal',
        moved_at: daysAgo(8).toISOString(),
        engaged_at: daysAgo(12).toISOString(),
      }),
    ]);
    expect(res.json()).toMatchObject({ total: 1, page: 1, page_size: 50 });
    expect((await owner.get(`${base}/pipeline/progressed?${RANGE}&page=2`)).json()).toMatchObject({
      total: 1,
      items: [],
    });
  });

  it('summary: the numbers equal the rows behind them, and revenue influenced is the won amount engaged before close', async () => {
    const res = await owner.get(`${base}/summary?${RANGE}`);
    expect(res.statusCode, res.body).toBe(200);
    const s = res.json();
    expect(s).toMatchObject({
      window_days: 90,
      currency: 'USD',
      other_currency_opportunities: 0,
      // Created in the last 60 days: A, B, C, D, E, G (F was created 70 days ago).
      opportunities_created: 6,
      pipeline_created_cents: 500_000 + 70_000 + 30_000 + 900_000 + 250_000 + 40_000,
      generated: 2,
      pipeline_generated_cents: 540_000,
      progressed: 1,
      pipeline_progressed_cents: 120_000,
      won: 3,
      revenue_won_cents: 1_210_000,
      influenced: 2,
      revenue_influenced_cents: 960_000,
      // Events in range: A(30d), C(5d), D(15d click), E(2d), F(12d), G(9d view), H(20d); B's is 120 days old.
      impressions: 5,
      clicks: 1,
      views: 1,
      engaged_accounts: 7,
    });
  });

  it('the totals and exports read pages of the range: pages of 2 give the rows of one read, in order, for every filter', async () => {
    const range = { from: daysAgo(60), to: new Date(now + DAY) };
    await refreshAttribution(app.db, w.clientId, 90);
    for (const filter of ['all', 'generated', 'influenced', 'open', 'won', 'lost'] as const) {
      const paged: string[] = [];
      for await (const page of opportunityPages(app.db, w.clientId, range, filter, 2))
        paged.push(...page.map((o) => `${o.name} ${o.generated_engaged_at !== null} ${o.influenced}`));
      const { items } = await opportunitiesIn(app.db, w.clientId, range, { filter, limit: 100 });
      expect(paged, filter).toEqual(
        items.map((o) => `${o.name} ${o.generated_engaged_at !== null} ${o.influenced}`),
      );
    }
    // The attribution filters keep only their rows (Helix, created by no one, comes first: nulls first).
    const generated: string[] = [];
    for await (const page of opportunityPages(app.db, w.clientId, range, 'generated', 2))
      generated.push(...page.map((o) => o.name));
    expect(generated.sort()).toEqual(['=HYPERLINK("http://evil","x")', 'Alpha expansion']);
    const influenced: string[] = [];
    for await (const page of opportunityPages(app.db, w.clientId, range, 'influenced', 2))
      influenced.push(...page.map((o) => o.name));
    expect(influenced).toEqual(['Helix (file)', 'Delta renewal']);
  });

  it('opportunity: paged, filtered, and one opens to its engaged prospects and stage history', async () => {
    const all = await owner.get(`${base}/opportunity?${RANGE}&page_size=2`);
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json()).toMatchObject({ total: 7, page: 1, page_size: 2 });
    expect(all.json().items).toHaveLength(2);
    const influenced = await owner.get(`${base}/opportunity?${RANGE}&filter=influenced`);
    expect(
      influenced
        .json()
        .items.map((o: { id: string }) => o.id)
        .sort(),
    ).toEqual([dealD, dealH].sort());
    const won = await owner.get(`${base}/opportunity?${RANGE}&filter=won`);
    expect(won.json().total).toBe(3);
    const file = won.json().items.find((o: { id: string }) => o.id === dealH);
    expect(file).toMatchObject({ created_at: null, influenced: true, generated_engaged_at: null });

    const detail = await sdr.get(`${base}/opportunity/${dealG}`);
    expect(detail.statusCode, detail.body).toBe(200);
    // A file import has no record elsewhere to open (issue 42 item 7).
    expect(detail.json().crm_record).toBeNull();
    expect(detail.json().prospects).toEqual([
      expect.objectContaining({ email: 'lee@gridline.example', views: 1, impressions: 0 }),
    ]);
    const phi = await owner.get(`${base}/opportunity/${dealF}`);
    expect(phi.json().stage_history.map((h: { to_stage: string }) => h.to_stage)).toEqual([
      'Prospecting',
      'Qualification',
      'Proposal',
      'Qualification',
    ]);
  });

  it('opportunity: sorted by a column either way, page after page (issue 42 item 11)', async () => {
    type Item = { id: string; amount_cents: number; stage: string };
    const list = async (q: string) => {
      const res = await owner.get(`${base}/opportunity?${RANGE}&${q}`);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { items: Item[] }).items;
    };
    const byAmount = (await list('sort=amount&order=desc&page_size=50')).map((o) => o.amount_cents);
    expect(byAmount).toHaveLength(7);
    expect(byAmount).toEqual([...byAmount].sort((x, y) => y - x));
    expect((await list('sort=amount&order=asc')).map((o) => o.amount_cents)).toEqual([...byAmount].reverse());
    // Pages of 3 put together are the one list.
    const paged = [
      ...(await list('sort=amount&page_size=3&page=1')),
      ...(await list('sort=amount&page_size=3&page=2')),
      ...(await list('sort=amount&page_size=3&page=3')),
    ].map((o) => o.amount_cents);
    expect(paged).toEqual(byAmount);
    // A stage sorts in the pipeline's order, not alphabetically.
    const stages = (await list('sort=stage')).map((o) => STAGES.indexOf(o.stage as Stage));
    expect(stages).toEqual([...stages].sort((x, y) => x - y));
    // Generated or influenced first; the filter still applies under a sort.
    const attributed = await list('sort=attribution&filter=won');
    expect(attributed).toHaveLength(3);
    expect(attributed.at(-1)!.id).not.toBe(dealD);
  });

  it('opportunity sort: 422 naming the field; 403 for a viewer and for another client', async () => {
    for (const [q, field] of [
      ['sort=revenue', 'querystring.sort'],
      ['sort=amount&order=up', 'querystring.order'],
    ] as const) {
      const res = await owner.get(`${base}/opportunity?${q}`);
      expect(res.statusCode, q).toBe(422);
      expect(fieldsOf(res), q).toEqual([field]);
    }
    expect((await viewer.get(`${base}/opportunity?sort=amount`)).statusCode).toBe(403);
    // Another client's report is out of reach: the owner has no membership there.
    const foreign = await owner.get(`/v1/report/client/${other.clientId}/opportunity?sort=amount`);
    expect([403, 404]).toContain(foreign.statusCode);
    expect(foreign.body).not.toContain('Foreign deal');
  });

  it('exports are CSV, formula-injection safe, with the same rows as the report', async () => {
    const res = await owner.get(`${base}/pipeline/generated/export?${RANGE}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="pipeline-generated-/);
    const rows = parse(res.body) as string[][];
    expect(rows[0]).toContain('Opportunity');
    expect(
      rows
        .slice(1)
        .map((r) => r[0])
        .sort(),
    ).toEqual(['\'=HYPERLINK("http://evil","x")', 'Alpha expansion']);
    const moves = parse((await owner.get(`${base}/pipeline/progressed/export?${RANGE}`)).body) as string[][];
    expect(moves).toHaveLength(2);
    const opps = parse(
      (await owner.get(`${base}/opportunity/export?${RANGE}&filter=won`)).body,
    ) as string[][];
    expect(opps).toHaveLength(4);
  });

  it('bad input is a 422 naming the field', async () => {
    const cases: [string, string][] = [
      [`${base}/summary?from=yesterday`, 'querystring.from'],
      [`${base}/summary?from=${epoch(daysAgo(1))}&to=${epoch(daysAgo(2))}`, 'querystring.to'],
      [`${base}/summary?from=99999999999`, 'querystring.from'],
      [`${base}/summary?from=0`, 'querystring.from'],
      // `from` alone opens a range to now: no longer than REPORT_MAX_RANGE_DAYS either (2000-01-01
      // read 26 years, 40–60 s on the demo data).
      [`${base}/summary?from=946684800`, 'querystring.from'],
      [`${base}/content?from=${epoch(daysAgo(1101))}`, 'querystring.from'],
      [`${base}/opportunity?filter=everything`, 'querystring.filter'],
      [`${base}/opportunity?page_size=1000`, 'querystring.page_size'],
      [`${base}/opportunity/not-a-uuid`, 'params.opportunityId'],
      [`${base}/pipeline/generated/export?to=1.5`, 'querystring.to'],
    ];
    for (const [url, field] of cases) {
      const res = await owner.get(url);
      expect(res.statusCode, url).toBe(422);
      expect(fieldsOf(res), url).toEqual([field]);
    }
  });

  it('401 signed out; 403 without reports.read (a viewer); a foreign opportunity is not found', async () => {
    const anon = new Browser(app);
    anon.clientId = w.clientId;
    expect((await anon.get(`${base}/summary`)).statusCode).toBe(401);
    for (const path of [
      'summary',
      'pipeline/generated',
      'pipeline/progressed',
      'opportunity',
      'opportunity/export',
    ]) {
      const res = await viewer.get(`${base}/${path}`);
      expect(res.statusCode, path).toBe(403);
      expect(res.json().message).toMatch(/reports\.read/);
    }
    const foreign = await owner.get(`${base}/opportunity/${foreignDeal}`);
    expect(foreign.statusCode).toBe(404);
    // Nothing of the foreign client's (10,000,000 cents, engaged) leaks into this one's numbers.
    const all = await owner.get(`${base}/opportunity?${RANGE}&page_size=200`);
    expect(all.json().items.map((o: { id: string }) => o.id)).not.toContain(foreignDeal);
  });

  it('/sc/performance/by_date: one row per day, week or month with every period listed, and its export', async () => {
    const sum = (rows: Record<string, number>[], k: string) => rows.reduce((n, r) => n + (r[k] ?? 0), 0);
    for (const view of ['daily', 'weekly', 'monthly'] as const) {
      const res = await sdr.get(`/sc/performance/by_date?${RANGE}&view=${view}`);
      expect(res.statusCode, res.body).toBe(200);
      const rows = res.json().rows as (Record<string, number> & { date: string })[];
      // Events in range of this client only: 5 impressions, 1 click, 1 view (the foreign one is apart).
      expect([sum(rows, 'impressions'), sum(rows, 'clicks'), sum(rows, 'views')], view).toEqual([5, 1, 1]);
      expect(rows.map((r) => r.date)).toEqual([...rows.map((r) => r.date)].sort());
      if (view === 'daily') expect(rows.length).toBeGreaterThanOrEqual(61);
      if (view === 'weekly')
        for (const r of rows) expect(new Date(`${r.date}T00:00:00Z`).getUTCDay()).toBe(1);
      if (view === 'monthly') for (const r of rows) expect(r.date.endsWith('-01')).toBe(true);
    }
    const csv = await owner.get(`/sc/performance/by_date/export?${RANGE}&view=monthly`);
    expect(csv.statusCode).toBe(200);
    const rows = parse(csv.body) as string[][];
    expect(rows[0]).toEqual(['Date', 'Impressions', 'Clicks', 'Landing page views', 'New superprospects']);
    expect(rows.slice(1).reduce((n, r) => n + Number(r[1]), 0)).toBe(5);
  });

  it('/sc/revenue: won and influenced revenue per month of the close date, and its export', async () => {
    const res = await owner.get(`/sc/revenue?${RANGE}`);
    expect(res.statusCode, res.body).toBe(200);
    const rows = res.json().rows as {
      revenue_won_cents: number;
      revenue_influenced_cents: number;
      won: number;
    }[];
    expect(rows.reduce((n, r) => n + r.won, 0)).toBe(3);
    expect(rows.reduce((n, r) => n + r.revenue_won_cents, 0)).toBe(1_210_000);
    expect(rows.reduce((n, r) => n + r.revenue_influenced_cents, 0)).toBe(960_000);
    const csv = parse((await owner.get(`/sc/revenue/export?${RANGE}`)).body) as string[][];
    expect(csv[0]).toEqual(['Month', 'Won', 'Revenue won', 'Influenced', 'Revenue influenced']);
    expect(csv.slice(1).reduce((n, r) => n + Number(r[2]), 0)).toBe(12_100);
  });

  it('/sc report calls: 422 naming the field, 403 without reports.read', async () => {
    const bad = await owner.get('/sc/performance/by_date?view=hourly');
    expect(bad.statusCode).toBe(422);
    expect(fieldsOf(bad)).toEqual(['querystring.view']);
    const badTo = await owner.get(`/sc/revenue?from=${epoch(daysAgo(1))}&to=${epoch(daysAgo(3))}`);
    expect(fieldsOf(badTo)).toEqual(['querystring.to']);
    for (const url of [
      '/sc/performance/by_date',
      '/sc/performance/by_date/export',
      '/sc/revenue',
      '/sc/revenue/export',
    ]) {
      expect((await viewer.get(url)).statusCode, url).toBe(403);
    }
  });

  it('value_report: spend on superprospects billed in the range against pipeline and revenue influenced', async () => {
    const [inv] = await app.db
      .insert(invoices)
      .values({
        clientId: w.clientId,
        number: 'R-0001',
        status: 'paid',
        amountCents: 1500,
        period: '2026-11',
        reason: 'threshold',
        idempotencyKey: randomUUID(),
      })
      .returning();
    await app.db.insert(invoiceLines).values(
      [daysAgo(10), daysAgo(20), daysAgo(90)].map((superDate) => ({
        invoiceId: inv!.id,
        clientId: w.clientId,
        targetId: randomUUID(),
        cadenceId: 1,
        superDate,
        amountCents: 500,
      })),
    );
    const res = await owner.get(`${base}/value_report?${RANGE}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      superprospects_billed: 2, // the third was super 90 days ago, before the range
      spend_cents: 1000,
      spend_currency: 'USD',
      pipeline_generated_cents: 540_000,
      revenue_influenced_cents: 960_000,
      pipeline_per_spend: 540,
      revenue_per_spend: 960,
    });
    const none = await owner.get(`${base}/value_report?from=978307200&to=1009843200`);
    expect(none.json()).toMatchObject({ spend_cents: 0, pipeline_per_spend: null, revenue_per_spend: null });
    expect((await viewer.get(`${base}/value_report`)).statusCode).toBe(403);
    expect(fieldsOf(await owner.get(`${base}/value_report?to=soon`))).toEqual(['querystring.to']);
  });

  // Stored attribution (docs/reports.md): the reports read each opportunity's and move's stored
  // result, so every write that changes a result must reach it — through the triggers' markers, or
  // because the row was not final yet.
  it('stored attribution follows each write that changes it, and recomputes nothing otherwise', async () => {
    const s = await world('Stored');
    const { browser: boss } = await signedIn(app, { [s.clientId]: 'purple_owner' });
    const generated = async () => {
      const res = await boss.get(`/v1/report/client/${s.clientId}/pipeline/generated?${RANGE}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().items.map((o: { name: string }) => o.name) as string[];
    };
    const k = await s.company('Kestrel');
    // Engaged 15 days ago, tied to no account yet (no company, another domain).
    const pk = await s.engaged(null, [daysAgo(15)], { email: 'ash@elsewhere.example' });
    await s.deal(k, { name: 'Kestrel', created: daysAgo(10) });
    expect(await generated()).toEqual([]);
    const storedAt = async () =>
      rowsOf(
        await app.db.execute(
          sql`select computed_at from opportunity_attribution where client_id = ${s.clientId}`,
        ),
      )[0]?.computed_at;
    const first = await storedAt();
    expect(first).toBeTruthy();
    expect(await generated()).toEqual([]);
    expect(await storedAt(), 'a read with nothing changed recomputes nothing').toEqual(first);

    // A CRM contact ties the prospect to Kestrel's account.
    const [account] = await app.db
      .insert(crmAccounts)
      .values({
        clientId: s.clientId,
        integrationId: s.crmId,
        externalId: randomUUID(),
        name: 'Kestrel',
        companyId: k,
      })
      .returning();
    const [contact] = await app.db
      .insert(crmContacts)
      .values({
        clientId: s.clientId,
        integrationId: s.crmId,
        externalId: randomUUID(),
        email: 'ash@elsewhere.example',
        accountId: account!.id,
        prospectId: pk,
      })
      .returning();
    expect(await generated()).toEqual(['Kestrel']);
    const markers = await app.db.execute(
      sql`select count(*)::int as n from attribution_dirty where client_id = ${s.clientId}`,
    );
    expect(rowsOf(markers)[0]?.n, 'the refresh takes its markers').toBe(0);
    // Writes that cannot change a result leave no marker: the tracking path's counters, a title.
    await app.db
      .update(targets)
      .set({ impressions: sql`${targets.impressions} + 1` })
      .where(eq(targets.clientId, s.clientId));
    await app.db.update(prospects).set({ title: 'VP Sales' }).where(eq(prospects.id, pk));
    const after = await app.db.execute(
      sql`select count(*)::int as n from attribution_dirty where client_id = ${s.clientId}`,
    );
    expect(rowsOf(after)[0]?.n).toBe(0);
    // Deleted in the CRM: the tie is gone.
    await app.db.update(crmContacts).set({ isDeleted: true }).where(eq(crmContacts.id, contact!.id));
    expect(await generated()).toEqual([]);
    // The prospect's own company.
    await app.db.update(prospects).set({ companyId: k }).where(eq(prospects.id, pk));
    expect(await generated()).toEqual(['Kestrel']);
    await app.db.update(prospects).set({ companyId: null }).where(eq(prospects.id, pk));
    expect(await generated()).toEqual([]);
    // The e-mail's domain, once the account has it.
    await app.db
      .update(crmAccounts)
      .set({ domain: 'kestrel.example' })
      .where(eq(crmAccounts.id, account!.id));
    await app.db.update(prospects).set({ email: 'ash@kestrel.example' }).where(eq(prospects.id, pk));
    expect(await generated()).toEqual(['Kestrel']);
    await app.db.update(crmAccounts).set({ domain: null }).where(eq(crmAccounts.id, account!.id));
    expect(await generated()).toEqual([]);
    // The company's website's domain.
    await app.db
      .update(companies)
      .set({ website: 'https://www.kestrel.example/about' })
      .where(eq(companies.id, k));
    expect(await generated()).toEqual(['Kestrel']);
    // The opportunity's creation moved before the engagement.
    await app.db
      .update(opportunities)
      .set({ crmCreatedAt: daysAgo(16) })
      .where(eq(opportunities.name, 'Kestrel'));
    expect(await generated()).toEqual([]);
    await app.db
      .update(opportunities)
      .set({ crmCreatedAt: daysAgo(10) })
      .where(eq(opportunities.name, 'Kestrel'));
    expect(await generated()).toEqual(['Kestrel']);
    // The target (and so its events) deleted.
    await app.db.delete(targets).where(and(eq(targets.clientId, s.clientId), eq(targets.prospectId, pk)));
    expect(await generated()).toEqual([]);
    // An event recorded late (dated 14 days ago) for a new prospect of the website's domain.
    await s.engaged(null, [daysAgo(14)], { email: 'bo@kestrel.example' });
    expect(await generated()).toEqual(['Kestrel']);

    // A move recorded after the first read is attributed when it arrives.
    const m = await s.company('Merlin');
    await s.engaged(m, [daysAgo(6)]);
    const dealM = await s.deal(m, { name: 'Merlin', created: daysAgo(40), stage: 'Qualification' });
    const summary = async () => (await boss.get(`/v1/report/client/${s.clientId}/summary?${RANGE}`)).json();
    expect((await summary()).progressed).toBe(0);
    await s.moved(dealM, 'Prospecting', 'Qualification', daysAgo(2));
    expect((await summary()).progressed).toBe(1);
    // A second progress move of the same opportunity: still one opportunity, its amount once.
    const before = (await summary()).pipeline_progressed_cents;
    await s.moved(dealM, 'Qualification', 'Proposal', daysAgo(1));
    expect(await summary()).toMatchObject({ progressed: 1, pipeline_progressed_cents: before });
    expect(before).toBe(100_000);
    // The move's history row corrected by the CRM: into Closed Lost, which is no progress.
    await app.db
      .update(opportunityStageHistory)
      .set({ toStageId: s.stage['Closed Lost'], toStage: 'Closed Lost' })
      .where(eq(opportunityStageHistory.opportunityId, dealM));
    expect((await summary()).progressed).toBe(0);

    // Not final yet: won today, so an event written now (no marker: it is not backdated) still counts.
    const n = await s.company('Nimbus');
    await s.deal(n, { name: 'Nimbus', created: daysAgo(30), stage: 'Closed Won', closeDate: new Date() });
    expect((await summary()).influenced).toBe(0);
    await s.engaged(n, [new Date()]);
    // Such rows are computed again once a minute: the minute is made to pass.
    const aMinuteAgo = async () =>
      app.db.execute(sql`update opportunity_attribution set computed_at = computed_at - interval '61 seconds'
        where client_id = ${s.clientId} and not final`);
    expect((await summary()).influenced, 'not before the minute has passed').toBe(0);
    await aMinuteAgo();
    expect((await summary()).influenced).toBe(1);
  });

  it('a first computation in one pass over the events stores the rows item by item does, to the edges', async () => {
    const s = await world('Sweep');
    const shift = (d: Date, ms: number) => new Date(d.getTime() + ms);
    // An event at the very moment of creation is not before it; one exactly a window before is inside.
    const created = daysAgo(20);
    const k = await s.company('Kappa');
    await s.engaged(k, [created]);
    const dealK = await s.deal(k, { created });
    const l = await s.company('Lambda');
    await s.engaged(l, [shift(created, -90 * DAY)]);
    await s.engaged(l, [shift(created, -90 * DAY - 1)]);
    const dealL = await s.deal(l, { created });
    // Two prospects of a won account, engaged before its close; a move at the very moment of the click.
    const m = await s.company('Mu');
    await s.engaged(m, [daysAgo(40), daysAgo(12)]);
    await s.engaged(m, [daysAgo(30)], { type: 'click' });
    const dealM = await s.deal(m, { created: daysAgo(35), stage: 'Closed Won', closeDate: daysAgo(2) });
    await s.moved(dealM, 'Prospecting', 'Qualification', daysAgo(30));
    await s.moved(dealM, 'Qualification', 'Closed Won', daysAgo(2));
    // No account; no creation date (a revenue file's row); an account nobody engaged.
    await s.deal(null, { created: daysAgo(5) });
    await s.deal(k, { created: null, stage: 'Closed Won', closeDate: daysAgo(1) });
    await s.deal(await s.company('Nu'), { created: daysAgo(3) });

    const stored = async (clientId: string) => ({
      opportunities: rowsOf(
        await app.db.execute(sql`select opportunity_id, company_id, window_days, generated_at,
          generated_prospects, influenced_prospects, final
          from opportunity_attribution where client_id = ${clientId} order by opportunity_id`),
      ),
      moves: rowsOf(
        await app.db.execute(sql`select history_id, opportunity_id, company_id, from_stage_id, to_stage_id,
          window_days, changed_at, engaged_at, final
          from stage_move_attribution where client_id = ${clientId} order by history_id`),
      ),
    });
    // This world's edges, and the first world's ties (CRM account domain, file rows, moves back).
    for (const clientId of [s.clientId, w.clientId]) {
      await recomputeAttribution(app.db, clientId, 90, false);
      const itemByItem = await stored(clientId);
      await recomputeAttribution(app.db, clientId, 90, true);
      expect(await stored(clientId)).toEqual(itemByItem);
      expect(itemByItem.opportunities.length).toBeGreaterThan(5);
    }
    const one = async (id: string) =>
      rowsOf(
        await app.db.execute(sql`select generated_prospects as g, influenced_prospects as i,
          generated_at is not null as generated from opportunity_attribution where opportunity_id = ${id}`),
      )[0];
    expect(await one(dealK)).toEqual({ g: 0, i: 0, generated: false });
    expect(await one(dealL)).toEqual({ g: 1, i: 0, generated: true });
    expect(await one(dealM)).toEqual({ g: 1, i: 2, generated: true });
    const [move] = rowsOf(
      await app.db.execute(sql`select engaged_at from stage_move_attribution a
        join opportunity_stage_history h on h.id = a.history_id
        where h.opportunity_id = ${dealM} and h.to_stage = 'Qualification'`),
    );
    expect(new Date(String(move?.engaged_at)).getTime()).toBe(daysAgo(40).getTime());
  });

  it('the workers fold writes into the stored attribution in the background, before any report asks', async () => {
    const s = await world('Background');
    const k = await s.company('Kite');
    await s.engaged(k, [daysAgo(12)]);
    const dealK = await s.deal(k, { name: 'Kite', created: daysAgo(5) });
    const stored = async () =>
      rowsOf(
        await app.db.execute(sql`select generated_prospects from opportunity_attribution
          where opportunity_id = ${dealK}`),
      );
    expect(await stored(), 'nothing stored before a report or the job').toEqual([]);
    await sendWhenIdle(app, ATTRIBUTION_JOB);
    // The job runs when a worker picks it up: under CI's load that took more than 10 s.
    await expect.poll(stored, { timeout: 40_000, interval: 200 }).toEqual([{ generated_prospects: 1 }]);
    const left = await app.db.execute(sql`select 1 from attribution_dirty where client_id = ${s.clientId}`);
    expect(rowsOf(left)).toEqual([]);

    // A new window is computed by the job the settings save queues, with no report asked: the
    // engagement 12 days before creation falls outside a 10-day window.
    const { browser: owner } = await signedIn(app, { [s.clientId]: 'purple_owner' });
    const saved = await owner.request({
      method: 'PUT',
      url: `/v1/rest/client/${s.clientId}/settings`,
      payload: { attribution_window_days: 5 },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const windowed = async () =>
      rowsOf(
        await app.db.execute(sql`select window_days, generated_prospects from opportunity_attribution
          where opportunity_id = ${dealK}`),
      );
    await expect
      .poll(windowed, { timeout: 40_000, interval: 200 })
      .toEqual([{ window_days: 5, generated_prospects: 0 }]);
  }, 120_000);
});
