import { and, asc, count, desc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { CadenceStatusValue, StoredContentDay } from '@rally/shared/schemas/cadences';
import type { Db } from '../../db/client.ts';
import {
  cadenceDays,
  cadences,
  companies,
  content,
  integrations,
  prospects,
  salesReps,
  targets,
} from '../../db/schema/index.ts';

/** Drizzle queries of cadences, always scoped by client (STYLE.md: repository). */

export type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'execute'>;

export type CadenceRow = typeof cadences.$inferSelect & {
  source: string;
  owner: { id: string; firstName: string; lastName: string; photoUrl: string | null } | null;
};

export type Counts = { total: number; active: number; contacted: number; super: number };
export type DayCounts = Counts & { dayNumber: number };
export type DayRow = { dayNumber: number; contentDays: StoredContentDay[] };

const ownerCols = {
  ownerRepId: salesReps.id,
  ownerFirstName: salesReps.firstName,
  ownerLastName: salesReps.lastName,
  ownerPhotoUrl: salesReps.photoUrl,
};

function cadenceSelect(db: Tx) {
  return db
    .select({ cadence: cadences, source: integrations.source, ...ownerCols })
    .from(cadences)
    .innerJoin(integrations, eq(integrations.id, cadences.integrationId))
    .leftJoin(salesReps, eq(salesReps.id, cadences.ownerId));
}

type Joined = Awaited<ReturnType<ReturnType<typeof cadenceSelect>['execute']>>[number];

function toRow(r: Joined): CadenceRow {
  return {
    ...r.cadence,
    source: r.source,
    owner: r.ownerRepId
      ? {
          id: r.ownerRepId,
          firstName: r.ownerFirstName ?? '',
          lastName: r.ownerLastName ?? '',
          photoUrl: r.ownerPhotoUrl ?? null,
        }
      : null,
  };
}

export async function listCadences(db: Db, clientId: string): Promise<CadenceRow[]> {
  // A cohort's hidden cadence (kind 'cohort') is the cohort's business: not listed, not editable here.
  const rows = await cadenceSelect(db)
    .where(and(eq(cadences.clientId, clientId), eq(cadences.kind, 'sequence')))
    .orderBy(asc(cadences.name), asc(cadences.id));
  return rows.map(toRow);
}

/** A cadence of the client; with `integrationId`, only if it belongs to that integration too. */
export async function findCadence(
  db: Tx,
  clientId: string,
  id: number,
  integrationId?: number,
): Promise<CadenceRow | null> {
  const [row] = await cadenceSelect(db).where(
    and(
      eq(cadences.id, id),
      eq(cadences.clientId, clientId),
      eq(cadences.kind, 'sequence'),
      integrationId === undefined ? undefined : eq(cadences.integrationId, integrationId),
    ),
  );
  return row ? toRow(row) : null;
}

/**
 * The prospects the client's CRM records sales outreach to (an activity of a type the CRM settings
 * count as outreach, as the reports' `outreachCte`), for `prospect_id in (…)`: Postgres hashes this
 * set once rather than probing per target.
 */
const crmOutreachProspects = (clientId: string) => sql`(
  select cc.prospect_id from crm_activity_counts ac
    join crm_integration_settings s on s.integration_id = ac.integration_id and s.client_id = ${clientId}
    join crm_contacts cc on cc.id = ac.contact_id and not cc.is_deleted and cc.prospect_id is not null
   where ac.client_id = ${clientId} and ac.count > 0
     and ac.activity_type in (select jsonb_array_elements_text(s.outreach_activity_types)))`;

/**
 * "Contacted" has one definition (issue 42 item 6, METRIC_DEFINITIONS.contacted): the sequence
 * platform says a step reached the prospect, or the CRM records sales outreach to them. The cadence
 * list once counted the first alone and showed 0 for a file import (no sequence platform) while the
 * Reports' "Contacted after" counted the CRM's outreach.
 */
const countCols = (clientId: string) => ({
  total: sql<number>`count(*)::int`,
  active: sql<number>`count(*) filter (where ${targets.isActive})::int`,
  contacted: sql<number>`count(*) filter (where ${targets.contacted}
    or ${targets.prospectId} in ${crmOutreachProspects(clientId)})::int`,
  super: sql<number>`count(*) filter (where ${targets.superDate} is not null)::int`,
});

/**
 * Target counts per cadence and day in one grouped pass over the client's targets (the list sums
 * the days; the detail reads one cadence's).
 */
export async function targetCounts(
  db: Tx,
  clientId: string,
  cadenceId?: number,
): Promise<(DayCounts & { cadenceId: number })[]> {
  return db
    .select({ cadenceId: targets.cadenceId, dayNumber: targets.dayNumber, ...countCols(clientId) })
    .from(targets)
    .where(
      and(
        eq(targets.clientId, clientId),
        cadenceId === undefined ? undefined : eq(targets.cadenceId, cadenceId),
      ),
    )
    .groupBy(targets.cadenceId, targets.dayNumber);
}

/** How many days each of these cadences has. */
export async function dayCountsByCadence(db: Tx, cadenceIds: number[]): Promise<Map<number, number>> {
  if (!cadenceIds.length) return new Map();
  const rows = await db
    .select({ cadenceId: cadenceDays.cadenceId, n: count() })
    .from(cadenceDays)
    .where(inArray(cadenceDays.cadenceId, cadenceIds))
    .groupBy(cadenceDays.cadenceId);
  return new Map(rows.map((r) => [r.cadenceId, r.n]));
}

export async function listDays(db: Tx, clientId: string, cadenceId: number): Promise<DayRow[]> {
  // The column's type predates target_day_number; the stored JSON carries it for move_to_day.
  return db
    .select({
      dayNumber: cadenceDays.dayNumber,
      contentDays: sql<StoredContentDay[]>`${cadenceDays.contentDays}`.mapWith(cadenceDays.contentDays),
    })
    .from(cadenceDays)
    .where(and(eq(cadenceDays.cadenceId, cadenceId), eq(cadenceDays.clientId, clientId)))
    .orderBy(asc(cadenceDays.dayNumber));
}

/** Locks the cadence row for the rest of the transaction, so two saves apply one after the other. */
export async function lockCadence(tx: Tx, clientId: string, id: number): Promise<boolean> {
  const rows = await tx
    .select({ id: cadences.id })
    .from(cadences)
    .where(and(eq(cadences.id, id), eq(cadences.clientId, clientId), eq(cadences.kind, 'sequence')))
    .for('update');
  return rows.length > 0;
}

export async function updateCadenceFields(
  tx: Tx,
  clientId: string,
  id: number,
  fields: { name?: string; isSuper?: boolean; selectedSdrs?: string[] },
): Promise<void> {
  await tx
    .update(cadences)
    .set({ ...fields, updatedAt: new Date() })
    .where(and(eq(cadences.id, id), eq(cadences.clientId, clientId)));
}

export async function setDayContent(
  tx: Tx,
  clientId: string,
  cadenceId: number,
  dayNumber: number,
  contentDays: StoredContentDay[],
): Promise<void> {
  await tx
    .update(cadenceDays)
    .set({ contentDays })
    .where(
      and(
        eq(cadenceDays.cadenceId, cadenceId),
        eq(cadenceDays.clientId, clientId),
        eq(cadenceDays.dayNumber, dayNumber),
      ),
    );
}

/** Which of these ids are the client's sales reps. */
export async function existingRepIds(tx: Tx, clientId: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await tx
    .select({ id: salesReps.id })
    .from(salesReps)
    .where(and(eq(salesReps.clientId, clientId), inArray(salesReps.id, ids)));
  return new Set(rows.map((r) => r.id));
}

/** Which of these ids are the client's content items. */
export async function existingContentIds(tx: Tx, clientId: string, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await tx
    .select({ id: content.id })
    .from(content)
    .where(and(eq(content.clientId, clientId), inArray(content.id, ids)));
  return new Set(rows.map((r) => r.id));
}

/**
 * Moves the cadence to `to` only from one of `from`, in one statement, so two racing changes cannot
 * both pass the check. Returns false when the cadence was not in one of `from`.
 */
export async function changeStatus(
  db: Db,
  clientId: string,
  id: number,
  integrationId: number,
  from: readonly CadenceStatusValue[],
  to: CadenceStatusValue,
): Promise<boolean> {
  if (!from.length) return false;
  const rows = await db
    .update(cadences)
    .set({ status: to, updatedAt: new Date() })
    .where(
      and(
        eq(cadences.id, id),
        eq(cadences.clientId, clientId),
        eq(cadences.integrationId, integrationId),
        eq(cadences.kind, 'sequence'),
        inArray(cadences.status, [...from]),
      ),
    )
    .returning({ id: cadences.id });
  return rows.length > 0;
}

export type SuperRow = {
  targetId: string;
  prospectId: string;
  firstName: string;
  lastName: string;
  email: string | null;
  title: string;
  companyName: string | null;
  cadenceId: number;
  cadenceName: string;
  salesRepId: string | null;
  repFirstName: string | null;
  repLastName: string | null;
  impressions: number;
  clicks: number;
  superDate: Date;
};

/** The client's superprospects (targets with a super_date), newest first, one page. */
export async function superAudience(
  db: Db,
  clientId: string,
  opts: { limit: number; offset: number; cadenceId?: number },
): Promise<{ rows: SuperRow[]; total: number }> {
  const where = and(
    eq(targets.clientId, clientId),
    isNotNull(targets.superDate),
    opts.cadenceId === undefined ? undefined : eq(targets.cadenceId, opts.cadenceId),
  );
  const [rows, [totalRow]] = await Promise.all([
    db
      .select({
        targetId: targets.id,
        prospectId: prospects.id,
        firstName: prospects.firstName,
        lastName: prospects.lastName,
        email: prospects.email,
        title: prospects.title,
        companyName: companies.name,
        cadenceId: cadences.id,
        cadenceName: cadences.name,
        salesRepId: targets.salesRepId,
        repFirstName: salesReps.firstName,
        repLastName: salesReps.lastName,
        impressions: targets.impressions,
        clicks: targets.clicks,
        superDate: sql<Date>`${targets.superDate}`.mapWith(targets.superDate),
      })
      .from(targets)
      .innerJoin(prospects, eq(prospects.id, targets.prospectId))
      .innerJoin(cadences, eq(cadences.id, targets.cadenceId))
      .leftJoin(companies, eq(companies.id, prospects.companyId))
      .leftJoin(salesReps, eq(salesReps.id, targets.salesRepId))
      .where(where)
      .orderBy(desc(targets.superDate), desc(targets.id))
      .limit(opts.limit)
      .offset(opts.offset),
    db.select({ n: count() }).from(targets).where(where),
  ]);
  return { rows, total: totalRow?.n ?? 0 };
}
