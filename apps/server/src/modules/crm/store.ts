import { and, desc, eq, inArray, isNotNull, lt, notInArray, sql } from 'drizzle-orm';
import {
  companies,
  crmAccounts,
  crmActivityCounts,
  crmContacts,
  crmListMembers,
  crmLists,
  crmOwners,
  crmRecordTypes,
  crmStages,
  opportunities,
  opportunityContacts,
  opportunityStageHistory,
  prospects,
  salesReps,
  targets,
} from '../../db/schema/index.ts';
import { lastByKey } from '../integrations/store.ts';
import type { IntegrationRef, Tx } from '../integrations/store.ts';
import { domainOf, emailKey } from './match.ts';
import type {
  RemoteAccount,
  RemoteActivityCount,
  RemoteContact,
  RemoteList,
  RemoteListMember,
  RemoteOpportunity,
  RemoteOwner,
  RemoteRecordType,
  RemoteStage,
  RemoteStageChange,
  WriteBackItem,
} from './port.ts';

/**
 * Idempotent bulk upserts of what a CRM adapter brings in, keyed by (integration, external id)
 * (ARCHITECTURE.md §7, §10), with the matching to Rally's records: owners to sales reps by e-mail,
 * accounts to companies by website domain, contacts to prospects by e-mail. Every function takes a
 * transaction; a page stored twice lands once.
 */

export type { IntegrationRef, Tx };

const CHUNK = 500;
function chunks<T>(rows: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK));
  return out;
}
const when = (iso: string | null) => (iso ? new Date(iso) : null);

/** Stores the stage catalogue; stages the CRM no longer lists become inactive (kept for history). */
export async function upsertStages(tx: Tx, ref: IntegrationRef, stages: RemoteStage[]): Promise<void> {
  const unique = lastByKey(stages, (s) => `${s.pipelineKey}\u0000${s.key}`);
  for (const part of chunks(unique)) {
    await tx
      .insert(crmStages)
      .values(
        part.map((s) => ({
          clientId: ref.clientId,
          integrationId: ref.id,
          pipelineKey: s.pipelineKey,
          pipelineLabel: s.pipelineLabel,
          key: s.key,
          label: s.label,
          sortOrder: s.order,
          probability: s.probability,
          isClosed: s.isClosed,
          isWon: s.isWon,
          isActive: s.isActive,
        })),
      )
      .onConflictDoUpdate({
        target: [crmStages.integrationId, crmStages.pipelineKey, crmStages.key],
        set: {
          pipelineLabel: sql`excluded.pipeline_label`,
          label: sql`excluded.label`,
          sortOrder: sql`excluded.sort_order`,
          probability: sql`excluded.probability`,
          isClosed: sql`excluded.is_closed`,
          isWon: sql`excluded.is_won`,
          isActive: sql`excluded.is_active`,
          updatedAt: sql`now()`,
        },
      });
  }
  // Unit separator: PostgreSQL text cannot hold NUL.
  const keys = unique.map((s) => `${s.pipelineKey}\u001f${s.key}`);
  await tx
    .update(crmStages)
    .set({ isActive: false, updatedAt: new Date() })
    .where(
      and(
        eq(crmStages.integrationId, ref.id),
        keys.length
          ? notInArray(sql<string>`${crmStages.pipelineKey} || chr(31) || ${crmStages.key}`, keys)
          : sql`true`,
      ),
    );
}

export async function upsertRecordTypes(
  tx: Tx,
  ref: IntegrationRef,
  rows: RemoteRecordType[],
): Promise<void> {
  for (const part of chunks(lastByKey(rows, (r) => r.externalId))) {
    await tx
      .insert(crmRecordTypes)
      .values(
        part.map((r) => ({
          clientId: ref.clientId,
          integrationId: ref.id,
          externalId: r.externalId,
          name: r.name,
          developerName: r.developerName,
          isActive: r.isActive,
        })),
      )
      .onConflictDoUpdate({
        target: [crmRecordTypes.integrationId, crmRecordTypes.externalId],
        set: {
          name: sql`excluded.name`,
          developerName: sql`excluded.developer_name`,
          isActive: sql`excluded.is_active`,
          updatedAt: sql`now()`,
        },
      });
  }
}

/** Owners, each mapped to the client's sales rep with the same e-mail unless mapped by hand. */
export async function upsertOwners(tx: Tx, ref: IntegrationRef, owners: RemoteOwner[]): Promise<void> {
  const unique = lastByKey(owners, (o) => o.externalId);
  const emails = [...new Set(unique.flatMap((o) => emailKey(o.email) ?? []))];
  const reps = emails.length
    ? await tx
        .select({ id: salesReps.id, email: sql<string>`lower(${salesReps.email})` })
        .from(salesReps)
        .where(and(eq(salesReps.clientId, ref.clientId), inArray(sql`lower(${salesReps.email})`, emails)))
        .orderBy(desc(salesReps.isActive), salesReps.createdAt)
    : [];
  const repOf = new Map<string, string>();
  for (const r of reps) if (!repOf.has(r.email)) repOf.set(r.email, r.id);
  for (const part of chunks(unique)) {
    await tx
      .insert(crmOwners)
      .values(
        part.map((o) => ({
          clientId: ref.clientId,
          integrationId: ref.id,
          externalId: o.externalId,
          firstName: o.firstName,
          lastName: o.lastName,
          email: o.email,
          isActive: o.isActive,
          salesRepId: repOf.get(emailKey(o.email) ?? '') ?? null,
        })),
      )
      .onConflictDoUpdate({
        target: [crmOwners.integrationId, crmOwners.externalId],
        set: {
          firstName: sql`excluded.first_name`,
          lastName: sql`excluded.last_name`,
          email: sql`excluded.email`,
          isActive: sql`excluded.is_active`,
          salesRepId: sql`case when ${crmOwners.mappedByHand} then ${crmOwners.salesRepId} else excluded.sales_rep_id end`,
          updatedAt: sql`now()`,
        },
      });
  }
}

/** The client's companies by website domain (first made wins), read once per sync. */
export async function companyDomains(tx: Tx, clientId: string): Promise<Map<string, string>> {
  const rows = await tx
    .select({ id: companies.id, website: companies.website })
    .from(companies)
    .where(and(eq(companies.clientId, clientId), isNotNull(companies.website)))
    .orderBy(companies.createdAt, companies.id);
  const out = new Map<string, string>();
  for (const r of rows) {
    const d = domainOf(r.website);
    if (d && !out.has(d)) out.set(d, r.id);
  }
  return out;
}

export async function upsertAccounts(
  tx: Tx,
  ref: IntegrationRef,
  accounts: RemoteAccount[],
  companyByDomain: Map<string, string>,
): Promise<void> {
  for (const part of chunks(lastByKey(accounts, (a) => a.externalId))) {
    await tx
      .insert(crmAccounts)
      .values(
        part.map((a) => {
          const domain = domainOf(a.website);
          return {
            clientId: ref.clientId,
            integrationId: ref.id,
            externalId: a.externalId,
            name: a.name,
            website: a.website,
            domain,
            companyId: (domain && companyByDomain.get(domain)) || null,
            ownerExternalId: a.ownerExternalId,
            crmUpdatedAt: when(a.updatedAt),
            isDeleted: a.isDeleted ?? false,
          };
        }),
      )
      .onConflictDoUpdate({
        target: [crmAccounts.integrationId, crmAccounts.externalId],
        set: {
          name: sql`excluded.name`,
          website: sql`excluded.website`,
          domain: sql`excluded.domain`,
          companyId: sql`coalesce(excluded.company_id, case when ${crmAccounts.domain} is not distinct from excluded.domain then ${crmAccounts.companyId} end)`,
          ownerExternalId: sql`excluded.owner_external_id`,
          crmUpdatedAt: sql`excluded.crm_updated_at`,
          isDeleted: sql`excluded.is_deleted`,
          updatedAt: sql`now()`,
        },
      });
  }
}

async function idsByExternal(
  tx: Tx,
  table: typeof crmAccounts | typeof crmContacts,
  integrationId: number,
  externalIds: string[],
): Promise<Map<string, { id: string; companyId?: string | null; name?: string }>> {
  const unique = [...new Set(externalIds)];
  const out = new Map<string, { id: string; companyId?: string | null; name?: string }>();
  for (const part of chunks(unique)) {
    if (table === crmAccounts) {
      const rows = await tx
        .select({
          id: crmAccounts.id,
          ext: crmAccounts.externalId,
          companyId: crmAccounts.companyId,
          name: crmAccounts.name,
        })
        .from(crmAccounts)
        .where(and(eq(crmAccounts.integrationId, integrationId), inArray(crmAccounts.externalId, part)));
      for (const r of rows) out.set(r.ext, { id: r.id, companyId: r.companyId, name: r.name });
    } else {
      const rows = await tx
        .select({ id: crmContacts.id, ext: crmContacts.externalId })
        .from(crmContacts)
        .where(and(eq(crmContacts.integrationId, integrationId), inArray(crmContacts.externalId, part)));
      for (const r of rows) out.set(r.ext, { id: r.id });
    }
  }
  return out;
}

/** A PostgreSQL array literal of text values (null for NULL), quoted so that any text reads back as itself. */
export function arrayLiteral(values: readonly (string | boolean | null | undefined)[]): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) parts[i] = 'NULL';
    else if (typeof v === 'boolean') parts[i] = v ? 't' : 'f';
    else parts[i] = `"${/["\\]/.test(v) ? v.replace(/["\\]/g, '\\$&') : v}"`;
  }
  return `{${parts.join(',')}}`;
}

type Column<R> = readonly [type: string, value: (row: R) => string | boolean | null | undefined];
/**
 * Rows for `insert … select … from unnest(…) as x(…)`: a whole batch as one array per column, so a
 * batch is one statement however many rows it holds (issue 43: a multi-row VALUES of 500 rows is
 * 6,500 parameters to bind, parse and plan, twice a batch), and the same on PGlite and PostgreSQL.
 * Each array goes as one text parameter cast to its type (`$1::text::timestamptz[]`): reading it is
 * a scan of quoted values, where the JSON this replaced (`jsonb_to_recordset`) was parsed into a tree
 * and then looked up by key for each row and column (about a tenth of a batch's CPU, 2026-12-07).
 * Times go as ISO text; the drivers send a lone surrogate as U+FFFD, as for any text.
 */
function unnestRows<R>(rows: readonly R[], columns: Record<string, Column<R>>) {
  const entries = Object.entries(columns);
  const arrays = entries.map(
    ([, [type, value]]) => sql`${arrayLiteral(rows.map(value))}::text::${sql.raw(type)}[]`,
  );
  return sql`unnest(${sql.join(arrays, sql`, `)}) as x(${sql.raw(entries.map(([name]) => name).join(', '))})`;
}

export async function upsertContacts(tx: Tx, ref: IntegrationRef, contacts: RemoteContact[]): Promise<void> {
  // Sorted by id: batches stored side by side take their rows' locks in one order (sync.ts).
  const unique = lastByKey(contacts, (c) => c.externalId).sort((a, b) =>
    a.externalId < b.externalId ? -1 : a.externalId > b.externalId ? 1 : 0,
  );
  if (unique.length === 0) return;
  const emails = [...new Set(unique.flatMap((c) => emailKey(c.email) ?? []))];
  const prospectOf = new Map<string, string>();
  if (emails.length) {
    // One statement for the batch, the addresses as one array parameter (not 500 a statement).
    const rows = await tx
      .select({ id: prospects.id, email: sql<string>`lower(${prospects.email})` })
      .from(prospects)
      .where(
        and(
          eq(prospects.clientId, ref.clientId),
          sql`lower(${prospects.email}) = any(${sql.param(emails)}::text[])`,
        ),
      )
      .orderBy(prospects.createdAt, prospects.id);
    for (const r of rows) if (!prospectOf.has(r.email)) prospectOf.set(r.email, r.id);
  }
  // The account is looked up by its external id in the statement, not in a statement of its own: a
  // subquery per row probes the unique index (integration, external id), whatever the planner would
  // make of a join with a table whose statistics a bulk load has outrun (autovacuum may be off).
  await tx.execute(sql`
    insert into crm_contacts (client_id, integration_id, external_id, email, first_name, last_name, title,
      account_external_id, account_id, prospect_id, owner_external_id, crm_updated_at, is_deleted)
    select ${ref.clientId}::uuid, ${ref.id}::integer, x.external_id, x.email,
           coalesce(x.first_name, ''), coalesce(x.last_name, ''), coalesce(x.title, ''),
           x.account_external_id,
           (select a.id from crm_accounts a
             where a.integration_id = ${ref.id} and a.external_id = x.account_external_id),
           x.prospect_id, x.owner_external_id, x.crm_updated_at, x.is_deleted
      from ${unnestRows(unique, {
        external_id: ['text', (c) => c.externalId],
        email: ['text', (c) => c.email],
        first_name: ['text', (c) => c.firstName],
        last_name: ['text', (c) => c.lastName],
        title: ['text', (c) => c.title],
        account_external_id: ['text', (c) => c.accountExternalId],
        prospect_id: ['uuid', (c) => prospectOf.get(emailKey(c.email) ?? '') ?? null],
        owner_external_id: ['text', (c) => c.ownerExternalId],
        crm_updated_at: ['timestamptz', (c) => when(c.updatedAt)?.toISOString() ?? null],
        is_deleted: ['boolean', (c) => c.isDeleted ?? false],
      })}
    on conflict (integration_id, external_id) do update set
      email = excluded.email, first_name = excluded.first_name, last_name = excluded.last_name,
      title = excluded.title, account_external_id = excluded.account_external_id,
      account_id = excluded.account_id, prospect_id = excluded.prospect_id,
      owner_external_id = excluded.owner_external_id, crm_updated_at = excluded.crm_updated_at,
      is_deleted = excluded.is_deleted, updated_at = now()`);
}

/** Stage id of the integration by (pipeline, key); also by key alone as a fallback. */
export async function stageLookup(tx: Tx, integrationId: number) {
  const rows = await tx
    .select({ id: crmStages.id, pipeline: crmStages.pipelineKey, key: crmStages.key, label: crmStages.label })
    .from(crmStages)
    .where(eq(crmStages.integrationId, integrationId));
  const byPipeline = new Map(rows.map((r) => [`${r.pipeline}\u0000${r.key}`, r]));
  const byKey = new Map<string, (typeof rows)[number]>();
  for (const r of rows) if (!byKey.has(r.key)) byKey.set(r.key, r);
  // Salesforce's StageName may carry the label where the API name differs.
  for (const r of rows) if (!byKey.has(r.label)) byKey.set(r.label, r);
  return (pipeline: string | null, key: string) =>
    (pipeline !== null ? byPipeline.get(`${pipeline}\u0000${key}`) : undefined) ?? byKey.get(key);
}
export type StageLookup = Awaited<ReturnType<typeof stageLookup>>;

async function mapByExternal(
  tx: Tx,
  table: typeof crmOwners | typeof crmRecordTypes,
  integrationId: number,
  externalIds: string[],
): Promise<Map<string, string>> {
  const unique = [...new Set(externalIds)];
  if (!unique.length) return new Map();
  const rows = await tx
    .select({ id: table.id, ext: table.externalId })
    .from(table)
    .where(and(eq(table.integrationId, integrationId), inArray(table.externalId, unique)));
  return new Map(rows.map((r) => [r.ext, r.id]));
}

export async function upsertOpportunities(
  tx: Tx,
  ref: IntegrationRef,
  rows: RemoteOpportunity[],
  stageOf: StageLookup,
): Promise<void> {
  const unique = lastByKey(rows, (r) => r.externalId);
  const accounts = await idsByExternal(
    tx,
    crmAccounts,
    ref.id,
    unique.flatMap((r) => r.accountExternalId ?? []),
  );
  const owners = await mapByExternal(
    tx,
    crmOwners,
    ref.id,
    unique.flatMap((r) => r.ownerExternalId ?? []),
  );
  const recordTypes = await mapByExternal(
    tx,
    crmRecordTypes,
    ref.id,
    unique.flatMap((r) => r.recordTypeExternalId ?? []),
  );
  for (const part of chunks(unique)) {
    const stored = await tx
      .insert(opportunities)
      .values(
        part.map((r) => {
          const account = r.accountExternalId ? accounts.get(r.accountExternalId) : undefined;
          const stage = stageOf(r.pipelineKey, r.stageKey);
          return {
            clientId: ref.clientId,
            integrationId: ref.id,
            externalId: r.externalId,
            name: r.name,
            accountName: r.accountName ?? account?.name ?? '',
            companyId: account?.companyId ?? null,
            amountCents: Math.round((r.amount ?? 0) * 100),
            currency: (r.currency ?? 'USD').toUpperCase().slice(0, 3),
            stage: stage?.label ?? r.stageKey,
            stageId: stage?.id ?? null,
            closeDate: r.closeDate && /^\d{4}-\d{2}-\d{2}$/.test(r.closeDate) ? r.closeDate : null,
            crmCreatedAt: new Date(r.createdAt),
            crmUpdatedAt: new Date(r.updatedAt),
            isClosed: r.isClosed,
            isWon: r.isWon,
            probability:
              r.probability === null ? null : Math.max(0, Math.min(100, Math.round(r.probability))),
            ownerId: (r.ownerExternalId && owners.get(r.ownerExternalId)) || null,
            recordTypeId: (r.recordTypeExternalId && recordTypes.get(r.recordTypeExternalId)) || null,
            accountExternalId: r.accountExternalId,
            isDeleted: r.isDeleted,
          };
        }),
      )
      .onConflictDoUpdate({
        target: [opportunities.integrationId, opportunities.externalId],
        set: {
          name: sql`excluded.name`,
          accountName: sql`excluded.account_name`,
          companyId: sql`excluded.company_id`,
          amountCents: sql`excluded.amount_cents`,
          currency: sql`excluded.currency`,
          stage: sql`excluded.stage`,
          stageId: sql`excluded.stage_id`,
          closeDate: sql`excluded.close_date`,
          crmCreatedAt: sql`excluded.crm_created_at`,
          crmUpdatedAt: sql`excluded.crm_updated_at`,
          isClosed: sql`excluded.is_closed`,
          isWon: sql`excluded.is_won`,
          probability: sql`excluded.probability`,
          ownerId: sql`excluded.owner_id`,
          recordTypeId: sql`excluded.record_type_id`,
          accountExternalId: sql`excluded.account_external_id`,
          isDeleted: sql`excluded.is_deleted`,
          updatedAt: sql`now()`,
        },
      })
      .returning({ id: opportunities.id, externalId: opportunities.externalId });
    const withRoles = part.filter((r) => r.contactRoles);
    if (!withRoles.length) continue;
    const oppId = new Map(stored.map((s) => [s.externalId, s.id]));
    const contacts = await idsByExternal(
      tx,
      crmContacts,
      ref.id,
      withRoles.flatMap((r) => (r.contactRoles ?? []).map((c) => c.contactExternalId)),
    );
    const ids = withRoles.flatMap((r) => oppId.get(r.externalId) ?? []);
    if (ids.length) {
      await tx.execute(
        sql`delete from ${opportunityContacts} where ${inArray(opportunityContacts.opportunityId, ids)}`,
      );
    }
    const roles = withRoles.flatMap((r) =>
      (r.contactRoles ?? []).flatMap((c) => {
        const opportunityId = oppId.get(r.externalId);
        const contactId = contacts.get(c.contactExternalId)?.id;
        return opportunityId && contactId
          ? [{ clientId: ref.clientId, opportunityId, contactId, role: c.role, isPrimary: c.isPrimary }]
          : [];
      }),
    );
    const uniqueRoles = lastByKey(roles, (r) => `${r.opportunityId}\u0000${r.contactId}`);
    if (uniqueRoles.length) await tx.insert(opportunityContacts).values(uniqueRoles).onConflictDoNothing();
  }
}

/**
 * Marks opportunities, accounts or contacts the CRM deleted (reports and counts leave them out); the
 * rows stay, with their history and list memberships. Ids Rally never stored are ignored, and one
 * already marked is not touched again.
 */
export async function markDeleted(
  tx: Tx,
  table: typeof opportunities | typeof crmAccounts | typeof crmContacts,
  ref: IntegrationRef,
  externalIds: string[],
): Promise<number> {
  let marked = 0;
  for (const part of chunks([...new Set(externalIds)])) {
    const result = await tx.execute(sql`update ${table} set is_deleted = true, updated_at = now()
      where ${table.integrationId} = ${ref.id} and ${inArray(table.externalId, part)} and not ${table.isDeleted}
      returning ${table.id}`);
    marked += (result as unknown as { rows: unknown[] }).rows.length;
  }
  return marked;
}

/**
 * Stores stage moves. A move whose opportunity is not stored yet is not stored: returns false then,
 * so the sync keeps its cursor and reads it again. A move without its "from" stage takes the stage
 * of the opportunity's latest earlier move.
 */
export async function upsertStageHistory(
  tx: Tx,
  ref: IntegrationRef,
  changes: RemoteStageChange[],
  stageOf: StageLookup,
): Promise<{ complete: boolean }> {
  const unique = lastByKey(changes, (c) => `${c.opportunityExternalId}\u0000${c.externalId}`);
  const opps = new Map<string, string>();
  for (const part of chunks([...new Set(unique.map((c) => c.opportunityExternalId))])) {
    const rows = await tx
      .select({ id: opportunities.id, ext: opportunities.externalId })
      .from(opportunities)
      .where(and(eq(opportunities.integrationId, ref.id), inArray(opportunities.externalId, part)));
    for (const r of rows) opps.set(r.ext, r.id);
  }
  let complete = true;
  const rows = [];
  for (const c of unique) {
    const opportunityId = opps.get(c.opportunityExternalId);
    if (!opportunityId) {
      complete = false;
      continue;
    }
    let from = c.fromStageKey;
    if (from === null) {
      const [prev] = await tx
        .select({ to: opportunityStageHistory.toStage })
        .from(opportunityStageHistory)
        .where(
          and(
            eq(opportunityStageHistory.opportunityId, opportunityId),
            lt(opportunityStageHistory.changedAt, new Date(c.changedAt)),
          ),
        )
        .orderBy(desc(opportunityStageHistory.changedAt))
        .limit(1);
      from = prev?.to ?? null;
    }
    rows.push({
      clientId: ref.clientId,
      opportunityId,
      externalId: c.externalId,
      fromStageId: from ? (stageOf(null, from)?.id ?? null) : null,
      toStageId: stageOf(null, c.toStageKey)?.id ?? null,
      fromStage: from,
      toStage: c.toStageKey,
      changedAt: new Date(c.changedAt),
    });
  }
  for (const part of chunks(rows)) {
    await tx
      .insert(opportunityStageHistory)
      .values(part)
      .onConflictDoUpdate({
        target: [opportunityStageHistory.opportunityId, opportunityStageHistory.externalId],
        set: {
          fromStageId: sql`excluded.from_stage_id`,
          toStageId: sql`excluded.to_stage_id`,
          fromStage: sql`excluded.from_stage`,
          toStage: sql`excluded.to_stage`,
          changedAt: sql`excluded.changed_at`,
        },
      });
  }
  return { complete };
}

export async function upsertLists(
  tx: Tx,
  ref: IntegrationRef,
  lists: RemoteList[],
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const part of chunks(lastByKey(lists, (l) => l.externalId))) {
    const rows = await tx
      .insert(crmLists)
      .values(
        part.map((l) => ({
          clientId: ref.clientId,
          integrationId: ref.id,
          externalId: l.externalId,
          name: l.name,
          kind: l.kind,
          memberType: l.memberType,
          memberCount: l.memberCount ?? 0,
          isActive: l.isActive,
          crmUpdatedAt: when(l.updatedAt),
        })),
      )
      .onConflictDoUpdate({
        target: [crmLists.integrationId, crmLists.externalId],
        set: {
          name: sql`excluded.name`,
          kind: sql`excluded.kind`,
          memberType: sql`excluded.member_type`,
          memberCount: sql`excluded.member_count`,
          isActive: sql`excluded.is_active`,
          crmUpdatedAt: sql`excluded.crm_updated_at`,
          updatedAt: sql`now()`,
        },
      })
      .returning({ id: crmLists.id, ext: crmLists.externalId });
    for (const r of rows) ids.set(r.ext, r.id);
  }
  return ids;
}

/** Adds or updates a list's members; `finish` then drops the members the CRM no longer lists. */
export async function upsertListMembers(
  tx: Tx,
  ref: IntegrationRef,
  listId: string,
  members: RemoteListMember[],
  /** Whom the list holds: a list of people is not looked up among accounts, nor one of accounts among contacts. */
  memberType?: RemoteList['memberType'],
): Promise<void> {
  // Sorted by id: batches stored side by side take their rows' locks in one order (sync.ts).
  const unique = lastByKey(members, (m) => m.memberExternalId).sort((a, b) =>
    a.memberExternalId < b.memberExternalId ? -1 : a.memberExternalId > b.memberExternalId ? 1 : 0,
  );
  if (unique.length === 0) return;
  // A list is read whole at every sync that finds it changed (vendors give no modified-since for
  // memberships): a member whose row would not change is left as it is (locked, not rewritten), so a
  // re-read list of 100,000 writes only what moved, not 100,000 new row versions and their index entries.
  // HubSpot's contact and company ids share one number space: a contact list's member must not
  // take the account that happens to have its id. The lookups are subqueries of the one statement,
  // each an index probe as in upsertContacts (issue 43: a statement per table and 500 members before).
  const byContact = memberType !== 'account';
  const byAccount = memberType !== 'contact' && memberType !== 'lead';
  await tx.execute(sql`
    insert into crm_list_members (client_id, list_id, member_external_id, contact_id, account_id, status, added_at)
    select ${ref.clientId}::uuid, ${listId}::uuid, x.member_external_id,
           ${byContact ? sql`(select c.id from crm_contacts c where c.integration_id = ${ref.id} and c.external_id = x.member_external_id)` : sql`null::uuid`},
           ${byAccount ? sql`(select a.id from crm_accounts a where a.integration_id = ${ref.id} and a.external_id = x.member_external_id)` : sql`null::uuid`},
           coalesce(x.status, ''), x.added_at
      from ${unnestRows(unique, {
        member_external_id: ['text', (m) => m.memberExternalId],
        status: ['text', (m) => m.status],
        added_at: ['timestamptz', (m) => when(m.addedAt)?.toISOString() ?? null],
      })}
    on conflict (list_id, member_external_id) do update set
      contact_id = excluded.contact_id, account_id = excluded.account_id, status = excluded.status,
      added_at = excluded.added_at, updated_at = now()
      where (crm_list_members.contact_id, crm_list_members.account_id, crm_list_members.status,
             crm_list_members.added_at)
        is distinct from (excluded.contact_id, excluded.account_id, excluded.status, excluded.added_at)`);
}

/** After a full walk of a list's members: forget those not seen, and store the count. */
export async function finishListMembers(tx: Tx, listId: string, seen: string[]): Promise<void> {
  await tx.execute(sql`delete from ${crmListMembers} where ${crmListMembers.listId} = ${listId}
    and not (${crmListMembers.memberExternalId} = any(${sql.param(seen)}::text[]))`);
  await tx
    .update(crmLists)
    .set({ memberCount: seen.length, updatedAt: new Date() })
    .where(eq(crmLists.id, listId));
}

export async function upsertActivityCounts(
  tx: Tx,
  ref: IntegrationRef,
  counts: RemoteActivityCount[],
): Promise<void> {
  const latest = lastByKey(counts, (c) => `${c.contactExternalId}\u0000${c.activityType}`);
  // A total of 0 is stored as no row: the table holds only contacts with activity.
  // One statement with two arrays, not a statement per 500 pairs spelled out (issue 43: most of a
  // first sync's pairs are zeros, 4,000 a page of 1,000 contacts).
  const zeros = latest.filter((c) => c.count <= 0);
  if (zeros.length) {
    const ids = zeros.map((c) => c.contactExternalId);
    const types = zeros.map((c) => c.activityType.slice(0, 100));
    await tx.execute(
      sql`delete from ${crmActivityCounts} where ${crmActivityCounts.integrationId} = ${ref.id}
            and (${crmActivityCounts.contactExternalId}, ${crmActivityCounts.activityType}) in
              (select * from unnest(${sql.param(ids)}::text[], ${sql.param(types)}::text[]))`,
    );
  }
  const unique = latest.filter((c) => c.count > 0);
  const contacts = await idsByExternal(
    tx,
    crmContacts,
    ref.id,
    unique.map((c) => c.contactExternalId),
  );
  for (const part of chunks(unique)) {
    await tx
      .insert(crmActivityCounts)
      .values(
        part.map((c) => ({
          clientId: ref.clientId,
          integrationId: ref.id,
          contactExternalId: c.contactExternalId,
          contactId: contacts.get(c.contactExternalId)?.id ?? null,
          activityType: c.activityType.slice(0, 100),
          count: Math.max(0, Math.trunc(c.count)),
          lastActivityAt: when(c.lastActivityAt),
        })),
      )
      .onConflictDoUpdate({
        target: [
          crmActivityCounts.integrationId,
          crmActivityCounts.contactExternalId,
          crmActivityCounts.activityType,
        ],
        set: {
          contactId: sql`excluded.contact_id`,
          count: sql`excluded.count`,
          lastActivityAt: sql`excluded.last_activity_at`,
          updatedAt: sql`now()`,
        },
      });
  }
}

/** The connection's contacts that are superprospects in Rally, with their engagement, for write-back. */
export async function superprospectContacts(tx: Tx, integrationId: number): Promise<WriteBackItem[]> {
  const rows = await tx
    .select({
      contact: crmContacts.externalId,
      superDate: sql<Date>`min(${targets.superDate})`,
      impressions: sql<number>`sum(${targets.impressions})::int`,
      clicks: sql<number>`sum(${targets.clicks})::int`,
    })
    .from(crmContacts)
    .innerJoin(targets, eq(targets.prospectId, crmContacts.prospectId))
    .where(
      and(
        eq(crmContacts.integrationId, integrationId),
        eq(crmContacts.isDeleted, false), // the CRM refuses writes to a deleted contact
        isNotNull(targets.superDate),
      ),
    )
    .groupBy(crmContacts.externalId)
    .orderBy(crmContacts.externalId);
  return rows.map((r) => ({
    contactExternalId: r.contact,
    superDate: new Date(r.superDate).toISOString(),
    impressions: r.impressions,
    clicks: r.clicks,
  }));
}
