import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  companies,
  crmAccounts,
  crmActivityCounts,
  crmContacts,
  crmIntegrationSettings,
  prospects,
} from '../src/db/schema/index.ts';
import { rowsOf } from '../src/modules/reports/repository.ts';
import { createTestApp } from './helpers.ts';
import { signedIn } from './http.ts';
import { daysAgo, epoch, standardScene } from './reports-world.ts';

/**
 * Outreach kept per account (issue 43, docs/reports.md "Outreach per account", migration 0073):
 * `account_outreach` must hold each outreach count once per account its contact belongs to (the CRM
 * account's company, the prospect's stored ties), as the alignment read it from the facts before,
 * whatever changes: the counts, the connection's outreach types, a contact, a CRM account, a
 * prospect's ties; and the alignment's outreach numbers must be those of the facts for any range.
 */
describe('outreach per account (issue 43)', async () => {
  const app = await createTestApp();
  const s = await standardScene(app, 'Acme');
  const foreign = await standardScene(app, 'Foreign');
  const { browser: owner } = await signedIn(app, { [s.clientId]: 'purple_owner' });
  const base = `/v1/report/client/${s.clientId}`;

  const stored = async () =>
    rowsOf(
      await app.db.execute(sql`select client_id::text as c, company_id::text as a, activity_id::text as i,
          contact_id::text as k, count as n, last_activity_at as at from account_outreach order by 1, 2, 3`),
    ).map((r) => `${r.c} ${r.a} ${r.i} ${r.k} ${r.n} ${new Date(r.at as string).toISOString()}`);
  // The facts, as the alignment tied its worked contacts at read time before (reports/accounts.ts).
  const facts = sql`
    select distinct ac.client_id, x.company_id, ac.id, ac.contact_id, ac.count, ac.last_activity_at
      from crm_activity_counts ac
      join crm_integration_settings s on s.integration_id = ac.integration_id and s.client_id = ac.client_id
      join crm_contacts cc on cc.id = ac.contact_id and cc.client_id = ac.client_id and not cc.is_deleted
      left join crm_accounts a on a.id = cc.account_id and not a.is_deleted
      cross join lateral (
        select a.company_id where a.company_id is not null
        union
        select pt.company_id from prospect_account_ties pt
         where pt.prospect_id = cc.prospect_id and pt.client_id = ac.client_id
      ) x
     where ac.last_activity_at is not null
       and ac.activity_type in (select jsonb_array_elements_text(s.outreach_activity_types))`;
  const oracle = async () =>
    rowsOf(
      await app.db.execute(sql`select client_id::text as c, company_id::text as a, id::text as i,
          contact_id::text as k, count as n, last_activity_at as at from (${facts}) f order by 1, 2, 3`),
    ).map((r) => `${r.c} ${r.a} ${r.i} ${r.k} ${r.n} ${new Date(r.at as string).toISOString()}`);
  const ranges: [string, Date, Date][] = [
    ['the last 90 days', daysAgo(90), new Date(Date.now() + 1000)],
    ['5 to 3 days ago', daysAgo(5.5), daysAgo(3.5)],
    ['the last 4 days', daysAgo(4), new Date(Date.now() + 1000)],
  ];
  const shown = async (from: Date, to: Date) => {
    const res = await owner.get(
      `${base}/alignment?segment=all&page_size=200&from=${epoch(from)}&to=${epoch(to)}`,
    );
    expect(res.statusCode, res.body).toBe(200);
    const items = res.json().items as {
      account_id: string;
      outreach_activities: number;
      outreach_contacts: number;
      last_outreach_at: string | null;
    }[];
    return items
      .filter((i) => i.last_outreach_at !== null)
      .map((i) => `${i.account_id} ${i.outreach_activities} ${i.outreach_contacts} ${i.last_outreach_at}`)
      .sort();
  };
  const wanted = async (from: Date, to: Date) =>
    rowsOf(
      await app.db.execute(sql`select f.company_id::text as a, sum(f.count)::int as n,
          count(distinct f.contact_id)::int as k, max(f.last_activity_at) as at
        from (${facts}) f join companies c on c.id = f.company_id and c.client_id = ${s.clientId}
       where f.client_id = ${s.clientId} and f.last_activity_at >= ${from} and f.last_activity_at < ${to}
       group by 1`),
    )
      .map((r) => `${r.a} ${r.n} ${r.k} ${new Date(r.at as string).toISOString()}`)
      .sort();
  const expectOutreach = async (when: string) => {
    const want = await oracle();
    expect(want.length, `${when}: the oracle has rows to compare`).toBeGreaterThan(0);
    expect(await stored(), when).toEqual(want);
    for (const [name, from, to] of ranges)
      expect(await shown(from, to), `${when}: alignment, ${name}`).toEqual(await wanted(from, to));
  };
  const contactOf = async (externalName: string) =>
    rowsOf(
      await app.db.execute(sql`select id from crm_contacts where client_id = ${s.clientId}
        and first_name || ' ' || last_name = ${externalName}`),
    )[0]!.id as string;

  it('holds each outreach count once per account as counts, settings, contacts, accounts and ties change', async () => {
    await expectOutreach('the scenes');
    const [crm] = rowsOf(
      await app.db.execute(sql`select integration_id as id, client_id from crm_integration_settings
        where client_id = ${s.clientId}`),
    ) as [{ id: number }];
    const gale = await contactOf('Gale Gamma');

    // Counts: a new one, one changed, one moved to a type that is not outreach, one deleted.
    const [blakeCall] = await app.db
      .insert(crmActivityCounts)
      .values({
        clientId: s.clientId,
        integrationId: crm.id,
        contactExternalId: randomUUID(),
        contactId: await contactOf('Blake Rivera'),
        activityType: 'Call',
        count: 3,
        lastActivityAt: daysAgo(4),
      })
      .returning();
    await expectOutreach('a new count');
    await app.db
      .update(crmActivityCounts)
      .set({ count: 9, lastActivityAt: daysAgo(1) })
      .where(eq(crmActivityCounts.id, blakeCall!.id));
    await expectOutreach('a count changed');
    await app.db
      .update(crmActivityCounts)
      .set({ activityType: 'Meeting' })
      .where(eq(crmActivityCounts.id, blakeCall!.id));
    await expectOutreach('a count no longer outreach');
    await app.db.delete(crmActivityCounts).where(eq(crmActivityCounts.id, blakeCall!.id));
    await expectOutreach('a count deleted');

    // The connection's outreach types: Email no longer, then Meeting too.
    await app.db
      .update(crmIntegrationSettings)
      .set({ outreachActivityTypes: ['Call'] })
      .where(eq(crmIntegrationSettings.integrationId, crm.id));
    await expectOutreach('Email no longer outreach');
    await app.db
      .update(crmIntegrationSettings)
      .set({ outreachActivityTypes: ['Call', 'Email', 'Meeting'] })
      .where(eq(crmIntegrationSettings.integrationId, crm.id));
    await expectOutreach('Meeting outreach too');

    // A contact: to another CRM account, tied to a prospect, deleted in the CRM and back, deleted.
    const gammaAccount = rowsOf(
      await app.db.execute(sql`select id from crm_accounts where company_id = ${s.gamma}`),
    )[0]!.id as string;
    await app.db
      .update(crmContacts)
      .set({ accountId: gammaAccount })
      .where(eq(crmContacts.id, s.averyContact));
    await expectOutreach('a contact moved to another account');
    await app.db.update(crmContacts).set({ prospectId: s.bo.prospectId }).where(eq(crmContacts.id, gale));
    await expectOutreach('a contact tied to a prospect');
    await app.db.update(crmContacts).set({ isDeleted: true }).where(eq(crmContacts.id, gale));
    await expectOutreach('a contact deleted in the CRM');
    await app.db.update(crmContacts).set({ isDeleted: false }).where(eq(crmContacts.id, gale));
    await expectOutreach('the contact back');

    // A CRM account: another company, deleted in the CRM, deleted.
    await app.db.update(crmAccounts).set({ companyId: s.delta }).where(eq(crmAccounts.id, gammaAccount));
    await expectOutreach('an account moved to another company');
    await app.db.update(crmAccounts).set({ isDeleted: true }).where(eq(crmAccounts.id, gammaAccount));
    await expectOutreach('the account deleted in the CRM');
    await app.db.update(crmAccounts).set({ isDeleted: false }).where(eq(crmAccounts.id, gammaAccount));
    await app.db.delete(crmAccounts).where(eq(crmAccounts.id, gammaAccount));
    await expectOutreach('the account deleted');

    // A prospect's ties: its company, its e-mail's domain matching a website, a company deleted.
    await app.db.update(prospects).set({ companyId: s.gamma }).where(eq(prospects.id, s.bo.prospectId));
    await expectOutreach('a prospect moved to another company');
    await app.db.update(companies).set({ website: 'https://example.com' }).where(eq(companies.id, s.alpha));
    await expectOutreach('a website that ties every prospect of the domain');
    await app.db.delete(companies).where(eq(companies.id, s.gamma));
    await expectOutreach('a company deleted');

    // Many counts in one statement (more than 20 contacts: one statement, not one by one), then all
    // of one contact's deleted with the contact.
    const made = await app.db
      .insert(crmContacts)
      .values(
        Array.from({ length: 25 }, (_, i) => ({
          clientId: s.clientId,
          integrationId: crm.id,
          externalId: randomUUID(),
          firstName: `Bulk${i}`,
          lastName: 'Contact',
          email: `bulk${i}@example.com`,
          prospectId: i % 2 ? s.avery.prospectId : null,
          accountId: null,
        })),
      )
      .returning({ id: crmContacts.id, externalId: crmContacts.externalId });
    await app.db.insert(crmActivityCounts).values(
      made.map((c, i) => ({
        clientId: s.clientId,
        integrationId: crm.id,
        contactExternalId: c.externalId,
        contactId: c.id,
        activityType: i % 3 ? 'Call' : 'Email',
        count: i + 1,
        lastActivityAt: daysAgo(i % 7),
      })),
    );
    await expectOutreach('25 contacts’ counts in one statement');
    await app.db.delete(crmContacts).where(eq(crmContacts.id, made[1]!.id));
    await expectOutreach('a contact deleted');
    expect(
      rowsOf(
        await app.db.execute(
          sql`select count(*)::int as n from account_outreach where contact_id = ${made[1]!.id}`,
        ),
      )[0]!.n,
    ).toBe(0);
    // The other client's rows are its own throughout.
    expect((await stored()).some((r) => r.startsWith(foreign.clientId))).toBe(true);
  });
});
