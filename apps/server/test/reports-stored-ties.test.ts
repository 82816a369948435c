import { randomUUID } from 'node:crypto';
import { eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { companies, crmAccounts, crmContacts, prospects } from '../src/db/schema/index.ts';
import { rowsOf } from '../src/modules/reports/repository.ts';
import { createTestApp } from './helpers.ts';
import { signedIn } from './http.ts';
import { RANGE, standardScene } from './reports-world.ts';

/**
 * The stored ties (docs/reports.md "Stored ties", migration 0037): `prospect_account_ties` must hold
 * exactly the pairs the attribution model's four ties give from the facts of the moment — the
 * prospect's company, its CRM contacts' accounts' companies, the CRM accounts of its e-mail's domain,
 * the companies whose website is its e-mail's domain — whatever is written, changed or deleted, one
 * row or many at a time. The oracle below computes them from the facts, as the reports did before.
 */
describe('stored prospect–account ties (issue 17)', async () => {
  const app = await createTestApp();
  const s = await standardScene(app, 'Acme');
  const foreign = await standardScene(app, 'Foreign');
  const { browser: owner } = await signedIn(app, { [s.clientId]: 'purple_owner' });

  const stored = async () =>
    rowsOf(
      await app.db.execute(sql`select client_id::text as c, prospect_id::text as p, company_id::text as a
        from prospect_account_ties order by 1, 2, 3`),
    ).map((r) => `${r.c} ${r.p} ${r.a}`);
  const oracle = async () =>
    rowsOf(
      await app.db
        .execute(sql`select client_id::text as c, prospect_id::text as p, company_id::text as a from (
        select p.client_id, p.id as prospect_id, p.company_id from prospects p where p.company_id is not null
        union
        select p.client_id, p.id, a.company_id from prospects p
          join crm_contacts cc on cc.prospect_id = p.id and cc.client_id = p.client_id and not cc.is_deleted
          join crm_accounts a on a.id = cc.account_id and not a.is_deleted
         where a.company_id is not null
        union
        select p.client_id, p.id, a.company_id from prospects p
          join crm_accounts a on a.client_id = p.client_id and not a.is_deleted
           and a.domain = lower(split_part(p.email, '@', 2))
         where lower(split_part(p.email, '@', 2)) <> '' and a.company_id is not null
        union
        select p.client_id, p.id, c.id from prospects p
          join companies c on c.client_id = p.client_id
           and lower(regexp_replace(regexp_replace(c.website, '^[a-z][a-z0-9+.-]*://', '', 'i'),
                                    '^www[0-9]*[.]|[/:?#].*$', '', 'g')) = lower(split_part(p.email, '@', 2))
         where coalesce(c.website, '') <> '' and lower(split_part(p.email, '@', 2)) <> ''
      ) x order by 1, 2, 3`),
    ).map((r) => `${r.c} ${r.p} ${r.a}`);
  const expectTies = async (when: string) => {
    const want = await oracle();
    expect(want.length, `${when}: the oracle has ties to compare`).toBeGreaterThan(0);
    expect(await stored(), when).toEqual(want);
  };
  const tiesOf = async (prospectId: string) =>
    rowsOf(
      await app.db.execute(sql`select company_id::text as a from prospect_account_ties
        where prospect_id = ${prospectId} order by 1`),
    ).map((r) => String(r.a));

  it('holds the four ties as companies, CRM accounts, contacts and prospects change, one row or many', async () => {
    await expectTies('the scenes');
    // Avery's ties: her company Alpha (and Alpha's CRM account through her contact).
    expect(await tiesOf(s.avery.prospectId)).toEqual([s.alpha]);

    const [{ fileIntegration, crmIntegration }] = rowsOf(
      await app.db
        .execute(sql`select (select integration_id from companies where id = ${s.alpha}) as "fileIntegration",
        (select integration_id from crm_accounts where company_id = ${s.alpha}) as "crmIntegration"`),
    ) as [{ fileIntegration: number; crmIntegration: number }];

    // A company's website takes every prospect of its domain (the scene's e-mails are @example.com).
    await app.db
      .update(companies)
      .set({ website: 'https://www.Example.com/about' })
      .where(eq(companies.id, s.gamma));
    await expectTies('a website set to the prospects’ domain');
    expect(await tiesOf(s.avery.prospectId)).toEqual([s.alpha, s.gamma].sort());
    await app.db.update(companies).set({ website: 'gamma.example' }).where(eq(companies.id, s.gamma));
    await expectTies('the website changed again');
    expect(await tiesOf(s.avery.prospectId)).toEqual([s.alpha]);

    // A new company of that domain, and a new one in another client: each client's own prospects only.
    const [fresh] = await app.db
      .insert(companies)
      .values({
        clientId: s.clientId,
        integrationId: fileIntegration,
        externalId: randomUUID(),
        name: 'Fresh',
        website: 'example.com',
      })
      .returning();
    await expectTies('a new company of the domain');
    expect(await tiesOf(s.bo.prospectId)).toContain(fresh!.id);
    expect(await tiesOf(foreign.bo.prospectId)).not.toContain(fresh!.id);

    // CRM accounts: a domain, a deletion flag, another company, a new account, a deleted one.
    const [delta] = await app.db.select().from(crmAccounts).where(eq(crmAccounts.companyId, s.delta));
    await app.db.update(crmAccounts).set({ domain: 'example.com' }).where(eq(crmAccounts.id, delta!.id));
    await expectTies('an account’s domain');
    expect(await tiesOf(s.cleo.prospectId)).toContain(s.delta);
    await app.db.update(crmAccounts).set({ isDeleted: true }).where(eq(crmAccounts.id, delta!.id));
    await expectTies('the account deleted in the CRM');
    await app.db
      .update(crmAccounts)
      .set({ isDeleted: false, companyId: s.beta })
      .where(eq(crmAccounts.id, delta!.id));
    await expectTies('the account moved to another company');
    expect(await tiesOf(s.cleo.prospectId)).toContain(s.beta);
    // Another domain: the old domain's prospects lose the tie.
    await app.db.update(crmAccounts).set({ domain: 'elsewhere.test' }).where(eq(crmAccounts.id, delta!.id));
    await expectTies('the account’s domain changed');
    expect(await tiesOf(s.cleo.prospectId)).not.toContain(s.beta);
    const alphaAccount = rowsOf(
      await app.db.execute(sql`select id from crm_accounts where company_id = ${s.alpha}`),
    )[0]!.id as string;
    await app.db.update(crmAccounts).set({ companyId: s.gamma }).where(eq(crmAccounts.id, alphaAccount));
    await expectTies('Alpha’s account tied to Gamma (its contacts follow)');
    expect(await tiesOf(s.blake.prospectId)).toEqual(expect.arrayContaining([s.alpha, s.gamma]));
    await app.db.insert(crmAccounts).values([
      {
        clientId: s.clientId,
        integrationId: crmIntegration,
        externalId: randomUUID(),
        name: 'New 1',
        companyId: s.alpha,
        domain: 'example.com',
      },
      {
        clientId: s.clientId,
        integrationId: crmIntegration,
        externalId: randomUUID(),
        name: 'New 2',
        companyId: s.beta,
        domain: 'other.test',
      },
    ]);
    await expectTies('two accounts inserted at once');
    await app.db.delete(crmAccounts).where(eq(crmAccounts.id, delta!.id));
    await expectTies('an account deleted');

    // CRM contacts: tied to a prospect, to another account, deleted in the CRM, deleted.
    await app.db.update(crmContacts).set({ prospectId: s.bo.prospectId }).where(eq(crmContacts.id, s.casey));
    await expectTies('a contact tied to a prospect');
    expect(await tiesOf(s.bo.prospectId)).toContain(s.gamma);
    await app.db.update(crmContacts).set({ isDeleted: true }).where(eq(crmContacts.id, s.casey));
    await expectTies('the contact deleted in the CRM');
    await app.db
      .update(crmContacts)
      .set({ isDeleted: false, accountId: null })
      .where(eq(crmContacts.id, s.casey));
    await expectTies('the contact without an account');
    await app.db.delete(crmContacts).where(eq(crmContacts.id, s.averyContact));
    await expectTies('a contact deleted');

    // Prospects: another e-mail domain, no company, many inserted and deleted at once.
    await app.db
      .update(prospects)
      .set({ email: 'avery@other.test', companyId: null })
      .where(eq(prospects.id, s.avery.prospectId));
    await expectTies('a prospect’s e-mail and company');
    expect(await tiesOf(s.avery.prospectId)).toEqual(
      rowsOf(
        await app.db.execute(sql`select company_id::text as a from crm_accounts where domain = 'other.test'`),
      ).map((r) => String(r.a)),
    );
    const many = await app.db
      .insert(prospects)
      .values(
        Array.from({ length: 40 }, (_, i) => ({
          clientId: s.clientId,
          integrationId: fileIntegration,
          externalId: randomUUID(),
          firstName: `Bulk${i}`,
          lastName: 'Row',
          email: `bulk${i}@${i % 2 ? 'example.com' : 'other.test'}`,
          companyId: i % 3 ? s.beta : null,
        })),
      )
      .returning({ id: prospects.id });
    await expectTies('40 prospects inserted in one statement');
    // More than 20 prospects of one domain: their ties are computed in one statement, not one by one.
    const domainCount = rowsOf(
      await app.db.execute(sql`select count(*)::int as n from prospects
        where client_id = ${s.clientId} and email like '%@example.com'`),
    )[0]!.n as number;
    expect(domainCount).toBeGreaterThan(20);
    await app.db.update(companies).set({ website: 'http://example.com' }).where(eq(companies.id, s.gamma));
    await expectTies('a website that takes more than 20 prospects');
    await app.db.delete(prospects).where(
      inArray(
        prospects.id,
        many.slice(0, 20).map((p) => p.id),
      ),
    );
    await expectTies('20 of them deleted in one statement');

    // A company deleted: its prospects' and accounts' references are cleared, and it ties no one.
    await app.db.delete(companies).where(eq(companies.id, s.beta));
    await expectTies('a company deleted');
    expect(await tiesOf(s.bo.prospectId)).not.toContain(s.beta);
  });

  it('the reports read them: a website set to a prospect’s domain puts the prospect in that account', async () => {
    const buyers = async () => {
      const res = await owner.get(`/v1/report/client/${s.clientId}/buying_group/${s.delta}?${RANGE}`);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().roles as { members: { prospect_id: string | null }[] }[]).flatMap((g) =>
        g.members.map((m) => m.prospect_id),
      );
    };
    const [deltaProspect] = await app.db
      .insert(prospects)
      .values({
        clientId: s.clientId,
        integrationId: rowsOf(
          await app.db.execute(sql`select integration_id from companies where id = ${s.delta}`),
        )[0]!.integration_id as number,
        externalId: randomUUID(),
        firstName: 'Dana',
        lastName: 'Domain',
        email: 'dana@delta-domain.test',
      })
      .returning({ id: prospects.id });
    expect(await buyers()).not.toContain(deltaProspect!.id);
    await app.db
      .update(companies)
      .set({ website: 'https://www.delta-domain.test/' })
      .where(eq(companies.id, s.delta));
    expect(await buyers()).toContain(deltaProspect!.id);
    await app.db
      .update(prospects)
      .set({ email: 'dana@elsewhere.test' })
      .where(eq(prospects.id, deltaProspect!.id));
    expect(await buyers()).not.toContain(deltaProspect!.id);
  });
});
