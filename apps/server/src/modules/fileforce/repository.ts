import { and, asc, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import {
  cadences,
  companies,
  fileImports,
  integrations,
  opportunities,
  prospects,
  salesReps,
} from '../../db/schema/index.ts';
import type { ImportRowError } from '../../db/schema/index.ts';
import { oneRow } from '../../lib/errors.ts';
import { store } from '../integrations/index.ts';
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

/** What is already stored of these prospects, so a blank cell in a file never erases a name. */
export async function storedProspects(
  tx: store.Tx,
  integrationId: number,
  externalIds: string[],
): Promise<Map<string, PersonFields>> {
  if (!externalIds.length) return new Map();
  const rows = await tx
    .select({
      externalId: prospects.externalId,
      firstName: prospects.firstName,
      lastName: prospects.lastName,
      title: prospects.title,
    })
    .from(prospects)
    .where(and(eq(prospects.integrationId, integrationId), inArray(prospects.externalId, externalIds)));
  return new Map(rows.map((r) => [r.externalId, r]));
}

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
