import { randomBytes } from 'node:crypto';
import type { SuppressionService } from '../suppressions/service.ts';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { FILEFORCE_FIELDS, suggestMapping } from '@rally/shared/schemas/fileforce';
import type {
  CheckReport,
  ColumnMapping,
  FileImport,
  FileImportSummary,
  ImportKind,
  ImportRowError,
  RevenueReply,
} from '@rally/shared/schemas/fileforce';
import type { Db, DbDriver } from '../../db/client.ts';
import { FieldError, fieldError, httpError } from '../../lib/errors.ts';
import * as store from '../integrations/store.ts';
import type { WebhookEvents } from '../hookly/index.ts';
import { readCsv, readHeader, estimateRows } from './csv.ts';
import {
  clientCadenceIds,
  commitProgress,
  deleteImport,
  ensureFileforceIntegration,
  findImport,
  findImportById,
  insertImport,
  fileforceIntegrationId,
  listImports,
  revenuePage,
  storedSalesReps,
  updateImport,
  upsertOpportunities,
  writeBatchCompanies,
  writeTargetBatch,
  lockBatch,
  awaitBatch,
} from './repository.ts';
import type { BatchCompany, BatchDay, BatchTarget, FileImportRow, ImportStatus } from './repository.ts';
import { createRowValidator, mappingProblems } from './rows.ts';
import type { RevenueValue, RowResult, TargetValue } from './rows.ts';
import { blobStoreFor, scratchPath } from '../../lib/blob-store.ts';
import type { S3Config } from '../../config/env.ts';
import { removeScratch, storeStream } from './storage.ts';
import type { StoredFile } from './storage.ts';

/**
 * The file import (ARCHITECTURE.md §7 "File import is fully real: streamed CSV, column mapping,
 * validation report per row, targets and revenue"): upload, mapping, dry run, and the import itself,
 * which the job and the demo seed run alike.
 */

/**
 * What the import needs of the app: the database, the data folder (scratch files) and the upload
 * storage's settings (a FastifyInstance fits).
 */
export type FileforceDeps = {
  db: Db;
  /** holdoutDefaultPercent: the share new cadences of an import start with (issue 45). */
  config: { dataDir: string; s3?: S3Config | null; holdoutDefaultPercent?: number };
  log?: FastifyBaseLogger;
  /** The feed's 'import' item when an import is done (the app is passed; the seed has none). */
  feedBus?: {
    add(item: { clientId: string; type: 'import'; data: Record<string, unknown> }): Promise<unknown>;
  };
  /** Webhooks' `import_finished` (the app is passed; a no-op without a subscribed endpoint). */
  webhooks?: WebhookEvents;
  /** Which database: on PostgreSQL a batch's commit does not wait for its WAL flush. */
  database?: { driver: DbDriver };
  /**
   * The client's suppression list (issue 44, decision 0027): a row whose address is on it is not
   * imported (no prospect, no target) and is counted in `suppressed_rows`.
   */
  suppressions?: Pick<SuppressionService, 'suppressedTest' | 'key'>;
};

export const IMPORT_JOB = 'fileforce.import';
/**
 * Rows per transaction: a batch lands whole or not at all, and progress moves with it. A multiple
 * of 1000; a crash redoes at most one batch.
 */
export const BATCH_ROWS = 5000;
/** Bad rows listed in a report; all of them are counted. */
export const MAX_LISTED_ERRORS = 1000;
const MAX_COLUMNS = 500;
/** Random bytes of a target's public token, as the schema's default makes them. */
const TOKEN_BYTES = 18;
const LIST_LIMIT = 100;

const BUSY: readonly ImportStatus[] = ['queued', 'running'];
const IDLE: readonly ImportStatus[] = ['uploaded', 'checked', 'done', 'failed'];

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toSummary(r: FileImportRow): FileImportSummary {
  return {
    id: r.id,
    integration_id: r.integrationId,
    kind: r.kind,
    status: r.status,
    file_name: r.fileName,
    byte_size: r.byteSize,
    columns: r.columns,
    mapping: r.mapping,
    total_rows: r.totalRows,
    processed_rows: r.processedRows,
    imported_rows: r.importedRows,
    error_rows: r.errorRows,
    suppressed_rows: r.suppressedRows,
    failure_reason: r.failureReason,
    created_by: r.createdBy,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    finished_at: iso(r.finishedAt),
  };
}

export function toImport(r: FileImportRow): FileImport {
  return { ...toSummary(r), errors: r.errors };
}

const notFound = () => httpError(404, 'This import does not exist (or belongs to another client).');

/** An empty column name means "not mapped". */
function cleanMapping(mapping: ColumnMapping): ColumnMapping {
  return Object.fromEntries(Object.entries(mapping).filter(([, column]) => column !== ''));
}

function assertMapping(kind: ImportKind, columns: readonly string[], mapping: ColumnMapping): void {
  const problems = mappingProblems(kind, FILEFORCE_FIELDS[kind], columns, mapping);
  if (problems.length) throw new FieldError(problems);
}

const blobsOf = (deps: FileforceDeps) => blobStoreFor(deps.config, deps.db);

/**
 * A local copy of the import's file, fetched from the shared upload storage (any instance may run
 * the import, issue 41); the caller removes it. An ImportFailure when the file is gone.
 */
export async function localCopy(deps: FileforceDeps, r: FileImportRow): Promise<string> {
  const filePath = scratchPath(deps.config.dataDir, '.csv');
  if (!(await blobsOf(deps).toFile(r.storageKey, filePath)))
    throw new ImportFailure('The uploaded file is no longer there: upload it again.');
  return filePath;
}

/** The header row of an uploaded file, or a 422 saying what is wrong with the file. */
async function readColumns(filePath: string): Promise<string[]> {
  const header = await readHeader(filePath);
  if (!header) throw fieldError('body.file', 'is empty: upload a CSV file whose first row names the columns');
  if ('problem' in header) {
    throw fieldError(
      'body.file',
      header.problem === 'encoding'
        ? 'is not UTF-8 text: save it as "CSV UTF-8" and upload it again'
        : 'has broken quoting in its header row',
    );
  }
  const columns = header.values.map((c) => c.trim());
  if (columns.some((c) => c.includes('\u0000'))) {
    throw fieldError('body.file', 'is not a CSV text file: save it as "CSV UTF-8" and upload it again');
  }
  if (!columns.some((c) => c !== '')) {
    throw fieldError('body.file', 'has no column names: its first row must name the columns');
  }
  if (columns.length > MAX_COLUMNS) throw fieldError('body.file', `has more than ${MAX_COLUMNS} columns`);
  const seen = new Set<string>();
  for (const c of columns) {
    if (c !== '' && seen.has(c))
      throw fieldError('body.file', `names the column "${c}" twice in its header row`);
    seen.add(c);
  }
  return columns;
}

export type UploadInput = {
  clientId: string;
  userId: string | null;
  kind: ImportKind;
  fileName: string;
  /** The upload's scratch file; removed here, whatever happens. */
  stored: StoredFile;
};

/** Records an uploaded file: reads its header row only, and suggests a mapping from it. */
export async function createImport(deps: FileforceDeps, input: UploadInput): Promise<FileImportRow> {
  const { stored } = input;
  let kept = false;
  try {
    const columns = await readColumns(stored.filePath);
    const integration = await ensureFileforceIntegration(deps.db, input.clientId);
    await blobsOf(deps).putFile(stored.storageKey, stored.filePath, 'text/csv');
    kept = true;
    return await insertImport(deps.db, {
      clientId: input.clientId,
      integrationId: integration.id,
      kind: input.kind,
      fileName: input.fileName.slice(0, 255) || 'upload.csv',
      storageKey: stored.storageKey,
      byteSize: stored.byteSize,
      columns,
      mapping: suggestMapping(input.kind, columns),
      createdBy: input.userId,
    });
  } catch (err) {
    if (kept) await blobsOf(deps).delete(stored.storageKey);
    throw err;
  } finally {
    await removeScratch(stored);
  }
}

export async function listClientImports(deps: FileforceDeps, clientId: string): Promise<FileImportRow[]> {
  return listImports(deps.db, clientId, LIST_LIMIT);
}

export async function getImport(deps: FileforceDeps, clientId: string, id: string): Promise<FileImportRow> {
  const r = await findImport(deps.db, clientId, id);
  if (!r) throw notFound();
  return r;
}

/**
 * Saves a mapping. Progress starts over: rows already imported stay (imports are upserts), but the
 * counts and the report describe the run with this mapping.
 */
export async function setMapping(
  deps: FileforceDeps,
  clientId: string,
  id: string,
  mapping: ColumnMapping,
): Promise<FileImportRow> {
  const r = await getImport(deps, clientId, id);
  if (BUSY.includes(r.status)) throw httpError(409, 'This import is running: its mapping cannot change now.');
  const clean = cleanMapping(mapping);
  assertMapping(r.kind, r.columns, clean);
  const updated = await updateImport(deps.db, r.id, IDLE, {
    mapping: clean,
    status: 'uploaded',
    processedRows: 0,
    importedRows: 0,
    errorRows: 0,
    suppressedRows: 0,
    errors: [],
    failureReason: null,
    finishedAt: null,
  });
  if (!updated) throw httpError(409, 'This import is running: its mapping cannot change now.');
  return updated;
}

export async function removeImport(deps: FileforceDeps, clientId: string, id: string): Promise<void> {
  const r = await getImport(deps, clientId, id);
  const deleted = await deleteImport(deps.db, clientId, id, IDLE);
  if (!deleted) throw httpError(409, `This import is ${r.status}: wait until it has finished to delete it.`);
  await blobsOf(deps).delete(r.storageKey);
}

/** Goes through every row of the file, validating, calling `onRow` for each data row. */
async function eachRow(
  deps: FileforceDeps,
  r: FileImportRow,
  filePath: string,
  mapping: ColumnMapping,
  onRow: (result: RowResult) => Promise<void> | void,
): Promise<void> {
  const validate = createRowValidator(r.kind, r.columns, mapping, {
    cadenceIds: await clientCadenceIds(deps.db, r.clientId),
  });
  for await (const record of readCsv(filePath)) {
    if (record.row === 0) {
      const same =
        'values' in record &&
        record.values.length === r.columns.length &&
        record.values.every((v, i) => v.trim() === r.columns[i]);
      if (!same) throw new ImportFailure('The file changed since it was uploaded: upload it again.');
      continue;
    }
    const result = validate(record);
    if (result) await onRow(result);
  }
}

/** The dry run: the whole file validated, nothing written but the row count. */
export async function checkImport(
  deps: FileforceDeps,
  clientId: string,
  id: string,
  mappingOverride: ColumnMapping | undefined,
): Promise<CheckReport> {
  const r = await getImport(deps, clientId, id);
  const mapping = mappingOverride ? cleanMapping(mappingOverride) : r.mapping;
  assertMapping(r.kind, r.columns, mapping);
  const report: CheckReport = {
    total_rows: 0,
    valid_rows: 0,
    error_rows: 0,
    errors: [],
    errors_truncated: false,
  };
  let filePath: string | undefined;
  try {
    filePath = await localCopy(deps, r);
    await eachRow(deps, r, filePath, mapping, (result) => {
      report.total_rows++;
      if (result.ok) {
        report.valid_rows++;
        return;
      }
      report.error_rows++;
      for (const e of result.errors) {
        if (report.errors.length < MAX_LISTED_ERRORS) report.errors.push(e);
        else report.errors_truncated = true;
      }
    });
  } catch (err) {
    if (err instanceof ImportFailure) throw httpError(409, err.message);
    throw err;
  } finally {
    if (filePath) await rm(filePath, { force: true });
  }
  const checkedOwnMapping = mappingOverride === undefined || sameMapping(mapping, r.mapping);
  await updateImport(deps.db, r.id, ['uploaded', 'checked'], {
    totalRows: report.total_rows,
    ...(checkedOwnMapping ? { status: 'checked' as const } : {}),
  });
  return report;
}

function sameMapping(a: ColumnMapping, b: ColumnMapping): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/**
 * Queues an import. A finished one runs again from the start (the rows land once: upserts); a
 * failed one resumes where it stopped; a queued or running one is left as it is.
 */
export async function startImport(
  deps: FileforceDeps,
  clientId: string,
  id: string,
  enqueue: (importId: string) => Promise<unknown>,
): Promise<FileImportRow> {
  const r = await getImport(deps, clientId, id);
  if (r.status === 'running') return r;
  // Queued again: harmless if its job exists (a second run bails out at its first batch), and it
  // recovers one lost between the status change and the queue.
  if (r.status === 'queued') {
    await enqueue(r.id);
    return r;
  }
  assertMapping(r.kind, r.columns, r.mapping);
  const queued = await queueImport(deps, r);
  if (!queued) return getImport(deps, clientId, id);
  try {
    await enqueue(r.id);
  } catch (err) {
    await updateImport(deps.db, r.id, ['queued'], { status: r.status });
    throw err;
  }
  return queued;
}

function queueImport(deps: FileforceDeps, r: FileImportRow): Promise<FileImportRow | null> {
  const fresh =
    r.status === 'done'
      ? { processedRows: 0, importedRows: 0, errorRows: 0, suppressedRows: 0, errors: [] as ImportRowError[] }
      : {};
  return updateImport(deps.db, r.id, [r.status], {
    status: 'queued',
    failureReason: null,
    finishedAt: null,
    ...fresh,
  });
}

/** A reason to stop an import for good (retrying would not help), in words for the user. */
export class ImportFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportFailure';
  }
}

/** Another run of the same import has moved it on; this one stops without touching it. */
class Superseded extends Error {}

export async function markFailed(deps: FileforceDeps, id: string, reason: string): Promise<void> {
  const failed = await updateImport(deps.db, id, BUSY, {
    status: 'failed',
    failureReason: reason,
    finishedAt: new Date(),
  });
  if (failed) await emitFinished(deps, failed);
}

/** The `import_finished` webhook event of an import that is done or failed. */
async function emitFinished(deps: FileforceDeps, r: FileImportRow): Promise<void> {
  await deps.webhooks?.emit(r.clientId, 'import_finished', {
    import_id: r.id,
    file_name: r.fileName,
    kind: r.kind,
    status: r.status,
    imported_rows: r.importedRows,
    error_rows: r.errorRows,
    failure_reason: r.failureReason,
    finished_at: iso(r.finishedAt),
  });
}

/**
 * Runs a queued import: streams the file, validates each row, and writes the good ones in batches,
 * one transaction per batch that also records the progress. After a crash it resumes after the
 * last committed batch; rows are upserts, so each lands once however often it runs.
 */
export async function runImport(
  deps: FileforceDeps,
  id: string,
  opts: { signal?: AbortSignal } = {},
): Promise<FileImportRow | null> {
  const queued = await findImportById(deps.db, id);
  if (!queued || !BUSY.includes(queued.status)) return queued;
  const running = await updateImport(deps.db, id, BUSY, { status: 'running' });
  if (!running) return findImportById(deps.db, id);
  let r: FileImportRow = running;
  const integration: store.IntegrationRef = { id: r.integrationId, clientId: r.clientId };
  let filePath: string | undefined;
  try {
    assertMappingForRun(r);
    filePath = await localCopy(deps, r);
    if (r.totalRows === null) {
      r = (await updateImport(deps.db, id, ['running'], { totalRows: await estimateRows(filePath) })) ?? r;
    }
    const resumeAfter = r.processedRows;
    const state = {
      processed: r.processedRows,
      imported: r.importedRows,
      errorRows: r.errorRows,
      suppressed: r.suppressedRows,
      errors: [...r.errors],
    };
    let seen = 0;
    let batch: RowResult[] = [];
    const companies: CompanyCache = new Map();
    // Batches being written while the next one is read and validated (the database and this process
    // work at once). On PostgreSQL a targets import writes two at once, each on its own connection,
    // so that the database works on two cores (writeBatch says how they stay exact); PGlite has one
    // connection and writes one at a time.
    const pipelined = deps.database?.driver === 'postgres' && r.kind === 'targets';
    const maxInFlight = pipelined ? BATCHES_IN_FLIGHT : 1;
    const inFlight: BatchRun[] = [];
    const flush = async () => {
      if (!batch.length) return;
      // The oldest first, in file order: the first failure is the one reported.
      while (inFlight.length >= maxInFlight) await inFlight.shift()?.done;
      opts.signal?.throwIfAborted();
      const all = batch;
      batch = [];
      const rows = await withoutSuppressed(deps, r, all);
      inFlight.push(
        writeBatch(
          deps,
          integration,
          r,
          rows,
          state,
          companies,
          pipelined ? { before: [...inFlight] } : null,
          all.length - rows.length,
        ),
      );
    };
    try {
      await eachRow(deps, r, filePath, r.mapping, async (result) => {
        seen++;
        if (seen <= resumeAfter) return; // committed by an earlier run
        batch.push(result);
        if (batch.length >= BATCH_ROWS) await flush();
      });
      await flush();
      while (inFlight.length) await inFlight.shift()?.done;
    } finally {
      // A read error must not leave a batch being written behind the failure handling.
      await Promise.allSettled(inFlight.map((b) => b.done));
    }
    const done = await updateImport(deps.db, id, ['running'], {
      status: 'done',
      totalRows: seen,
      finishedAt: new Date(),
    });
    if (done && deps.feedBus) {
      const data = {
        file_name: done.fileName,
        kind: done.kind,
        imported_rows: done.importedRows,
        error_rows: done.errorRows,
      };
      await deps.feedBus
        .add({ clientId: done.clientId, type: 'import', data })
        .catch((err: unknown) => deps.log?.warn({ err }, 'import: feed item not recorded'));
    }
    if (done) await emitFinished(deps, done);
    return done;
  } catch (err) {
    if (err instanceof Superseded) return findImportById(deps.db, id);
    if (err instanceof ImportFailure) {
      await markFailed(deps, id, err.message);
      return findImportById(deps.db, id);
    }
    throw err;
  } finally {
    if (filePath) await rm(filePath, { force: true });
  }
}

function assertMappingForRun(r: FileImportRow): void {
  const problems = mappingProblems(r.kind, FILEFORCE_FIELDS[r.kind], r.columns, r.mapping);
  if (problems.length) {
    throw new ImportFailure(
      `The column mapping is incomplete: ${problems.map((p) => `${p.field.replace('body.mapping.', '')} ${p.message}`).join('; ')}.`,
    );
  }
}

/**
 * A targets batch without the valid rows whose address is on the client's suppression list (issue
 * 44): they are neither prospects nor targets, so a re-import cannot make them live again.
 */
async function withoutSuppressed(
  deps: FileforceDeps,
  r: FileImportRow,
  rows: RowResult[],
): Promise<RowResult[]> {
  if (!deps.suppressions || r.kind !== 'targets') return rows;
  const emails = rows.flatMap((x) => (x.ok && x.kind === 'targets' ? [x.value.email] : []));
  if (!emails.length) return rows;
  const suppressed = await deps.suppressions.suppressedTest(r.clientId, emails);
  return rows.filter((x) => !(x.ok && x.kind === 'targets' && suppressed(x.value.email)));
}

/** Batches a targets import writes at once on PostgreSQL, each on a connection of its own. */
export const BATCHES_IN_FLIGHT = 2;

/** A batch being written. */
type BatchRun = {
  /** The rows before it: the progress it expects to find, and its lock's key. */
  startRow: number;
  /** Its prospects' keys. */
  emails: Set<string>;
  /** Settles once its companies and cadence days are committed (or it failed). */
  shared: Promise<void>;
  /** Settles once its transaction holds its lock (or it ended). */
  locked: Promise<void>;
  /** Settles once it is committed with its progress, or failed. */
  done: Promise<void>;
};

type PlannedProgress = {
  processed: number;
  imported: number;
  errorRows: number;
  suppressed: number;
  errors: ImportRowError[];
};

/**
 * Writes one batch and its progress. `state` is the progress once the batches already started are
 * committed; it moves on now, as this batch is started (a failed batch fails the whole run).
 *
 * Alone (`pipeline` null: PGlite, revenue), the batch is one transaction with its progress.
 *
 * Pipelined (PostgreSQL), two batches are written at once and crash safety still rests on progress
 * being a prefix of the file, "rows up to N", committed in the transaction that writes those rows:
 * - a batch's companies and cadence days (rows other batches share) are upserted first, in a short
 *   transaction of its own, strictly after the previous batch's are committed. Companies are thus
 *   deduplicated across batches by their unique key with no two transactions racing for one, and
 *   every id is known (an upsert that waited on another transaction's new row would return
 *   nothing). Committed before the batch's rows, they are upserts that a batch run again after a
 *   crash finds unchanged: nothing is written twice.
 * - then its prospects and targets, with its progress, in one transaction that commits only after
 *   the previous batch's: it takes a lock of its own first, and waits on the previous batch's
 *   before recording its progress, whose guard (`processedRows` = its first row) fails if the
 *   previous batch rolled back. A SIGKILL or a database crash (commits are in WAL order) so leaves
 *   whole batches, a prefix, and their progress: the resumed run starts after them.
 * - the two batches' rows are disjoint: a batch whose prospects meet the previous batch's (one
 *   e-mail in both) waits until that one is committed. Other locks they take (foreign keys' key
 *   share locks on companies, reps, cadences) do not conflict with each other.
 */
function writeBatch(
  deps: FileforceDeps,
  integration: store.IntegrationRef,
  r: FileImportRow,
  rows: RowResult[],
  state: PlannedProgress,
  companies: CompanyCache,
  pipeline: { before: BatchRun[] } | null,
  suppressed = 0,
): BatchRun {
  const good = rows.flatMap((x) => (x.ok ? [x] : []));
  const bad = rows.flatMap((x) => (x.ok ? [] : [x]));
  const newErrors = bad.flatMap((x) => x.errors);
  const room = MAX_LISTED_ERRORS - state.errors.length;
  const errors = room > 0 && newErrors.length ? [...state.errors, ...newErrors.slice(0, room)] : undefined;
  const startRow = state.processed;
  const next = {
    processedRows: state.processed + rows.length + suppressed,
    importedRows: state.imported + good.length,
    errorRows: state.errorRows + bad.length,
    suppressedRows: state.suppressed + suppressed,
    errors,
  };
  state.suppressed = next.suppressedRows;
  state.processed = next.processedRows;
  state.imported = next.importedRows;
  state.errorRows = next.errorRows;
  if (errors) state.errors = errors;

  const targets = prepareTargets(good.flatMap((x) => (x.kind === 'targets' ? [x.value] : [])));
  const emails = new Set(targets?.people.keys());
  const remember = (written: CompanyCache) => {
    if (companies.size + written.size > COMPANY_CACHE_MAX) companies.clear();
    for (const [k, v] of written) companies.set(k, v);
  };
  const recordProgress = async (tx: store.Tx) => {
    if (!(await commitProgress(tx, r.id, startRow, next))) throw new Superseded();
  };

  if (!pipeline) {
    const done = (async () => {
      let written: CompanyCache = new Map();
      await deps.db.transaction(async (tx) => {
        // The batch and its progress commit together, so a commit lost to a PostgreSQL crash (its WAL
        // not yet flushed) is a batch the import runs again: nothing is lost or counted twice, and the
        // import does not wait for a disk flush per batch. On PGlite the process is the database.
        if (deps.database?.driver === 'postgres') await tx.execute(sql`set local synchronous_commit = off`);
        if (r.kind === 'revenue') {
          await upsertOpportunities(
            tx,
            integration,
            good.flatMap((x) => (x.kind === 'revenue' ? [x.value] : [])) satisfies RevenueValue[],
          );
        } else if (targets) {
          const shared = await writeShared(
            tx,
            integration,
            targets,
            companies,
            deps.config.holdoutDefaultPercent ?? 0,
          );
          await writeRows(tx, integration, targets, shared);
          written = shared.written;
        }
        await recordProgress(tx);
      });
      // Known once committed: a batch rolled back leaves nothing to remember.
      remember(written);
    })();
    done.catch(() => {});
    return { startRow, emails, shared: done, locked: done, done };
  }

  const prev = pipeline.before.at(-1);
  let sharedDone = () => {};
  let sharedFailed = (_err: unknown) => {};
  let lockedDone = () => {};
  // Rejected if the batch fails before its shared rows are committed: the next batch then stops.
  const shared = new Promise<void>((resolve, reject) => {
    sharedDone = resolve;
    sharedFailed = reject;
  });
  shared.catch(() => {});
  const locked = new Promise<void>((resolve) => (lockedDone = resolve));
  const done = (async () => {
    try {
      await prev?.shared;
      const ids = targets
        ? await deps.db.transaction(async (tx) => {
            await tx.execute(sql`set local synchronous_commit = off`);
            return writeShared(tx, integration, targets, companies, deps.config.holdoutDefaultPercent ?? 0);
          })
        : null;
      // Known once committed, before the next batch's shared step starts.
      if (ids) remember(ids.written);
      sharedDone();
      if (prev) {
        await prev.locked;
        // The latest batch in flight with one of these prospects (those before it commit first).
        const meets = pipeline.before.findLast((b) => [...emails].some((e) => b.emails.has(e)));
        if (meets) await meets.done.catch(() => {});
      }
      await deps.db.transaction(async (tx) => {
        await lockBatch(tx, r.id, startRow);
        lockedDone();
        if (targets && ids) await writeRows(tx, integration, targets, ids);
        if (prev) await awaitBatch(tx, r.id, prev.startRow);
        await recordProgress(tx);
      });
    } catch (err) {
      sharedFailed(err);
      throw err;
    } finally {
      lockedDone();
    }
  })();
  // Awaited in file order by the run; until then its failure must not count as unhandled.
  done.catch(() => {});
  return { startRow, emails, shared, locked, done };
}

/**
 * The companies this run has written, by key: their id, and the name and website the file gave
 * (a null website: the stored one, unknown here). A batch's company that says nothing new is not
 * written again (an upsert that changes nothing still locks and probes the row); its id is known.
 */
type CompanyCache = Map<string, { id: string; name: string; website: string | null }>;
const COMPANY_CACHE_MAX = 100_000;

/** Keeps the first non-blank value of each field across rows of one key. */
function mergePeople<T extends { firstName: string; lastName: string; title: string }>(
  rows: T[],
  key: (row: T) => string,
): Map<string, T> {
  const out = new Map<string, T>();
  for (const row of rows) {
    const k = key(row);
    const had = out.get(k);
    out.set(
      k,
      had
        ? {
            ...row,
            firstName: row.firstName || had.firstName,
            lastName: row.lastName || had.lastName,
            title: row.title || had.title,
          }
        : row,
    );
  }
  return out;
}

/**
 * A batch of target rows, keyed as a sequence-platform sync keys them: sales reps and prospects by
 * lower-cased e-mail, companies and file cadences by lower-cased name. A blank cell never erases
 * what is stored.
 */
type TargetBatch = {
  rows: TargetValue[];
  reps: Map<string, NonNullable<TargetValue['rep']>>;
  /** File cadences by key: their name as the file spells it first. */
  cadenceNames: Map<string, string>;
  /** One per key; a website given on any of its rows counts. */
  companies: Map<string, BatchCompany>;
  /** Prospects by e-mail, and the key of each one's company. */
  people: Map<string, TargetValue>;
  companyOf: Map<string, string>;
};

function prepareTargets(rows: TargetValue[]): TargetBatch | null {
  if (!rows.length) return null;
  const cadenceNames = new Map<string, string>();
  for (const r of rows) {
    if (r.cadence && 'name' in r.cadence && !cadenceNames.has(r.cadence.name.toLowerCase())) {
      cadenceNames.set(r.cadence.name.toLowerCase(), r.cadence.name);
    }
  }
  const companies = new Map<string, BatchCompany>();
  const companyOf = new Map<string, string>();
  for (const r of rows) {
    if (!r.company) continue;
    const key = r.company.name.toLowerCase();
    const had = companies.get(key);
    companies.set(key, {
      key,
      name: had?.name ?? r.company.name,
      website: had?.website ?? r.company.website,
    });
    if (!companyOf.has(r.email)) companyOf.set(r.email, key);
  }
  return {
    rows,
    reps: mergePeople(
      rows.flatMap((r) => (r.rep ? [r.rep] : [])),
      (rep) => rep.email,
    ),
    cadenceNames,
    companies,
    people: mergePeople(rows, (r) => r.email),
    companyOf,
  };
}

/** What a batch's shared step gives its rows: their targets resolved, their companies' ids. */
type SharedIds = {
  /** By `cadence id:e-mail`: the last row of a (cadence, prospect) wins, as in a sync. */
  targets: Map<string, BatchTarget>;
  companyIds: Map<string, string>;
  /** The companies this step wrote, for the run's cache once committed. */
  written: CompanyCache;
};

/**
 * The rows a batch shares with others: sales reps and file cadences (a handful per batch) through
 * the sync's own upserts (store.ts), then companies and cadence days in one set-based statement.
 */
async function writeShared(
  tx: store.Tx,
  integration: store.IntegrationRef,
  batch: TargetBatch,
  known: CompanyCache,
  /** The holdout share cadences new to Rally start with (issue 45). */
  holdoutPercent: number,
): Promise<SharedIds> {
  const { reps } = batch;
  const storedReps = await storedSalesReps(tx, integration.id, [...reps.keys()]);
  const repIds = new Map([...storedReps].map(([k, v]) => [k, v.id]));
  const changedReps = [...reps.values()].filter((rep) => {
    const had = storedReps.get(rep.email);
    return (
      !had ||
      (rep.firstName && rep.firstName !== had.firstName) ||
      (rep.lastName && rep.lastName !== had.lastName) ||
      (rep.title && rep.title !== had.title)
    );
  });
  if (changedReps.length) {
    const ids = await store.upsertSalesReps(
      tx,
      integration,
      changedReps.map((rep) => {
        const had = storedReps.get(rep.email);
        return {
          externalId: rep.email,
          email: rep.email,
          firstName: rep.firstName || had?.firstName || '',
          lastName: rep.lastName || had?.lastName || '',
          title: rep.title,
          isActive: true,
          updatedAt: null,
        };
      }),
    );
    for (const [k, v] of ids) repIds.set(k, v);
  }

  const names = batch.cadenceNames;
  const cadenceIds = await store.cadenceIdsByExternal(tx, integration.id, [...names.keys()]);
  const newCadences = [...names].filter(([key]) => !cadenceIds.has(key));
  if (newCadences.length) {
    const created = await store.upsertCadences(
      tx,
      integration,
      newCadences.map(([key, name]) => ({
        externalId: key,
        name,
        status: 'active',
        ownerExternalId: null,
        days: [],
        updatedAt: new Date().toISOString(),
      })),
      repIds,
      holdoutPercent,
    );
    for (const [k, v] of created) cadenceIds.set(k, v);
  }

  const targets = new Map<string, BatchTarget>();
  const days = new Map<string, BatchDay>();
  for (const r of batch.rows) {
    if (!r.cadence) continue;
    const cadenceId = 'id' in r.cadence ? r.cadence.id : cadenceIds.get(r.cadence.name.toLowerCase());
    if (cadenceId === undefined) continue;
    targets.set(`${cadenceId}:${r.email}`, {
      id: '',
      email: r.email,
      cadenceId,
      dayNumber: r.day,
      salesRepId: r.rep ? (repIds.get(r.rep.email) ?? null) : null,
      isActive: r.isActive,
      token: '',
    });
    days.set(`${cadenceId}:${r.day}`, { cadenceId, dayNumber: r.day });
  }

  const toWrite = [...batch.companies.values()].filter((c) => {
    const had = known.get(c.key);
    return !had || had.name !== c.name || (c.website !== null && c.website !== had.website);
  });
  const ids = await writeBatchCompanies(tx, integration, { companies: toWrite, days: [...days.values()] });
  const companyIds = new Map<string, string>();
  for (const key of batch.companies.keys()) {
    const id = ids.get(key) ?? known.get(key)?.id;
    if (id) companyIds.set(key, id);
  }
  const written: CompanyCache = new Map();
  for (const c of toWrite) {
    const id = ids.get(c.key);
    if (id) written.set(c.key, { id, name: c.name, website: c.website });
  }
  return { targets, companyIds, written };
}

/**
 * An id for a new prospect or target that sorts in the order ids are made: UUID version 7 (RFC
 * 9562: a millisecond timestamp first, then a counter within the millisecond, then random bits; the
 * `uuid` package keeps the counter, so ids made in one process increase). Random ids (the tables'
 * default) put each new row's entries in a random leaf page of the primary keys and of the indexes
 * that end with the id, so at a million rows an import touched every page of indexes several times
 * `shared_buffers`; these append at their ends.
 */
export function timeOrderedId(): string {
  return uuidv7();
}

/** A batch's prospects and targets (one per row) in one set-based statement. */
async function writeRows(
  tx: store.Tx,
  integration: store.IntegrationRef,
  batch: TargetBatch,
  shared: SharedIds,
): Promise<void> {
  const cadencesOf = new Map<string, number[]>();
  for (const target of shared.targets.values()) {
    const list = cadencesOf.get(target.email) ?? [];
    list.push(target.cadenceId);
    cadencesOf.set(target.email, list);
  }
  const tokens = randomBytes(TOKEN_BYTES * shared.targets.size);
  let t = 0;
  for (const target of shared.targets.values()) {
    target.id = timeOrderedId();
    target.token = tokens.toString('base64url', t * TOKEN_BYTES, ++t * TOKEN_BYTES);
  }
  await writeTargetBatch(tx, integration, {
    prospects: [...batch.people.values()].map((p) => {
      const key = batch.companyOf.get(p.email);
      return {
        id: timeOrderedId(),
        email: p.email,
        firstName: p.firstName,
        lastName: p.lastName,
        title: p.title,
        companyId: key === undefined ? null : (shared.companyIds.get(key) ?? null),
        cadenceIds: (cadencesOf.get(p.email) ?? []).sort((a, b) => a - b),
      };
    }),
    targets: [...shared.targets.values()],
  });
}

export type ImportCsvFileOptions = {
  clientId: string;
  kind: ImportKind;
  filePath: string;
  /** Field → column; the suggested mapping when left out. */
  mapping?: ColumnMapping;
  userId?: string | null;
  fileName?: string;
  /** Runs the queued import (a child process, the bench); `runImport` in this process by default. */
  run?: (importId: string) => Promise<FileImportRow | null>;
};

/**
 * Imports a CSV file from disk through the same path as an upload and a started import, to the
 * end, without the queue (the demo seed uses it). Returns the finished import.
 */
export async function importCsvFile(deps: FileforceDeps, opts: ImportCsvFileOptions): Promise<FileImport> {
  const stored = await storeStream(
    deps.config.dataDir,
    opts.clientId,
    createReadStream(opts.filePath),
    () => false,
  );
  const created = await createImport(deps, {
    clientId: opts.clientId,
    userId: opts.userId ?? null,
    kind: opts.kind,
    fileName: opts.fileName ?? opts.filePath.split(/[\\/]/).pop() ?? 'import.csv',
    stored,
  });
  const withMapping = opts.mapping
    ? await setMapping(deps, opts.clientId, created.id, opts.mapping)
    : created;
  assertMapping(withMapping.kind, withMapping.columns, withMapping.mapping);
  const queued = await queueImport(deps, withMapping);
  if (!queued) throw new Error('importCsvFile: the import could not be queued');
  const done = await (opts.run ? opts.run(queued.id) : runImport(deps, queued.id));
  if (!done) throw new Error('importCsvFile: the import disappeared');
  return toImport(done);
}

/** The client's imported opportunities, a page at a time, with totals per currency. */
export async function revenueOf(
  deps: FileforceDeps,
  clientId: string,
  page: number,
  pageSize: number,
): Promise<RevenueReply> {
  const integrationId = await fileforceIntegrationId(deps.db, clientId);
  const data = integrationId
    ? await revenuePage(deps.db, integrationId, page, pageSize)
    : { items: [], total: 0, totals: [] };
  return {
    items: data.items.map((o) => ({
      id: o.id,
      opportunity_id: o.externalId,
      name: o.name,
      account_name: o.accountName,
      company_id: o.companyId,
      amount_cents: o.amountCents,
      currency: o.currency,
      stage: o.stage,
      close_date: o.closeDate,
      created_at: o.createdAt.toISOString(),
      updated_at: o.updatedAt.toISOString(),
    })),
    page,
    page_size: pageSize,
    total: data.total,
    totals: data.totals.map((t) => ({ currency: t.currency, amount_cents: t.amountCents, count: t.count })),
  };
}
