import type { FastifyBaseLogger } from 'fastify';
import type {
  Cohort,
  CohortAudienceReport,
  CohortCreateBody,
  CohortDetailedReport,
  CohortFilters,
  CohortMemberSort,
  CohortImpactReply,
  CohortListReply,
  CohortPreSyncBody,
  CohortSegmentReply,
  CohortSortField,
  CohortUpdateBody,
} from '@rally/shared/schemas/cohorts';
import type { Db } from '../../db/client.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import type { JobQueue } from '../../lib/queue.ts';
import * as repo from './repository.ts';
import type { CohortRecord, CohortRow, StoredSyncProgress } from './repository.ts';

export const COHORT_SYNC_JOB = 'cohort-sync';
/** Members written per transaction by a sync: a crash loses at most one chunk's work. */
export const SYNC_CHUNK = 500;
const NOT_FOUND = 'Cohort not found.';
const ARCHIVED =
  'This cohort is archived and read-only: restore it (PATCH /rest/cohort/{id}/archive with archived false) to change it.';

type Deps = {
  db: Db;
  queue: JobQueue;
  log: FastifyBaseLogger;
  /** A job whose process died is retried once its heartbeat is this old (config.jobHeartbeatSeconds). */
  heartbeatSeconds?: number;
  /** Members per transaction (config.cohortSyncChunk); SYNC_CHUNK by default. */
  chunk?: number;
  /** Told after a sync finished (the cohort's journey evaluates its new accounts). */
  onSynced?: (cohortId: string) => Promise<void>;
  /** The holdout share new cohorts start with (config.holdoutDefaultPercent; issue 45). */
  holdoutPercent?: number;
};

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toApi(row: CohortRow): Cohort {
  const progress = row.syncProgress as StoredSyncProgress | null;
  return {
    id: row.id,
    client_id: row.clientId,
    name: row.name,
    source_kind: row.sourceKind,
    crm_list_id: row.crmListId,
    crm_list_name: row.crmListName,
    filters: row.filters,
    status: row.status,
    status_before_archive: row.status === 'archived' ? (row.statusBeforeArchive ?? 'active') : null,
    content_id: row.contentId,
    size: row.size,
    accounts: row.accounts,
    sync_state: row.syncState,
    sync_progress: progress ? { done: progress.done, total: progress.total } : null,
    sync_error: row.syncError,
    last_synced_at: iso(row.lastSyncedAt),
    impressions: row.impressions,
    clicks: row.clicks,
    views: row.views,
    supers: row.supers,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function createCohortService(deps: Deps) {
  const { db, queue, log } = deps;
  const jobOptions = {
    heartbeatSeconds: deps.heartbeatSeconds ?? 30,
    retryLimit: 5,
    retryDelay: Math.max(1, Math.round((deps.heartbeatSeconds ?? 30) / 3)),
  };

  async function read(clientId: string, id: string): Promise<Cohort> {
    const row = await repo.findCohort(db, clientId, id);
    if (!row) throw httpError(404, NOT_FOUND);
    return toApi(row);
  }

  async function record(clientId: string, id: string): Promise<CohortRecord> {
    const row = await repo.findCohort(db, clientId, id);
    if (!row) throw httpError(404, NOT_FOUND);
    return row;
  }

  async function checkRefs(
    tx: repo.Tx,
    clientId: string,
    refs: {
      crmListId?: string | undefined;
      contentId?: string | null | undefined;
      filters?: CohortFilters | undefined;
    },
  ): Promise<void> {
    // A filter naming another client's cadence was stored (and a cohort built on it): issue 20.
    const cadenceId = refs.filters?.cadence_id;
    if (cadenceId !== undefined && !(await repo.cadenceExists(tx, clientId, cadenceId))) {
      throw fieldError('body.filters.cadence_id', 'is not a cadence of this client');
    }
    if (refs.crmListId && !(await repo.crmListExists(tx, clientId, refs.crmListId))) {
      throw fieldError('body.crm_list_id', 'is not a CRM list of this client');
    }
    if (refs.contentId && !(await repo.contentExists(tx, clientId, refs.contentId))) {
      throw fieldError('body.content_id', 'is not a content item of this client');
    }
  }

  /** Marks the cohort queued and sends the job; false when it is paused, archived or already syncing. */
  async function requestSync(clientId: string, id: string): Promise<boolean> {
    const claimed = await repo.claimSync(db, clientId, id);
    if (claimed) await queue.send(COHORT_SYNC_JOB, { cohortId: id }, jobOptions);
    return claimed;
  }

  /**
   * The sync job: members from the CRM list or filters, written in chunks of SYNC_CHUNK in
   * prospect id order, each chunk one transaction that also moves the cursor. A job that dies (a
   * SIGKILL) is retried by the queue and goes on after the last committed chunk; upserts make a
   * chunk written twice harmless. Members not written by this sync have left the source. A cohort
   * paused or archived meanwhile stops at the next chunk.
   */
  async function runSync(data: { cohortId: string }): Promise<void> {
    let cohort = await repo.findCohortById(db, data.cohortId);
    if (!cohort) return;
    if (cohort.status !== 'active') {
      await repo.setSync(db, cohort.id, { syncState: 'idle', syncProgress: null });
      return;
    }
    if (cohort.syncState !== 'queued' && cohort.syncState !== 'running') return;
    const stored = cohort.syncProgress as StoredSyncProgress | null;
    // The database's clock: members' updated_at come from it, and stale ones are told by it.
    const startedAt = stored?.started_at ? new Date(stored.started_at) : await repo.databaseNow(db);
    let cursor = stored?.cursor ?? null;
    let done = stored?.done ?? 0;
    try {
      if (cohort.sourceKind === 'crm_list' && cohort.crmListId) {
        await repo.prospectsForListContacts(db, cohort.clientId, cohort.crmListId);
      }
      const total = await repo.countSource(db, cohort);
      await repo.setSync(db, cohort.id, {
        syncState: 'running',
        syncProgress: { done, total, cursor, started_at: startedAt.toISOString() },
      });
      for (;;) {
        const fresh = await repo.findCohortById(db, cohort.id);
        if (!fresh || fresh.status !== 'active') {
          if (fresh) await repo.setSync(db, fresh.id, { syncState: 'idle', syncProgress: null });
          return;
        }
        cohort = fresh;
        const current = cohort;
        const step = await db.transaction(async (tx) => {
          const out = await repo.writeMemberChunk(tx, current, cursor, deps.chunk ?? SYNC_CHUNK);
          if (out.last) {
            await repo.setSync(tx, current.id, {
              syncProgress: {
                done: done + out.written,
                total,
                cursor: out.last,
                started_at: startedAt.toISOString(),
              },
            });
          }
          return out;
        });
        if (!step.last) break;
        cursor = step.last;
        done += step.written;
        log.debug({ cohortId: current.id, done, total }, 'cohort sync: chunk written');
      }
      const finished = cohort;
      await db.transaction(async (tx) => {
        await repo.removeStaleMembers(tx, finished, startedAt);
        const counts = await repo.memberCounts(tx, finished.id);
        await repo.setSync(tx, finished.id, {
          ...counts,
          syncState: 'done',
          syncError: null,
          syncProgress: { done: counts.size, total: counts.size },
          lastSyncedAt: new Date(),
        });
      });
      await deps.onSynced?.(finished.id).catch((err: unknown) => {
        log.warn({ err, cohortId: finished.id }, 'cohort sync: could not tell the journey');
      });
      // Changed while this sync ran (a PATCH could not queue a second one): sync again.
      const latest = await repo.findCohortById(db, finished.id);
      if (latest && latest.status === 'active' && latest.updatedAt > startedAt) {
        await requestSync(latest.clientId, latest.id);
      }
    } catch (err) {
      log.error({ err, cohortId: data.cohortId }, 'cohort sync failed');
      await repo
        .setSync(db, data.cohortId, {
          syncState: 'failed',
          syncError: 'The sync stopped on an error; run it again.',
        })
        .catch(() => undefined);
    }
  }

  return {
    register() {
      queue.register<{ cohortId: string }>(COHORT_SYNC_JOB, (data) => runSync(data), jobOptions);
    },
    runSync,
    read,

    async list(
      clientId: string,
      q: {
        page: number;
        page_size: number;
        name?: string | undefined;
        show_archived: boolean;
        sort_field: CohortSortField;
        order: 'asc' | 'desc';
      },
    ): Promise<CohortListReply> {
      const { rows, total } = await repo.listCohorts(db, clientId, {
        page: q.page,
        pageSize: q.page_size,
        name: q.name || undefined,
        showArchived: q.show_archived,
        sortField: q.sort_field,
        order: q.order,
      });
      return { items: rows.map(toApi), total, page: q.page, page_size: q.page_size };
    },

    async preSync(clientId: string, body: CohortPreSyncBody) {
      await checkRefs(db, clientId, { crmListId: body.crm_list_id, filters: body.filters });
      return repo.estimate(db, clientId, {
        kind: body.source_kind,
        crmListId: body.crm_list_id,
        filters: body.filters ?? {},
      });
    },

    /** Creates the cohort and syncs it here and now, not through the queue (the demo seed, before the queue runs). */
    async createAndSync(clientId: string, body: CohortCreateBody, fixedId?: string): Promise<Cohort> {
      const id = await db.transaction(async (tx) => {
        await checkRefs(tx, clientId, {
          crmListId: body.crm_list_id,
          contentId: body.content_id,
          filters: body.filters,
        });
        return repo.insertCohort(tx, {
          clientId,
          name: body.name,
          sourceKind: body.source_kind,
          crmListId: body.source_kind === 'crm_list' ? (body.crm_list_id ?? null) : null,
          filters: body.source_kind === 'filter' ? (body.filters ?? {}) : {},
          contentId: body.content_id ?? null,
          createdBy: null,
          ...(fixedId ? { id: fixedId } : {}),
        });
      });
      await repo.claimSync(db, clientId, id);
      await runSync({ cohortId: id });
      return read(clientId, id);
    },

    async create(clientId: string, userId: string, body: CohortCreateBody): Promise<Cohort> {
      const id = await db.transaction(async (tx) => {
        await checkRefs(tx, clientId, {
          crmListId: body.crm_list_id,
          contentId: body.content_id,
          filters: body.filters,
        });
        return repo.insertCohort(tx, {
          clientId,
          name: body.name,
          sourceKind: body.source_kind,
          crmListId: body.source_kind === 'crm_list' ? (body.crm_list_id ?? null) : null,
          filters: body.source_kind === 'filter' ? (body.filters ?? {}) : {},
          contentId: body.content_id ?? null,
          createdBy: userId,
          holdoutPercent: deps.holdoutPercent ?? 0,
        });
      });
      await requestSync(clientId, id);
      return read(clientId, id);
    },

    async update(clientId: string, id: string, body: CohortUpdateBody): Promise<Cohort> {
      const resync = await db.transaction(async (tx) => {
        const cohort = await repo.lockCohort(tx, clientId, id);
        if (!cohort) throw httpError(404, NOT_FOUND);
        if (cohort.status === 'archived') throw httpError(409, ARCHIVED);
        if (body.crm_list_id !== undefined && cohort.sourceKind !== 'crm_list') {
          throw fieldError('body.crm_list_id', 'only a CRM list cohort has a CRM list');
        }
        if (body.filters !== undefined && cohort.sourceKind !== 'filter') {
          throw fieldError('body.filters', 'only a filter cohort has filters');
        }
        await checkRefs(tx, clientId, {
          crmListId: body.crm_list_id,
          contentId: body.content_id,
          filters: body.filters,
        });
        await repo.updateCohort(tx, cohort, {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.crm_list_id !== undefined ? { crmListId: body.crm_list_id } : {}),
          ...(body.filters !== undefined ? { filters: body.filters } : {}),
        });
        if (body.content_id !== undefined) await repo.setContent(tx, cohort, body.content_id);
        return body.crm_list_id !== undefined || body.filters !== undefined;
      });
      if (resync) await requestSync(clientId, id);
      return read(clientId, id);
    },

    /** Archive (remembering the status to restore) or restore; archiving twice changes nothing. */
    async setArchived(clientId: string, id: string, archived: boolean): Promise<Cohort> {
      await db.transaction(async (tx) => {
        const cohort = await repo.lockCohort(tx, clientId, id);
        if (!cohort) throw httpError(404, NOT_FOUND);
        if (archived && cohort.status !== 'archived') {
          await repo.updateCohort(tx, cohort, { status: 'archived', statusBeforeArchive: cohort.status });
          await repo.setCadenceRunning(tx, cohort, false);
        } else if (!archived && cohort.status === 'archived') {
          const back = cohort.statusBeforeArchive ?? 'active';
          await repo.updateCohort(tx, cohort, { status: back, statusBeforeArchive: null });
          await repo.setCadenceRunning(tx, cohort, back === 'active');
        }
      });
      return read(clientId, id);
    },

    /** Pause (ads stop: neutral image, nothing counted; syncs stop) or resume; 409 when archived. */
    async setPaused(clientId: string, id: string, paused: boolean): Promise<Cohort> {
      await db.transaction(async (tx) => {
        const cohort = await repo.lockCohort(tx, clientId, id);
        if (!cohort) throw httpError(404, NOT_FOUND);
        if (cohort.status === 'archived') throw httpError(409, ARCHIVED);
        const to = paused ? 'paused' : 'active';
        if (cohort.status === to) return;
        await repo.updateCohort(tx, cohort, { status: to });
        await repo.setCadenceRunning(tx, cohort, !paused);
      });
      return read(clientId, id);
    },

    /** `GET /marx/action/client/{id}/cohort/{id}/sync`: queues a sync (one at a time). */
    async sync(clientId: string, id: string): Promise<Cohort> {
      const cohort = await record(clientId, id);
      if (cohort.status === 'archived') throw httpError(409, ARCHIVED);
      if (cohort.status === 'paused') {
        throw httpError(409, 'This cohort is paused: syncs stop while it is paused. Resume it to sync.');
      }
      if (cohort.sourceKind === 'crm_list' && !cohort.crmListId) {
        throw httpError(409, 'The CRM list of this cohort is gone: choose another list to sync.');
      }
      await requestSync(clientId, id);
      return read(clientId, id);
    },

    async segment(
      clientId: string,
      id: string,
      page: number,
      pageSize: number,
      sortBy?: { sort: CohortMemberSort; order?: 'asc' | 'desc' | undefined },
    ): Promise<CohortSegmentReply> {
      const cohort = await record(clientId, id);
      const { rows, total } = await repo.listMembers(db, cohort, page, pageSize, sortBy);
      return {
        items: rows.map((r) => ({
          id: r.id,
          prospect_id: r.prospect_id,
          target_id: r.target_id,
          first_name: r.first_name,
          last_name: r.last_name,
          email: r.email,
          title: r.title,
          company_id: r.company_id,
          company_name: r.company_name,
          impressions: Number(r.impressions),
          clicks: Number(r.clicks),
          views: Number(r.views),
          super_date: r.super_at === null ? null : new Date(Number(r.super_at)).toISOString(),
          ad_tag: `/t/${r.token}/ad/300x250.png`,
          click_tag: `/t/${r.token}/c`,
          stage:
            r.stage_id && r.stage_name !== null
              ? { id: r.stage_id, name: r.stage_name, position: Number(r.stage_position) }
              : null,
        })),
        total,
        page,
        page_size: pageSize,
      };
    },

    async detailedReport(clientId: string, id: string): Promise<CohortDetailedReport> {
      const cohort = await repo.findCohort(db, clientId, id);
      if (!cohort) throw httpError(404, NOT_FOUND);
      const engaged = await repo.engagedCounts(db, cohort);
      return {
        id: cohort.id,
        name: cohort.name,
        status: cohort.status,
        size: cohort.size,
        accounts: cohort.accounts,
        impressions: cohort.impressions,
        clicks: cohort.clicks,
        views: cohort.views,
        supers: cohort.supers,
        ...engaged,
        click_rate: cohort.impressions ? cohort.clicks / cohort.impressions : 0,
      };
    },

    async audience(clientId: string, id: string): Promise<CohortAudienceReport> {
      const cohort = await record(clientId, id);
      return {
        by_title: await repo.audience(db, cohort, 'title'),
        by_company: await repo.audience(db, cohort, 'company'),
      };
    },

    async impact(
      clientId: string,
      id: string,
      range: { from?: number | undefined; to?: number | undefined },
    ): Promise<CohortImpactReply> {
      const cohort = await record(clientId, id);
      const to = range.to ?? Math.ceil(Date.now() / 86_400_000) * 86_400;
      const from = range.from ?? to - 30 * 86_400;
      if (range.to === undefined && range.from !== undefined && from >= to) {
        throw fieldError('querystring.from', 'must be before to');
      }
      const found = new Map(
        (await repo.impactByDate(db, cohort, new Date(from * 1000), new Date(to * 1000))).map((d) => [
          d.date,
          d,
        ]),
      );
      // Every day of the range, quiet ones at zero, so a chart's axis is time and not just the busy days.
      const byDate = [];
      for (let day = Math.floor(from / 86_400) * 86_400; day < to; day += 86_400) {
        const date = new Date(day * 1000).toISOString().slice(0, 10);
        byDate.push(found.get(date) ?? { date, impressions: 0, clicks: 0, views: 0 });
      }
      const total = byDate.reduce(
        (acc, d) => ({
          impressions: acc.impressions + d.impressions,
          clicks: acc.clicks + d.clicks,
          views: acc.views + d.views,
        }),
        { impressions: 0, clicks: 0, views: 0 },
      );
      return { from, to, by_date: byDate, total };
    },
  };
}

export type CohortService = ReturnType<typeof createCohortService>;
