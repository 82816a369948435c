import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import {
  companies,
  crmAccounts,
  crmActivityCounts,
  crmContacts,
  crmIntegrationSettings,
  crmStages,
  engagementEvents,
  integrations,
  landingPages,
  opportunities,
  opportunityContacts,
  opportunityStageHistory,
  prospects,
  targets,
} from '../src/db/schema/index.ts';
import { makeCadence, makeContent, makeIntegration, makeRep } from './engagement.ts';
import { makeClient } from './http.ts';

/**
 * A client's reporting world for the account, signal and content report tests (issue 17): CRM
 * stages, outreach and meeting definitions, companies with prospects, CRM contacts and activity
 * counts, targets with engagement events on ads, opportunities with stage moves and contact roles.
 */
export const DAY = 86_400_000;
export const NOW = Date.now();
export const daysAgo = (n: number) => new Date(NOW - n * DAY);
export const epoch = (d: Date) => Math.floor(d.getTime() / 1000);
/** The last 60 days, and a day ahead. */
export const RANGE = `from=${epoch(daysAgo(60))}&to=${epoch(new Date(NOW + DAY))}`;
export const fieldsOf = (res: { json(): unknown }) =>
  ((res.json() as { errors?: { field: string }[] }).errors ?? []).map((e) => e.field);

const STAGES = ['Prospecting', 'Qualification', 'Proposal', 'Closed Won', 'Closed Lost'] as const;
type Stage = (typeof STAGES)[number];
type EventType = 'impression' | 'click' | 'view';

export async function reportWorld(app: FastifyInstance, clientName: string) {
  const clientId = await makeClient(app, clientName);
  const fileIntegration = await makeIntegration(app, clientId);
  const [crm] = await app.db.insert(integrations).values({ clientId, source: 'salesforce' }).returning();
  const crmId = crm!.id;
  await app.db.insert(crmIntegrationSettings).values({
    integrationId: crmId,
    clientId,
    outreachActivityTypes: ['Call', 'Email'],
    meetingActivityTypes: ['Meeting'],
  });
  const stageRows = await app.db
    .insert(crmStages)
    .values(
      STAGES.map((key, n) => ({
        clientId,
        integrationId: crmId,
        key,
        label: key,
        sortOrder: n + 1,
        isClosed: key.startsWith('Closed'),
        isWon: key === 'Closed Won',
      })),
    )
    .returning();
  const stage = Object.fromEntries(stageRows.map((s) => [s.key, s.id])) as Record<Stage, string>;
  const repId = await makeRep(app, clientId, { firstName: 'Maya' });
  const cadenceId = await makeCadence(app, clientId, { name: `${clientName} outbound` });

  async function company(name: string, website?: string) {
    const [c] = await app.db
      .insert(companies)
      .values({ clientId, integrationId: fileIntegration, externalId: randomUUID(), name, website })
      .returning();
    return c!.id;
  }
  async function account(companyId: string, name: string) {
    const [a] = await app.db
      .insert(crmAccounts)
      .values({ clientId, integrationId: crmId, externalId: randomUUID(), name, companyId })
      .returning();
    return a!.id;
  }
  /** A prospect of the company with a target in the cadence (rep Maya). */
  async function prospect(
    companyId: string | null,
    firstName: string,
    lastName: string,
    opts: { title?: string; superDate?: Date } = {},
  ) {
    const [p] = await app.db
      .insert(prospects)
      .values({
        clientId,
        integrationId: fileIntegration,
        externalId: randomUUID(),
        firstName,
        lastName,
        title: opts.title ?? 'Operations Lead',
        email: `${firstName.toLowerCase()}.${randomUUID().slice(0, 6)}@example.com`,
        companyId,
      })
      .returning();
    const [t] = await app.db
      .insert(targets)
      .values({
        clientId,
        cadenceId,
        prospectId: p!.id,
        salesRepId: repId,
        superDate: opts.superDate ?? null,
      })
      .returning();
    return { prospectId: p!.id, targetId: t!.id };
  }
  async function events(targetId: string, type: EventType, at: Date[], contentId: string | null = null) {
    for (const occurredAt of at) {
      await app.db
        .insert(engagementEvents)
        .values({ clientId, targetId, cadenceId, type, contentId, occurredAt });
    }
  }
  /** A CRM contact (of a CRM account and/or a prospect) with activity counts per type. */
  async function contact(
    opts: { accountId?: string; prospectId?: string; name?: string },
    activities: Record<string, { count: number; last: Date }> = {},
  ) {
    const externalId = randomUUID();
    const [first, last] = (opts.name ?? 'Casey Contact').split(' ');
    const [c] = await app.db
      .insert(crmContacts)
      .values({
        clientId,
        integrationId: crmId,
        externalId,
        firstName: first ?? '',
        lastName: last ?? '',
        email: `${(first ?? 'c').toLowerCase()}.${randomUUID().slice(0, 6)}@example.com`,
        accountId: opts.accountId ?? null,
        prospectId: opts.prospectId ?? null,
      })
      .returning();
    for (const [activityType, a] of Object.entries(activities)) {
      await app.db.insert(crmActivityCounts).values({
        clientId,
        integrationId: crmId,
        contactExternalId: externalId,
        contactId: c!.id,
        activityType,
        count: a.count,
        lastActivityAt: a.last,
      });
    }
    return c!.id;
  }
  async function deal(
    companyId: string,
    opts: { name: string; amount: number; created: Date; stage?: Stage; closeDate?: Date },
  ) {
    const s = opts.stage ?? 'Prospecting';
    const [o] = await app.db
      .insert(opportunities)
      .values({
        clientId,
        integrationId: crmId,
        externalId: randomUUID(),
        name: opts.name,
        accountName: opts.name.split(' ')[0] ?? opts.name,
        companyId,
        amountCents: opts.amount,
        currency: 'USD',
        stage: s,
        stageId: stage[s],
        crmCreatedAt: opts.created,
        isClosed: s.startsWith('Closed'),
        isWon: s === 'Closed Won',
        closeDate: opts.closeDate?.toISOString().slice(0, 10),
      })
      .returning();
    return o!.id;
  }
  async function moved(opportunityId: string, from: Stage | null, to: Stage, at: Date) {
    await app.db.insert(opportunityStageHistory).values({
      clientId,
      opportunityId,
      externalId: randomUUID(),
      fromStageId: from ? stage[from] : null,
      fromStage: from,
      toStageId: stage[to],
      toStage: to,
      changedAt: at,
    });
  }
  async function role(opportunityId: string, contactId: string, name: string, isPrimary = false) {
    await app.db
      .insert(opportunityContacts)
      .values({ clientId, opportunityId, contactId, role: name, isPrimary });
  }
  async function landingPage(name: string) {
    const [lp] = await app.db
      .insert(landingPages)
      .values({
        clientId,
        name,
        landingPagePayload: { content_html: '', footer_html: '', hero_html: '', hero_img: '' },
        colors: { background: '#ffffff', text: '#000000', accent: '#000000' },
      })
      .returning();
    return lp!.id;
  }
  const ad = (title: string, landingPageId: string | null = null) =>
    makeContent(app, clientId, { title, landingPageId });

  return {
    clientId,
    cadenceId,
    crmId,
    company,
    account,
    prospect,
    events,
    contact,
    deal,
    moved,
    role,
    landingPage,
    ad,
  };
}

/**
 * The standard scene of the report tests, for one client:
 * - Alpha: Avery (engaged on ad A: 3 impressions, a click, a landing page view; super 8 days ago;
 *   CRM contact with 4 calls, the last 5 days ago, and 2 tasks) — worked by both; Blake (no
 *   engagement, contact with a role); a CRM contact without a prospect. An open opportunity moved
 *   Prospecting → Qualification 4 days ago; roles Decision Maker (Avery, primary) and Evaluator (Blake).
 * - Beta: Bo (one impression on ad B 2 days ago, super 1 day ago, never contacted) — ads only; an
 *   open opportunity.
 * - Gamma: a CRM contact (no prospect) with 2 e-mails, the last 3 days ago — outreach only.
 * - Delta: a CRM contact with meetings only (not outreach) — in neither.
 * - Cleo (no company): super 3 days ago, her last call 6 days ago (before: not contacted after).
 * - "100% Fresh" and "Under_score": companies for the search's wildcards.
 */
export async function standardScene(app: FastifyInstance, clientName: string) {
  const w = await reportWorld(app, clientName);
  const lp = await w.landingPage(`${clientName} demo page`);
  const adA = await w.ad(`${clientName} ad A`, lp);
  const adB = await w.ad(`${clientName} ad B`);

  const alpha = await w.company(`${clientName} Alpha`, 'https://alpha.example');
  const alphaAccount = await w.account(alpha, 'Alpha Inc');
  const avery = await w.prospect(alpha, 'Avery', 'Stone', { title: 'VP Operations', superDate: daysAgo(8) });
  await w.events(avery.targetId, 'impression', [daysAgo(12), daysAgo(11), daysAgo(10)], adA);
  await w.events(avery.targetId, 'click', [daysAgo(10)], adA);
  await w.events(avery.targetId, 'view', [daysAgo(10)], adA);
  const averyContact = await w.contact(
    { accountId: alphaAccount, prospectId: avery.prospectId, name: 'Avery Stone' },
    { Call: { count: 4, last: daysAgo(5) }, Task: { count: 2, last: daysAgo(6) } },
  );
  const blake = await w.prospect(alpha, 'Blake', 'Rivera', { title: 'Procurement' });
  const blakeContact = await w.contact({
    accountId: alphaAccount,
    prospectId: blake.prospectId,
    name: 'Blake Rivera',
  });
  const casey = await w.contact({ accountId: alphaAccount, name: 'Casey Noprospect' });
  const alphaDeal = await w.deal(alpha, { name: 'Alpha expansion', amount: 500_000, created: daysAgo(20) });
  await w.moved(alphaDeal, null, 'Prospecting', daysAgo(20));
  await w.moved(alphaDeal, 'Prospecting', 'Qualification', daysAgo(4));
  await w.role(alphaDeal, averyContact, 'Decision Maker', true);
  await w.role(alphaDeal, blakeContact, 'Evaluator');

  const beta = await w.company(`${clientName} Beta`);
  const bo = await w.prospect(beta, 'Bo', 'Lindqvist', { superDate: daysAgo(1) });
  await w.events(bo.targetId, 'impression', [daysAgo(2)], adB);
  const betaDeal = await w.deal(beta, { name: 'Beta platform', amount: 900_000, created: daysAgo(30) });

  const gamma = await w.company(`${clientName} Gamma`);
  const gammaAccount = await w.account(gamma, 'Gamma LLC');
  await w.contact({ accountId: gammaAccount, name: 'Gale Gamma' }, { Email: { count: 2, last: daysAgo(3) } });

  const delta = await w.company(`${clientName} Delta`);
  const deltaAccount = await w.account(delta, 'Delta Co');
  await w.contact(
    { accountId: deltaAccount, name: 'Dee Delta' },
    { Meeting: { count: 1, last: daysAgo(3) } },
  );

  // Cleo (no company) became super 3 days ago; her contact's last call was 6 days ago, before: not
  // contacted after becoming super.
  const cleo = await w.prospect(null, 'Cleo', 'Early', { superDate: daysAgo(3) });
  await w.contact(
    { prospectId: cleo.prospectId, name: 'Cleo Early' },
    { Call: { count: 1, last: daysAgo(6) } },
  );
  // An old superprospect, before the range.
  await w.prospect(null, 'Old', 'Timer', { superDate: daysAgo(100) });
  await w.company('100% Fresh');
  await w.company('Under_score');

  return {
    ...w,
    lp,
    adA,
    adB,
    alpha,
    avery,
    averyContact,
    blake,
    casey,
    alphaDeal,
    beta,
    bo,
    betaDeal,
    cleo,
    gamma,
    delta,
  };
}
