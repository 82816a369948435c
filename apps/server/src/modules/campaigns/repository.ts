import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { campaigns, cohorts, content, integrations } from '../../db/schema/index.ts';
import { randomToken } from '../../lib/crypto.ts';
import { oneRow } from '../../lib/errors.ts';
import type { Person } from './people.ts';

/** Drizzle queries of campaigns and people-based cohorts, always scoped by client (STYLE.md: repository). */

export type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;
export type CampaignRecord = typeof campaigns.$inferSelect;
export type CampaignRow = CampaignRecord & { cohortName: string; contentName: string | null };

function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

function campaignSelect(db: Tx) {
  return db
    .select({
      campaign: campaigns,
      cohortName: cohorts.name,
      contentName: content.name,
      contentTitle: content.title,
    })
    .from(campaigns)
    .innerJoin(cohorts, eq(cohorts.id, campaigns.cohortId))
    .leftJoin(content, eq(content.id, campaigns.contentId));
}
type Joined = Awaited<ReturnType<ReturnType<typeof campaignSelect>['execute']>>[number];
const toRow = (r: Joined): CampaignRow => ({
  ...r.campaign,
  cohortName: r.cohortName,
  contentName: r.campaign.contentId ? r.contentName || r.contentTitle || null : null,
});

export async function findCampaign(db: Tx, clientId: string, id: string): Promise<CampaignRow | null> {
  const [row] = await campaignSelect(db).where(and(eq(campaigns.id, id), eq(campaigns.clientId, clientId)));
  return row ? toRow(row) : null;
}

export async function lockCampaign(tx: Tx, clientId: string, id: string): Promise<CampaignRecord | null> {
  const [row] = await tx
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.id, id), eq(campaigns.clientId, clientId)))
    .for('update');
  return row ?? null;
}

export async function listCampaigns(
  db: Tx,
  clientId: string,
  q: { cohortId?: string | undefined; page: number; pageSize: number },
): Promise<{ rows: CampaignRow[]; total: number }> {
  const where = and(
    eq(campaigns.clientId, clientId),
    q.cohortId ? eq(campaigns.cohortId, q.cohortId) : undefined,
  );
  const rows = await campaignSelect(db)
    .where(where)
    .orderBy(desc(campaigns.createdAt), desc(campaigns.id))
    .limit(q.pageSize)
    .offset((q.page - 1) * q.pageSize);
  const [total] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(campaigns)
    .where(where);
  return { rows: rows.map(toRow), total: Number(total?.n ?? 0) };
}

export async function insertCampaign(tx: Tx, values: typeof campaigns.$inferInsert): Promise<string> {
  return oneRow(await tx.insert(campaigns).values(values).returning({ id: campaigns.id })).id;
}

export async function updateCampaign(
  tx: Tx,
  campaign: CampaignRecord,
  fields: Partial<Pick<CampaignRecord, 'name' | 'startsOn' | 'endsOn' | 'status' | 'contentId'>>,
): Promise<void> {
  await tx
    .update(campaigns)
    .set({ ...fields, updatedAt: new Date() })
    .where(and(eq(campaigns.id, campaign.id), eq(campaigns.clientId, campaign.clientId)));
}

/** The cohort of this client (its status and content), locked so it cannot be archived meanwhile. */
export async function cohortOf(
  tx: Tx,
  clientId: string,
  id: string,
): Promise<{ id: string; status: string; contentId: string | null } | null> {
  const [row] = rowsOf<{ id: string; status: string; content_id: string | null }>(
    await tx.execute(sql`
select c.id::text, c.status,
  (select cd.content_days->0->>'content_id' from cadence_days cd where cd.cadence_id = c.cadence_id and cd.day_number = 1) as content_id
from cohorts c where c.id = ${id} and c.client_id = ${clientId} for update of c`),
  );
  return row ? { id: row.id, status: row.status, contentId: row.content_id } : null;
}

/** The content item of this client, or null. */
export async function contentOf(
  tx: Tx,
  clientId: string,
  id: string,
): Promise<{ id: string; isArchived: boolean } | null> {
  const [row] = await tx
    .select({ id: content.id, isArchived: content.isArchived })
    .from(content)
    .where(and(eq(content.id, id), eq(content.clientId, clientId)));
  return row ?? null;
}

// ---------------------------------------------------------------------------------------------
// People-based cohorts

/** The client's fileforce integration (made if missing): people from a list are file prospects. */
async function fileIntegrationId(tx: Tx, clientId: string): Promise<number> {
  const [created] = await tx
    .insert(integrations)
    .values({ clientId, source: 'fileforce', isActive: true })
    .onConflictDoNothing({ target: [integrations.clientId, integrations.source] })
    .returning({ id: integrations.id });
  if (created) return created.id;
  return oneRow(
    await tx
      .select({ id: integrations.id })
      .from(integrations)
      .where(and(eq(integrations.clientId, clientId), eq(integrations.source, 'fileforce'))),
  ).id;
}

const nameKey = (p: Pick<Person, 'firstName' | 'lastName' | 'company'>) =>
  [p.firstName, p.lastName, p.company].map((v) => v.toLowerCase()).join('|');

/**
 * The prospect of each person, found or made, set-based: a company by name (any of the client's,
 * else a file company keyed by its lower-cased name, as the file import keys them); a person by
 * e-mail (any of the client's prospects, else a file prospect keyed by the lower-cased e-mail, as the
 * file import keys them) or by first and last name at that company (else a file prospect keyed
 * `name:{first}|{last}|{company}`). Existing prospects are not changed. Returns distinct prospect ids.
 */
export async function prospectsForPeople(tx: Tx, clientId: string, people: Person[]): Promise<string[]> {
  if (!people.length) return [];
  const integrationId = await fileIntegrationId(tx, clientId);
  const companyNames = [
    ...new Map(
      people.filter((p) => p.company).map((p) => [p.company.toLowerCase(), p.company] as const),
    ).entries(),
  ].map(([k, name]) => ({ k, name }));
  const companyIds = new Map<string, string>();
  if (companyNames.length) {
    const rows = rowsOf<{ k: string; id: string }>(
      await tx.execute(sql`
with src as (select * from jsonb_to_recordset(${JSON.stringify(companyNames)}::jsonb) as x(k text, name text)),
found as (
  select distinct on (lower(c.name)) lower(c.name) as k, c.id from companies c
  where c.client_id = ${clientId} and lower(c.name) in (select k from src)
  order by lower(c.name), c.created_at, c.id
), ins as (
  insert into companies (client_id, integration_id, external_id, name)
  select ${clientId}, ${integrationId}, src.k, src.name from src where src.k not in (select k from found)
  on conflict (integration_id, external_id) do update set updated_at = companies.updated_at
  returning external_id as k, id
)
select k, id::text from found union all select k, id::text from ins`),
    );
    for (const r of rows) companyIds.set(r.k, r.id);
  }
  const withCompany = (p: Person) => ({
    email: p.email,
    first_name: p.firstName,
    last_name: p.lastName,
    title: p.title,
    company_id: p.company ? (companyIds.get(p.company.toLowerCase()) ?? null) : null,
    k: nameKey(p),
  });
  const ids = new Set<string>();
  const byEmail = people.filter((p) => p.match === 'email').map(withCompany);
  if (byEmail.length) {
    const rows = rowsOf<{ id: string }>(
      await tx.execute(sql`
with src as (
  select * from jsonb_to_recordset(${JSON.stringify(byEmail)}::jsonb)
    as x(email text, first_name text, last_name text, title text, company_id uuid)
), found as (
  select distinct on (lower(p.email)) lower(p.email) as k, p.id from prospects p
  where p.client_id = ${clientId} and lower(p.email) in (select email from src)
  order by lower(p.email), p.is_active desc, p.created_at, p.id
), ins as (
  insert into prospects (client_id, integration_id, external_id, email, first_name, last_name, title, company_id)
  select ${clientId}, ${integrationId}, src.email, src.email, src.first_name, src.last_name, src.title, src.company_id
  from src where src.email not in (select k from found)
  on conflict (integration_id, external_id) do update set updated_at = prospects.updated_at
  returning id
)
select id::text from found union all select id::text from ins`),
    );
    for (const r of rows) ids.add(r.id);
  }
  const byName = people.filter((p) => p.match === 'name_company').map(withCompany);
  if (byName.length) {
    const rows = rowsOf<{ id: string }>(
      await tx.execute(sql`
with src as (
  select * from jsonb_to_recordset(${JSON.stringify(byName)}::jsonb)
    as x(k text, first_name text, last_name text, title text, company_id uuid)
), found as (
  select distinct on (k) lower(p.first_name) || '|' || lower(p.last_name) || '|' || lower(co.name) as k, p.id
  from prospects p join companies co on co.id = p.company_id
  where p.client_id = ${clientId}
    and lower(p.first_name) || '|' || lower(p.last_name) || '|' || lower(co.name) in (select k from src)
  order by k, p.is_active desc, p.created_at, p.id
), ins as (
  insert into prospects (client_id, integration_id, external_id, first_name, last_name, title, company_id)
  select ${clientId}, ${integrationId}, 'name:' || src.k, src.first_name, src.last_name, src.title, src.company_id
  from src where src.k not in (select k from found)
  on conflict (integration_id, external_id) do update set updated_at = prospects.updated_at
  returning id
)
select id::text from found union all select id::text from ins`),
    );
    for (const r of rows) ids.add(r.id);
  }
  return [...ids];
}

/**
 * Makes each prospect a member of the cohort: a target of the cohort's cadence (its ad and click
 * tags, by the same engine as every target) and a member row; upserts, so a repeat adds nobody twice.
 */
export async function addMembers(
  tx: Tx,
  cohort: { id: string; clientId: string; cadenceId: number },
  prospectIds: string[],
): Promise<number> {
  let written = 0;
  for (let i = 0; i < prospectIds.length; i += 1000) {
    // Tokens made here, like the cohort sync's: 144 random bits (PGlite has no pgcrypto).
    const chunk = prospectIds.slice(i, i + 1000).map((id) => ({ prospect_id: id, token: randomToken(18) }));
    const [out] = rowsOf<{ n: number }>(
      await tx.execute(sql`
with src as (
  select * from jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) as x(prospect_id uuid, token text)
), tg as (
  insert into targets (client_id, cadence_id, prospect_id, token)
  select ${cohort.clientId}, ${cohort.cadenceId}, src.prospect_id, src.token from src
  on conflict (cadence_id, prospect_id) do update set is_active = true, updated_at = now()
  returning id, prospect_id
), mem as (
  insert into cohort_members (client_id, cohort_id, prospect_id, company_id, target_id)
  select ${cohort.clientId}, ${cohort.id}, tg.prospect_id, p.company_id, tg.id
  from tg join prospects p on p.id = tg.prospect_id
  on conflict (cohort_id, prospect_id) do update set updated_at = now()
  returning prospect_id
)
select count(*)::int as n from mem`),
    );
    written += Number(out?.n ?? 0);
  }
  return written;
}
