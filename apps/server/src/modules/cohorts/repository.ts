import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, ilike, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { CohortFilters, CohortMemberSort, CohortSortField } from '@rally/shared/schemas/cohorts';
import type { Db } from '../../db/client.ts';
import {
  cadenceDays,
  cadences,
  cohortMembers,
  cohorts,
  content,
  crmLists,
  integrations,
} from '../../db/schema/index.ts';
import type { CohortSyncProgress } from '../../db/schema/index.ts';
import { randomToken } from '../../lib/crypto.ts';
import { oneRow } from '../../lib/errors.ts';

/** Drizzle queries of cohorts, always scoped by client (STYLE.md: repository). */

export type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;
export type CohortRecord = typeof cohorts.$inferSelect;
export type CohortRow = CohortRecord & {
  crmListName: string | null;
  contentId: string | null;
  impressions: number;
  clicks: number;
  views: number;
  supers: number;
};

/** Sync progress with where the job stands, so a job that died resumes where it stopped. */
export type StoredSyncProgress = CohortSyncProgress & {
  /** The last prospect id written (members are written in prospect id order). */
  cursor?: string | null;
  /** When this sync began (ISO): members not touched since then have left the source. */
  started_at?: string;
};

function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/** Engagement of the cohort's members, from their targets' counters (the engine keeps them). */
const stats = {
  impressions: sql<number>`(select coalesce(sum(t.impressions), 0)::int from targets t where t.cadence_id = ${cohorts.cadenceId})`,
  clicks: sql<number>`(select coalesce(sum(t.clicks), 0)::int from targets t where t.cadence_id = ${cohorts.cadenceId})`,
  views: sql<number>`(select coalesce(sum(t.views), 0)::int from targets t where t.cadence_id = ${cohorts.cadenceId})`,
  supers: sql<number>`(select count(*)::int from targets t where t.cadence_id = ${cohorts.cadenceId} and t.super_date is not null)`,
  contentId: sql<
    string | null
  >`(select cd.content_days->0->>'content_id' from cadence_days cd where cd.cadence_id = ${cohorts.cadenceId} and cd.day_number = 1)`,
};

function cohortSelect(db: Tx) {
  return db
    .select({ cohort: cohorts, crmListName: crmLists.name, ...stats })
    .from(cohorts)
    .leftJoin(crmLists, eq(crmLists.id, cohorts.crmListId));
}

type Joined = Awaited<ReturnType<ReturnType<typeof cohortSelect>['execute']>>[number];
const toRow = (r: Joined): CohortRow => ({
  ...r.cohort,
  crmListName: r.crmListName,
  contentId: r.contentId,
  impressions: Number(r.impressions),
  clicks: Number(r.clicks),
  views: Number(r.views),
  supers: Number(r.supers),
});

export async function findCohort(db: Tx, clientId: string, id: string): Promise<CohortRow | null> {
  const [row] = await cohortSelect(db).where(and(eq(cohorts.id, id), eq(cohorts.clientId, clientId)));
  return row ? toRow(row) : null;
}

/** The cohort row locked for the rest of the transaction (status changes, edits). */
export async function lockCohort(tx: Tx, clientId: string, id: string): Promise<CohortRecord | null> {
  const [row] = await tx
    .select()
    .from(cohorts)
    .where(and(eq(cohorts.id, id), eq(cohorts.clientId, clientId)))
    .for('update');
  return row ?? null;
}

const SORT_COLUMNS: Record<CohortSortField, SQL | typeof cohorts.name> = {
  name: sql`lower(${cohorts.name})`,
  created_at: cohorts.createdAt as never,
  size: cohorts.size as never,
  status: cohorts.status as never,
  last_synced_at: cohorts.lastSyncedAt as never,
};

/** `%` and `_` in a search are literal. */
const likeText = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listCohorts(
  db: Tx,
  clientId: string,
  q: {
    page: number;
    pageSize: number;
    name?: string | undefined;
    showArchived: boolean;
    sortField: CohortSortField;
    order: 'asc' | 'desc';
  },
): Promise<{ rows: CohortRow[]; total: number }> {
  const where = and(
    eq(cohorts.clientId, clientId),
    q.showArchived ? undefined : sql`${cohorts.status} <> 'archived'`,
    q.name ? ilike(cohorts.name, likeText(q.name)) : undefined,
  );
  const dir = q.order === 'asc' ? asc : desc;
  const column = SORT_COLUMNS[q.sortField];
  const rows = await cohortSelect(db)
    .where(where)
    // Never-synced cohorts last either way; the id keeps pages stable among equal values.
    .orderBy(
      ...(q.sortField === 'last_synced_at' ? [sql`${cohorts.lastSyncedAt} is null`] : []),
      dir(column as SQL),
      dir(cohorts.id),
    )
    .limit(q.pageSize)
    .offset((q.page - 1) * q.pageSize);
  const [total] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(cohorts)
    .where(where);
  return { rows: rows.map(toRow), total: Number(total?.n ?? 0) };
}

/** The client's fileforce integration (made if missing): the owner of cohorts' hidden cadences. */
async function internalIntegrationId(tx: Tx, clientId: string): Promise<number> {
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

const cadenceName = (name: string) => `Cohort: ${name}`;

/** The cohort and its hidden cadence (kind 'cohort', ads on, day 1 showing `contentId`). */
export async function insertCohort(
  tx: Tx,
  values: {
    clientId: string;
    name: string;
    sourceKind: CohortRecord['sourceKind'];
    crmListId: string | null;
    filters: CohortFilters;
    contentId: string | null;
    createdBy: string | null;
    /** A fixed id (the demo seed's, so screens and tests can link to it). */
    id?: string;
    /** The share of members held out of its ads (issue 45). */
    holdoutPercent?: number;
  },
): Promise<string> {
  const id = values.id ?? randomUUID();
  const integrationId = await internalIntegrationId(tx, values.clientId);
  const cadence = oneRow(
    await tx
      .insert(cadences)
      .values({
        clientId: values.clientId,
        integrationId,
        externalId: `cohort:${id}`,
        name: cadenceName(values.name),
        kind: 'cohort',
        status: 'active',
        isSuper: true,
        holdoutPercent: values.holdoutPercent ?? 0,
      })
      .returning({ id: cadences.id }),
  );
  await tx.insert(cadenceDays).values({
    clientId: values.clientId,
    cadenceId: cadence.id,
    dayNumber: 1,
    contentDays: values.contentId ? [{ content_id: values.contentId, day_transition_actions: [] }] : [],
  });
  await tx.insert(cohorts).values({
    id,
    clientId: values.clientId,
    name: values.name,
    sourceKind: values.sourceKind,
    crmListId: values.crmListId,
    filters: values.filters,
    cadenceId: cadence.id,
    createdBy: values.createdBy,
  });
  return id;
}

export async function updateCohort(
  tx: Tx,
  cohort: CohortRecord,
  fields: Partial<Pick<CohortRecord, 'name' | 'crmListId' | 'filters' | 'status' | 'statusBeforeArchive'>>,
): Promise<void> {
  await tx
    .update(cohorts)
    .set({ ...fields, updatedAt: new Date() })
    .where(and(eq(cohorts.id, cohort.id), eq(cohorts.clientId, cohort.clientId)));
  if (fields.name !== undefined) {
    await tx
      .update(cadences)
      .set({ name: cadenceName(fields.name), updatedAt: new Date() })
      .where(eq(cadences.id, cohort.cadenceId));
  }
}

/**
 * The cohort's ads follow its status through its cadence: only an active cohort's cadence is
 * active, so the tracking rule that stops a paused cadence's ads stops a paused or archived cohort's.
 */
export async function setCadenceRunning(tx: Tx, cohort: CohortRecord, running: boolean): Promise<void> {
  await tx
    .update(cadences)
    .set({ status: running ? 'active' : 'paused', updatedAt: new Date() })
    .where(eq(cadences.id, cohort.cadenceId));
}

export async function setContent(tx: Tx, cohort: CohortRecord, contentId: string | null): Promise<void> {
  await tx
    .update(cadenceDays)
    .set({ contentDays: contentId ? [{ content_id: contentId, day_transition_actions: [] }] : [] })
    .where(and(eq(cadenceDays.cadenceId, cohort.cadenceId), eq(cadenceDays.dayNumber, 1)));
}

export async function contentExists(tx: Tx, clientId: string, id: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: content.id })
    .from(content)
    .where(and(eq(content.id, id), eq(content.clientId, clientId)));
  return Boolean(row);
}

export async function cadenceExists(tx: Tx, clientId: string, id: number): Promise<boolean> {
  const [row] = await tx
    .select({ id: cadences.id })
    .from(cadences)
    .where(and(eq(cadences.id, id), eq(cadences.clientId, clientId)));
  return Boolean(row);
}

export async function crmListExists(tx: Tx, clientId: string, id: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: crmLists.id })
    .from(crmLists)
    .where(and(eq(crmLists.id, id), eq(crmLists.clientId, clientId)));
  return Boolean(row);
}

/** Targets of sequence cadences only: a cohort's own engagement never decides who is in a cohort. */
const seqTarget = (
  extra: SQL,
) => sql`exists (select 1 from targets st join cadences sc on sc.id = st.cadence_id
  where st.prospect_id = p.id and sc.kind = 'sequence' and ${extra})`;

/** The prospects a filter cohort holds: active prospects of the client matching every filter. */
export function filterWhere(clientId: string, f: CohortFilters): SQL {
  const parts: SQL[] = [sql`p.client_id = ${clientId}`, sql`p.is_active`];
  if (f.title) parts.push(sql`p.title ilike ${likeText(f.title)}`);
  if (f.company) parts.push(sql`co.name ilike ${likeText(f.company)}`);
  if (f.cadence_id !== undefined) parts.push(seqTarget(sql`st.cadence_id = ${f.cadence_id}`));
  if (f.superprospect === true) parts.push(seqTarget(sql`st.super_date is not null`));
  if (f.superprospect === false) parts.push(sql`not ${seqTarget(sql`st.super_date is not null`)}`);
  const engaged = seqTarget(sql`st.impressions + st.clicks + st.views > 0`);
  if (f.engagement === 'engaged') parts.push(engaged);
  if (f.engagement === 'not_engaged') parts.push(sql`not ${engaged}`);
  return sql.join(parts, sql` and `);
}

/**
 * The CRM contacts a list holds: its contact members, and the contacts of its account members
 * (a HubSpot company list). Yields `contact_id`, `account_id`. Contacts and accounts deleted in the
 * CRM are left out (their rows stay until the list drops them).
 */
function listContacts(clientId: string, listId: string): SQL {
  return sql`(
  select c.id as contact_id, a.id as account_id, c.prospect_id from crm_list_members m
    join crm_contacts c on c.id = m.contact_id and not c.is_deleted
    left join crm_accounts a on a.id = c.account_id and not a.is_deleted
    where m.list_id = ${listId} and m.client_id = ${clientId}
  union
  select c.id, a.id, c.prospect_id from crm_list_members m
    join crm_accounts a on a.id = m.account_id and not a.is_deleted
    join crm_contacts c on c.account_id = m.account_id and c.client_id = m.client_id and not c.is_deleted
    where m.list_id = ${listId} and m.client_id = ${clientId} and m.account_id is not null
)`;
}

/** The audience size a source would give: contacts and distinct accounts (companies). */
export async function estimate(
  db: Tx,
  clientId: string,
  source: { kind: 'crm_list' | 'filter' | 'csv'; crmListId?: string | undefined; filters: CohortFilters },
): Promise<{ contacts: number; accounts: number }> {
  type Row = { contacts: number; accounts: number };
  if (source.kind === 'crm_list' && source.crmListId) {
    const [row] = rowsOf<Row>(
      await db.execute(sql`select count(*)::int as contacts, count(distinct l.account_id)::int as accounts
        from ${listContacts(clientId, source.crmListId)} l`),
    );
    return { contacts: Number(row?.contacts ?? 0), accounts: Number(row?.accounts ?? 0) };
  }
  const [row] = rowsOf<Row>(
    await db.execute(sql`select count(*)::int as contacts, count(distinct p.company_id)::int as accounts
      from prospects p left join companies co on co.id = p.company_id
      where ${filterWhere(clientId, source.filters)}`),
  );
  return { contacts: Number(row?.contacts ?? 0), accounts: Number(row?.accounts ?? 0) };
}

/**
 * Gives a list's contacts that match no prospect a prospect of their own (under the CRM's
 * integration, keyed by the contact's CRM id, with its account's company), so every member can
 * carry an ad tag. Idempotent: a second run finds them linked.
 */
export async function prospectsForListContacts(db: Tx, clientId: string, listId: string): Promise<number> {
  const made = rowsOf<{ n: number }>(
    await db.execute(sql`
with lc as (${listContacts(clientId, listId)}),
missing as (
  select c.id, c.integration_id, c.external_id, c.email, c.first_name, c.last_name, c.title,
    a.company_id
  from crm_contacts c join lc on lc.contact_id = c.id
  left join crm_accounts a on a.id = lc.account_id
  where c.prospect_id is null
), ins as (
  insert into prospects (client_id, integration_id, external_id, first_name, last_name, email, title, company_id)
  select ${clientId}, integration_id, external_id, first_name, last_name, email, title, company_id from missing
  on conflict (integration_id, external_id) do update set updated_at = prospects.updated_at
  returning id, integration_id, external_id
), link as (
  update crm_contacts c set prospect_id = ins.id from ins, missing
  where missing.id = c.id and ins.integration_id = missing.integration_id and ins.external_id = missing.external_id
  returning c.id
)
select count(*)::int as n from link`),
  );
  return Number(made[0]?.n ?? 0);
}

/** Source rows: (prospect, company, CRM contact) in prospect id order. */
function sourceRows(cohort: CohortRecord): SQL {
  if (cohort.sourceKind === 'crm_list' && cohort.crmListId) {
    return sql`(select distinct on (p.id) p.id as prospect_id, p.company_id, lc.contact_id as crm_contact_id
      from ${listContacts(cohort.clientId, cohort.crmListId)} lc join prospects p on p.id = lc.prospect_id
      where p.client_id = ${cohort.clientId}
      order by p.id, lc.contact_id)`;
  }
  if (cohort.sourceKind === 'filter') {
    return sql`(select p.id as prospect_id, p.company_id, null::uuid as crm_contact_id
      from prospects p left join companies co on co.id = p.company_id
      where ${filterWhere(cohort.clientId, cohort.filters)})`;
  }
  if (cohort.sourceKind === 'csv') {
    // A people-based (CSV) cohort's source is the list it was made from: its members stay as they are.
    return sql`(select m.prospect_id, m.company_id, m.crm_contact_id from cohort_members m
      where m.cohort_id = ${cohort.id})`;
  }
  return sql`(select null::uuid as prospect_id, null::uuid as company_id, null::uuid as crm_contact_id where false)`;
}

export async function countSource(db: Tx, cohort: CohortRecord): Promise<number> {
  const [row] = rowsOf<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from ${sourceRows(cohort)} s`),
  );
  return Number(row?.n ?? 0);
}

/**
 * Writes one chunk of members after `cursor` (prospect id order): each gets a target of the
 * cohort's cadence (its ad and click tags; an existing one is switched back on) and a member row,
 * both upserted, so a chunk written twice (a job resumed after a crash) changes nothing. Returns
 * how many it wrote and the last prospect id. Run it in a transaction.
 */
export async function writeMemberChunk(
  db: Tx,
  cohort: CohortRecord,
  cursor: string | null,
  limit: number,
): Promise<{ written: number; last: string | null }> {
  const src = rowsOf<{ prospect_id: string; company_id: string | null; crm_contact_id: string | null }>(
    await db.execute(sql`
select s.prospect_id::text, s.company_id::text, s.crm_contact_id::text from ${sourceRows(cohort)} s
where (${cursor}::uuid is null or s.prospect_id > ${cursor}::uuid)
order by s.prospect_id limit ${limit}`),
  );
  if (!src.length) return { written: 0, last: null };
  // Tokens made here, like the targets' default: 144 random bits (PGlite has no pgcrypto).
  const rows = src.map((r) => ({ ...r, token: randomToken(18) }));
  const [out] = rowsOf<{ n: number }>(
    await db.execute(sql`
with src as (
  select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
    as x(prospect_id uuid, company_id uuid, crm_contact_id uuid, token text)
), tg as (
  insert into targets (client_id, cadence_id, prospect_id, token)
  select ${cohort.clientId}, ${cohort.cadenceId}, src.prospect_id, src.token from src
  on conflict (cadence_id, prospect_id) do update set is_active = true, updated_at = now()
  returning id, prospect_id
), mem as (
  insert into cohort_members (client_id, cohort_id, prospect_id, company_id, crm_contact_id, target_id)
  select ${cohort.clientId}, ${cohort.id}, src.prospect_id, src.company_id, src.crm_contact_id, tg.id
  from src join tg on tg.prospect_id = src.prospect_id
  on conflict (cohort_id, prospect_id) do update set company_id = excluded.company_id,
    crm_contact_id = excluded.crm_contact_id, updated_at = now()
  returning prospect_id
)
select count(*)::int as n from mem`),
  );
  return { written: Number(out?.n ?? 0), last: src[src.length - 1]?.prospect_id ?? null };
}

/**
 * Members not written since the sync began have left the source: their member row goes and their
 * target is switched off (kept, with its engagement, for reports and billing).
 */
export async function removeStaleMembers(db: Tx, cohort: CohortRecord, since: Date): Promise<number> {
  const rows = rowsOf<{ n: number }>(
    await db.execute(sql`
with gone as (
  delete from cohort_members where cohort_id = ${cohort.id} and updated_at < ${since.toISOString()}::timestamptz
  returning target_id
), off as (
  update targets set is_active = false, updated_at = now() where id in (select target_id from gone)
  returning id
)
select count(*)::int as n from off`),
  );
  return Number(rows[0]?.n ?? 0);
}

export async function databaseNow(db: Tx): Promise<Date> {
  const [row] = rowsOf<{ ms: number }>(
    await db.execute(sql`select (extract(epoch from now()) * 1000)::float8 as ms`),
  );
  return new Date(Number(row?.ms ?? Date.now()));
}

export async function memberCounts(db: Tx, cohortId: string): Promise<{ size: number; accounts: number }> {
  const [row] = await db
    .select({
      size: sql<number>`count(*)::int`,
      accounts: sql<number>`count(distinct ${cohortMembers.companyId})::int`,
    })
    .from(cohortMembers)
    .where(eq(cohortMembers.cohortId, cohortId));
  return { size: Number(row?.size ?? 0), accounts: Number(row?.accounts ?? 0) };
}

export async function setSync(
  db: Tx,
  cohortId: string,
  fields: Partial<
    Pick<CohortRecord, 'syncState' | 'syncError' | 'lastSyncedAt' | 'size' | 'accounts'> & {
      syncProgress: StoredSyncProgress | null;
    }
  >,
): Promise<void> {
  await db.update(cohorts).set(fields).where(eq(cohorts.id, cohortId));
}

/** Claims the cohort for a sync (idle, done or failed → queued); false when one is under way. */
export async function claimSync(db: Tx, clientId: string, id: string): Promise<boolean> {
  const rows = await db
    .update(cohorts)
    .set({ syncState: 'queued', syncError: null, syncProgress: null })
    .where(
      and(
        eq(cohorts.id, id),
        eq(cohorts.clientId, clientId),
        eq(cohorts.status, 'active'),
        sql`${cohorts.syncState} not in ('queued', 'running')`,
      ),
    )
    .returning({ id: cohorts.id });
  return rows.length > 0;
}

export async function findCohortById(db: Tx, id: string): Promise<CohortRecord | null> {
  const [row] = await db.select().from(cohorts).where(eq(cohorts.id, id));
  return row ?? null;
}

export type MemberRow = {
  id: string;
  prospect_id: string;
  target_id: string;
  first_name: string;
  last_name: string;
  email: string | null;
  title: string;
  company_id: string | null;
  company_name: string | null;
  impressions: number;
  clicks: number;
  views: number;
  super_at: number | null;
  token: string;
  stage_id: string | null;
  stage_name: string | null;
  stage_position: number | null;
};

/** One page of members, most engaged first. */
/** The members table's sorts (issue 42 item 11): each key, then a stable tie-break. */
const MEMBER_ORDER: Record<CohortMemberSort, { key: SQL; order: 'asc' | 'desc' }> = {
  engagement: { key: sql`(t.clicks * 15 + t.impressions + t.views * 5)`, order: 'desc' },
  name: { key: sql`lower(p.last_name || ' ' || p.first_name)`, order: 'asc' },
  title: { key: sql`lower(p.title)`, order: 'asc' },
  company: { key: sql`lower(co.name)`, order: 'asc' },
  stage: { key: sql`st.position`, order: 'asc' },
  impressions: { key: sql`t.impressions`, order: 'desc' },
  clicks: { key: sql`t.clicks`, order: 'desc' },
  views: { key: sql`t.views`, order: 'desc' },
};

export async function listMembers(
  db: Tx,
  cohort: CohortRecord,
  page: number,
  pageSize: number,
  sortBy: { sort: CohortMemberSort; order?: 'asc' | 'desc' | undefined } = { sort: 'engagement' },
): Promise<{ rows: MemberRow[]; total: number }> {
  const { key, order: fallback } = MEMBER_ORDER[sortBy.sort];
  // Empty values (no company, no stage) go last whichever way the column is read.
  const direction = (sortBy.order ?? fallback) === 'asc' ? sql`asc nulls last` : sql`desc nulls last`;
  const rows = rowsOf<MemberRow>(
    await db.execute(sql`
select m.id::text, m.prospect_id::text, m.target_id::text, p.first_name, p.last_name, p.email, p.title,
  m.company_id::text, co.name as company_name, t.impressions, t.clicks, t.views,
  (extract(epoch from t.super_date) * 1000)::float8 as super_at, t.token,
  st.id::text as stage_id, st.name as stage_name, st.position as stage_position
from cohort_members m
join targets t on t.id = m.target_id
join prospects p on p.id = m.prospect_id
left join companies co on co.id = m.company_id
-- The member's account's journey stage (docs/decisions/0010).
left join journeys j on j.cohort_id = m.cohort_id
left join journey_accounts ja on ja.journey_id = j.id and ja.account_id = coalesce(m.company_id, m.prospect_id)
left join journey_stages st on st.id = ja.stage_id
where m.cohort_id = ${cohort.id} and m.client_id = ${cohort.clientId}
order by ${key} ${direction}, (t.clicks * 15 + t.impressions + t.views * 5) desc,
  lower(p.last_name), lower(p.first_name), m.id
limit ${pageSize} offset ${(page - 1) * pageSize}`),
  );
  const { size } = await memberCounts(db, cohort.id);
  return { rows, total: size };
}

export type DetailRow = {
  engaged_members: number;
  engaged_accounts: number;
};

export async function engagedCounts(db: Tx, cohort: CohortRecord): Promise<DetailRow> {
  const [row] = rowsOf<DetailRow>(
    await db.execute(sql`
select count(*) filter (where t.impressions + t.clicks + t.views > 0)::int as engaged_members,
  count(distinct m.company_id) filter (where t.impressions + t.clicks + t.views > 0)::int as engaged_accounts
from cohort_members m join targets t on t.id = m.target_id
where m.cohort_id = ${cohort.id}`),
  );
  return {
    engaged_members: Number(row?.engaged_members ?? 0),
    engaged_accounts: Number(row?.engaged_accounts ?? 0),
  };
}

export type AudienceRow = {
  label: string;
  members: number;
  engaged: number;
  impressions: number;
  clicks: number;
};

/** Members grouped by title or by company, the largest groups first (50 at most). */
export async function audience(
  db: Tx,
  cohort: CohortRecord,
  by: 'title' | 'company',
): Promise<AudienceRow[]> {
  const label =
    by === 'title'
      ? sql`coalesce(nullif(btrim(p.title), ''), '(no title)')`
      : sql`coalesce(co.name, '(no company)')`;
  return rowsOf<AudienceRow>(
    await db.execute(sql`
select ${label} as label, count(*)::int as members,
  count(*) filter (where t.impressions + t.clicks + t.views > 0)::int as engaged,
  coalesce(sum(t.impressions), 0)::int as impressions, coalesce(sum(t.clicks), 0)::int as clicks
from cohort_members m
join targets t on t.id = m.target_id
join prospects p on p.id = m.prospect_id
left join companies co on co.id = m.company_id
where m.cohort_id = ${cohort.id}
group by 1 order by 2 desc, 1 limit 50`),
  ).map((r) => ({
    label: r.label,
    members: Number(r.members),
    engaged: Number(r.engaged),
    impressions: Number(r.impressions),
    clicks: Number(r.clicks),
  }));
}

/** Impressions, clicks and views per UTC day of the cohort's cadence events in [from, to). */
export async function impactByDate(
  db: Tx,
  cohort: CohortRecord,
  from: Date,
  to: Date,
): Promise<{ date: string; impressions: number; clicks: number; views: number }[]> {
  const rows = rowsOf<{ date: string; impressions: number; clicks: number; views: number }>(
    await db.execute(sql`
select to_char((e.occurred_at at time zone 'UTC')::date, 'YYYY-MM-DD') as date,
  count(*) filter (where e.type = 'impression')::int as impressions,
  count(*) filter (where e.type = 'click')::int as clicks,
  count(*) filter (where e.type = 'view')::int as views
from engagement_events e
where e.client_id = ${cohort.clientId} and e.cadence_id = ${cohort.cadenceId}
  and e.occurred_at >= ${from.toISOString()}::timestamptz and e.occurred_at < ${to.toISOString()}::timestamptz
group by 1 order by 1`),
  );
  return rows.map((r) => ({
    date: r.date,
    impressions: Number(r.impressions),
    clicks: Number(r.clicks),
    views: Number(r.views),
  }));
}
