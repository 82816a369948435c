import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { companies, crmContacts, engagementEvents, prospects, targets } from '../src/db/schema/index.ts';
import { ATTRIBUTION_JOB } from '../src/modules/reports/jobs.ts';
import { createTestApp, sendWhenIdle } from './helpers.ts';
import { signedIn } from './http.ts';
import type { Browser } from './http.ts';
import { reportWorld } from './reports-world.ts';

/**
 * The account reports read engagement per account and month (docs/reports.md "Account rollups",
 * migration 0030) and must equal tying the raw events to their accounts by the model's four ties at
 * every moment: ranges that cut days and months, today, a backdated event on a counted day, a deleted
 * event, a prospect moved to another company, a website changed, a CRM contact deleted, a target
 * moved to another prospect, and never another tenant's events.
 */
const DAY = 86_400_000;
const HOUR = 3_600_000;
const NOW = Date.now();
const today = Math.floor(NOW / DAY) * DAY;
const epoch = (ms: number) => Math.floor(ms / 1000);
type Engagement = {
  impressions: number;
  clicks: number;
  views: number;
  prospects: number;
  last_at: string | null;
};

/** A small deterministic generator, so a failure can be replayed. */
function lcg(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

async function scene(app: FastifyInstance, name: string, seed: number) {
  const w = await reportWorld(app, name);
  const alpha = await w.company(`${name} Alpha`);
  const beta = await w.company(`${name} Beta`);
  const zeta = await w.company(`${name} Zeta`, 'https://www.zeta-example.io/about');
  const crmOnly = await w.company(`${name} Crm`);
  const crmAccount = await w.account(crmOnly, `${name} Crm account`);
  const people = [
    await w.prospect(alpha, 'Ada', 'One'),
    await w.prospect(alpha, 'Abe', 'Two'),
    await w.prospect(beta, 'Bea', 'Three'),
    await w.prospect(null, 'Zed', 'Four'), // tied to Zeta by e-mail domain only
    await w.prospect(beta, 'Cal', 'Five'), // also tied to Crm by a CRM contact
    await w.prospect(null, 'Nia', 'Six'), // tied to nothing
  ];
  await app.db
    .update(prospects)
    .set({ email: 'zed@zeta-example.io' })
    .where(eq(prospects.id, people[3]!.prospectId));
  const contactId = await w.contact({ accountId: crmAccount, prospectId: people[4]!.prospectId });
  await w.deal(alpha, { name: `${name} Alpha deal`, amount: 100_00, created: new Date(NOW - 20 * DAY) });
  await w.deal(beta, { name: `${name} Beta deal`, amount: 200_00, created: new Date(NOW - 10 * DAY) });
  await w.deal(zeta, { name: `${name} Zeta deal`, amount: 300_00, created: new Date(NOW - 5 * DAY) });
  // 160 events over the last 75 days at any hour, and a few today.
  const random = lcg(seed);
  const types = ['impression', 'impression', 'impression', 'click', 'view'] as const;
  const rows = [];
  for (let i = 0; i < 160; i++) {
    const who = people[Math.floor(random() * people.length)]!;
    rows.push({
      clientId: w.clientId,
      targetId: who.targetId,
      cadenceId: w.cadenceId,
      type: types[Math.floor(random() * types.length)]!,
      occurredAt: new Date(NOW - Math.floor(random() * 75 * DAY)),
    });
  }
  for (const who of people.slice(0, 3))
    rows.push({
      clientId: w.clientId,
      targetId: who.targetId,
      cadenceId: w.cadenceId,
      type: 'impression' as const,
      occurredAt: new Date(Math.max(today, NOW - HOUR)),
    });
  await app.db.insert(engagementEvents).values(rows);
  return { ...w, alpha, beta, zeta, crmOnly, people, contactId };
}

// Each test compares up to 72 calls with the raw events: on PGlite on a loaded two-core machine
// the 30 s default was once too short.
const SLOW = { timeout: 120_000 };

describe('account reports over account rollups: exact at every moment (issue 17)', SLOW, async () => {
  const app = await createTestApp({ env: { LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent' } });
  const a = await scene(app, 'Roll A', 7);
  const b = await scene(app, 'Roll B', 11);
  const { browser: ownerA } = await signedIn(app, { [a.clientId]: 'purple_owner' });
  const { browser: ownerB } = await signedIn(app, { [b.clientId]: 'purple_owner' });
  /** An event of one of a scene's people, to be given its time. */
  const late = (s: typeof a, who: number, type: 'impression' | 'click' | 'view') => ({
    clientId: s.clientId,
    targetId: s.people[who]!.targetId,
    cadenceId: s.cadenceId,
    type,
  });

  /** The model, applied to the raw events: each event counts for every account its prospect is tied to. */
  async function reference(clientId: string, from: number, to: number): Promise<Map<string, Engagement>> {
    const { rows } = (await app.database.execute(
      `with ties as (
         select p.company_id, p.id as prospect_id from prospects p
          where p.client_id = $1 and p.company_id is not null
         union
         select a.company_id, cc.prospect_id from crm_contacts cc
           join crm_accounts a on a.id = cc.account_id and not a.is_deleted
          where cc.client_id = $1 and cc.prospect_id is not null and a.company_id is not null and not cc.is_deleted
         union
         select a.company_id, p.id from prospects p
           join crm_accounts a on a.client_id = p.client_id and a.domain = lower(split_part(p.email, '@', 2)) and not a.is_deleted
          where p.client_id = $1 and a.company_id is not null
         union
         select c.id, p.id from prospects p
           join companies c on c.client_id = p.client_id and coalesce(c.website, '') <> ''
            and lower(regexp_replace(regexp_replace(c.website, '^[a-z][a-z0-9+.-]*://', '', 'i'), '^www[0-9]*[.]|[/:?#].*$', '', 'g'))
              = lower(split_part(p.email, '@', 2))
          where p.client_id = $1
       )
       select ties.company_id::text as company_id,
              count(*) filter (where e.type = 'impression')::int as impressions,
              count(*) filter (where e.type = 'click')::int as clicks,
              count(*) filter (where e.type = 'view')::int as views,
              count(distinct ties.prospect_id)::int as prospects, max(e.occurred_at) as last_at
         from engagement_events e
         join targets t on t.id = e.target_id
         join ties on ties.prospect_id = t.prospect_id
        where e.client_id = $1 and e.occurred_at >= $2 and e.occurred_at < $3
        group by 1`,
      [clientId, new Date(from).toISOString(), new Date(to).toISOString()],
    )) as { rows: Record<string, unknown>[] };
    return new Map(
      rows.map((r) => [
        String(r.company_id),
        {
          impressions: Number(r.impressions),
          clicks: Number(r.clicks),
          views: Number(r.views),
          prospects: Number(r.prospects),
          last_at: r.last_at ? new Date(r.last_at as string).toISOString() : null,
        },
      ]),
    );
  }

  /** What alignment and summary answer for the range, as the same map. */
  async function reported(browser: Browser, clientId: string, from: number, to: number) {
    const q = `from=${epoch(from)}&to=${epoch(to)}`;
    const res = await browser.get(`/v1/report/client/${clientId}/alignment?${q}&page_size=200`);
    expect(res.statusCode, res.body).toBe(200);
    const items = res
      .json()
      .items.filter(
        (x: { impressions: number; clicks: number; views: number }) => x.impressions + x.clicks + x.views > 0,
      );
    const summary = await browser.get(`/v1/report/client/${clientId}/summary?${q}`);
    expect(summary.statusCode, summary.body).toBe(200);
    expect(summary.json().engaged_accounts).toBe(items.length);
    return new Map<string, Engagement>(
      items.map(
        (x: {
          account_id: string;
          impressions: number;
          clicks: number;
          views: number;
          engaged_prospects: number;
          last_engaged_at: string | null;
        }) => [
          x.account_id,
          {
            impressions: x.impressions,
            clicks: x.clicks,
            views: x.views,
            prospects: x.engaged_prospects,
            last_at: x.last_engaged_at,
          },
        ],
      ),
    );
  }

  // Ranges whose edges are whole UTC days, cut days, cut months, end in the past, or fall in one day.
  const monthStart = (ms: number) => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth(), 1);
  const ranges: [string, number, number][] = [
    ['the last 90 days to tomorrow', NOW - 90 * DAY, NOW + DAY],
    ['cut days', NOW - 40 * DAY - 5 * HOUR, NOW - 3 * DAY + 7 * HOUR],
    ['whole days to today', today - 60 * DAY, today],
    ['last month exactly', monthStart(monthStart(NOW) - DAY), monthStart(NOW)],
    ['inside one day', today - 12 * DAY + 2 * HOUR, today - 12 * DAY + 20 * HOUR],
    ['from a month start to now', monthStart(NOW - 45 * DAY), NOW + HOUR],
    // The first day cut early (taken from the counts minus the events before) or late (raw).
    ['a first day cut early', today - 30 * DAY + 3 * HOUR, today - 2 * DAY + 5 * HOUR],
    ['a first day cut late', today - 30 * DAY + 20 * HOUR, today],
    ['a first day cut early, to now', today - 50 * DAY + HOUR, NOW + HOUR],
  ];

  async function expectExact(moment: string) {
    for (const [name, from, to] of ranges)
      for (const [browser, s] of [
        [ownerA, a],
        [ownerB, b],
      ] as const) {
        const want = await reference(s.clientId, from, to);
        const got = await reported(browser, s.clientId, from, to);
        expect(Object.fromEntries(got), `${moment}: ${name}`).toEqual(Object.fromEntries(want));
      }
  }

  const months = async (clientId: string) =>
    Number(
      (
        (await app.database.execute(
          'select count(*)::int as n from account_engagement_months where client_id = $1',
          [clientId],
        )) as { rows: { n: number }[] }
      ).rows[0]!.n,
    );

  it('equals the raw events tied by the model, and the months are counted once', async () => {
    await expectExact('first reads');
    // The range's months are counted (reads use them), with a row per engaged account.
    expect(await months(a.clientId)).toBeGreaterThanOrEqual(3);
    const rows = (await app.database.execute(
      'select count(*)::int as n from account_engagement where client_id = $1',
      [a.clientId],
    )) as { rows: { n: number }[] };
    expect(rows.rows[0]!.n).toBeGreaterThan(0);
    // alignment's ranges kept their whole days summed per account (migration 0075), read since.
    const sums = (await app.database.execute(
      'select count(*)::int as n from account_engagement_range_rows where client_id = $1',
      [a.clientId],
    )) as { rows: { n: number }[] };
    expect(sums.rows[0]!.n).toBeGreaterThan(0);
    // Nothing of A is counted for B and the other way round.
    const foreign = (await app.database.execute(
      `select count(*)::int as n from account_engagement r join companies c on c.id = r.company_id
        where c.client_id <> r.client_id`,
    )) as { rows: { n: number }[] };
    expect(foreign.rows[0]!.n).toBe(0);
  });

  it("counts the summary's engaged accounts by the days that had events: every single day and week", async () => {
    // The summary reads each month's day bits (migration 0032): one day and one week at a time, the
    // bits at every edge of every month must give the accounts the raw events give.
    for (let d = 72; d >= 1; d--) {
      for (const span of [1, 7]) {
        const from = today - d * DAY;
        const to = Math.min(from + span * DAY, today);
        const want = (await reference(a.clientId, from, to)).size;
        const res = await ownerA.get(
          `/v1/report/client/${a.clientId}/summary?from=${epoch(from)}&to=${epoch(to)}`,
        );
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().engaged_accounts, `${span} day(s) from ${new Date(from).toISOString()}`).toBe(want);
      }
    }
  });

  it("counts a cut start day's accounts by their events from `from` on, not by the day's earlier ones", async () => {
    // The summary takes a cut start day from the counted day (its last event moment), reading no
    // event before `from`: an account seen only at 02:00 is out of a range from 03:00 that day; one
    // seen exactly at 03:00 is in (the range includes `from`).
    const day = today - 33 * DAY;
    const earlyCompany = await a.company('Roll A Early');
    const edgeCompany = await a.company('Roll A Edge');
    const early = await a.prospect(earlyCompany, 'Eli', 'Early');
    const edge = await a.prospect(edgeCompany, 'Eve', 'Edge');
    await app.db.insert(engagementEvents).values([
      {
        clientId: a.clientId,
        targetId: early.targetId,
        cadenceId: a.cadenceId,
        type: 'impression',
        occurredAt: new Date(day + 2 * HOUR),
      },
      {
        clientId: a.clientId,
        targetId: edge.targetId,
        cadenceId: a.cadenceId,
        type: 'click',
        occurredAt: new Date(day + 3 * HOUR),
      },
    ]);
    for (const [from, to] of [
      [day + 3 * HOUR, day + 2 * DAY],
      [day + 3 * HOUR, today],
      [day + 2 * HOUR + 1000, day + 9 * DAY + 5 * HOUR],
      [day + HOUR, day + 2 * DAY],
    ] as const) {
      const want = await reference(a.clientId, from, to);
      const res = await ownerA.get(
        `/v1/report/client/${a.clientId}/summary?from=${epoch(from)}&to=${epoch(to)}`,
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().engaged_accounts, `from ${new Date(from).toISOString()}`).toBe(want.size);
      expect(want.has(earlyCompany), 'the early account is in the range').toBe(from <= day + 2 * HOUR);
      expect(want.has(edgeCompany)).toBe(true);
    }
    // The day's month was counted for these reads (the path under test), not read raw.
    expect(await months(a.clientId)).toBeGreaterThanOrEqual(3);
  });

  it('stays exact after a backdated event and a deleted event on counted days', async () => {
    const before = await months(a.clientId);
    await app.db.insert(engagementEvents).values({
      clientId: a.clientId,
      targetId: a.people[0]!.targetId,
      cadenceId: a.cadenceId,
      type: 'click',
      occurredAt: new Date(today - 20 * DAY + 9 * HOUR),
    });
    // The backdated day's month is no longer counted until a read counts it again.
    expect(await months(a.clientId)).toBe(before - 1);
    await expectExact('a backdated click');
    const [oldest] = await app.db
      .select({ id: engagementEvents.id, occurredAt: engagementEvents.occurredAt })
      .from(engagementEvents)
      .where(
        and(eq(engagementEvents.clientId, a.clientId), eq(engagementEvents.targetId, a.people[2]!.targetId)),
      )
      .orderBy(engagementEvents.occurredAt)
      .limit(1);
    await app.db.delete(engagementEvents).where(eq(engagementEvents.id, oldest!.id));
    await expectExact('a deleted event');
  });

  it("takes a cut start day from its accounts' hours and the whole days from their sums, exact after writes", async () => {
    // A range from 03:20 takes the day's hours from 04:00 on from account_engagement_hours (migration
    // 0075) and 03:20-04:00 raw; an event written to either part drops the day's rows with its marker.
    const day = today - 30 * DAY;
    const from = day + 3 * HOUR + 20 * 60_000;
    const to = today - 2 * DAY + 5 * HOUR;
    const check = async (moment: string) =>
      expect(Object.fromEntries(await reported(ownerA, a.clientId, from, to)), moment).toEqual(
        Object.fromEntries(await reference(a.clientId, from, to)),
      );
    const made = async () =>
      (
        (await app.database.execute(
          `select count(*)::int as n from account_engagement_hour_days where client_id = $1 and day = $2`,
          [a.clientId, new Date(day).toISOString().slice(0, 10)],
        )) as { rows: { n: number }[] }
      ).rows[0]!.n;
    // The whole days and the start day's hours from 04:00, kept summed per account (migration 0077).
    const spans = async () =>
      (
        (await app.database.execute(
          `select count(*)::int as n from account_engagement_span_rows where client_id = $1
            and first_day = $2 and from_hour = 4`,
          [a.clientId, new Date(day + DAY).toISOString().slice(0, 10)],
        )) as { rows: { n: number }[] }
      ).rows[0]!.n;
    await check('first read');
    expect(await made()).toBe(1);
    expect(await spans()).toBeGreaterThan(0);
    await check('a read from the kept span');
    await app.db.insert(engagementEvents).values([
      { ...late(a, 1, 'click'), occurredAt: new Date(day + 21 * HOUR) },
      { ...late(a, 0, 'view'), occurredAt: new Date(day + 3 * HOUR + 40 * 60_000) },
      { ...late(a, 4, 'impression'), occurredAt: new Date(day + 3 * HOUR + 19 * 60_000) },
    ]);
    expect(await made()).toBe(0);
    expect(await spans()).toBe(0);
    await check('after writes to the start day');
    expect(await made()).toBe(1);
    expect(await spans()).toBeGreaterThan(0);
    // Only after the start day's hours from 04:00: the span goes with the day's rows too.
    await app.db
      .insert(engagementEvents)
      .values({ ...late(a, 3, 'click'), occurredAt: new Date(day + 22 * HOUR) });
    expect(await spans()).toBe(0);
    await check('after a write to the start day, read again');
    expect(await spans()).toBeGreaterThan(0);
    // The same range's whole days, kept summed per account (account_engagement_range_rows), after a
    // write to one of those days (its month goes, and the sums with it) and after changed ties.
    const [added] = await app.db
      .insert(engagementEvents)
      .values({ ...late(a, 2, 'view'), occurredAt: new Date(today - 10 * DAY) })
      .returning({ id: engagementEvents.id });
    expect(await spans()).toBe(0);
    await check('after a write to a whole day of the range');
    expect(await spans()).toBeGreaterThan(0);
    // A deleted event marks nothing for the attribution: only its month's going drops the sums.
    await app.db.delete(engagementEvents).where(eq(engagementEvents.id, added!.id));
    await check('after a delete on a whole day of the range');
    await app.db
      .update(prospects)
      .set({ companyId: a.alpha })
      .where(eq(prospects.id, a.people[2]!.prospectId));
    await check('after a prospect moved from Beta to Alpha');
    expect(await spans()).toBeGreaterThan(0);
  });

  it('takes a kept span whose start day ends a month: a write to that day alone drops it', async () => {
    // The start day is the last of a month and the whole days start the next: a write to the start
    // day drops its month, which the range's sums do not read, so only the day's rows take the span
    // (account_engagement_spans, migration 0077) with them. (A new event also marks the attribution,
    // whose refresh drops every kept sum: a deleted one does not.)
    let m = monthStart(today);
    if (today - m < 3 * DAY) m = monthStart(m - DAY);
    const day = m - DAY;
    const from = day + 5 * HOUR + 10 * 60_000;
    const to = Math.min(today, m + 9 * DAY) - 2 * HOUR;
    const check = async (moment: string) =>
      expect(Object.fromEntries(await reported(ownerB, b.clientId, from, to)), moment).toEqual(
        Object.fromEntries(await reference(b.clientId, from, to)),
      );
    await check('first read');
    await check('a read from the kept span');
    const spans = async () =>
      (
        (await app.database.execute(
          `select count(*)::int as n from account_engagement_spans where client_id = $1 and first_day = $2`,
          [b.clientId, new Date(m).toISOString().slice(0, 10)],
        )) as { rows: { n: number }[] }
      ).rows[0]!.n;
    expect(await spans()).toBe(1);
    const added = await app.db
      .insert(engagementEvents)
      .values([
        { ...late(b, 0, 'click'), occurredAt: new Date(day + 23 * HOUR) },
        { ...late(b, 2, 'view'), occurredAt: new Date(day + 6 * HOUR) },
      ])
      .returning({ id: engagementEvents.id });
    expect(await spans()).toBe(0);
    await check('after writes to the start day');
    expect(await spans()).toBe(1);
    await app.db.delete(engagementEvents).where(eq(engagementEvents.id, added[0]!.id));
    await check('after a delete on the start day');
    expect(await spans()).toBe(1);
  });

  it("counts today's events up to a minute ago, and forgets them when a late event lands before", async () => {
    await expectExact('before');
    const state = async () =>
      (
        (await app.database.execute('select computed_to from account_engagement_today where client_id = $1', [
          a.clientId,
        ])) as { rows: { computed_to: string }[] }
      ).rows[0];
    const counted = await state();
    expect(counted, "a range reaching today counts today's events").toBeDefined();
    const rows = (await app.database.execute(
      'select count(*)::int as n from account_engagement_today_rows where client_id = $1',
      [a.clientId],
    )) as { rows: { n: number }[] };
    expect(rows.rows[0]!.n).toBeGreaterThan(0);
    // An event of now falls after the counted moment: the counts hold, the event is read raw.
    await app.db.insert(engagementEvents).values({
      clientId: a.clientId,
      targetId: a.people[2]!.targetId,
      cadenceId: a.cadenceId,
      type: 'view',
      occurredAt: new Date(),
    });
    expect(await state()).toEqual(counted);
    await expectExact('an event of now');
    // One dated before the counted moment (today) forgets them; the next read counts again. (In the
    // first minute of a UTC day nothing of today is counted yet: there is no moment before.)
    const before = new Date(new Date(counted!.computed_to).getTime() - 1000);
    if (before.getTime() < Date.now() - (Date.now() % DAY)) return;
    await app.db.insert(engagementEvents).values({
      clientId: a.clientId,
      targetId: a.people[4]!.targetId,
      cadenceId: a.cadenceId,
      type: 'click',
      occurredAt: before,
    });
    expect(await state()).toBeUndefined();
    await expectExact('a late event of today');
    expect(await state()).toBeDefined();
  });

  it('stays exact when the ties change: a company, a website, a CRM contact, a target moved', async () => {
    await app.db
      .update(prospects)
      .set({ companyId: a.zeta })
      .where(eq(prospects.id, a.people[0]!.prospectId));
    await expectExact('a prospect moved from Alpha to Zeta');
    await app.db
      .update(companies)
      .set({ website: 'https://beta-example.io' })
      .where(eq(companies.id, a.zeta));
    await app.db
      .update(prospects)
      .set({ email: 'nia@beta-example.io' })
      .where(eq(prospects.id, a.people[5]!.prospectId));
    await expectExact('a website and an e-mail changed');
    await app.db.update(crmContacts).set({ isDeleted: true }).where(eq(crmContacts.id, a.contactId));
    await expectExact('a CRM contact deleted');
    // A prospect of Beta whose own target goes, then another target moves to it.
    const moe = await a.prospect(a.beta, 'Moe', 'Seven');
    await app.db.delete(targets).where(eq(targets.id, moe.targetId));
    await app.db
      .update(targets)
      .set({ prospectId: moe.prospectId })
      .where(eq(targets.id, a.people[1]!.targetId));
    await expectExact('a target moved to another prospect');
    // After all that, reads still use counted months.
    expect(await months(a.clientId)).toBeGreaterThanOrEqual(3);
  });

  it('the workers count the days that closed since, before any report asks', async () => {
    // Yesterday's month as if nothing of it were counted yet: the job counts it to today.
    const m = new Date(monthStart(today - DAY)).toISOString().slice(0, 10);
    await app.database.execute('delete from account_engagement_months where client_id = $1 and month = $2', [
      a.clientId,
      m,
    ]);
    await app.database.execute(
      'insert into account_engagement_months (client_id, month, through) values ($1, $2, $2)',
      [a.clientId, m],
    );
    const through = async () =>
      String(
        (
          (await app.database.execute(
            'select through::text as t from account_engagement_months where client_id = $1 and month = $2',
            [a.clientId, m],
          )) as { rows: { t: string }[] }
        ).rows[0]?.t,
      );
    expect(await through()).toBe(m);
    await sendWhenIdle(app, ATTRIBUTION_JOB);
    const end = new Date(Math.min(today, Date.parse(`${m}T00:00:00Z`) + 32 * DAY)).toISOString().slice(0, 10);
    for (let i = 0; i < 100 && (await through()) === m; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await through()).not.toBe(m);
    expect(Date.parse(`${await through()}T00:00:00Z`)).toBeLessThanOrEqual(Date.parse(`${end}T00:00:00Z`));
    await expectExact('after the job');
  });

  it('pipeline/priority ranks by the same per-account engagement of the last days', async () => {
    // Two open opportunities of one account: its engaged prospects are counted once for both rows.
    await a.deal(a.alpha, {
      name: 'Roll A Alpha second deal',
      amount: 50_00,
      created: new Date(NOW - 2 * DAY),
    });
    for (const days of [7, 30]) {
      const res = await ownerA.get(`/v1/report/client/${a.clientId}/pipeline/priority?days=${days}`);
      expect(res.statusCode, res.body).toBe(200);
      // Whole UTC days (the client has no billing zone): today so far and the days - 1 before.
      const want = await reference(
        a.clientId,
        Math.floor(Date.now() / DAY) * DAY - (days - 1) * DAY,
        Date.now() + HOUR,
      );
      for (const item of res.json().items as {
        company_id: string;
        impressions: number;
        clicks: number;
        views: number;
        engaged_prospects: number;
        last_engaged_at: string | null;
      }[]) {
        const w = want.get(item.company_id);
        expect({
          impressions: item.impressions,
          clicks: item.clicks,
          views: item.views,
          prospects: item.engaged_prospects,
          last_at: item.last_engaged_at,
        }).toEqual(w ?? { impressions: 0, clicks: 0, views: 0, prospects: 0, last_at: null });
      }
      expect(
        (res.json().items as { company_id: string }[]).filter((i) => i.company_id === a.alpha),
      ).toHaveLength(2);
    }
    // The statement-level check of the migration's trigger: a month goes with its day's marker.
    await app.db.execute(sql`delete from engagement_rollup_days where client_id = ${b.clientId}`);
    expect(await months(b.clientId)).toBe(0);
  });
});
