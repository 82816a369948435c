import type pg from 'pg';
import { BIG_CLIENT, SMALL_CLIENT, generateProspectsData } from './prospects-data.ts';

export { BIG_CLIENT };

export type ReportsDataSize = { targets: number; events: number; opportunities: number; accounts: number };

/**
 * Fills a migrated database for the reports benchmark: the prospects benchmark's client
 * (prospects-data.ts: `targets` targets, 65% as many prospects, 50,000 companies), then
 * - a Salesforce integration with six stages, `accounts` CRM accounts (the first companies, by
 *   domain) and a CRM contact with outreach activity counts for about 30% of their prospects;
 * - `opportunities` opportunities over those accounts, created over the last 12 months, 50% still
 *   open, 25% won, 25% lost, each with its stage history (creation, then one move per later stage);
 * - 40 ads over 5 landing pages, and `events` engagement events over the last 12 months (93%
 *   impressions, 4% clicks, 3% views), skewed so a few targets get most of them, as ads do;
 * - 10,000 events of the small neighbour, which no report of the big client may count.
 * Every value comes from a hash of the row number (bench_u), so runs compare. Events are loaded in
 * twelve chunks with the three secondary indexes dropped and rebuilt after (the same definitions as
 * migrations 0003 and 0025): building an index once is several times cheaper than 10,000,000 inserts into it.
 */
export async function generateReportsData(c: pg.Client, size: ReportsDataSize, log: (line: string) => void) {
  const { targets, events, opportunities, accounts } = size;
  const step = async (label: string, text: string) => {
    const t = performance.now();
    await c.query(text);
    log(`  ${label} (${((performance.now() - t) / 1000).toFixed(1)} s)`);
  };
  await generateProspectsData(c, { targets }, log);
  await c.query(`set maintenance_work_mem = '512MB'`);
  await c.query(`set work_mem = '64MB'`);
  await c.query(`set session_replication_role = replica`);
  await step(
    `CRM: 6 stages, ${accounts.toLocaleString('en')} accounts, contacts and activity counts`,
    `
insert into integrations (client_id, source) values ('${BIG_CLIENT}', 'salesforce');
create temp table crm as select id from integrations where client_id = '${BIG_CLIENT}' and source = 'salesforce';
insert into crm_stages (client_id, integration_id, key, label, sort_order, probability, is_closed, is_won)
select '${BIG_CLIENT}', crm.id, s.key, s.label, s.n, s.p, s.n >= 5, s.n = 5
from crm, (values (1, 'prospecting', 'Prospecting', 10), (2, 'qualification', 'Qualification', 25),
  (3, 'proposal', 'Proposal', 50), (4, 'negotiation', 'Negotiation', 75),
  (5, 'closed_won', 'Closed Won', 100), (6, 'closed_lost', 'Closed Lost', 0)) as s(n, key, label, p);
insert into crm_client_settings (client_id) values ('${BIG_CLIENT}');
insert into crm_integration_settings (client_id, integration_id, outreach_activity_types, meeting_activity_types)
select '${BIG_CLIENT}', crm.id, '["Email", "Call"]'::jsonb, '["Meeting"]'::jsonb from crm;
create temp table co_all as
  select id, name, website, substring(external_id from 3)::int as n from companies where client_id = '${BIG_CLIENT}';
insert into crm_accounts (client_id, integration_id, external_id, name, website, domain, company_id)
select '${BIG_CLIENT}', crm.id, 'acc' || co_all.n, co_all.name, co_all.website, 'co' || co_all.n || '.example', co_all.id
from crm, co_all where co_all.n <= ${accounts};
create temp table acc as
  select a.id, substring(a.external_id from 4)::int as n, a.company_id from crm_accounts a
  where a.client_id = '${BIG_CLIENT}';
insert into crm_contacts (client_id, integration_id, external_id, email, first_name, last_name, title,
  account_external_id, account_id, prospect_id)
select '${BIG_CLIENT}', crm.id, 'con' || p.external_id, p.email, p.first_name, p.last_name, p.title,
  'acc' || acc.n, acc.id, p.id
from crm, prospects p join acc on acc.company_id = p.company_id
where p.client_id = '${BIG_CLIENT}' and bench_u(substring(p.external_id from 2)::int, 40) < 0.3;
insert into crm_activity_counts (client_id, integration_id, contact_external_id, contact_id, activity_type, count,
  last_activity_at)
select cc.client_id, cc.integration_id, cc.external_id, cc.id, t.type,
  1 + floor(12 * bench_u(substring(cc.external_id from 5)::int, 41 + t.k))::int,
  now() - interval '365 days' * bench_u(substring(cc.external_id from 5)::int, 43 + t.k)
from crm_contacts cc, (values (0, 'Email'), (1, 'Call')) t(k, type)
where cc.client_id = '${BIG_CLIENT}' and (t.k = 0 or bench_u(substring(cc.external_id from 5)::int, 42) < 0.5);`,
  );
  await step(
    `${opportunities.toLocaleString('en')} opportunities and their stage history`,
    `
create temp table st as
  select id, sort_order as n, label from crm_stages where client_id = '${BIG_CLIENT}';
create temp table opp as
  select g as n, 1 + floor(${accounts} * power(bench_u(g, 31), 1.3))::int as acc_n,
    now() - interval '365 days' * bench_u(g, 32) as created,
    case when bench_u(g, 33) < 0.15 then 1 when bench_u(g, 33) < 0.30 then 2 when bench_u(g, 33) < 0.40 then 3
         when bench_u(g, 33) < 0.50 then 4 when bench_u(g, 33) < 0.75 then 5 else 6 end as final,
    (1000 + floor(99000 * power(bench_u(g, 34), 3)))::bigint * 100 as cents
  from generate_series(1, ${opportunities}) g;
-- The moves: Prospecting (creation), each open stage up to the final one, then the closing stage.
create temp table moves as
  select opp.n, k, case when k <= least(opp.final, 4) then k else opp.final end as stage,
    opp.created + (now() - opp.created) * (k - 1)::float8 / (least(opp.final, 4) + (opp.final > 4)::int)
      * (0.5 + 0.5 * bench_u(opp.n, 35)) as at
  from opp cross join lateral generate_series(1, least(opp.final, 4) + (opp.final > 4)::int) k;
create temp table last_move as select n, max(at) as at from moves group by n;
analyze opp, moves, last_move, acc, co_all, st;
insert into opportunities (client_id, integration_id, external_id, name, account_name, company_id, amount_cents,
  currency, stage, close_date, stage_id, crm_created_at, crm_updated_at, is_closed, is_won, account_external_id)
select '${BIG_CLIENT}', crm.id, 'opp' || opp.n, co_all.name || ' deal ' || opp.n, co_all.name, acc.company_id,
  opp.cents, 'USD', st.label,
  case when opp.final >= 5 then lm.at::date else (now() + interval '90 days' * bench_u(opp.n, 36))::date end,
  st.id, opp.created, lm.at, opp.final >= 5, opp.final = 5, 'acc' || opp.acc_n
from crm, opp join acc on acc.n = opp.acc_n join co_all on co_all.id = acc.company_id join st on st.n = opp.final
join last_move lm on lm.n = opp.n;
create temp table oid as
  select id, substring(external_id from 4)::int as n from opportunities where client_id = '${BIG_CLIENT}';
analyze oid;
insert into opportunity_stage_history (client_id, opportunity_id, external_id, from_stage_id, to_stage_id,
  from_stage, to_stage, changed_at)
select '${BIG_CLIENT}', oid.id, 'h' || m.n || '-' || m.k, fs.id, ts.id, fs.label, ts.label, m.at
from moves m join oid on oid.n = m.n
left join moves pm on pm.n = m.n and pm.k = m.k - 1
left join st fs on fs.n = pm.stage
join st ts on ts.n = m.stage;`,
  );
  await step(
    '5 landing pages, 40 ads',
    `
insert into landing_pages (client_id, name, landing_page_payload, colors)
select '${BIG_CLIENT}', 'Landing page ' || g, '{}'::jsonb, '{}'::jsonb from generate_series(1, 5) g;
insert into content (client_id, name, status, title, colors, landing_page_payload, landing_page_id)
select '${BIG_CLIENT}', 'Ad ' || g, 'live', 'Ad title ' || g, '{}'::jsonb, '{}'::jsonb,
  (select id from landing_pages where client_id = '${BIG_CLIENT}' order by name offset g % 5 limit 1)
from generate_series(1, 40) g;
create temp table ct as
  select id, row_number() over (order by name) as n from content where client_id = '${BIG_CLIENT}';
create temp table tg as
  select row_number() over (order by token) as n, id, cadence_id, day_number from targets
  where client_id = '${BIG_CLIENT}';
create unique index on tg (n);
analyze tg;`,
  );
  await c.query(
    `drop index engagement_events_target_idx; drop index engagement_events_client_idx;
     drop index engagement_events_client_engaged_idx; drop index engagement_events_client_views_idx`,
  );
  const chunks = 12;
  for (let i = 0; i < chunks; i++) {
    const lo = Math.floor((events * i) / chunks) + 1;
    const hi = Math.floor((events * (i + 1)) / chunks);
    // Chunk i is month 12 - i back, in time order: each lands in one or two partitions.
    await step(
      `events ${lo.toLocaleString('en')}..${hi.toLocaleString('en')}`,
      `
insert into engagement_events (client_id, target_id, cadence_id, type, day_number, content_id, size, occurred_at)
select '${BIG_CLIENT}', tg.id, tg.cadence_id,
  case when bench_u(g, 22) < 0.93 then 'impression' when bench_u(g, 22) < 0.97 then 'click' else 'view' end,
  tg.day_number, ct.id, '300x250',
  now() - interval '364 days' * (${chunks - i} - (g - ${lo})::float8 / ${hi - lo + 1}) / ${chunks}
from generate_series(${lo}, ${hi}) g
join tg on tg.n = 1 + floor(${targets} * power(bench_u(g, 21), 2.5))::int
join ct on ct.n = 1 + floor(40 * bench_u(g, 23))::int`,
    );
  }
  await step(
    '10,000 events of the small neighbour',
    `
insert into engagement_events (client_id, target_id, cadence_id, type, occurred_at)
select t.client_id, t.id, t.cadence_id, 'click', now() - interval '1 day' * (g % 300)
from generate_series(1, 10) g cross join targets t where t.client_id = '${SMALL_CLIENT}';`,
  );
  await step(
    'events: rebuild the four indexes',
    `create index engagement_events_target_idx on engagement_events using btree (target_id, occurred_at);
     create index engagement_events_client_idx on engagement_events using btree (client_id, occurred_at);
     create index engagement_events_client_engaged_idx on engagement_events using btree
       (client_id, occurred_at desc, type, target_id) where type in ('click', 'view');
     create index engagement_events_client_views_idx on engagement_events using btree
       (client_id, occurred_at) include (content_id, target_id) where type = 'view';`,
  );
  // The events' triggers are off during the load (replica): each target's last event (migration
  // 0035) is filled here, as the migration fills it from existing events.
  await step(
    "each target's last event",
    `insert into target_engagement_last (client_id, target_id, last_at)
     select client_id, target_id, max(occurred_at) from engagement_events group by client_id, target_id`,
  );
  // And each (ad, target) pair's last event with the days' counts of them (migration 0072).
  await step(
    "each ad and target's last event",
    `set work_mem = '256MB';
     insert into content_target_last (client_id, content_id, target_id, last_at)
     select client_id, content_id, target_id, max(occurred_at) from engagement_events
      where content_id is not null group by client_id, content_id, target_id;
     insert into content_reach_days (client_id, content_id, day, targets)
     select client_id, content_id, (last_at at time zone 'UTC')::date, count(*) from content_target_last
      group by 1, 2, 3;
     reset work_mem;`,
  );
  // The same for each prospect's accounts (migration 0037), from the prospects, companies and CRM rows
  // loaded above.
  await step("each prospect's accounts", `select prospect_ties_fill()`);
  // And the outreach counts per account (migration 0073), from those ties and the CRM rows.
  // The tables just loaded have no statistics yet (autovacuum is off here and may lag anywhere): without
  // them the fill probed each contact's ties through the (client, company) index, a whole client's
  // ties per contact (over 45 minutes at this size, never finished).
  await step(
    'outreach per account',
    `analyze prospect_account_ties, crm_contacts, crm_accounts, crm_activity_counts, crm_integration_settings;
     select account_outreach_fill()`,
  );
  // Each client's live opportunities per currency (migration 0078), as the migration fills them.
  await step(
    'opportunities per currency',
    `delete from opportunity_currency_counts;
     insert into opportunity_currency_counts (client_id, currency, n)
     select client_id, currency, count(*) from opportunities where not is_deleted group by 1, 2`,
  );
  // Issue 45: a 10 % holdout on every cadence, each target assigned as the insert trigger of
  // migration 0053 would (off here, replica role), so the lift report reads 1,000,000 assigned targets.
  await step(
    'holdouts: 10 % of the targets held out',
    `update cadences set holdout_percent = 10;
     update targets t set holdout_percent = 10, holdout_group = case
       when (('x' || substr(encode(sha256(convert_to(c.holdout_seed || ':' || t.id::text, 'UTF8')), 'hex'), 1, 8))::bit(32)::bigint)
         * 100 < 10::bigint * 4294967296 then 'held_out' else 'exposed' end
       from cadences c where c.id = t.cadence_id;`,
  );
  await c.query(`set session_replication_role = origin`);
  await step('vacuum analyze', 'vacuum analyze');
}
