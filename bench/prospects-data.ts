import type pg from 'pg';

/** The generated tenant the benchmark lists, and a small neighbour that must never show up in it. */
export const BIG_CLIENT = '00000000-0000-4000-8000-00000000b001';
export const SMALL_CLIENT = '00000000-0000-4000-8000-00000000b002';

export type ProspectsDataSize = { targets: number };

/**
 * Fills a migrated database with one large client: `targets` targets (default 1,000,000) over 65%
 * as many prospects (the first 350/1000 of them in a second cadence), 50,000 companies of skewed
 * sizes, 50 reps and 26 cadences of skewed sizes (cadence 26 holds 50 targets, for a selective
 * filter), ~15% of targets super. Deterministic: every value comes from a hash of the row number, so
 * runs compare. INSERT ... SELECT generate_series with foreign-key triggers off (the rows are
 * consistent by construction); minutes for a million targets, most of it index upkeep.
 */
export async function generateProspectsData(
  c: pg.Client,
  { targets }: ProspectsDataSize,
  log: (line: string) => void,
) {
  const prospects = Math.round(targets * 0.65);
  const second = targets - prospects;
  const step = async (label: string, text: string) => {
    const t = performance.now();
    await c.query(text);
    log(`  ${label} (${((performance.now() - t) / 1000).toFixed(1)} s)`);
  };
  // Uniform [0, 1) from a row number and a salt: the same data on every run.
  await c.query(`create or replace function bench_u(g bigint, salt int) returns float8
    language sql immutable as $$ select (hashint8(g * 1000 + salt) & 2147483647)::float8 / 2147483648 $$`);
  await c.query(`set session_replication_role = replica`);
  await step(
    'clients, integrations, 50 reps, 26 cadences',
    `
insert into clients (id, name) values ('${BIG_CLIENT}', 'Bench Big'), ('${SMALL_CLIENT}', 'Bench Small');
insert into integrations (client_id, source) values ('${BIG_CLIENT}', 'fileforce'), ('${SMALL_CLIENT}', 'fileforce');
insert into sales_reps (client_id, integration_id, external_id, first_name, last_name, email, photo_url)
select i.client_id, i.id, 'rep' || g,
  (array['Ada','Ben','Cara','Dan','Eve','Finn','Gia','Hal','Ivy','Jon'])[1 + g % 10], 'Rep' || g,
  'rep' || g || '@bench.example', case when g % 3 = 0 then null else 'https://example.com/rep' || g || '.png' end
from integrations i, generate_series(1, 50) g where i.client_id = '${BIG_CLIENT}';
insert into cadences (client_id, integration_id, external_id, name, is_super)
select i.client_id, i.id, 'cad' || g, case when g = 26 then 'Tiny pilot' else 'Outbound wave ' || g end, true
from integrations i, generate_series(1, 26) g where i.client_id = '${BIG_CLIENT}';`,
  );
  await step(
    '50,000 companies',
    `
insert into companies (client_id, integration_id, external_id, name, website)
select i.client_id, i.id, 'co' || g,
  (array['Acme','Globex','Initech','Umbrella','Stark','Wayne','Hooli','Pied Piper','Vandelay','Soylent',
         'Tyrell','Cyberdyne','Wonka','Oscorp','Massive Dynamic','Aperture','Black Mesa','Dunder Mifflin',
         'Prestige','Monarch'])[1 + floor(20 * bench_u(g, 1))::int]
  || ' ' || (array['Robotics','Labs','Systems','Foods','Capital','Logistics','Health','Media','Energy',
         'Software','Motors','Analytics'])[1 + floor(12 * bench_u(g, 2))::int] || ' ' || g,
  'https://co' || g || '.example'
from integrations i, generate_series(1, 50000) g where i.client_id = '${BIG_CLIENT}';`,
  );
  await step(
    `${prospects.toLocaleString('en')} prospects`,
    `
create temp table co as
  select id, substring(external_id from 3)::int as n from companies where client_id = '${BIG_CLIENT}';
create temp table names as
  select (array['James','Mary','John','Patricia','Robert','Jennifer','Michael','Linda','William','Elizabeth',
    'David','Barbara','Richard','Susan','Joseph','Jessica','Thomas','Sarah','Charles','Karen','Chris','Nancy',
    'Daniel','Lisa','Matthew','Betty','Anthony','Margaret','Mark','Sandra','Donald','Ashley','Steven','Kim',
    'Paul','Emily','Andrew','Donna','Joshua','Michelle','Kevin','Carol','Brian','Amanda','George','Melissa',
    'Edward','Deborah','Ronald','Stephanie','Timothy','Rebecca','Jason','Laura','Jeffrey','Sharon','Ryan',
    'Cynthia','Jacob','Kathleen']) as fns,
  (array['Smith','Johnson','Williams','Brown','Jones','Garcia','Miller','Davis','Rodriguez','Martinez',
    'Hernandez','Lopez','Gonzalez','Wilson','Anderson','Thomas','Taylor','Moore','Jackson','Martin','Lee',
    'Perez','Thompson','White','Harris','Sanchez','Clark','Ramirez','Lewis','Robinson','Walker','Young',
    'Allen','King','Wright','Scott','Torres','Nguyen','Hill','Flores','Green','Adams','Nelson','Baker','Hall',
    'Rivera','Campbell','Mitchell','Carter','Roberts','Gomez','Phillips','Evans','Turner','Diaz','Parker',
    'Cruz','Edwards','Collins','Reyes','Stewart','Morris','Morales','Murphy','Cook','Rogers','Gutierrez',
    'Ortiz','Morgan','Cooper','Peterson','Bailey','Reed','Kelly','Howard','Ramos','Kim','Cox','Ward',
    'Richardson']) as lns,
  (array['CEO','CTO','CFO','VP Sales','VP Marketing','Head of Growth','Sales Manager','Account Executive',
    'SDR','Engineer','Director of Operations','Procurement Lead']) as titles;
insert into prospects (client_id, integration_id, external_id, first_name, last_name, email, title, company_id, is_active)
select i.client_id, i.id, 'p' || g, x.fn, x.ln,
  case when bench_u(g, 4) < 0.02 then null
       else lower(x.fn) || '.' || lower(x.ln) || '.' || g || '@co' || coalesce(co.n, 0) || '.example' end,
  names.titles[1 + floor(12 * bench_u(g, 5))::int], co.id, bench_u(g, 6) < 0.92
from integrations i
cross join names
cross join generate_series(1, ${prospects}) g
cross join lateral (select names.fns[1 + floor(60 * bench_u(g, 7))::int] as fn,
                           names.lns[1 + floor(80 * bench_u(g, 8))::int] as ln,
                           case when bench_u(g, 9) < 0.04 then null
                                else 1 + floor(50000 * power(bench_u(g, 10), 1.5))::int end as co_n) x
left join co on co.n = x.co_n
where i.client_id = '${BIG_CLIENT}';`,
  );
  await step(
    `${targets.toLocaleString('en')} targets`,
    `
create temp table pr as
  select id, substring(external_id from 2)::int as n from prospects where client_id = '${BIG_CLIENT}';
create temp table cad as
  select id, substring(external_id from 4)::int as n from cadences where client_id = '${BIG_CLIENT}';
create temp table rep as
  select id, substring(external_id from 4)::int as n from sales_reps where client_id = '${BIG_CLIENT}';
insert into targets (client_id, cadence_id, prospect_id, sales_rep_id, day_number, is_active, token,
  impressions, clicks, views, super_date)
select '${BIG_CLIENT}', cad.id, pr.id, rep.id, 1 + floor(5 * bench_u(k.g, 11))::int, bench_u(k.g, 12) < 0.9,
  md5('bench-target:' || k.g), x.imp, x.clk, x.clk * (bench_u(k.g, 13) < 0.5)::int,
  case when x.imp >= 15 or x.clk > 0 then now() - interval '60 days' * bench_u(k.g, 14) end
from (
  select pr.n as n, 0 as nth, pr.n::bigint as g from pr
  union all
  select pr.n, 1, ${prospects}::bigint + pr.n from pr where pr.n <= ${second}
) k
join pr on pr.n = k.n
cross join lateral (
  select 1 + floor(25 * power(bench_u(k.n, 15), 2))::int as first_cad,
         floor(40 * power(bench_u(k.g, 16), 6))::int as imp,
         (bench_u(k.g, 17) < 0.01)::int as clk
) x
join cad on cad.n = case when k.nth = 0 then x.first_cad
                         when k.n <= 50 then 26
                         else (x.first_cad - 1 + 1 + floor(23 * bench_u(k.n, 18))::int) % 25 + 1 end
join rep on rep.n = 1 + floor(50 * bench_u(k.g, 19))::int;`,
  );
  await step(
    'the small neighbour: 1,000 targets',
    `
insert into cadences (client_id, integration_id, external_id, name)
select client_id, id, 'small', 'Outbound wave 1' from integrations where client_id = '${SMALL_CLIENT}';
insert into prospects (client_id, integration_id, external_id, first_name, last_name, email, title)
select i.client_id, i.id, 'sp' || g, 'James', 'Smith', 'james.smith.' || g || '@small.example', 'CEO'
from integrations i, generate_series(1, 1000) g where i.client_id = '${SMALL_CLIENT}';
insert into targets (client_id, cadence_id, prospect_id, token, impressions, super_date)
select p.client_id, c.id, p.id, md5('small:' || p.id), 39, now()
from prospects p join cadences c on c.client_id = p.client_id where p.client_id = '${SMALL_CLIENT}';`,
  );
  // The triggers that keep prospects.cadence_ids were off (replica role): fill it as migration 0028 does.
  await step(
    'prospects.cadence_ids',
    `
update prospects p set cadence_ids = t.ids
from (select prospect_id, array_agg(distinct cadence_id order by cadence_id) as ids from targets group by prospect_id) t
where p.id = t.prospect_id;`,
  );
  await c.query(`set session_replication_role = origin`);
  await step('vacuum analyze', 'vacuum analyze');
}
