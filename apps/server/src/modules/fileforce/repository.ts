import { and, asc, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import {
  cadences,
  companies,
  fileImports,
  integrations,
  opportunities,
  salesReps,
} from '../../db/schema/index.ts';
import type { ImportRowError } from '../../db/schema/index.ts';
import { oneRow } from '../../lib/errors.ts';
import * as store from '../integrations/store.ts';
import type { RevenueValue } from './rows.ts';

/** Drizzle queries of the file import, always scoped by client (STYLE.md: repository). */

export type FileImportRow = typeof fileImports.$inferSelect;
export type ImportStatus = FileImportRow['status'];

/** The client's fileforce integration, created (active) the first time a file is uploaded. */
export async function ensureFileforceIntegration(db: Db, clientId: string): Promise<store.IntegrationRef> {
  const [created] = await db
    .insert(integrations)
    .values({ clientId, source: 'fileforce', isActive: true })
    .onConflictDoNothing({ target: [integrations.clientId, integrations.source] })
    .returning({ id: integrations.id });
  if (created) return { id: created.id, clientId };
  const row = oneRow(
    await db
      .select({ id: integrations.id })
      .from(integrations)
      .where(and(eq(integrations.clientId, clientId), eq(integrations.source, 'fileforce'))),
  );
  return { id: row.id, clientId };
}

export async function fileforceIntegrationId(db: Db, clientId: string): Promise<number | null> {
  const [row] = await db
    .select({ id: integrations.id })
    .from(integrations)
    .where(and(eq(integrations.clientId, clientId), eq(integrations.source, 'fileforce')));
  return row?.id ?? null;
}

export async function insertImport(db: Db, values: typeof fileImports.$inferInsert): Promise<FileImportRow> {
  return oneRow(await db.insert(fileImports).values(values).returning());
}

export async function findImport(db: Db, clientId: string, id: string): Promise<FileImportRow | null> {
  const [row] = await db
    .select()
    .from(fileImports)
    .where(and(eq(fileImports.clientId, clientId), eq(fileImports.id, id)));
  return row ?? null;
}

/** For the job, which is given only the import's id. */
export async function findImportById(db: Db, id: string): Promise<FileImportRow | null> {
  const [row] = await db.select().from(fileImports).where(eq(fileImports.id, id));
  return row ?? null;
}

export async function listImports(db: Db, clientId: string, limit: number): Promise<FileImportRow[]> {
  return db
    .select()
    .from(fileImports)
    .where(eq(fileImports.clientId, clientId))
    .orderBy(desc(fileImports.createdAt), desc(fileImports.id))
    .limit(limit);
}

/** Updates an import if it is in one of `statuses` (a guard against racing a start or a run). */
export async function updateImport(
  db: Db,
  id: string,
  statuses: readonly ImportStatus[],
  set: Partial<typeof fileImports.$inferInsert>,
): Promise<FileImportRow | null> {
  const [row] = await db
    .update(fileImports)
    .set({ ...set, updatedAt: new Date() })
    .where(and(eq(fileImports.id, id), inArray(fileImports.status, [...statuses])))
    .returning();
  return row ?? null;
}

export async function deleteImport(
  db: Db,
  clientId: string,
  id: string,
  statuses: readonly ImportStatus[],
): Promise<FileImportRow | null> {
  const [row] = await db
    .delete(fileImports)
    .where(
      and(
        eq(fileImports.clientId, clientId),
        eq(fileImports.id, id),
        inArray(fileImports.status, [...statuses]),
      ),
    )
    .returning();
  return row ?? null;
}

export async function clientCadenceIds(db: Db, clientId: string): Promise<Set<number>> {
  const rows = await db.select({ id: cadences.id }).from(cadences).where(eq(cadences.clientId, clientId));
  return new Set(rows.map((r) => r.id));
}

export type Progress = {
  processedRows: number;
  importedRows: number;
  errorRows: number;
  /** Valid rows not imported because the address is on the client's suppression list. */
  suppressedRows: number;
  errors: ImportRowError[] | undefined;
};

/**
 * Records a batch's progress in the batch's own transaction, only if the import is still running
 * and no one else has moved it since `expectedProcessed`: two runs of one import (a retried job next
 * to a slow one) can never both count a batch.
 */
export async function commitProgress(
  tx: store.Tx,
  id: string,
  expectedProcessed: number,
  next: Progress,
): Promise<boolean> {
  const done = await tx
    .update(fileImports)
    .set({
      processedRows: next.processedRows,
      importedRows: next.importedRows,
      errorRows: next.errorRows,
      suppressedRows: next.suppressedRows,
      ...(next.errors ? { errors: next.errors } : {}),
      updatedAt: new Date(),
    })
    .where(
      and(
        eq(fileImports.id, id),
        eq(fileImports.status, 'running'),
        eq(fileImports.processedRows, expectedProcessed),
      ),
    )
    .returning({ id: fileImports.id });
  return done.length === 1;
}

type PersonFields = { firstName: string; lastName: string; title: string };

export async function storedSalesReps(
  tx: store.Tx,
  integrationId: number,
  externalIds: string[],
): Promise<Map<string, PersonFields & { id: string }>> {
  if (!externalIds.length) return new Map();
  const rows = await tx
    .select({
      id: salesReps.id,
      externalId: salesReps.externalId,
      firstName: salesReps.firstName,
      lastName: salesReps.lastName,
      title: salesReps.title,
    })
    .from(salesReps)
    .where(and(eq(salesReps.integrationId, integrationId), inArray(salesReps.externalId, externalIds)));
  return new Map(rows.map((r) => [r.externalId, r]));
}

/** Companies of a batch of target rows, keyed by lower-cased name. */
export type BatchCompany = { key: string; name: string; website: string | null };
/** A cadence day a batch's targets are on. */
export type BatchDay = { cadenceId: number; dayNumber: number };
/** A prospect of a batch, keyed by lower-cased e-mail; blank names never erase stored ones. */
export type BatchProspect = {
  /** Its id if it is new (time-ordered: see service.ts timeOrderedId). */
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  title: string;
  /** Its company's id (writeBatchCompanies gave it), or null. */
  companyId: string | null;
  /**
   * The cadences of the batch's targets for this prospect, sorted: written on a new prospect so that
   * the targets trigger (migration 0028) finds its `cadence_ids` already right and writes nothing.
   */
  cadenceIds: number[];
};
/** A target of a batch: its cadence and rep already resolved to our ids. */
export type BatchTarget = {
  /** Its id if it is new (time-ordered: see service.ts timeOrderedId). */
  id: string;
  email: string;
  cadenceId: number;
  dayNumber: number;
  salesRepId: string | null;
  isActive: boolean;
  /** The public token it gets if it is new (made here: PGlite has no pgcrypto). */
  token: string;
};

/**
 * Writes the rows a batch shares with other batches, in a single statement: its companies (an
 * upsert keyed as a sync keys them, ARCHITECTURE.md §7: integration + external id) and its cadence
 * days. Returns the companies' ids by key. Rows arrive as one JSON parameter, so the statement is the
 * same whatever the batch size (a multi-row VALUES of thousands of parameters cost more to build and
 * plan than to run). An upsert that would change nothing writes nothing. Each list must hold one
 * entry per key.
 */
export async function writeBatchCompanies(
  tx: store.Tx,
  integration: store.IntegrationRef,
  batch: { companies: BatchCompany[]; days: BatchDay[] },
): Promise<Map<string, string>> {
  if (!batch.companies.length && !batch.days.length) return new Map();
  const client = sql`${integration.clientId}::uuid`;
  const source = sql`${integration.id}::int`;
  const companiesJson = JSON.stringify(batch.companies.map((c) => ({ k: c.key, n: c.name, w: c.website })));
  const daysJson = JSON.stringify(batch.days.map((d) => ({ c: d.cadenceId, d: d.dayNumber })));
  // Rows a conflict left unchanged are not returned by RETURNING; the plain select (which sees the
  // table as it was before the statement) supplies their ids, for those keys only. It is LATERAL …
  // LIMIT 1 so that each is an index probe: with the statistics of a table that is filling up, the
  // planner otherwise scans the integration's whole table once per batch.
  const written = await tx.execute(sql`
with co_in as (
  select * from jsonb_to_recordset(${companiesJson}::jsonb) as x(k text, n text, w text)
), co_up as (
  insert into companies (client_id, integration_id, external_id, name, website)
  select ${client}, ${source}, k, n, w from co_in
  on conflict (integration_id, external_id) do update set
    name = excluded.name,
    website = coalesce(excluded.website, companies.website),
    updated_at = now()
  where companies.name is distinct from excluded.name
    or (excluded.website is not null and companies.website is distinct from excluded.website)
  returning id, external_id
), days as (
  insert into cadence_days (client_id, cadence_id, day_number)
  select ${client}, c, d from jsonb_to_recordset(${daysJson}::jsonb) as x(c int, d int)
  on conflict do nothing
)
select id, external_id from co_up
union all
select c.id, co_in.k from co_in cross join lateral (
  select id from companies where integration_id = ${source} and external_id = co_in.k limit 1
) c
where not exists (select from co_up where co_up.external_id = co_in.k)`);
  const rows = (written as unknown as { rows: { id: string; external_id: string }[] }).rows;
  return new Map(rows.map((r) => [r.external_id, r.id]));
}

/**
 * Writes one batch's prospects (with their company) and targets in a single statement, each an
 * upsert keyed as a sync keys it (prospects by integration + e-mail; targets by cadence + prospect).
 * Their companies and cadence days are already written (writeBatchCompanies). Each list must hold one
 * entry per key.
 */
export async function writeTargetBatch(
  tx: store.Tx,
  integration: store.IntegrationRef,
  batch: { prospects: BatchProspect[]; targets: BatchTarget[] },
): Promise<void> {
  const client = sql`${integration.clientId}::uuid`;
  const source = sql`${integration.id}::int`;
  const prospectsJson = JSON.stringify(
    batch.prospects.map((p) => ({
      i: p.id,
      e: p.email,
      f: p.firstName,
      l: p.lastName,
      t: p.title,
      k: p.companyId,
      ci: p.cadenceIds,
    })),
  );
  const targetsJson = JSON.stringify(
    batch.targets.map((t) => ({
      i: t.id,
      e: t.email,
      c: t.cadenceId,
      d: t.dayNumber,
      r: t.salesRepId,
      a: t.isActive,
      tk: t.token,
    })),
  );
  // As for companies: the ids of prospects a conflict left unchanged come from a plain select (the
  // table as it was before the statement), for those keys only (a new row is not there to find:
  // probing for it cost an index look-up per row), each an index probe.
  await tx.execute(sql`
with pr_in as (
  select * from jsonb_to_recordset(${prospectsJson}::jsonb) as x(i uuid, e text, f text, l text, t text, k uuid, ci int[])
), pr_up as (
  insert into prospects (id, client_id, integration_id, external_id, email, first_name, last_name, title, company_id,
    cadence_ids)
  select p.i, ${client}, ${source}, p.e, p.e, p.f, p.l, p.t, p.k, p.ci
  from pr_in p
  on conflict (integration_id, external_id) do update set
    email = excluded.email,
    first_name = coalesce(nullif(excluded.first_name, ''), prospects.first_name),
    last_name = coalesce(nullif(excluded.last_name, ''), prospects.last_name),
    title = coalesce(nullif(excluded.title, ''), prospects.title),
    company_id = coalesce(excluded.company_id, prospects.company_id),
    updated_at = now()
  where prospects.email is distinct from excluded.email
    or (excluded.first_name <> '' and prospects.first_name <> excluded.first_name)
    or (excluded.last_name <> '' and prospects.last_name <> excluded.last_name)
    or (excluded.title <> '' and prospects.title <> excluded.title)
    or (excluded.company_id is not null and prospects.company_id is distinct from excluded.company_id)
  returning id, external_id
), pr as (
  select id, external_id from pr_up
  union all
  select p.id, pr_in.e from pr_in cross join lateral (
    select id from prospects where integration_id = ${source} and external_id = pr_in.e limit 1
  ) p
  where not exists (select from pr_up where pr_up.external_id = pr_in.e)
), tg_in as (
  select * from jsonb_to_recordset(${targetsJson}::jsonb) as x(i uuid, e text, c int, d int, r uuid, a boolean, tk text)
)
insert into targets (id, client_id, cadence_id, prospect_id, sales_rep_id, day_number, is_active, token)
select t.i, ${client}, t.c, pr.id, t.r, t.d, t.a, t.tk from tg_in t join pr on pr.external_id = t.e
on conflict (cadence_id, prospect_id) do update set
  sales_rep_id = coalesce(excluded.sales_rep_id, targets.sales_rep_id),
  day_number = excluded.day_number,
  -- Moved to another day: it starts that day afresh, as in a sync (store.upsertTargets).
  day_entered_at = case when targets.day_number <> excluded.day_number then now() else targets.day_entered_at end,
  day_impressions = case when targets.day_number <> excluded.day_number then 0 else targets.day_impressions end,
  day_clicks = case when targets.day_number <> excluded.day_number then 0 else targets.day_clicks end,
  is_active = excluded.is_active,
  updated_at = now()
where targets.day_number <> excluded.day_number
  or targets.is_active <> excluded.is_active
  or (excluded.sales_rep_id is not null and targets.sales_rep_id is distinct from excluded.sales_rep_id)`);
}

/**
 * Takes a batch's lock (PostgreSQL) for the rest of its transaction: the next batch, written at the
 * same time on another connection, waits on it before recording its progress (awaitBatch). Both are
 * lock waits the database sees, so a cycle with a row lock is a deadlock it detects and breaks (the
 * import then fails and its job resumes it), never a hang.
 */
export async function lockBatch(tx: store.Tx, importId: string, startRow: number): Promise<void> {
  await tx.execute(
    sql`select set_config('synchronous_commit', 'off', true), pg_advisory_xact_lock(hashtext(${`rally.import:${importId}`}), ${startRow}::int)`,
  );
}

/** Waits until the batch of the import that starts at `startRow` has committed or rolled back. */
export async function awaitBatch(tx: store.Tx, importId: string, startRow: number): Promise<void> {
  await tx.execute(
    sql`select pg_advisory_xact_lock_shared(hashtext(${`rally.import:${importId}`}), ${startRow}::int)`,
  );
}

/** The client's companies by lower-cased name (any source), for an opportunity's account. */
export async function companyIdsByName(
  tx: store.Tx,
  clientId: string,
  lowerNames: string[],
): Promise<Map<string, string>> {
  if (!lowerNames.length) return new Map();
  const rows = await tx
    .select({ id: companies.id, name: sql<string>`lower(${companies.name})` })
    .from(companies)
    .where(and(eq(companies.clientId, clientId), inArray(sql`lower(${companies.name})`, lowerNames)))
    .orderBy(asc(companies.createdAt));
  const ids = new Map<string, string>();
  for (const r of rows) if (!ids.has(r.name)) ids.set(r.name, r.id);
  return ids;
}

const CHUNK = 500;

/** Opportunities keyed by (integration, opportunity id): importing a file again updates them. */
export async function upsertOpportunities(
  tx: store.Tx,
  integration: store.IntegrationRef,
  rows: RevenueValue[],
): Promise<void> {
  const unique = store.lastByKey(rows, (r) => r.opportunityId);
  const companyIds = await companyIdsByName(tx, integration.clientId, [
    ...new Set(unique.map((r) => r.accountName.toLowerCase())),
  ]);
  for (let i = 0; i < unique.length; i += CHUNK) {
    await tx
      .insert(opportunities)
      .values(
        unique.slice(i, i + CHUNK).map((r) => ({
          clientId: integration.clientId,
          integrationId: integration.id,
          externalId: r.opportunityId,
          name: r.name,
          accountName: r.accountName,
          companyId: companyIds.get(r.accountName.toLowerCase()) ?? null,
          amountCents: r.amountCents,
          currency: r.currency,
          stage: r.stage,
          closeDate: r.closeDate,
        })),
      )
      .onConflictDoUpdate({
        target: [opportunities.integrationId, opportunities.externalId],
        set: {
          name: sql`excluded.name`,
          accountName: sql`excluded.account_name`,
          companyId: sql`coalesce(excluded.company_id, ${opportunities.companyId})`,
          amountCents: sql`excluded.amount_cents`,
          currency: sql`excluded.currency`,
          stage: sql`excluded.stage`,
          closeDate: sql`excluded.close_date`,
          updatedAt: sql`now()`,
        },
      });
  }
}

export type OpportunityRow = typeof opportunities.$inferSelect;

/** A page of the client's imported opportunities, latest close date first, and totals per currency. */
export async function revenuePage(
  db: Db,
  integrationId: number,
  page: number,
  pageSize: number,
): Promise<{
  items: OpportunityRow[];
  total: number;
  totals: { currency: string; amountCents: number; count: number }[];
}> {
  const where = eq(opportunities.integrationId, integrationId);
  const items = await db
    .select()
    .from(opportunities)
    .where(where)
    .orderBy(sql`${opportunities.closeDate} desc nulls last`, asc(opportunities.name), asc(opportunities.id))
    .limit(pageSize)
    .offset((page - 1) * pageSize);
  const totals = await db
    .select({
      currency: opportunities.currency,
      amountCents: sql<string>`sum(${opportunities.amountCents})`,
      count: count(),
    })
    .from(opportunities)
    .where(where)
    .groupBy(opportunities.currency)
    .orderBy(asc(opportunities.currency));
  return {
    items,
    total: totals.reduce((n, t) => n + t.count, 0),
    totals: totals.map((t) => ({ currency: t.currency, amountCents: Number(t.amountCents), count: t.count })),
  };
}
