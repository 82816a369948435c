import { createHash } from 'node:crypto';
import { and, count, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cadences, engagementEvents, targets } from '../../db/schema/index.ts';
import { countUncharged } from '../billing/repository.ts';
import { rowsOf } from '../reports/report-sql.ts';
import { neutralAd } from '../tracking/neutral-png.ts';
import {
  BROWSER_UA,
  CLICK_HEADERS,
  makeCadence,
  makeContent,
  makeIntegration,
  makeRep,
  makeTarget,
  rawGet,
  setVerifiedDomain,
  showing,
} from '../../../test/engagement.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';

/**
 * Incrementality (issue 45) over real HTTP: targets assigned once by a keyed hash, held-out targets
 * shown the neutral image and never counted or billed, the lift report and its export, and the
 * holdout settings, with success, bad input, missing permission and another client's ids.
 */
let app: FastifyInstance;
let base: string;
let acme: string;
let other: string;
let repId: string;
let contentId: string;

beforeAll(async () => {
  app = await createTestApp();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  acme = await makeClient(app, 'Acme');
  other = await makeClient(app, 'Other');
  repId = await makeRep(app, acme, { calendarUrl: 'https://cal.example/maya' });
  await setVerifiedDomain(app, acme, 'cal.example');
  contentId = await makeContent(app, acme);
}, 60_000);
afterAll(() => app.close());

const q = (s: string) => app.db.execute(sql.raw(s));
const rows = async (s: ReturnType<typeof sql>) => rowsOf(await app.db.execute(s));

/** The assignment as migration 0053's trigger computes it, in JavaScript. */
function heldOutByHash(seed: string, id: string, percent: number): boolean {
  const h = createHash('sha256').update(`${seed}:${id}`).digest();
  return h.readUInt32BE(0) * 100 < percent * 2 ** 32;
}

/** `n` prospects on `cadenceId`, each with its own company, in one statement (fast on PGlite too). */
async function bulkTargets(clientId: string, cadenceId: number, n: number, tag: string): Promise<void> {
  const integrationId = await makeIntegration(app, clientId);
  await app.db.execute(sql`
    with c as (
      insert into companies (client_id, integration_id, external_id, name)
      select ${clientId}, ${integrationId}, ${tag} || '-co-' || g, 'Company ' || g from generate_series(1, ${n}) g
      returning id, external_id
    ), p as (
      insert into prospects (client_id, integration_id, external_id, first_name, last_name, email, title, company_id)
      select ${clientId}, ${integrationId}, ${tag} || '-p-' || split_part(c.external_id, '-co-', 2), 'Pat',
        'Number ' || split_part(c.external_id, '-co-', 2), ${tag} || '-' || split_part(c.external_id, '-co-', 2) || '@example.com',
        'Buyer', c.id
      from c returning id
    )
    insert into targets (client_id, cadence_id, prospect_id, token)
    select ${clientId}, ${cadenceId}, p.id, replace(gen_random_uuid()::text, '-', '') from p`);
}

async function setShare(cadenceId: number, percent: number) {
  await app.db.update(cadences).set({ holdoutPercent: percent }).where(eq(cadences.id, cadenceId));
}

describe('assignment (a keyed hash of the target id, once)', () => {
  it('holds out the share within ± 2 points at 10,000 targets, reproducibly from the seed, and never moves a target (an update, a new share, a sync’s upsert)', async () => {
    const cadenceId = await makeCadence(app, acme, { days: { 1: showing(contentId) } });
    await setShare(cadenceId, 10);
    await bulkTargets(acme, cadenceId, 10_000, `a${cadenceId}`);
    const seed = (await app.db.select().from(cadences).where(eq(cadences.id, cadenceId)))[0]!.holdoutSeed;
    const all = await app.db
      .select({ id: targets.id, group: targets.holdoutGroup, percent: targets.holdoutPercent })
      .from(targets)
      .where(eq(targets.cadenceId, cadenceId));
    const held = all.filter((t) => t.group === 'held_out').length;
    expect(all).toHaveLength(10_000);
    expect(Math.abs(held / 10_000 - 0.1)).toBeLessThanOrEqual(0.02);
    expect(all.every((t) => t.percent === 10)).toBe(true);
    const mismatches = all.filter((t) => (t.group === 'held_out') !== heldOutByHash(seed, t.id, 10));
    expect(mismatches).toHaveLength(0);

    // A new share applies to targets entering from now on; those assigned keep their group, and
    // an update naming the column (a sync, a mistake) changes nothing.
    await setShare(cadenceId, 50);
    await q(
      `update targets set holdout_group = 'exposed', holdout_percent = 0, day_number = 2 where cadence_id = ${cadenceId}`,
    );
    const after = await app.db
      .select({ n: count() })
      .from(targets)
      .where(and(eq(targets.cadenceId, cadenceId), eq(targets.holdoutGroup, 'held_out')));
    expect(after[0]!.n).toBe(held);
    // A sync or an import upserts the same memberships again (insert … on conflict do update, as
    // integrations/store.ts does): the assignment stays.
    await q(`insert into targets (client_id, cadence_id, prospect_id, token)
      select client_id, cadence_id, prospect_id, replace(gen_random_uuid()::text, '-', '') from targets where cadence_id = ${cadenceId}
      on conflict (cadence_id, prospect_id) do update set day_number = 3, is_active = true`);
    const again = await app.db
      .select({ id: targets.id, group: targets.holdoutGroup, day: targets.dayNumber })
      .from(targets)
      .where(eq(targets.cadenceId, cadenceId));
    expect(again.every((t) => t.day === 3)).toBe(true);
    const before = new Map(all.map((t) => [t.id, t.group]));
    expect(again.filter((t) => before.get(t.id) !== t.group)).toHaveLength(0);
    await setShare(cadenceId, 0);
  }, 120_000);

  it('a cadence that existed before holdouts (share 0) assigns no one; a new cohort takes the configured default', async () => {
    const cadenceId = await makeCadence(app, acme);
    const t = await makeTarget(app, acme, cadenceId, { repId });
    const [row] = await app.db.select().from(targets).where(eq(targets.id, t.id));
    expect(row).toMatchObject({ holdoutGroup: null, holdoutPercent: null });

    const withDefault = await createTestApp({ env: { HOLDOUT_DEFAULT_PERCENT: '10' } });
    const client = await makeClient(withDefault, 'Defaults');
    const { browser } = await signedIn(withDefault, { [client]: 'purple_owner' });
    const res = await browser.post('/v1/rest/cohort', {
      name: 'Fresh cohort',
      source_kind: 'filter',
      filters: {},
    });
    expect(res.statusCode, res.body).toBe(201);
    const [cohort] = rowsOf(
      await withDefault.db.execute(
        sql`select c.holdout_percent from cohorts co join cadences c on c.id = co.cadence_id where co.id = ${res.json().id}`,
      ),
    );
    expect(cohort?.holdout_percent).toBe(10);
  });
});

describe('a held-out target sees no ad and counts nothing', () => {
  it('1,000 impressions and clicks on a held-out target: the neutral image, no events, no counters, no superprospect, no bill; the exposed beside it counts', async () => {
    const cadenceId = await makeCadence(app, acme, { days: { 1: showing(contentId) } });
    await setShare(cadenceId, 50);
    const made: { id: string; token: string }[] = [];
    for (let i = 0; i < 40; i++) made.push(await makeTarget(app, acme, cadenceId, { repId }));
    const groups = await app.db
      .select({ id: targets.id, group: targets.holdoutGroup })
      .from(targets)
      .where(eq(targets.cadenceId, cadenceId));
    const heldId = groups.find((g) => g.group === 'held_out')!.id;
    const exposedId = groups.find((g) => g.group === 'exposed')!.id;
    const held = made.find((t) => t.id === heldId)!;
    const exposed = made.find((t) => t.id === exposedId)!;
    const billedBefore = await countUncharged(app.db, acme, new Date(Date.now() + 60_000));

    const image = await fetch(`${base}/t/${held.token}/ad/300x250.png`, {
      headers: { 'user-agent': BROWSER_UA },
    });
    expect(Buffer.from(await image.arrayBuffer())).toEqual(neutralAd('300x250'));
    const requests = Array.from({ length: 1_000 }, (_, i) => i);
    for (let i = 0; i < requests.length; i += 50) {
      await Promise.all(
        requests
          .slice(i, i + 50)
          .map((n) =>
            n % 2
              ? rawGet(`${base}/t/${held.token}/c`, CLICK_HEADERS)
              : fetch(`${base}/t/${held.token}/ad/728x90.png`, { headers: { 'user-agent': BROWSER_UA } }),
          ),
      );
    }
    await fetch(`${base}/t/${exposed.token}/ad/300x250.png`, { headers: { 'user-agent': BROWSER_UA } });
    await rawGet(`${base}/t/${exposed.token}/c`, CLICK_HEADERS);
    await app.tracking.settled();

    const heldRow = (await app.db.select().from(targets).where(eq(targets.id, held.id)))[0]!;
    expect(heldRow).toMatchObject({ impressions: 0, clicks: 0, views: 0, superDate: null });
    const heldEvents = await app.db
      .select({ n: count() })
      .from(engagementEvents)
      .where(eq(engagementEvents.targetId, held.id));
    expect(heldEvents[0]!.n).toBe(0);
    const exposedRow = (await app.db.select().from(targets).where(eq(targets.id, exposed.id)))[0]!;
    expect(exposedRow).toMatchObject({ impressions: 1, clicks: 1 });
    expect(exposedRow.superDate).not.toBeNull();
    // The exposed target's click made it a superprospect: one more to bill, the held out none.
    expect(await countUncharged(app.db, acme, new Date(Date.now() + 60_000))).toBe(billedBefore + 1);
  }, 120_000);
});

/** A known effect: 2,000 targets at 50 %, meetings for 20 % of the exposed and 10 % of the held out. */
async function knownEffect(): Promise<number> {
  const cadenceId = await makeCadence(app, acme, { name: 'Lift cadence', days: { 1: showing(contentId) } });
  await setShare(cadenceId, 50);
  await bulkTargets(acme, cadenceId, 2_000, `k${cadenceId}`);
  const integrationId = await makeIntegration(app, acme);
  await app.db.execute(sql`
    insert into crm_integration_settings (integration_id, client_id, meeting_activity_types)
    values (${integrationId}, ${acme}, '["Meeting"]'::jsonb)
    on conflict (integration_id) do update set meeting_activity_types = excluded.meeting_activity_types`);
  // Ranked within each group by id: the first 20 % of the exposed and 10 % of the held out met.
  await app.db.execute(sql`
    with ranked as (
      select t.id, t.prospect_id, t.holdout_group, t.created_at,
        row_number() over (partition by t.holdout_group order by t.id) as n,
        count(*) over (partition by t.holdout_group) as total
      from targets t where t.cadence_id = ${cadenceId}
    ), met as (
      select * from ranked
       where n <= total * case when holdout_group = 'exposed' then 0.2 else 0.1 end
    ), cc as (
      insert into crm_contacts (client_id, integration_id, external_id, prospect_id)
      select ${acme}, ${integrationId}, 'contact-' || met.id, met.prospect_id from met
      returning id, external_id
    )
    insert into crm_activity_counts (client_id, integration_id, contact_external_id, contact_id, activity_type, count, last_activity_at)
    select ${acme}, ${integrationId}, cc.external_id, cc.id, 'Meeting', 1, now() + interval '1 hour' from cc`);
  // One $10,000 opportunity created a day after entry on the account of each of the first 5 % of
  // the exposed; won $4,000 on the first 1 % of the held out (its close date inside the window).
  await app.db.execute(sql`
    with ranked as (
      select t.id, t.holdout_group, p.company_id,
        row_number() over (partition by t.holdout_group order by t.id) as n,
        count(*) over (partition by t.holdout_group) as total
      from targets t join prospects p on p.id = t.prospect_id where t.cadence_id = ${cadenceId}
    )
    insert into opportunities (client_id, integration_id, external_id, name, account_name, company_id,
      amount_cents, currency, stage, crm_created_at, close_date, is_closed, is_won)
    select ${acme}, ${integrationId}, 'opp-' || r.id, 'Deal', 'Account', r.company_id,
      case when r.holdout_group = 'exposed' then 1000000 else 400000 end, 'USD',
      case when r.holdout_group = 'exposed' then 'Prospecting' else 'Closed Won' end,
      now() + interval '1 day', (now() + interval '2 days')::date,
      r.holdout_group = 'held_out', r.holdout_group = 'held_out'
    from ranked r
    where r.n <= r.total * case when r.holdout_group = 'exposed' then 0.05 else 0.01 end`);
  return cadenceId;
}

describe('GET /v1/report/client/{id}/lift', () => {
  let cadenceId: number;
  let owner: Awaited<ReturnType<typeof signedIn>>['browser'];
  beforeAll(async () => {
    cadenceId = await knownEffect();
    owner = (await signedIn(app, { [acme]: 'purple_owner', [other]: 'purple_owner' })).browser;
  }, 120_000);

  it('measures the known effect: the interval holds the true 10 meetings per 100 and excludes zero', async () => {
    const res = await owner.get(
      `/v1/report/client/${acme}/lift?scope=cadence&id=${cadenceId}&window_days=30`,
    );
    expect(res.statusCode, res.body).toBe(200);
    const r = res.json();
    const { exposed, held_out } = r.groups;
    expect(exposed.targets + held_out.targets).toBe(2_000);
    expect(exposed.meetings).toBe(Math.floor(exposed.targets * 0.2));
    expect(held_out.meetings).toBe(Math.floor(held_out.targets * 0.1));
    expect(r.lift.meetings.method).toBe('newcombe');
    expect(r.lift.meetings.low).toBeLessThan(10);
    expect(r.lift.meetings.high).toBeGreaterThan(10);
    expect(r.lift.meetings.excludes_zero).toBe(true);
    expect(exposed.with_opportunity).toBe(Math.floor(exposed.targets * 0.05));
    expect(exposed.pipeline).toBe(exposed.with_opportunity * 10_000);
    expect(held_out.won).toBe(Math.floor(held_out.targets * 0.01) * 4_000);
    expect(r.lift.pipeline.method).toBe('welch');
    expect(r.status).toBe('measured');
    expect(r.targets_needed).toBe(0);
    expect(r.scope).toEqual({ kind: 'cadence', id: String(cadenceId), name: 'Lift cadence' });
  });

  it('says "not enough data yet" with the targets still needed for a small lift; the client scope holds the cadence’s targets', async () => {
    const small = (
      await owner.get(`/v1/report/client/${acme}/lift?scope=cadence&id=${cadenceId}&min_lift=5`)
    ).json();
    expect(small.status).toBe('not_enough_data');
    expect(small.targets_needed).toBeGreaterThan(0);
    expect(small.message).toMatch(
      /^Not enough data yet: about [\d,]+ more prospects are needed to detect a 5 % lift in meetings\.$/,
    );
    // Entry is the target's creation; the meetings are an hour later: a window of one day holds them.
    const client = (await owner.get(`/v1/report/client/${acme}/lift`)).json();
    expect(client.groups.exposed.targets).toBeGreaterThanOrEqual(small.groups.exposed.targets);
  });

  it('answers 422 naming the field for bad input', async () => {
    const cases: [string, string][] = [
      ['scope=cadence', 'querystring.id'],
      ['scope=cadence&id=abc', 'querystring.id'],
      ['scope=cohort&id=12', 'querystring.id'],
      ['scope=everything', 'querystring.scope'],
      ['window_days=0', 'querystring.window_days'],
      ['window_days=400', 'querystring.window_days'],
      ['min_lift=1', 'querystring.min_lift'],
      ['id=5', 'querystring.id'],
    ];
    for (const [query, field] of cases) {
      const res = await owner.get(`/v1/report/client/${acme}/lift?${query}`);
      expect(res.statusCode, query).toBe(422);
      expect(JSON.stringify(res.json()), query).toContain(field);
    }
  });

  it('refuses a member without reports.read (403), another client’s cadence or cohort (404), and another client’s id in the path (403)', async () => {
    const { browser: viewer } = await signedIn(app, { [acme]: 'grey_viewer' });
    expect((await viewer.get(`/v1/report/client/${acme}/lift`)).statusCode).toBe(403);
    expect((await viewer.get(`/v1/report/client/${acme}/lift/export`)).statusCode).toBe(403);
    const foreign = await makeCadence(app, other);
    const asOther = await owner.get(`/v1/report/client/${acme}/lift?scope=cadence&id=${foreign}`);
    expect(asOther.statusCode).toBe(404);
    const cohort = await rows(sql`select gen_random_uuid() as id`);
    expect(
      (await owner.get(`/v1/report/client/${acme}/lift?scope=cohort&id=${cohort[0]!.id}`)).statusCode,
    ).toBe(404);
    const { browser: outsider } = await signedIn(app, { [other]: 'purple_owner' });
    expect((await outsider.get(`/v1/report/client/${acme}/lift`, { clientId: acme })).statusCode).toBe(403);
  });

  it('exports every assigned target with its group and outcomes, formula-safe', async () => {
    await q(
      `update prospects set first_name = '=HYPERLINK("http://evil")' where id = (select prospect_id from targets where cadence_id = ${cadenceId} order by id limit 1)`,
    );
    const res = await owner.get(
      `/v1/report/client/${acme}/lift/export?scope=cadence&id=${cadenceId}&window_days=30`,
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/csv/);
    const lines = res.body.trim().split(/\r?\n/);
    expect(lines[0]).toContain('Group');
    expect(lines).toHaveLength(2_001);
    expect(res.body).not.toMatch(/(^|,)"?=HYPERLINK/m);
    expect(res.body).toContain("'=HYPERLINK");
    expect(lines.filter((l) => l.includes(',held out,')).length).toBeGreaterThan(800);
    // Bad input names the field; another client's cadence is not found; a viewer is refused above.
    const bad = await owner.get(`/v1/report/client/${acme}/lift/export?scope=cadence`);
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('querystring.id');
    const foreign = await makeCadence(app, other);
    expect(
      (await owner.get(`/v1/report/client/${acme}/lift/export?scope=cadence&id=${foreign}`)).statusCode,
    ).toBe(404);
  });
});

describe('holdout settings (GET /v1/rest/client/{id}/holdouts, PUT …/{cadenceId})', () => {
  it('lets an owner set a share, lists it with the assigned counts, and refuses an admin, a manager, bad input and another client’s cadence', async () => {
    const cadenceId = await makeCadence(app, acme, { name: 'Settings cadence' });
    const { browser: owner } = await signedIn(app, { [acme]: 'purple_owner' });
    const path = `/v1/rest/client/${acme}/holdouts/${cadenceId}`;
    const ok = await owner.put(path, { holdout_percent: 20 });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({
      cadence_id: cadenceId,
      holdout_percent: 20,
      exposed: 0,
      held_out: 0,
      kind: 'sequence',
    });
    const list = (await owner.get(`/v1/rest/client/${acme}/holdouts`)).json();
    expect(list.items.find((i: { cadence_id: number }) => i.cadence_id === cadenceId)?.holdout_percent).toBe(
      20,
    );

    for (const [body, field] of [
      [{ holdout_percent: 51 }, 'body.holdout_percent'],
      [{ holdout_percent: -1 }, 'body.holdout_percent'],
      [{ holdout_percent: 2.5 }, 'body.holdout_percent'],
      [{ holdout_percent: 10, extra: 1 }, 'body'],
    ] as const) {
      const res = await owner.put(path, body);
      expect(res.statusCode).toBe(422);
      expect(JSON.stringify(res.json())).toContain(field);
    }
    for (const role of ['blue_admin', 'green_manager'] as const) {
      const { browser } = await signedIn(app, { [acme]: role });
      const res = await browser.put(path, { holdout_percent: 0 });
      expect(res.statusCode, role).toBe(403);
    }
    const { browser: sdr } = await signedIn(app, { [acme]: 'yellow_sdr' });
    expect((await sdr.put(path, { holdout_percent: 0 })).statusCode).toBe(403);
    const foreign = await makeCadence(app, other);
    expect(
      (await owner.put(`/v1/rest/client/${acme}/holdouts/${foreign}`, { holdout_percent: 10 })).statusCode,
    ).toBe(404);
    expect((await app.db.select().from(cadences).where(eq(cadences.id, foreign)))[0]!.holdoutPercent).toBe(0);
    expect((await owner.put(path, { holdout_percent: 10 }, { csrf: false })).statusCode).toBe(403);
    expect((await app.db.select().from(cadences).where(eq(cadences.id, cadenceId)))[0]!.holdoutPercent).toBe(
      20,
    );
  });
});
