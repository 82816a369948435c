import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_FILE_REPORTS } from '@rally/shared/schemas/export-files';
import { OPPORTUNITY_REPORT_FILTERS } from '@rally/shared/schemas/reports';
import { engagementEvents } from '../../db/schema/index.ts';
import { hashEmail } from '../ad-networks/hashing.ts';
import { importCsvFile } from '../fileforce/index.ts';
import { connectMetaDirectly, makeCohort } from '../../../test/ad-network-kit.ts';
import { makeCadence, makeContent, makeTarget } from '../../../test/engagement.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import type { Browser } from '../../../test/http.ts';
import { erasedTest } from './service.ts';

/**
 * Erasure (issue 44): "'Forget this person' by e-mail address (screen for owners, API): removes the
 * person from prospects, targets, events, rollups (totals recomputed), cohort and journey memberships,
 * export files, the outbox, webhook delivery payloads, ad-network audiences and CRM write-back fields,
 * and keeps only a record of the erasure (a keyed hash of the address, when, by whom) so a later sync
 * does not bring the person back unless they are added again by hand. A test scans every table
 * afterwards for the address and its hash-less forms." Tests: "erasure leaves no trace in any table
 * (the scan) and totals drop by the person's events". Every route: success, bad input, missing
 * permission, foreign tenant.
 */
let app: FastifyInstance;
let acme: string;
let other: string;
let owner: Browser;
let admin: Browser;
let stranger: Browser;
const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;
const url = (client = acme) => `/v1/rest/client/${client}/erasures`;

const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const epoch = (d: number) => Math.floor(d / 1000);
const range = `from=${epoch(today - 10 * DAY)}&to=${epoch(today + DAY)}`;

beforeAll(async () => {
  app = await createTestApp();
  acme = await makeClient(app, 'Acme');
  other = await makeClient(app, 'Other');
  owner = (await signedIn(app, { [acme]: 'purple_owner' })).browser;
  admin = (await signedIn(app, { [acme]: 'blue_admin' })).browser;
  stranger = (await signedIn(app, { [other]: 'purple_owner' })).browser;
}, 60_000);
afterAll(() => app.close());

/** Every text, varchar, jsonb and text[] column of every table holding `needle` (any case). */
async function scan(needle: string): Promise<string[]> {
  const cols = rowsOf<{ t: string; c: string }>(
    await app.db.execute(sql`select table_name as t, column_name as c from information_schema.columns
      where table_schema = current_schema()
        and (data_type in ('text', 'character varying', 'jsonb', 'json')
          or (data_type = 'ARRAY' and udt_name in ('_text', '_varchar')))
        and table_name in (select table_name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE')`),
  );
  expect(cols.length).toBeGreaterThan(100);
  const pattern = `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const found: string[] = [];
  for (const { t, c } of cols) {
    const [row] = rowsOf<{ n: number }>(
      await app.db.execute(
        sql`select count(*)::int as n from ${sql.identifier(t)} where ${sql.identifier(c)}::text ilike ${pattern}`,
      ),
    );
    if (Number(row?.n) > 0) found.push(`${t}.${c}`);
  }
  return found;
}

/** The person, in every place the client can hold them. */
async function seedPerson(email: string) {
  const cadenceId = await makeCadence(app, acme, { name: 'Erasure cadence' });
  const adId = await makeContent(app, acme);
  const person = await makeTarget(app, acme, cadenceId);
  const bystander = await makeTarget(app, acme, cadenceId);
  await app.db.execute(sql`update prospects set email = ${email}, external_id = ${email.toLowerCase()}
    where id = ${person.prospectId}`);
  const events = async (targetId: string, n: number) => {
    for (let i = 0; i < n; i++)
      await app.db.insert(engagementEvents).values({
        clientId: acme,
        targetId,
        cadenceId,
        type: i % 3 === 0 ? 'click' : 'impression',
        contentId: adId,
        occurredAt: new Date(today - (1 + (i % 4)) * DAY + 3_600_000),
      });
  };
  await events(person.id, 7);
  await events(bystander.id, 4);
  const [{ integration_id: integrationId } = { integration_id: 0 }] = rowsOf<{ integration_id: number }>(
    await app.db.execute(sql`select integration_id from prospects where id = ${person.prospectId}`),
  );
  const upper = email.toUpperCase();
  await app.db
    .execute(sql`insert into crm_contacts (client_id, integration_id, external_id, email, first_name, prospect_id)
    values (${acme}, ${integrationId}, 'crm-1', ${upper}, 'Kendall', ${person.prospectId})`);
  await app.db
    .execute(sql`insert into uncounted_events (client_id, target_id, cadence_id, type, verdict, reason, occurred_at)
    values (${acme}, ${person.id}, ${cadenceId}, 'impression', 'bot', 'ua', now())`);
  await app.db.execute(sql`insert into feed_items (client_id, type, target_id, prospect_id, data)
    values (${acme}, 'click', ${person.id}, ${person.prospectId}, ${JSON.stringify({ email })}::jsonb)`);
  await app.db.execute(sql`insert into email_outbox (client_id, to_address, subject, text_body)
    values (${acme}, 'rep@example.com', 'Kendall clicked', ${`Kendall (${upper}) clicked your ad`})`);
  const [endpoint] = rowsOf<{ id: string }>(
    await app.db.execute(sql`insert into webhook_endpoints (client_id, url, events, secret_enc)
      values (${acme}, 'https://hooks.example.com/x', '{prospect.super}', 'sealed') returning id`),
  );
  await app.db
    .execute(sql`insert into webhook_deliveries (client_id, endpoint_id, event_type, webhook_id, payload)
    values (${acme}, ${endpoint!.id}, 'prospect.super', 'msg_1',
      ${JSON.stringify({ data: { prospect: { id: person.prospectId, email } } })}),
    (${acme}, ${endpoint!.id}, 'prospect.super', 'msg_2', '{"data":{"other":true}}')`);
  const [file] = rowsOf<{ id: string }>(
    await app.db
      .execute(sql`insert into export_files (client_id, report, filter, range_from, range_to, filename, status, expires_at)
      values (${acme}, ${EXPORT_FILE_REPORTS[0]}, ${OPPORTUNITY_REPORT_FILTERS[0]}, now(), now(), 'r.csv', 'done', now() + interval '7 days')
      returning id`),
  );
  await app.db.execute(sql`insert into export_file_parts (file_id, seq, text)
    values (${file!.id}, 0, ${`name,email\nKendall,${email}\n`})`);
  await app.db
    .execute(sql`insert into file_imports (client_id, integration_id, kind, file_name, storage_key, byte_size, errors)
    values (${acme}, ${integrationId}, 'targets', 'old.csv', 'k', 10,
      ${JSON.stringify([
        { row: 2, field: 'email', reason: `duplicate of ${email}` },
        { row: 3, field: 'day', reason: 'bad' },
      ])}::jsonb)`);
  await app.db
    .execute(sql`insert into ad_field_values (integration_id, record_id, client_id, token, signature)
    values (${integrationId}, ${email.toLowerCase()}, ${acme}, ${person.token}, 'sig')`);
  // A cohort with the person in it, and a Meta audience they were sent to.
  const cohort = await makeCohort(app, acme, 'Erasure cohort', 2);
  await app.db.execute(sql`insert into cohort_members (client_id, cohort_id, prospect_id, target_id)
    select ${acme}, ${cohort.cohortId}, prospect_id, id from targets where id = ${person.id}`);
  await app.db.execute(sql`update cohorts set size = 3 where id = ${cohort.cohortId}`);
  const meta = await connectMetaDirectly(app, acme, { accessToken: 't', expiresAt: '2099-01-01T00:00:00Z' });
  const [audience] = rowsOf<{ id: string }>(
    await app.db.execute(sql`insert into ad_audiences (client_id, connection_id, source_kind, cohort_id, name)
      values (${acme}, ${meta.id}, 'cohort', ${cohort.cohortId}, 'Aud') returning id`),
  );
  await app.db.execute(sql`insert into ad_audience_members (audience_id, client_id, hash, state)
    values (${audience!.id}, ${acme}, ${hashEmail(email)}, 'added')`);
  // On the suppression list by hand, address and all.
  expect(
    (await owner.post(`/v1/rest/client/${acme}/suppressions`, { email, reason: 'asked' })).statusCode,
  ).toBe(201);
  return { person, bystander, cohortId: cohort.cohortId, audienceId: audience!.id };
}

async function summary() {
  const res = await owner.get(`/v1/report/client/${acme}/summary?${range}`);
  expect(res.statusCode, res.body).toBe(200);
  const s = res.json() as { impressions: number; clicks: number };
  return s.impressions + s.clicks;
}

describe('POST /rest/client/{id}/erasures', () => {
  const email = 'Kendall.Erased@Example.com';

  it('erases the person from every table (the scan finds no form of the address) and totals drop by their events', async () => {
    const world = await seedPerson(email);
    const before = await summary(); // rolls the closed days up
    expect(before).toBe(11);
    expect((await scan(email)).length).toBeGreaterThan(5);

    const res = await owner.post(url(), { email: ` ${email.toUpperCase()} `, confirm: true });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.created).toBe(true);
    expect(body.erasure).toMatchObject({
      email_hash: app.suppressions.key.hash(email),
      erased_by_name: 'Test User',
      counts: {
        prospects: 1,
        targets: 1,
        events: 7,
        uncounted_events: 1,
        crm_contacts: 1,
        cohort_memberships: 1,
        feed_items: 1,
        export_files: 1,
        outbox_messages: 1,
        webhook_deliveries: 1,
        audience_members: 1,
        crm_write_backs: 1,
      },
    });

    // The scan: no table holds the address in any case (lower, upper, as typed).
    for (const form of [email, email.toLowerCase(), email.toUpperCase()])
      expect(await scan(form)).toEqual([]);
    // Totals recomputed from the rollups: down by the person's 7 events, the bystander's 4 stay.
    expect(await summary()).toBe(4);
    const [cohort] = rowsOf<{ size: number }>(
      await app.db.execute(sql`select size from cohorts where id = ${world.cohortId}`),
    );
    expect(Number(cohort!.size)).toBe(2);
    // Sent to Meta: marked for removal by the next push (a hash, never the address).
    const [member] = rowsOf<{ state: string }>(
      await app.db.execute(
        sql`select state from ad_audience_members where audience_id = ${world.audienceId}`,
      ),
    );
    expect(member?.state).toBe('remove');
    // Suppressed by the keyed hash only; the audit log records the erasure without the address.
    expect(await app.suppressions.isSuppressed(acme, email)).toBe(true);
    const audit = rowsOf<{ target_id: string; details: unknown }>(
      await app.db.execute(sql`select target_id, details from audit_log
        where client_id = ${acme} and action = 'erasure.performed'`),
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]!.target_id).toBe(body.erasure.id);
    // The bystander is untouched.
    const [left] = rowsOf<{ n: number }>(
      await app.db.execute(sql`select count(*)::int as n from targets where id = ${world.bystander.id}`),
    );
    expect(Number(left!.n)).toBe(1);

    // The list of records shows the hash, never the address.
    const list = await owner.get(url());
    expect(list.statusCode).toBe(200);
    expect(list.json().items).toHaveLength(1);
    expect(list.body.toLowerCase()).not.toContain(email.toLowerCase());
  });

  it('keeps the person out of a later import and sync until an owner adds them back by hand', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'erasure-'));
    const file = path.join(dir, 'again.csv');
    writeFileSync(file, `Email Address,First Name,Last Name,Cadence,Day\n${email},Kendall,Ellery,Again,1\n`);
    const again = await importCsvFile(app, { clientId: acme, kind: 'targets', filePath: file });
    expect(again).toMatchObject({ status: 'done', imported_rows: 0, suppressed_rows: 1 });
    // A sync's memberships of the address are left out (integrations/sync.ts asks this test).
    expect((await erasedTest(app.db, app.suppressions.key, acme, [email.toUpperCase()]))(email)).toBe(true);
    expect((await erasedTest(app.db, app.suppressions.key, other, [email]))(email)).toBe(false);
    expect(await scan(email)).toEqual([]);

    // By hand: the owner takes the erasure entry off the suppression list, then imports them.
    const list = (await owner.get(`/v1/rest/client/${acme}/suppressions`)).json() as {
      items: { id: string; source: string; email: string | null }[];
    };
    const entry = list.items.find((i) => i.email === null);
    expect(entry).toBeDefined();
    const removed = await owner.post(`/v1/rest/client/${acme}/suppressions/${entry!.id}/remove`, {
      reason: 'Asked to be added back',
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await erasedTest(app.db, app.suppressions.key, acme, [email]))(email)).toBe(false);
    const back = await importCsvFile(app, { clientId: acme, kind: 'targets', filePath: file });
    expect(back).toMatchObject({ status: 'done', imported_rows: 1, suppressed_rows: 0 });
  });

  it('names the bad field (422): an address that is none, a missing confirmation', async () => {
    const bad = await owner.post(url(), { email: 'not an address', confirm: true });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('body.email');
    const unconfirmed = await owner.post(url(), { email: 'a@example.com' });
    expect(unconfirmed.statusCode).toBe(422);
    expect(unconfirmed.json().errors[0].field).toBe('body.confirm');
  });

  it('is for owners only (403 for an admin, who has settings.write) and never another client (403)', async () => {
    const { person } = { person: await makeTarget(app, acme, await makeCadence(app, acme)) };
    const [p] = rowsOf<{ email: string }>(
      await app.db.execute(sql`select email from prospects where id = ${person.prospectId}`),
    );
    const res = await admin.post(url(), { email: p!.email, confirm: true });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toMatch(/only an owner/);
    expect((await admin.get(url())).statusCode).toBe(403);
    const foreign = await stranger.post(url(acme), { email: p!.email, confirm: true }, { clientId: acme });
    expect(foreign.statusCode).toBe(403);
    // Erasing the address in their own client touches nothing of Acme's.
    const own = await stranger.post(url(other), { email: p!.email, confirm: true }, { clientId: other });
    expect(own.statusCode).toBe(201);
    expect(own.json().erasure.counts.prospects).toBe(0);
    const [still] = rowsOf<{ n: number }>(
      await app.db.execute(sql`select count(*)::int as n from prospects where id = ${person.prospectId}`),
    );
    expect(Number(still!.n)).toBe(1);
    expect((await stranger.get(url(other), { clientId: other })).json().items).toHaveLength(1);
  });

  it('two erasures of the same person at once leave one record', async () => {
    const target = await makeTarget(app, acme, await makeCadence(app, acme));
    const [p] = rowsOf<{ email: string }>(
      await app.db.execute(sql`select email from prospects where id = ${target.prospectId}`),
    );
    const [a, b] = await Promise.all([
      owner.post(url(), { email: p!.email, confirm: true }),
      owner.post(url(), { email: p!.email.toUpperCase(), confirm: true }),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 201]);
    expect(a.json().erasure.id).toBe(b.json().erasure.id);
    const [n] = rowsOf<{ n: number }>(
      await app.db.execute(sql`select count(*)::int as n from erasures
        where client_id = ${acme} and email_hash = ${app.suppressions.key.hash(p!.email)}`),
    );
    expect(Number(n!.n)).toBe(1);
    const total = a.json().erasure.counts.prospects + b.json().erasure.counts.prospects;
    expect(total).toBeGreaterThanOrEqual(1);
  });
});
