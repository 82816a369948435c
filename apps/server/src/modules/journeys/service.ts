import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { DEFAULT_JOURNEY_STAGES, JOURNEY_NETWORK_RULES } from '@rally/shared/schemas/journeys';
import type {
  Journey,
  JourneyCohortsReply,
  JourneyCreateBody,
  JourneyListReply,
  JourneyMovesReply,
  JourneyStageInput,
  JourneyUpdateBody,
  JourneyViewReply,
} from '@rally/shared/schemas/journeys';
import type { Db } from '../../db/client.ts';
import type { StoredJourneyRule } from '../../db/schema/index.ts';
import { FieldError, httpError } from '../../lib/errors.ts';
import type { JobQueue } from '../../lib/queue.ts';
import * as dirty from './incremental.ts';
import * as repo from './repository.ts';
import type { JourneyRow, MovedRow, StageRow, StageWrite } from './repository.ts';

export const JOURNEY_JOB = 'journey-evaluate';
/** Accounts evaluated per transaction: a run that dies goes on after the last committed chunk. */
export const JOURNEY_CHUNK = 20_000;
/** Moves published live to open feed pages per run (all are stored). */
const LIVE_MOVES_MAX = 50;
/** Accounts entered in one run past which the journey's statistics are refreshed before its chunks. */
const ANALYZE_AFTER_ENTERED = 1_000;
/**
 * Between full runs a run reads only the accounts whose data changed (decision 0036). A full run
 * this often catches what no trigger lists: CRM stage order edited, an opportunity dated ahead.
 */
export const JOURNEY_FULL_EVERY_MS = 24 * 3_600_000;
const DAY = 86_400;
const NOT_FOUND = 'Journey not found.';
const COHORT_NOT_FOUND = 'Cohort not found.';
const ARCHIVED =
  'This cohort is archived and read-only: restore it (PATCH /rest/cohort/{id}/archive with archived false) to change its journey.';

type Deps = {
  db: Db;
  queue: JobQueue;
  log: FastifyBaseLogger;
  /** Accounts per transaction (config.journeyChunk). */
  chunk?: number;
  /** Time between full runs (JOURNEY_FULL_EVERY_MS). */
  fullEveryMs?: number;
  /** Live feed: called with each stored move's feed item after its transaction commits. */
  publish?: (clientId: string, feedItemId: number) => void;
};

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

function toApi(j: JourneyRow, stages: StageRow[], moves: number): Journey {
  return {
    id: j.id,
    client_id: j.client_id,
    cohort_id: j.cohort_id,
    cohort_name: j.cohort_name,
    cohort_status: j.cohort_status,
    name: j.name,
    stages: stages.map((s) => ({
      id: s.id,
      position: s.position,
      name: s.name,
      content_ids: s.content_ids,
      rules: s.rules.map((r) => ({
        kind: r.kind as Journey['stages'][number]['rules'][number]['kind'],
        value: r.value ?? null,
        crm_stage_id: r.crm_stage_id ?? null,
        days: r.days ?? null,
      })),
      match: s.match,
      accounts: s.accounts,
    })),
    accounts: stages.reduce((n, s) => n + s.accounts, 0),
    moves,
    evaluated_at: iso(j.evaluated_ms),
    created_at: new Date(Number(j.created_ms)).toISOString(),
    updated_at: new Date(Number(j.updated_ms)).toISOString(),
  };
}

export type EvaluateResult = {
  journeys: number;
  entered: number;
  moved: number;
  aligned: number;
  /** Accounts read: every account in a full run, else those whose data changed (decision 0036). */
  evaluated: number;
  /** Journeys evaluated in full (all accounts read). */
  full: number;
};

const emptyResult = (): EvaluateResult => ({
  journeys: 0,
  entered: 0,
  moved: 0,
  aligned: 0,
  evaluated: 0,
  full: 0,
});

export function createJourneyService(deps: Deps) {
  const { db, queue, log } = deps;
  const chunk = deps.chunk ?? JOURNEY_CHUNK;
  const fullEveryMs = deps.fullEveryMs ?? JOURNEY_FULL_EVERY_MS;

  async function read(clientId: string, id: string): Promise<Journey> {
    const j = await repo.findJourney(db, clientId, id);
    if (!j) throw httpError(404, NOT_FOUND);
    return toApi(j, await repo.stagesOf(db, [j.id]), await repo.moveCount(db, j.id));
  }

  /** Checks the stages' references (content, CRM stages, existing stage ids) and numbers them. */
  async function stageWrites(
    tx: repo.Tx,
    clientId: string,
    input: JourneyStageInput[],
    existing: Set<string>,
  ): Promise<StageWrite[]> {
    const problems: { field: string; message: string }[] = [];
    const contents = await repo.contentIdsOf(tx, clientId, [...new Set(input.flatMap((s) => s.content_ids))]);
    const crmStageIds = input.flatMap((s) =>
      s.rules.flatMap((r) => (r.crm_stage_id ? [r.crm_stage_id] : [])),
    );
    const crm = await repo.crmStageIdsOf(tx, clientId, [...new Set(crmStageIds)]);
    input.forEach((s, i) => {
      if (s.id && !existing.has(s.id)) {
        problems.push({ field: `body.stages.${i}.id`, message: 'is not a stage of this journey' });
      }
      s.content_ids.forEach((c, k) => {
        if (!contents.has(c)) {
          problems.push({
            field: `body.stages.${i}.content_ids.${k}`,
            message: 'is not a content item of this client',
          });
        }
      });
      s.rules.forEach((r, k) => {
        if (r.kind === 'crm_stage_reached' && r.crm_stage_id && !crm.has(r.crm_stage_id)) {
          problems.push({
            field: `body.stages.${i}.rules.${k}.crm_stage_id`,
            message: 'is not a CRM stage of this client',
          });
        }
      });
    });
    if (problems.length) throw new FieldError(problems);
    return input.map((s, i) => ({
      id: s.id ?? randomUUID(),
      position: i + 1,
      name: s.name,
      contentIds: [...new Set(s.content_ids)],
      rules: s.rules.map((r): StoredJourneyRule => ({
        kind: r.kind,
        value: r.kind === 'crm_stage_reached' || r.kind === 'opportunity_created' ? null : (r.value ?? null),
        crm_stage_id: r.kind === 'crm_stage_reached' ? (r.crm_stage_id ?? null) : null,
        days: JOURNEY_NETWORK_RULES.includes(r.kind) ? (r.days ?? null) : null,
      })),
      match: s.match,
    }));
  }

  async function requestEvaluation(journeyId?: string): Promise<void> {
    await queue
      .send(JOURNEY_JOB, journeyId ? { journeyId } : {}, { singletonKey: journeyId ?? 'all' })
      .catch((err: unknown) => log.warn({ err }, 'could not queue a journey evaluation'));
  }

  /**
   * Evaluates one journey (docs/decisions/0010): accounts new to its cohort enter the first stage,
   * then chunk by chunk (one transaction each) accounts move to the furthest later stage whose rules
   * hold, and members' targets follow their account's stage. Nothing happens for a paused or
   * archived cohort. Idempotent: a second run finds every account already on the furthest stage its
   * rules reach. A full run reads every account (account id order, the cursor saved with each chunk:
   * a run that died goes on after the last committed one); between full runs, only the accounts
   * whose data changed or whose "days in stage" came due (decision 0036).
   */
  async function evaluate(journeyId: string, now = new Date()): Promise<EvaluateResult> {
    const out = emptyResult();
    const j = await repo.findJourneyById(db, journeyId);
    if (!j || j.cohort_status !== 'active') return out;
    const stages = await repo.stagesOf(db, [j.id], false);
    const first = stages[0];
    if (!first) return out;
    out.journeys = 1;
    const journey = {
      id: j.id,
      clientId: j.client_id,
      cohortId: j.cohort_id,
      cadenceId: Number(j.cadence_id),
      name: j.name,
      cohortName: j.cohort_name,
      createdAt: new Date(Number(j.created_ms)),
    };
    const full =
      j.eval_cursor !== null ||
      j.full_evaluated_ms === null ||
      now.getTime() - Number(j.full_evaluated_ms) >= fullEveryMs;
    if (!full) {
      const since = j.evaluated_ms === null ? null : new Date(Number(j.evaluated_ms));
      await dirty.listDueAccounts(db, journey.id, stages, since, now);
    }
    out.entered = await repo.enterAccounts(db, journey, first.id, now, !full);
    if (out.entered >= ANALYZE_AFTER_ENTERED) await repo.analyzeAccounts(db);
    const live: MovedRow[] = [];
    const step = (moved: MovedRow[], aligned: number, evaluated: number) => {
      out.moved += moved.length;
      out.aligned += aligned;
      out.evaluated += evaluated;
      if (live.length < LIVE_MOVES_MAX) live.push(...moved.slice(0, LIVE_MOVES_MAX - live.length));
    };
    if (full) {
      out.full = 1;
      let cursor = j.eval_cursor;
      for (;;) {
        const after = cursor;
        const done = await db.transaction(async (tx) => {
          const edge = await repo.chunkEdge(tx, journey.id, after, chunk);
          if (!edge.last) return null;
          const scope = { after, upTo: edge.last };
          await dirty.clearDirtyRange(tx, journey.id, after, edge.last);
          const moved = await repo.evaluateChunk(tx, journey, stages, scope, now);
          const aligned = await repo.alignTargets(tx, journey, scope);
          await repo.setCursor(tx, journey.id, edge.last, null);
          return { last: edge.last, moved, aligned, n: edge.n };
        });
        if (!done) break;
        step(done.moved, done.aligned, done.n);
        cursor = done.last;
      }
      await dirty.setFullEvaluated(db, journey.id, now);
    } else {
      for (;;) {
        const done = await db.transaction(async (tx) => {
          const ids = await dirty.takeDirty(tx, journey.id, chunk);
          if (!ids.length) return null;
          const scope = { ids };
          const moved = await repo.evaluateChunk(tx, journey, stages, scope, now);
          return { moved, aligned: await repo.alignTargets(tx, journey, scope), n: ids.length };
        });
        if (done) step(done.moved, done.aligned, done.n);
        // Fewer than a chunk: the list was drained (what writers add now waits for the next run).
        if (!done || done.n < chunk) break;
      }
    }
    await repo.setCursor(db, journey.id, null, now);
    for (const m of live) if (m.feed_id) deps.publish?.(journey.clientId, Number(m.feed_id));
    if (out.moved || out.entered) log.info({ journeyId, ...out }, 'journey evaluated');
    return out;
  }

  async function evaluateAll(now = new Date()): Promise<EvaluateResult> {
    const total = emptyResult();
    for (const id of await repo.activeJourneyIds(db)) {
      const r = await evaluate(id, now);
      for (const k of Object.keys(total) as (keyof EvaluateResult)[]) total[k] += r[k];
    }
    return total;
  }

  async function journeyOfCohort(clientId: string, cohortId: string): Promise<JourneyRow> {
    const j = await repo.findJourneyOfCohort(db, clientId, cohortId);
    if (!j) throw httpError(404, 'This cohort has no journey.');
    return j;
  }

  return {
    register() {
      queue.register<{ journeyId?: string }>(
        JOURNEY_JOB,
        async (data) => {
          if (data.journeyId) await evaluate(data.journeyId);
          else await evaluateAll();
        },
        // One queued and one running per journey (or for the periodic run of all).
        { policy: 'stately', retryLimit: 3, retryDelay: 5 },
      );
    },
    evaluate,
    evaluateAll,
    requestEvaluation,

    /** After a cohort sync: its journey's new accounts enter and the rules run. */
    async afterCohortSync(cohortId: string): Promise<void> {
      const id = await repo.journeyIdOfCohort(db, cohortId);
      if (id) await requestEvaluation(id);
    },

    read,

    async list(clientId: string): Promise<JourneyListReply> {
      const rows = await repo.listJourneys(db, clientId);
      const stages = await repo.stagesOf(
        db,
        rows.map((r) => r.id),
      );
      const items = [];
      for (const j of rows) {
        items.push(
          toApi(
            j,
            stages.filter((s) => s.journey_id === j.id),
            await repo.moveCount(db, j.id),
          ),
        );
      }
      return { items };
    },

    async create(
      clientId: string,
      userId: string | null,
      body: JourneyCreateBody,
      opts: { id?: string; createdAt?: Date; evaluate?: boolean } = {},
    ): Promise<Journey> {
      const id = await db.transaction(async (tx) => {
        const cohort = await repo.lockCohort(tx, clientId, body.cohort_id);
        if (!cohort) throw httpError(404, COHORT_NOT_FOUND);
        if (cohort.status === 'archived') throw httpError(409, ARCHIVED);
        if (await repo.findJourneyOfCohort(tx, clientId, cohort.id)) {
          throw httpError(
            409,
            'This cohort already has a journey: change it with PUT /rest/client/{id}/journey/{id}.',
          );
        }
        const shown = await repo.cohortContentIds(tx, Number(cohort.cadence_id));
        const input: JourneyStageInput[] =
          body.stages ??
          DEFAULT_JOURNEY_STAGES.map((name, i) => ({
            name,
            content_ids: i === 0 ? shown.slice(0, 1) : [],
            rules: [],
            match: 'any' as const,
          }));
        const writes = await stageWrites(tx, clientId, input, new Set());
        const journeyId = await repo.insertJourney(tx, {
          id: opts.id ?? randomUUID(),
          clientId,
          cohortId: cohort.id,
          name: body.name,
          createdBy: userId,
          ...(opts.createdAt ? { createdAt: opts.createdAt } : {}),
        });
        await repo.writeStages(tx, { id: journeyId, clientId, cadenceId: Number(cohort.cadence_id) }, writes);
        return journeyId;
      });
      if (opts.evaluate !== false) await requestEvaluation(id);
      return read(clientId, id);
    },

    /** The whole journey: name and stages in order (renamed, moved, added, removed when empty). */
    async update(clientId: string, id: string, body: JourneyUpdateBody): Promise<Journey> {
      await db.transaction(async (tx) => {
        const j = await repo.findJourney(tx, clientId, id);
        if (!j) throw httpError(404, NOT_FOUND);
        const cohort = await repo.lockCohort(tx, clientId, j.cohort_id);
        if (!cohort) throw httpError(404, NOT_FOUND);
        if (cohort.status === 'archived') throw httpError(409, ARCHIVED);
        const current = await repo.stagesOf(tx, [j.id]);
        const writes = await stageWrites(tx, clientId, body.stages, new Set(current.map((s) => s.id)));
        const kept = new Set(writes.map((w) => w.id));
        const held = await repo.accountsInStages(tx, j.id);
        const dropped = current.filter((s) => !kept.has(s.id) && (held.get(s.id) ?? 0) > 0);
        if (dropped.length) {
          throw new FieldError(
            dropped.map((s) => ({
              field: 'body.stages',
              message: `the stage "${s.name}" holds ${held.get(s.id)} accounts: keep it (rename or move it) instead of removing it`,
            })),
          );
        }
        await repo.touchJourney(tx, j.id, body.name);
        await repo.writeStages(tx, { id: j.id, clientId, cadenceId: Number(cohort.cadence_id) }, writes);
        // Reordered stages: members' ads follow their account's stage at once.
        await repo.alignTargets(tx, { id: j.id, cohortId: j.cohort_id });
      });
      await requestEvaluation(id);
      return read(clientId, id);
    },

    async cohorts(clientId: string): Promise<JourneyCohortsReply> {
      return { items: await repo.cohortsWithJourneys(db, clientId) };
    },

    async view(
      clientId: string,
      cohortId: string,
      range: { from?: number | undefined; to?: number | undefined },
    ): Promise<JourneyViewReply> {
      const j = await journeyOfCohort(clientId, cohortId);
      const stages = await repo.stagesOf(db, [j.id]);
      const to = range.to ?? Math.ceil(Date.now() / 1000 / DAY) * DAY;
      const from = range.from ?? to - 30 * DAY;
      if (from >= to) throw new FieldError([{ field: 'querystring.from', message: 'must be before to' }]);
      if (to - from > 366 * DAY) {
        throw new FieldError([{ field: 'querystring.from', message: 'the range must be at most 366 days' }]);
      }
      const deltas = await repo.stageDeltas(db, j.id, new Date(from * 1000), new Date(to * 1000));
      const index = new Map(stages.map((s, i) => [s.id, i]));
      const counts = stages.map(() => 0);
      const byDay = new Map<string, number[]>();
      for (const d of deltas) {
        const i = index.get(d.stage_id);
        if (i === undefined) continue;
        if (d.day === null) counts[i] = (counts[i] ?? 0) + d.delta;
        else {
          const row = byDay.get(d.day) ?? stages.map(() => 0);
          row[i] = (row[i] ?? 0) + d.delta;
          byDay.set(d.day, row);
        }
      }
      const byDate: JourneyViewReply['by_date'] = [];
      for (let day = Math.floor(from / DAY) * DAY; day < to; day += DAY) {
        const date = new Date(day * 1000).toISOString().slice(0, 10);
        const delta = byDay.get(date);
        if (delta) delta.forEach((v, i) => (counts[i] = (counts[i] ?? 0) + v));
        byDate.push({ date, accounts: [...counts] });
      }
      return {
        journey_id: j.id,
        cohort_id: j.cohort_id,
        name: j.name,
        from,
        to,
        evaluated_at: iso(j.evaluated_ms),
        stages: stages.map((s) => ({ id: s.id, position: s.position, name: s.name, accounts: s.accounts })),
        by_date: byDate,
        moves_in_range: await repo.movesInRange(db, j.id, new Date(from * 1000), new Date(to * 1000)),
      };
    },

    async moves(
      clientId: string,
      cohortId: string,
      page: number,
      pageSize: number,
    ): Promise<JourneyMovesReply> {
      const j = await journeyOfCohort(clientId, cohortId);
      const { rows, total } = await repo.listMoves(db, j.id, page, pageSize);
      return {
        items: rows.map((r) => ({
          id: Number(r.id),
          account_id: r.account_id,
          company_name: r.company_name,
          from_stage_id: r.from_stage_id,
          from_stage: r.from_stage,
          to_stage_id: r.to_stage_id,
          to_stage: r.to_stage,
          reason: r.reason,
          moved_at: new Date(Number(r.moved_ms)).toISOString(),
        })),
        total,
        page,
        page_size: pageSize,
      };
    },

    /** The stage of each of a cohort's members (by prospect id), for the cohort page. */
    memberStages(cohortId: string, prospectIds: string[]) {
      return repo.memberStages(db, cohortId, prospectIds);
    },
  };
}

export type JourneyService = ReturnType<typeof createJourneyService>;
