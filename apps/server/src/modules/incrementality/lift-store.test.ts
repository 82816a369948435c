import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCadence, makeIntegration, makeTarget } from '../../../test/engagement.ts';
import { createTestApp, sendWhenIdle } from '../../../test/helpers.ts';
import { makeClient } from '../../../test/http.ts';
import { rowsOf } from '../reports/report-sql.ts';
import { liftReport } from './report.ts';
import { assignmentPages, liftSums } from './repository.ts';
import type { AssignmentRow, LiftScope, LiftSums } from './repository.ts';
import { LIFT_JOB } from './jobs.ts';
import {
  dirtyLiftClients,
  recomputeLift,
  refreshLift,
  storedAssignmentPages,
  storedLiftSums,
} from './store.ts';

/**
 * The stored lift outcomes (store.ts, migration 0068) give the numbers the computation from the facts
 * gives (repository.ts `liftSums`), on generated data and after each kind of write its triggers
 * watch: opportunities and activities arriving or changing, contacts, ties, targets added, deleted
 * or made superprospects, the meeting types, the main currency and the window. Sums moved write by
 * write equal sums computed afresh.
 */
let app: FastifyInstance;
let acme: string;
let integrationId: number;
let cadenceA: number;
let cadenceB: number;
let cohortId: string;
const WINDOW = 90;

const run = (q: SQL) => app.db.execute(q);
const rows = async (q: SQL) => rowsOf(await app.db.execute(q));
/** A reproducible number in [0, 1) from a value and a salt (md5), so the data is the same every run. */
const u = (expr: SQL, salt: string) =>
  sql`(('x' || substr(md5((${expr})::text || ${salt}), 1, 8))::bit(32)::bigint / 4294967296.0)`;

/** `n` prospects from `from`, each with a company (every seventh with a second tie by its e-mail's domain). */
async function addTargets(from: number, n: number, cadenceId: number, tag: string) {
  await run(sql`
    with c as (
      insert into companies (client_id, integration_id, external_id, name, website)
      select ${acme}, ${integrationId}, ${tag} || '-co-' || g, 'Company ' || g, 'co' || g || '.example'
        from generate_series(${from}::int, ${from + n - 1}::int) g
      returning id, external_id
    ), p as (
      insert into prospects (client_id, integration_id, external_id, first_name, last_name, email, title, company_id)
      select ${acme}, ${integrationId}, ${tag} || '-p-' || g, 'Pat', 'Number ' || g,
             'p' || g || '@' || case when g % 7 = 0 then 'co' || (g + 3) || '.example' else 'mail' || g || '.example' end,
             'Buyer', c.id
        from c cross join lateral (select split_part(c.external_id, '-co-', 2)::int as g) x
      returning id, external_id
    )
    insert into targets (client_id, cadence_id, prospect_id, token)
    select ${acme}, ${cadenceId}, p.id, replace(gen_random_uuid()::text, '-', '') from p`);
  // Entries spread over 200 days: some windows closed, some still open.
  await run(sql`
    update targets t set created_at = now() - interval '1 day' * floor(200 * ${u(sql`t.id`, 'entry')})
      from prospects p where p.id = t.prospect_id and p.external_id like ${tag + '-p-%'}`);
}

/** CRM contacts for most prospects of `tag`, with activities of meeting and other types around entry. */
async function addActivities(tag: string, salt: string) {
  await run(sql`
    insert into crm_contacts (client_id, integration_id, external_id, prospect_id, is_deleted)
    select ${acme}, ${integrationId}, 'cc-' || p.id, p.id, ${u(sql`p.id`, salt + 'del')} < 0.05
      from prospects p
     where p.external_id like ${tag + '-p-%'} and ${u(sql`p.id`, salt + 'cc')} < 0.7
    on conflict do nothing`);
  await run(sql`
    insert into crm_activity_counts (client_id, integration_id, contact_external_id, contact_id, activity_type, count, last_activity_at)
    select ${acme}, ${integrationId}, cc.external_id, cc.id, k.type, 1,
           t.created_at + interval '1 day' * (floor(180 * ${u(sql`cc.id::text || k.type`, salt + 'at')}) - 30)
      from crm_contacts cc
      join prospects p on p.id = cc.prospect_id and p.external_id like ${tag + '-p-%'}
      join lateral (select min(created_at) as created_at from targets where prospect_id = p.id) t on true
      cross join (values ('Meeting'), ('Call'), ('Demo')) k(type)
     where ${u(sql`cc.id::text || k.type`, salt + 'has')} < 0.5
    on conflict do nothing`);
}

/** `n` opportunities on the companies of `tag`: amounts, currencies, creation, wins and deletions at random. */
async function addOpportunities(tag: string, n: number, salt: string) {
  await run(sql`
    with co as (
      select id, row_number() over (order by id) as k, count(*) over () as total
        from companies where external_id like ${tag + '-co-%'}
    )
    insert into opportunities (client_id, integration_id, external_id, name, account_name, company_id,
      amount_cents, currency, stage, crm_created_at, close_date, is_closed, is_won, is_deleted)
    select ${acme}, ${integrationId}, ${salt} || '-opp-' || g, 'Deal', 'Account', co.id,
           1 + floor(5000000 * ${u(sql`g`, salt + 'amt')}),
           case when ${u(sql`g`, salt + 'cur')} < 0.15 then 'EUR' else 'USD' end, 'Stage',
           now() - interval '1 day' * floor(220 * ${u(sql`g`, salt + 'made')}),
           (now() - interval '1 day' * floor(220 * ${u(sql`g`, salt + 'made')})
             + interval '1 day' * floor(100 * ${u(sql`g`, salt + 'close')}))::date,
           ${u(sql`g`, salt + 'won')} < 0.3, ${u(sql`g`, salt + 'won')} < 0.3,
           ${u(sql`g`, salt + 'gone')} < 0.05
      from generate_series(1, ${n}) g
      join co on co.k = 1 + floor(co.total * ${u(sql`g`, salt + 'co')})::int`);
}

const scopes = (): [string, LiftScope][] => [
  ['client', { kind: 'client' }],
  ['cadence A', { kind: 'cadence', cadenceId: cadenceA }],
  ['cadence B', { kind: 'cadence', cadenceId: cadenceB }],
  ['cohort', { kind: 'cohort', cohortId }],
];

function expectSameSums(stored: LiftSums, live: LiftSums, label: string) {
  for (const g of ['exposed', 'heldOut'] as const) {
    const a = stored[g];
    const b = live[g];
    const at = `${label} ${g}`;
    expect({ ...a, pipeline: 0, won: 0 }, at).toEqual({ ...b, pipeline: 0, won: 0 });
    for (const k of ['pipeline', 'won'] as const) {
      expect(a[k].sum, `${at} ${k}`).toBeCloseTo(b[k].sum, 6);
      // Squares summed exactly (numeric) against float8: equal to 1e-12 of their size.
      expect(Math.abs(a[k].sumSquares - b[k].sumSquares), `${at} ${k}²`).toBeLessThanOrEqual(
        1e-12 * Math.max(1, b[k].sumSquares),
      );
    }
  }
  expect(stored.currency, label).toBe(live.currency);
  expect(stored.heldOutShare, label).toBeCloseTo(live.heldOutShare, 12);
}

/** Every scope: the stored sums and the report made from them equal those computed from the facts. */
async function expectSame(step: string, windowDays = WINDOW) {
  for (const [name, scope] of scopes()) {
    const stored = (await storedLiftSums(app.db, acme, scope, windowDays))!;
    const live = (await liftSums(app.db, acme, scope, windowDays))!;
    expectSameSums(stored, live, `${step}, ${name}`);
    const opts = { scope: { kind: 'client' as const, id: null, name: '' }, windowDays, minLiftPercent: 20 };
    expect(liftReport(stored, opts), `${step}, ${name}`).toEqual(liftReport(live, opts));
  }
  const left = await rows(sql`select count(*)::int as n from lift_dirty where client_id = ${acme}`);
  expect(left[0]!.n, step).toBe(0);
}

const sumsRows = () =>
  rows(sql`select cadence_id, holdout_group, targets::text, meetings::text, with_opportunity::text,
    opportunities::text, supers::text, pipeline_cents::text, pipeline_squares::text, won_cents::text,
    won_squares::text
    from lift_sums where client_id = ${acme} and targets <> 0 order by cadence_id, holdout_group`);

beforeAll(async () => {
  app = await createTestApp({ workers: false });
  acme = await makeClient(app, 'Acme');
  integrationId = await makeIntegration(app, acme);
  await run(sql`
    insert into crm_integration_settings (integration_id, client_id, meeting_activity_types)
    values (${integrationId}, ${acme}, '["Meeting", "Demo"]'::jsonb)`);
  cadenceA = await makeCadence(app, acme, { name: 'A' });
  cadenceB = await makeCadence(app, acme, { name: 'B' });
  await run(sql`update cadences set holdout_percent = 50 where id = ${cadenceA}`);
  await run(sql`update cadences set holdout_percent = 30 where id = ${cadenceB}`);
  const [cohort] = await rows(sql`
    insert into cohorts (client_id, name, source_kind, cadence_id)
    values (${acme}, 'Cohort', 'filter', ${cadenceB}) returning id`);
  cohortId = String(cohort!.id);
  await addTargets(1, 250, cadenceA, 'a');
  await addTargets(251, 150, cadenceB, 'b');
  // Some prospects in both cadences: one prospect, two targets, each followed from its own entry.
  await run(sql`
    insert into targets (client_id, cadence_id, prospect_id, token)
    select ${acme}, ${cadenceB}, p.id, replace(gen_random_uuid()::text, '-', '')
      from prospects p where p.external_id like 'a-p-%' and ${u(sql`p.id`, 'both')} < 0.2`);
  await addActivities('a', 's1');
  await addActivities('b', 's1');
  await addOpportunities('a', 120, 'o1');
  await addOpportunities('b', 80, 'o2');
  await run(sql`
    update targets set super_date = created_at + interval '1 day' * floor(120 * ${u(sql`id`, 'super')})
     where holdout_group = 'exposed' and ${u(sql`id`, 'is-super')} < 0.4`);
}, 120_000);
afterAll(() => app.close());

describe('stored lift outcomes', () => {
  it('equal the computation from the facts on generated data (client, cadences, cohort)', async () => {
    const live = (await liftSums(app.db, acme, { kind: 'client' }, WINDOW))!;
    // The data exercises every outcome in both groups.
    for (const g of [live.exposed, live.heldOut]) {
      expect(g.targets).toBeGreaterThan(50);
      expect(g.meetings).toBeGreaterThan(5);
      expect(g.withOpportunity).toBeGreaterThan(3);
      expect(g.pipeline.sum).toBeGreaterThan(0);
      expect(g.won.sum).toBeGreaterThan(0);
    }
    expect(live.exposed.superprospects).toBeGreaterThan(10);
    await expectSame('first computation');
  });

  it('stay equal as opportunities arrive, change, move, are won and deleted', async () => {
    await addOpportunities('a', 40, 'o3');
    await addOpportunities('b', 30, 'o4');
    await expectSame('new opportunities');
    await run(sql`update opportunities set amount_cents = amount_cents * 3
      where client_id = ${acme} and external_id like 'o1-opp-1%'`);
    await run(sql`update opportunities set is_won = true, is_closed = true, close_date = (crm_created_at + interval '5 days')::date
      where client_id = ${acme} and external_id like 'o2-opp-2%'`);
    await run(
      sql`update opportunities set currency = 'EUR' where client_id = ${acme} and external_id like 'o3-opp-3%'`,
    );
    await run(
      sql`update opportunities set is_deleted = true where client_id = ${acme} and external_id like 'o1-opp-4%'`,
    );
    await run(sql`update opportunities set crm_created_at = crm_created_at - interval '60 days'
      where client_id = ${acme} and external_id like 'o4-opp-1%'`);
    await run(sql`update opportunities o set company_id = (select id from companies where external_id = 'b-co-300')
      where o.client_id = ${acme} and o.external_id like 'o1-opp-5%'`);
    await run(sql`delete from opportunities where client_id = ${acme} and external_id like 'o2-opp-3%'`);
    await expectSame('opportunities changed');
  });

  it('stay equal as activities and contacts arrive, move in and out of the window, and are deleted', async () => {
    await addActivities('a', 's2');
    await addActivities('b', 's2');
    await expectSame('new activities');
    await run(sql`update crm_activity_counts set last_activity_at = last_activity_at + interval '45 days'
      where client_id = ${acme} and ${u(sql`id`, 'shift')} < 0.3`);
    await run(sql`update crm_activity_counts set activity_type = 'Meeting'
      where client_id = ${acme} and activity_type = 'Call' and ${u(sql`id`, 'retype')} < 0.5
        and not exists (select 1 from crm_activity_counts m where m.integration_id = crm_activity_counts.integration_id
          and m.contact_external_id = crm_activity_counts.contact_external_id and m.activity_type = 'Meeting')`);
    await run(sql`delete from crm_activity_counts where client_id = ${acme} and ${u(sql`id`, 'drop')} < 0.1`);
    await run(
      sql`update crm_contacts set is_deleted = not is_deleted where client_id = ${acme} and ${u(sql`id`, 'flip')} < 0.1`,
    );
    await run(sql`delete from crm_contacts where client_id = ${acme} and ${u(sql`id`, 'gone')} < 0.05`);
    await expectSame('activities changed');
  });

  it('stay equal when targets are added (with outcomes), deleted, made superprospects, and ties change', async () => {
    await addTargets(401, 60, cadenceA, 'c');
    await addActivities('c', 's3');
    await addOpportunities('c', 30, 'o5');
    await expectSame('targets added');
    await run(sql`delete from targets where client_id = ${acme} and ${u(sql`id`, 'leave')} < 0.05`);
    await run(sql`update targets set super_date = created_at + interval '2 days'
      where client_id = ${acme} and holdout_group = 'exposed' and super_date is null and ${u(sql`id`, 'late-super')} < 0.2`);
    // A prospect moving to another company changes its ties (and so its opportunities).
    await run(sql`update prospects p set company_id = (select id from companies where external_id = 'a-co-3')
      where p.client_id = ${acme} and ${u(sql`p.id`, 'move')} < 0.05`);
    await run(sql`delete from prospects where client_id = ${acme} and ${u(sql`id`, 'erase')} < 0.02`);
    await expectSame('targets and ties changed');
  });

  it('stay equal when the meeting types, the main currency or the window change; sums moved write by write equal sums computed afresh', async () => {
    await run(sql`update crm_integration_settings set meeting_activity_types = '["Meeting", "Call"]'::jsonb
      where integration_id = ${integrationId}`);
    await expectSame('meeting types changed');
    const before = await sumsRows();
    await recomputeLift(app.db, acme, WINDOW);
    expect(await sumsRows()).toEqual(before);

    // Enough EUR deals to make it the main currency: every target is counted again in it.
    await run(
      sql`update opportunities set currency = 'EUR' where client_id = ${acme} and ${u(sql`id`, 'eur')} < 0.7`,
    );
    await expectSame('main currency changed');
    expect((await liftSums(app.db, acme, { kind: 'client' }, WINDOW))!.currency).toBe('EUR');
    // Another window: the client's setting moves to it, and the store follows.
    await run(sql`insert into client_settings (client_id, colors, attribution_window_days) values (${acme}, '{}'::jsonb, 30)
      on conflict (client_id) do update set attribution_window_days = 30`);
    expect(await dirtyLiftClients(app.db)).toContain(acme);
    await expectSame('window of 30 days', 30);
    expect(await dirtyLiftClients(app.db)).not.toContain(acme);
    // Deals on no account name no target but still move the main currency: back to USD.
    await run(sql`
      insert into opportunities (client_id, integration_id, external_id, name, account_name, amount_cents,
        currency, stage, crm_created_at, is_closed, is_won)
      select ${acme}, ${integrationId}, 'no-account-' || g, 'Deal', '', 100, 'USD', 'Stage', now(), false, false
        from generate_series(1, 1000) g`);
    await expectSame('main currency back by deals on no account', 30);
    expect((await liftSums(app.db, acme, { kind: 'client' }, 30))!.currency).toBe('USD');
  });

  it('the export reads the stored rows: the same rows as counted from the facts, page by page', async () => {
    const all = async (pages: AsyncGenerator<AssignmentRow[]>) => {
      const out: AssignmentRow[] = [];
      for await (const page of pages) out.push(...page);
      return out;
    };
    for (const [name, scope] of scopes()) {
      const stored = await all(storedAssignmentPages(app.db, acme, scope, 30, 100));
      expect(stored.length, name).toBeGreaterThan(50);
      expect(stored, name).toEqual(await all(assignmentPages(app.db, acme, scope, 30, 100)));
    }
  });

  it('a refresh with nothing to do writes nothing; a write names only what it may change', async () => {
    await refreshLift(app.db, acme, 30);
    const [state] = await rows(sql`select refreshed_at from lift_state where client_id = ${acme}`);
    await refreshLift(app.db, acme, 30);
    const [again] = await rows(sql`select refreshed_at from lift_state where client_id = ${acme}`);
    expect(again!.refreshed_at).toEqual(state!.refreshed_at);
    // A counter update by the tracking path queues nothing; a superprospect date names its target.
    await run(sql`update targets set impressions = impressions + 1 where client_id = ${acme}`);
    expect(await rows(sql`select 1 from lift_dirty where client_id = ${acme}`)).toHaveLength(0);
    const [one] = await rows(sql`
      update targets set super_date = now() where id = (
        select id from targets where client_id = ${acme} and holdout_group is not null and super_date is null limit 1)
      returning id`);
    const marked = await rows(sql`select kind, ref from lift_dirty where client_id = ${acme}`);
    expect(marked).toEqual([{ kind: 'target', ref: one!.id }]);
    await expectSame('superprospect now', 30);
  });
});

describe('the background job (lift-outcomes)', () => {
  it('fills a client with assigned targets and folds later writes in, before any report asks', async () => {
    const worker = await createTestApp();
    const client = await makeClient(worker, 'Background');
    const cadenceId = await makeCadence(worker, client);
    await worker.db.execute(sql`update cadences set holdout_percent = 50 where id = ${cadenceId}`);
    await makeTarget(worker, client, cadenceId);
    const stored = async () =>
      rowsOf(
        await worker.db
          .execute(sql`select (select count(*)::int from lift_outcomes where client_id = ${client}) as rows,
          (select count(*)::int from lift_dirty where client_id = ${client}) as dirty`),
      )[0];
    await sendWhenIdle(worker, LIFT_JOB);
    // The job runs when a worker picks it up: under CI's load that can take more than 10 s.
    await expect.poll(stored, { timeout: 40_000, interval: 200 }).toEqual({ rows: 1, dirty: 0 });
    await makeTarget(worker, client, cadenceId);
    await sendWhenIdle(worker, LIFT_JOB);
    await expect.poll(stored, { timeout: 40_000, interval: 200 }).toEqual({ rows: 2, dirty: 0 });
  }, 120_000);
});
