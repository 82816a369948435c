import { and, eq, inArray, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.ts';
import { cadenceDays, cadences, companies, prospects, salesReps, targets } from '../../db/schema/index.ts';
import { isEmail } from '@rally/shared';
import type { RemoteCadence, RemoteCompany, RemoteProspect, RemoteUser } from './port.ts';

/**
 * Idempotent bulk upserts of what a source brings in, keyed by (integration, external id)
 * (ARCHITECTURE.md §7). Used by the sequence-platform sync and by the file import alike, so a
 * record synced twice, or a file imported twice, lands once. Every function takes a transaction.
 */

export type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'execute'>;
export type IntegrationRef = { id: number; clientId: string };
/** A target as a source describes it, with our ids resolved. */
export type TargetRow = {
  cadenceId: number;
  prospectId: string;
  salesRepId: string | null;
  externalId: string | null;
  dayNumber: number;
  isActive: boolean;
  contacted: boolean;
};

/** Postgres refuses to upsert one key twice in a statement: keep the last row per key. */
export function lastByKey<T>(rows: T[], key: (row: T) => string): T[] {
  const map = new Map<string, T>();
  for (const row of rows) map.set(key(row), row);
  return [...map.values()];
}

const excluded = (column: PgColumn): SQL => sql.raw(`excluded."${column.name}"`);

// Statements stay well under PostgreSQL's 65,535 bind parameters.
const CHUNK = 500;
function chunks<T>(rows: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK));
  return out;
}

/**
 * SPEC.md §5: a sales rep's e-mail must be a valid address, whichever source it comes from. A rep
 * whose source gives something else (blank means none) is kept, without the e-mail and flagged
 * `email_invalid`, rather than failing the page of the sync it came in.
 */
export function checkedEmail(email: string | null | undefined): {
  email: string | null;
  emailInvalid: boolean;
} {
  const e = email?.trim() ?? '';
  if (e === '') return { email: null, emailInvalid: false };
  return isEmail(e) ? { email: e, emailInvalid: false } : { email: null, emailInvalid: true };
}

export async function upsertSalesReps(
  tx: Tx,
  integration: IntegrationRef,
  users: RemoteUser[],
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const part of chunks(lastByKey(users, (u) => u.externalId))) {
    const rows = await tx
      .insert(salesReps)
      .values(
        part.map((u) => ({
          clientId: integration.clientId,
          integrationId: integration.id,
          externalId: u.externalId,
          firstName: u.firstName,
          lastName: u.lastName,
          ...checkedEmail(u.email),
          title: u.title,
          isActive: u.isActive,
        })),
      )
      // Photo, company name and calendar URL are edited in Rally and survive a sync.
      .onConflictDoUpdate({
        target: [salesReps.integrationId, salesReps.externalId],
        set: {
          firstName: excluded(salesReps.firstName),
          lastName: excluded(salesReps.lastName),
          email: excluded(salesReps.email),
          emailInvalid: excluded(salesReps.emailInvalid),
          title: sql`case when ${excluded(salesReps.title)} = '' then ${salesReps.title} else ${excluded(salesReps.title)} end`,
          isActive: excluded(salesReps.isActive),
          updatedAt: sql`now()`,
        },
      })
      .returning({ id: salesReps.id, externalId: salesReps.externalId });
    for (const r of rows) ids.set(r.externalId, r.id);
  }
  return ids;
}

/**
 * Cadences and their days. A cadence's status belongs to Rally once it exists (the change-status
 * call pauses ads), so a sync sets it only on insert; days are added, never removed, because
 * content may already be assigned to them.
 */
export async function upsertCadences(
  tx: Tx,
  integration: IntegrationRef,
  list: RemoteCadence[],
  repIds: Map<string, string>,
  /** The holdout share a cadence new to Rally starts with (issue 45); an existing one keeps its own. */
  holdoutPercent = 0,
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const part of chunks(lastByKey(list, (c) => c.externalId))) {
    const rows = await tx
      .insert(cadences)
      .values(
        part.map((c) => ({
          clientId: integration.clientId,
          integrationId: integration.id,
          externalId: c.externalId,
          name: c.name,
          status: c.status,
          ownerId: (c.ownerExternalId && repIds.get(c.ownerExternalId)) || null,
          holdoutPercent,
        })),
      )
      .onConflictDoUpdate({
        target: [cadences.integrationId, cadences.externalId],
        set: {
          name: excluded(cadences.name),
          ownerId: sql`coalesce(${excluded(cadences.ownerId)}, ${cadences.ownerId})`,
          updatedAt: sql`now()`,
        },
      })
      .returning({ id: cadences.id, externalId: cadences.externalId });
    for (const r of rows) ids.set(r.externalId, r.id);
  }
  const days = list.flatMap((c) => {
    const id = ids.get(c.externalId);
    return id === undefined ? [] : c.days.map((d) => ({ cadenceId: id, dayNumber: d }));
  });
  await ensureCadenceDays(tx, integration, days);
  return ids;
}

export async function ensureCadenceDays(
  tx: Tx,
  integration: IntegrationRef,
  days: { cadenceId: number; dayNumber: number }[],
): Promise<void> {
  for (const part of chunks(lastByKey(days, (d) => `${d.cadenceId}:${d.dayNumber}`))) {
    await tx
      .insert(cadenceDays)
      .values(part.map((d) => ({ clientId: integration.clientId, ...d })))
      .onConflictDoNothing();
  }
}

export async function upsertCompanies(
  tx: Tx,
  integration: IntegrationRef,
  list: RemoteCompany[],
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const part of chunks(lastByKey(list, (c) => c.externalId))) {
    const rows = await tx
      .insert(companies)
      .values(
        part.map((c) => ({
          clientId: integration.clientId,
          integrationId: integration.id,
          externalId: c.externalId,
          name: c.name,
          website: c.website,
        })),
      )
      .onConflictDoUpdate({
        target: [companies.integrationId, companies.externalId],
        set: {
          name: excluded(companies.name),
          website: sql`coalesce(${excluded(companies.website)}, ${companies.website})`,
          updatedAt: sql`now()`,
        },
      })
      .returning({ id: companies.id, externalId: companies.externalId });
    for (const r of rows) ids.set(r.externalId, r.id);
  }
  return ids;
}

/** Prospects with their companies; returns external id → prospect id. */
export async function upsertProspects(
  tx: Tx,
  integration: IntegrationRef,
  list: RemoteProspect[],
): Promise<Map<string, string>> {
  const companyIds = await upsertCompanies(
    tx,
    integration,
    list.flatMap((p) => (p.company ? [p.company] : [])),
  );
  const ids = new Map<string, string>();
  for (const part of chunks(lastByKey(list, (p) => p.externalId))) {
    const rows = await tx
      .insert(prospects)
      .values(
        part.map((p) => ({
          clientId: integration.clientId,
          integrationId: integration.id,
          externalId: p.externalId,
          firstName: p.firstName,
          lastName: p.lastName,
          email: p.email,
          title: p.title,
          companyId: (p.company && companyIds.get(p.company.externalId)) || null,
        })),
      )
      .onConflictDoUpdate({
        target: [prospects.integrationId, prospects.externalId],
        set: {
          firstName: excluded(prospects.firstName),
          lastName: excluded(prospects.lastName),
          email: excluded(prospects.email),
          title: excluded(prospects.title),
          companyId: sql`coalesce(${excluded(prospects.companyId)}, ${prospects.companyId})`,
          updatedAt: sql`now()`,
        },
      })
      .returning({ id: prospects.id, externalId: prospects.externalId });
    for (const r of rows) ids.set(r.externalId, r.id);
  }
  return ids;
}

/** Targets keyed by (cadence, prospect); a new one gets its public token, an old one keeps it. */
export async function upsertTargets(tx: Tx, integration: IntegrationRef, rows: TargetRow[]): Promise<number> {
  let count = 0;
  await ensureCadenceDays(
    tx,
    integration,
    rows.map((r) => ({ cadenceId: r.cadenceId, dayNumber: r.dayNumber })),
  );
  for (const part of chunks(lastByKey(rows, (r) => `${r.cadenceId}:${r.prospectId}`))) {
    const done = await tx
      .insert(targets)
      .values(part.map((r) => ({ clientId: integration.clientId, ...r })))
      .onConflictDoUpdate({
        target: [targets.cadenceId, targets.prospectId],
        set: {
          salesRepId: sql`coalesce(${excluded(targets.salesRepId)}, ${targets.salesRepId})`,
          externalId: sql`coalesce(${excluded(targets.externalId)}, ${targets.externalId})`,
          dayNumber: excluded(targets.dayNumber),
          // A target the platform moved to another day starts that day afresh (transition rules).
          dayEnteredAt: sql`case when ${targets.dayNumber} is distinct from ${excluded(targets.dayNumber)} then now() else ${targets.dayEnteredAt} end`,
          dayImpressions: sql`case when ${targets.dayNumber} is distinct from ${excluded(targets.dayNumber)} then 0 else ${targets.dayImpressions} end`,
          dayClicks: sql`case when ${targets.dayNumber} is distinct from ${excluded(targets.dayNumber)} then 0 else ${targets.dayClicks} end`,
          isActive: excluded(targets.isActive),
          contacted: sql`${targets.contacted} or ${excluded(targets.contacted)}`,
          updatedAt: sql`now()`,
        },
      })
      .returning({ id: targets.id });
    count += done.length;
  }
  return count;
}

/** External id → our id, for records a page refers to but did not carry (reps, cadences). */
export async function salesRepIdsByExternal(
  tx: Tx,
  integrationId: number,
  externalIds: string[],
): Promise<Map<string, string>> {
  if (!externalIds.length) return new Map();
  const rows = await tx
    .select({ id: salesReps.id, externalId: salesReps.externalId })
    .from(salesReps)
    .where(
      and(
        eq(salesReps.integrationId, integrationId),
        inArray(salesReps.externalId, [...new Set(externalIds)]),
      ),
    );
  return new Map(rows.map((r) => [r.externalId, r.id]));
}

export async function cadenceIdsByExternal(
  tx: Tx,
  integrationId: number,
  externalIds: string[],
): Promise<Map<string, number>> {
  if (!externalIds.length) return new Map();
  const rows = await tx
    .select({ id: cadences.id, externalId: cadences.externalId })
    .from(cadences)
    .where(
      and(eq(cadences.integrationId, integrationId), inArray(cadences.externalId, [...new Set(externalIds)])),
    );
  return new Map(rows.map((r) => [r.externalId, r.id]));
}
