import { createHash } from 'node:crypto';
import { and, asc, eq, isNotNull } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import {
  companies,
  crmAccounts,
  crmActivityCounts,
  crmClientSettings,
  crmContacts,
  crmIntegrationSettings,
  crmListMembers,
  crmLists,
  crmOwners,
  crmRecordTypes,
  crmStages,
  integrations,
  opportunities,
  opportunityContacts,
  opportunityStageHistory,
  prospects,
  salesReps,
} from '../../db/schema/index.ts';
import { domainOf } from './match.ts';

const DAY_MS = 86_400_000;

function must<T>(x: T | undefined): T {
  if (x === undefined) throw new Error('seed: a row it just made is missing');
  return x;
}
const pickAt = <T>(xs: readonly T[], i: number): T => must(xs[i % xs.length]);
export const DEMO_CRM_ACCOUNT_NAME = 'Salesforce demo org (sample data)';

/** A small deterministic generator, so every fresh demo looks the same. */
function prng(seed: string): () => number {
  let s = createHash('sha256').update(seed).digest().readUInt32LE(0) || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4_294_967_296;
  };
}

/** Salesforce's default opportunity stages (OpportunityStage), in SortOrder. */
export const DEMO_STAGES = [
  { key: 'Prospecting', probability: 10, closed: false, won: false },
  { key: 'Qualification', probability: 20, closed: false, won: false },
  { key: 'Needs Analysis', probability: 30, closed: false, won: false },
  { key: 'Value Proposition', probability: 50, closed: false, won: false },
  { key: 'Proposal/Price Quote', probability: 75, closed: false, won: false },
  { key: 'Negotiation/Review', probability: 90, closed: false, won: false },
  { key: 'Closed Won', probability: 100, closed: true, won: true },
  { key: 'Closed Lost', probability: 0, closed: true, won: false },
] as const;
const OPEN_STAGES = DEMO_STAGES.filter((s) => !s.closed).length;

const CONTACT_ROLES = ['Decision Maker', 'Economic Buyer', 'Evaluator', 'Technical Buyer', 'Influencer'];

const PRODUCTS = ['Fleet pilot', 'Annual renewal', 'Cold chain add-on', 'Warehouse robotics', 'Expansion'];

/** An 18-character id shaped like Salesforce's (key prefix + org-unique digits). */
const sfId = (prefix: string, clientIdx: number, n: number) =>
  `${prefix}D${String(clientIdx).padStart(2, '0')}${String(n).padStart(9, '0')}AAA`.slice(0, 18);

/**
 * Demo CRM data (issue 16 "Demo") for the demo data clients: a demo Salesforce connection (no
 * credentials: nothing to sync, so it never calls out), Salesforce's stage catalogue, two record
 * types, owners mapped to the client's sales reps by e-mail, accounts on the demo companies (by
 * domain) and contacts on the demo prospects (by e-mail), ~90 opportunities created over the last six
 * months with their stage history, two campaigns with members, activity counts, and the selected
 * and valuable stages. Run after the prospects import. A client with a Salesforce connection
 * already is left alone, so restarts add nothing.
 */
export async function seedDemoCrm(
  db: Db,
  clientIds: readonly string[],
  now: Date = new Date(),
): Promise<{ opportunities: number }> {
  let made = 0;
  for (const [clientIdx, clientId] of clientIds.entries()) {
    const [has] = await db
      .select({ id: integrations.id })
      .from(integrations)
      .where(and(eq(integrations.clientId, clientId), eq(integrations.source, 'salesforce')));
    if (has) continue;
    const rand = prng(`crm-demo:${clientId}`);
    const pick = <T>(xs: readonly T[]): T => {
      const x = xs[Math.floor(rand() * xs.length)];
      if (x === undefined) throw new Error('seed: pick from nothing');
      return x;
    };
    const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

    made += await db.transaction(async (tx) => {
      const [integration] = await tx
        .insert(integrations)
        .values({
          clientId,
          source: 'salesforce',
          isActive: true,
          accountName: DEMO_CRM_ACCOUNT_NAME,
          lastSyncedAt: now,
        })
        .returning({ id: integrations.id });
      if (!integration) throw new Error('seed: no integration');
      const integrationId = integration.id;
      await tx.insert(crmIntegrationSettings).values({
        integrationId,
        clientId,
        outreachActivityTypes: ['Call', 'Email'],
        meetingActivityTypes: ['Meeting'],
      });

      const stages = await tx
        .insert(crmStages)
        .values(
          DEMO_STAGES.map((s, i) => ({
            clientId,
            integrationId,
            pipelineLabel: 'Opportunities', // as the Salesforce adapter names its one pipeline
            key: s.key,
            label: s.key,
            sortOrder: i + 1,
            probability: s.probability,
            isClosed: s.closed,
            isWon: s.won,
          })),
        )
        .returning({ id: crmStages.id, key: crmStages.key });
      const stageId = new Map(stages.map((s) => [s.key, s.id]));
      const recordTypes = await tx
        .insert(crmRecordTypes)
        .values([
          {
            clientId,
            integrationId,
            externalId: sfId('012', clientIdx, 1),
            name: 'New Business',
            developerName: 'New_Business',
          },
          {
            clientId,
            integrationId,
            externalId: sfId('012', clientIdx, 2),
            name: 'Renewal',
            developerName: 'Renewal',
          },
        ])
        .returning({ id: crmRecordTypes.id });

      const reps = await tx
        .select()
        .from(salesReps)
        .where(and(eq(salesReps.clientId, clientId), isNotNull(salesReps.email)))
        .orderBy(asc(salesReps.email));
      const owners = reps.length
        ? await tx
            .insert(crmOwners)
            .values(
              reps.map((r, i) => ({
                clientId,
                integrationId,
                externalId: sfId('005', clientIdx, i + 1),
                firstName: r.firstName,
                lastName: r.lastName,
                email: r.email,
                salesRepId: r.id,
              })),
            )
            .returning({ id: crmOwners.id, externalId: crmOwners.externalId })
        : [];

      const companyRows = await tx
        .select({ id: companies.id, name: companies.name, website: companies.website })
        .from(companies)
        .where(eq(companies.clientId, clientId))
        .orderBy(asc(companies.name), asc(companies.id));
      const accounts = companyRows.length
        ? await tx
            .insert(crmAccounts)
            .values(
              companyRows.map((c, i) => ({
                clientId,
                integrationId,
                externalId: sfId('001', clientIdx, i + 1),
                name: c.name,
                website: c.website,
                domain: domainOf(c.website),
                companyId: c.id,
                ownerExternalId: owners[i % Math.max(1, owners.length)]?.externalId ?? null,
                crmUpdatedAt: now,
              })),
            )
            .returning({
              id: crmAccounts.id,
              externalId: crmAccounts.externalId,
              companyId: crmAccounts.companyId,
            })
        : [];
      const accountOfCompany = new Map(accounts.map((a) => [a.companyId, a]));

      const people = await tx
        .select()
        .from(prospects)
        .where(and(eq(prospects.clientId, clientId), isNotNull(prospects.email)))
        .orderBy(asc(prospects.email));
      const contacts = people.length
        ? await tx
            .insert(crmContacts)
            .values(
              people.map((p, i) => {
                const account = p.companyId ? accountOfCompany.get(p.companyId) : undefined;
                return {
                  clientId,
                  integrationId,
                  externalId: sfId('003', clientIdx, i + 1),
                  email: p.email,
                  firstName: p.firstName,
                  lastName: p.lastName,
                  title: p.title,
                  accountExternalId: account?.externalId ?? null,
                  accountId: account?.id ?? null,
                  prospectId: p.id,
                  crmUpdatedAt: now,
                };
              }),
            )
            .returning({ id: crmContacts.id, externalId: crmContacts.externalId })
        : [];

      // Two campaigns, each with about half of the contacts.
      for (const [n, name] of ['Q3 Webinar attendees', 'Logistics Expo 2026 leads'].entries()) {
        const members = contacts.filter((_, i) => (i + n) % 2 === 0);
        const [list] = await tx
          .insert(crmLists)
          .values({
            clientId,
            integrationId,
            externalId: sfId('701', clientIdx, n + 1),
            name,
            kind: 'campaign',
            memberType: 'contact',
            memberCount: members.length,
            crmUpdatedAt: now,
          })
          .returning({ id: crmLists.id });
        if (list && members.length) {
          await tx.insert(crmListMembers).values(
            members.map((c) => ({
              clientId,
              listId: list.id,
              memberExternalId: c.externalId,
              contactId: c.id,
              status: pick(['Sent', 'Responded', 'Registered', 'Attended']),
              addedAt: new Date(now.getTime() - between(10, 120) * DAY_MS),
            })),
          );
        }
      }

      const counts = contacts.flatMap((c) =>
        (['Call', 'Email', 'Meeting', 'Task'] as const).flatMap((type) => {
          const n = type === 'Meeting' ? between(0, 3) : between(0, 12);
          return n
            ? [
                {
                  clientId,
                  integrationId,
                  contactExternalId: c.externalId,
                  contactId: c.id,
                  activityType: type,
                  count: n,
                  lastActivityAt: new Date(now.getTime() - between(1, 90) * DAY_MS),
                },
              ]
            : [];
        }),
      );
      if (counts.length) await tx.insert(crmActivityCounts).values(counts);

      if (!accounts.length) return 0;
      const opps: (typeof opportunities.$inferInsert)[] = [];
      const moves: { opp: number; from: string | null; to: string; at: Date }[] = [];
      const total = between(80, 100);
      for (let i = 0; i < total; i++) {
        const company = pickAt(companyRows, i);
        const account = accountOfCompany.get(company.id);
        const created = new Date(now.getTime() - between(1, 180) * DAY_MS - between(0, 86_399) * 1000);
        // How far it got: older opportunities went further, and a third of those closed.
        const ageDays = (now.getTime() - created.getTime()) / DAY_MS;
        const reach = Math.min(OPEN_STAGES - 1, Math.floor(rand() * (1 + ageDays / 25)));
        const closes = ageDays > 30 && rand() < 0.45;
        const path: string[] = DEMO_STAGES.slice(0, reach + 1).map((s) => s.key);
        if (closes) path.push(rand() < 0.55 ? 'Closed Won' : 'Closed Lost');
        let at = created;
        const steps: { from: string | null; to: string; at: Date }[] = [];
        for (const [k, stage] of path.entries()) {
          if (k > 0) {
            const gap = between(2, Math.max(3, Math.floor(ageDays / path.length)));
            at = new Date(Math.min(now.getTime() - 60_000, at.getTime() + gap * DAY_MS));
          }
          steps.push({ from: k === 0 ? null : (path[k - 1] ?? null), to: stage, at });
        }
        const final = DEMO_STAGES.find((s) => s.key === path.at(-1)) ?? DEMO_STAGES[0];
        for (const s of steps) moves.push({ opp: i, ...s });
        const amount = between(50, 1200) * 10_000; // $5,000 – $120,000, in cents
        const closeDate = final.closed ? at : new Date(created.getTime() + between(45, 150) * DAY_MS);
        opps.push({
          clientId,
          integrationId,
          externalId: sfId('006', clientIdx, i + 1),
          name: `${company.name} - ${pick(PRODUCTS)}`,
          accountName: company.name,
          companyId: company.id,
          accountExternalId: account?.externalId ?? null,
          amountCents: amount,
          currency: 'USD',
          stage: final.key,
          stageId: stageId.get(final.key) ?? null,
          closeDate: closeDate.toISOString().slice(0, 10),
          crmCreatedAt: created,
          crmUpdatedAt: at,
          isClosed: final.closed,
          isWon: final.won,
          probability: final.probability,
          ownerId: owners.length ? pick(owners).id : null,
          recordTypeId: pick(recordTypes).id,
        });
      }
      const inserted = await tx
        .insert(opportunities)
        .values(opps)
        .returning({ id: opportunities.id, externalId: opportunities.externalId });
      const oppId = new Map(inserted.map((r) => [r.externalId, r.id]));
      const history = moves.map((m, n) => ({
        clientId,
        opportunityId: must(oppId.get(pickAt(opps, m.opp).externalId)),
        externalId: sfId('008', clientIdx, n + 1),
        fromStageId: m.from ? (stageId.get(m.from) ?? null) : null,
        toStageId: stageId.get(m.to) ?? null,
        fromStage: m.from,
        toStage: m.to,
        changedAt: m.at,
      }));
      for (let i = 0; i < history.length; i += 500) {
        await tx.insert(opportunityStageHistory).values(history.slice(i, i + 500));
      }

      // Contact roles (Salesforce OpportunityContactRole): up to three people of the account on each
      // opportunity, the first primary, so the reports' buying groups group people by role.
      const contactIndex = new Map(contacts.map((c) => [c.externalId, c.id]));
      const contactsOfCompany = new Map<string, string[]>();
      for (const [i, p] of people.entries()) {
        const id = contactIndex.get(sfId('003', clientIdx, i + 1));
        if (p.companyId && id)
          contactsOfCompany.set(p.companyId, [...(contactsOfCompany.get(p.companyId) ?? []), id]);
      }
      const roles = opps.flatMap((o, k) =>
        (contactsOfCompany.get(o.companyId ?? '') ?? []).slice(0, 3).map((contactId, j) => ({
          clientId,
          opportunityId: must(oppId.get(o.externalId)),
          contactId,
          role: must(CONTACT_ROLES[(k + j) % CONTACT_ROLES.length]),
          isPrimary: j === 0,
        })),
      );
      for (let i = 0; i < roles.length; i += 500) {
        await tx
          .insert(opportunityContacts)
          .values(roles.slice(i, i + 500))
          .onConflictDoNothing();
      }

      // Reports count every stage from Qualification on; a move into Proposal or later is progress.
      await tx
        .insert(crmClientSettings)
        .values({
          clientId,
          selectedStageIds: DEMO_STAGES.slice(1, 7).map((s) => must(stageId.get(s.key))),
          valuableStageIds: ['Proposal/Price Quote', 'Negotiation/Review', 'Closed Won'].map((k) =>
            must(stageId.get(k)),
          ),
        })
        .onConflictDoNothing();
      return opps.length;
    });
  }
  return { opportunities: made };
}
