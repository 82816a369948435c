import { and, asc, count, desc, eq, ilike, inArray, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { CrmList, CrmRecordType, CrmStage } from '@rally/shared/schemas/crm';
import type { Db } from '../../db/client.ts';
import {
  crmClientSettings,
  crmLists,
  crmRecordTypes,
  crmStages,
  integrations,
} from '../../db/schema/index.ts';

type StageRow = typeof crmStages.$inferSelect;

function toStage(r: StageRow, source: string): CrmStage {
  return {
    id: r.id,
    integration_id: r.integrationId,
    source,
    pipeline_key: r.pipelineKey,
    pipeline_label: r.pipelineLabel,
    key: r.key,
    label: r.label,
    order: r.sortOrder,
    probability: r.probability,
    is_closed: r.isClosed,
    is_won: r.isWon,
    is_active: r.isActive,
  };
}

/** The client's stage catalogue, by integration, pipeline and order. */
export async function stagesOf(
  db: Db,
  clientId: string,
  filter: { integrationId?: number; pipeline?: string; ids?: string[] } = {},
): Promise<CrmStage[]> {
  const where: SQL[] = [eq(crmStages.clientId, clientId)];
  if (filter.integrationId !== undefined) where.push(eq(crmStages.integrationId, filter.integrationId));
  if (filter.pipeline !== undefined) where.push(eq(crmStages.pipelineKey, filter.pipeline));
  if (filter.ids) {
    if (!filter.ids.length) return [];
    where.push(inArray(crmStages.id, filter.ids));
  }
  const rows = await db
    .select({ stage: crmStages, source: integrations.source })
    .from(crmStages)
    .innerJoin(integrations, eq(integrations.id, crmStages.integrationId))
    .where(and(...where))
    .orderBy(
      asc(crmStages.integrationId),
      asc(crmStages.pipelineKey),
      asc(crmStages.sortOrder),
      asc(crmStages.label),
    );
  return rows.map((r) => toStage(r.stage, r.source));
}

export async function recordTypesOf(db: Db, clientId: string): Promise<CrmRecordType[]> {
  const rows = await db
    .select({ rt: crmRecordTypes, source: integrations.source })
    .from(crmRecordTypes)
    .innerJoin(integrations, eq(integrations.id, crmRecordTypes.integrationId))
    .where(eq(crmRecordTypes.clientId, clientId))
    .orderBy(asc(crmRecordTypes.integrationId), asc(crmRecordTypes.name));
  return rows.map(({ rt, source }) => ({
    id: rt.id,
    integration_id: rt.integrationId,
    source,
    external_id: rt.externalId,
    name: rt.name,
    developer_name: rt.developerName,
    is_active: rt.isActive,
  }));
}

export type StageSetting = 'selected' | 'valuable';
const column = (which: StageSetting) =>
  which === 'selected' ? crmClientSettings.selectedStageIds : crmClientSettings.valuableStageIds;

/** The chosen stage ids (in the order chosen), leaving out stages that no longer exist. */
export async function stageSetting(
  db: Db,
  clientId: string,
  which: StageSetting,
): Promise<{ stage_ids: string[]; stages: CrmStage[] }> {
  const [row] = await db
    .select({ ids: column(which) })
    .from(crmClientSettings)
    .where(eq(crmClientSettings.clientId, clientId));
  const stages = await stagesOf(db, clientId, { ids: row?.ids ?? [] });
  const byId = new Map(stages.map((s) => [s.id, s]));
  const ids = (row?.ids ?? []).filter((id) => byId.has(id));
  return { stage_ids: ids, stages: ids.flatMap((id) => byId.get(id) ?? []) };
}

/** Sets the chosen stages; returns the ids that are not stages of this client (nothing written then). */
export async function setStageSetting(
  db: Db,
  clientId: string,
  which: StageSetting,
  ids: string[],
): Promise<{ unknown: string[] }> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  return db.transaction(async (tx) => {
    const known = unique.length
      ? await tx
          .select({ id: crmStages.id })
          .from(crmStages)
          .where(and(eq(crmStages.clientId, clientId), inArray(crmStages.id, unique)))
      : [];
    const knownIds = new Set(known.map((k) => k.id));
    const unknown = unique.filter((id) => !knownIds.has(id));
    if (unknown.length) return { unknown };
    const value = which === 'selected' ? { selectedStageIds: unique } : { valuableStageIds: unique };
    await tx
      .insert(crmClientSettings)
      .values({ clientId, ...value })
      .onConflictDoUpdate({ target: crmClientSettings.clientId, set: { ...value, updatedAt: new Date() } });
    return { unknown: [] };
  });
}

export async function listsOf(
  db: Db,
  clientId: string,
  q: { integrationId?: number; source?: string; search?: string; page: number; pageSize: number },
): Promise<{ items: CrmList[]; total: number }> {
  const where: SQL[] = [eq(crmLists.clientId, clientId)];
  if (q.integrationId !== undefined) where.push(eq(crmLists.integrationId, q.integrationId));
  if (q.source !== undefined) where.push(eq(integrations.source, q.source as 'salesforce'));
  if (q.search) where.push(ilike(crmLists.name, `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`));
  const rows = await db
    .select({ list: crmLists, source: integrations.source })
    .from(crmLists)
    .innerJoin(integrations, eq(integrations.id, crmLists.integrationId))
    .where(and(...where))
    .orderBy(asc(sql`lower(${crmLists.name})`), desc(crmLists.id))
    .limit(q.pageSize)
    .offset((q.page - 1) * q.pageSize);
  const [total] = await db
    .select({ n: count() })
    .from(crmLists)
    .innerJoin(integrations, eq(integrations.id, crmLists.integrationId))
    .where(and(...where));
  return {
    items: rows.map(({ list, source }) => ({
      id: list.id,
      integration_id: list.integrationId,
      source,
      external_id: list.externalId,
      name: list.name,
      kind: list.kind,
      member_type: list.memberType,
      member_count: list.memberCount,
      is_active: list.isActive,
      updated_at: (list.crmUpdatedAt ?? list.updatedAt).toISOString(),
    })),
    total: total?.n ?? 0,
  };
}
