import { and, count, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  crmAccounts,
  crmContacts,
  crmOwners,
  opportunities,
  opportunityContacts,
  opportunityStageHistory,
} from '../../db/schema/index.ts';
import {
  DEMO_CLIENTS,
  DEMO_EMAIL,
  DEMO_PASSWORD,
  seedDemo,
  seedDemoCrmData,
  seedDemoData,
} from '../../db/seed.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser } from '../../../test/http.ts';

describe('demo CRM data: stages and opportunities over six months with stage history (issue 16)', async () => {
  const app = await createTestApp();
  await seedDemo(app.db);
  await seedDemoData(app);

  it('adds them once per demo data client, tied to the demo companies, readable through the API', async () => {
    const first = await seedDemoCrmData(app.db);
    expect(first.opportunities).toBeGreaterThanOrEqual(160);
    expect(await seedDemoCrmData(app.db)).toEqual({ opportunities: 0 });

    const demo = await new Browser(app).signIn(DEMO_EMAIL, DEMO_PASSWORD);
    for (const client of [DEMO_CLIENTS.agency, DEMO_CLIENTS.acme]) {
      demo.clientId = client.id;
      const integrations = (await demo.get(`/v1/rest/client/${client.id}/integrations`)).json();
      expect(integrations.map((i: { source: string }) => i.source).sort()).toEqual([
        'fileforce',
        'salesforce',
      ]);
      const stages = (await demo.get(`/v1/rest/client/${client.id}/crm/opportunity/stage`)).json();
      expect(stages.map((s: { key: string }) => s.key)).toContain('Closed Won');
      expect(stages.filter((s: { is_won: boolean }) => s.is_won)).toHaveLength(1);
      expect((await demo.get(`/v1/rest/client/${client.id}/crm/record_type`)).json()).toHaveLength(2);
      const valuable = (await demo.get(`/v1/rest/client/${client.id}/pipeline/stages/valuable`)).json();
      expect(valuable.stages.map((s: { key: string }) => s.key)).toEqual([
        'Proposal/Price Quote',
        'Negotiation/Review',
        'Closed Won',
      ]);
      expect(
        (await demo.get(`/v1/rest/client/${client.id}/opportunity/selected_stages`)).json().stage_ids,
      ).toHaveLength(6);
      expect((await demo.get('/v1/rest/crm_list')).json().total).toBe(2);

      const crmOpps = and(eq(opportunities.clientId, client.id), isNotNull(opportunities.stageId));
      const [stats] = await app.db
        .select({
          n: count(),
          withCompany: sql<number>`count(${opportunities.companyId})::int`,
          won: sql<number>`count(*) filter (where ${opportunities.isWon})::int`,
          lost: sql<number>`count(*) filter (where ${opportunities.isClosed} and not ${opportunities.isWon})::int`,
          stages: sql<number>`count(distinct ${opportunities.stageId})::int`,
          oldestDays: sql<number>`extract(day from now() - min(${opportunities.crmCreatedAt}))::int`,
        })
        .from(opportunities)
        .where(crmOpps);
      expect(stats!.n).toBeGreaterThanOrEqual(60);
      expect(stats!.n).toBeLessThanOrEqual(120);
      expect(stats!.withCompany).toBe(stats!.n);
      expect(stats!.won).toBeGreaterThan(0);
      expect(stats!.lost).toBeGreaterThan(0);
      expect(stats!.stages).toBeGreaterThanOrEqual(6);
      expect(stats!.oldestDays).toBeGreaterThan(120);
      expect(stats!.oldestDays).toBeLessThanOrEqual(181);

      // Every opportunity has a history from its creation to its current stage, in time order.
      const history = await app.db
        .select({
          opp: opportunityStageHistory.opportunityId,
          to: opportunityStageHistory.toStageId,
          at: opportunityStageHistory.changedAt,
          created: opportunities.crmCreatedAt,
          current: opportunities.stageId,
        })
        .from(opportunityStageHistory)
        .innerJoin(opportunities, eq(opportunities.id, opportunityStageHistory.opportunityId))
        .where(eq(opportunityStageHistory.clientId, client.id))
        .orderBy(opportunityStageHistory.opportunityId, opportunityStageHistory.changedAt);
      const byOpp = new Map<string, typeof history>();
      for (const h of history) byOpp.set(h.opp, [...(byOpp.get(h.opp) ?? []), h]);
      expect(byOpp.size).toBe(stats!.n);
      for (const moves of byOpp.values()) {
        expect(moves[0]!.at.getTime()).toBe(moves[0]!.created!.getTime());
        expect(moves.at(-1)!.to).toBe(moves[0]!.current);
        expect(moves.at(-1)!.at.getTime()).toBeLessThan(Date.now());
      }
      const [firsts] = await app.db
        .select({ n: count() })
        .from(opportunityStageHistory)
        .where(
          and(eq(opportunityStageHistory.clientId, client.id), isNull(opportunityStageHistory.fromStage)),
        );
      expect(firsts!.n).toBe(stats!.n);

      // Owners are the client's sales reps; accounts and contacts map to companies and prospects.
      const [unmappedOwners] = await app.db
        .select({ n: count() })
        .from(crmOwners)
        .where(and(eq(crmOwners.clientId, client.id), isNull(crmOwners.salesRepId)));
      expect(unmappedOwners!.n).toBe(0);
      const [accounts] = await app.db
        .select({ n: count(), domains: sql<number>`count(${crmAccounts.domain})::int` })
        .from(crmAccounts)
        .where(eq(crmAccounts.clientId, client.id));
      expect(accounts!.domains).toBe(accounts!.n);
      const [contacts] = await app.db
        .select({ n: count(), prospects: sql<number>`count(${crmContacts.prospectId})::int` })
        .from(crmContacts)
        .where(eq(crmContacts.clientId, client.id));
      expect(contacts!.n).toBeGreaterThan(20);
      expect(contacts!.prospects).toBe(contacts!.n);
      // Contact roles on the opportunities (the reports' buying groups), one primary per opportunity.
      const [roles] = await app.db
        .select({
          n: count(),
          primaries: sql<number>`count(*) filter (where ${opportunityContacts.isPrimary})::int`,
        })
        .from(opportunityContacts)
        .where(eq(opportunityContacts.clientId, client.id));
      expect(roles!.n).toBeGreaterThan(stats!.n);
      expect(roles!.primaries).toBeLessThanOrEqual(stats!.n);
    }
    demo.clientId = DEMO_CLIENTS.globex.id;
    expect(
      (await demo.get(`/v1/rest/client/${DEMO_CLIENTS.globex.id}/crm/opportunity/stage`)).json(),
    ).toEqual([]);
  });
});
