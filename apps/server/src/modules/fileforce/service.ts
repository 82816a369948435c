import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
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
  writeTargetBatch,
} from './repository.ts';
import type { BatchCompany, BatchTarget, FileImportRow, ImportStatus } from './repository.ts';
import { createRowValidator, mappingProblems } from './rows.ts';
import type { RevenueValue, RowResult, TargetValue } from './rows.ts';
import { removeStored, storedPath, storeStream, uploadsRoot } from './storage.ts';

/**
 * The file import (ARCHITECTURE.md §7 "File import is fully real: streamed CSV, column mapping,
 * validation report per row, targets and revenue"): upload, mapping, dry run, and the import itself,
 * which the job and the demo seed run alike.
 */

/** What the import needs of the app: the database and the data folder (a FastifyInstance fits). */
export type FileforceDeps = {
  db: Db;
  config: { dataDir: string };
  log?: FastifyBaseLogger;
  /** The feed's 'import' item when an import is done (the app is passed; the seed has none). */
  feedBus?: {
    add(item: { clientId: string; type: 'import'; data: Record<string, unknown> }): Promise<unknown>;
  };
  /** Webhooks' `import_finished` (the app is passed; a no-op without a subscribed endpoint). */
  webhooks?: WebhookEvents;
  /** Which database: on PostgreSQL a batch's commit does not wait for its WAL flush. */
  database?: { driver: DbDriver };
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

function filePathOf(deps: FileforceDeps, r: FileImportRow): string {
  return storedPath(uploadsRoot(deps.config.dataDir), r.storageKey);
}

async function exists(filePath: string): Promise<boolean> {
  try {
    await access(filePath);
    return true;
  } catch {
    return false;
  }
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
  storageKey: string;
  byteSize: number;
};

/** Records an uploaded file: reads its header row only, and suggests a mapping from it. */
export async function createImport(deps: FileforceDeps, input: UploadInput): Promise<FileImportRow> {
  const root = uploadsRoot(deps.config.dataDir);
  try {
    const columns = await readColumns(storedPath(root, input.storageKey));
    const integration = await ensureFileforceIntegration(deps.db, input.clientId);
    return await insertImport(deps.db, {
      clientId: input.clientId,
      integrationId: integration.id,
      kind: input.kind,
      fileName: input.fileName.slice(0, 255) || 'upload.csv',
      storageKey: input.storageKey,
      byteSize: input.byteSize,
      columns,
      mapping: suggestMapping(input.kind, columns),
      createdBy: input.userId,
    });
  } catch (err) {
    await removeStored(root, input.storageKey);
    throw err;
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
  await removeStored(uploadsRoot(deps.config.dataDir), r.storageKey);
}

/** Goes through every row of the file, validating, calling `onRow` for each data row. */
async function eachRow(
  deps: FileforceDeps,
  r: FileImportRow,
  mapping: ColumnMapping,
  onRow: (result: RowResult) => Promise<void> | void,
): Promise<void> {
  const filePath = filePathOf(deps, r);
  if (!(await exists(filePath)))
    throw new ImportFailure('The uploaded file is no longer there: upload it again.');
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
  try {
    await eachRow(deps, r, mapping, (result) => {
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
      ? { processedRows: 0, importedRows: 0, errorRows: 0, errors: [] as ImportRowError[] }
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
  try {
    assertMappingForRun(r);
    if (r.totalRows === null && (await exists(filePathOf(deps, r)))) {
      r =
        (await updateImport(deps.db, id, ['running'], {
          totalRows: await estimateRows(filePathOf(deps, r)),
        })) ?? r;
    }
    const resumeAfter = r.processedRows;
    const state = {
      processed: r.processedRows,
      imported: r.importedRows,
      errorRows: r.errorRows,
      errors: [...r.errors],
    };
    let seen = 0;
    let batch: RowResult[] = [];
    const companies: CompanyCache = new Map();
    // The batch being written while the next one is read and validated (the database and this
    // process work at once); batches still commit one at a time, in file order.
    let writing: Promise<void> | null = null;
    const flush = async () => {
      if (writing) await writing;
      writing = null;
      if (!batch.length) return;
      opts.signal?.throwIfAborted();
      const rows = batch;
      batch = [];
      writing = commitBatch(deps, integration, r, rows, state, companies);
      // Awaited by the next flush; until then its failure must not count as unhandled.
      writing.catch(() => {});
    };
    try {
      await eachRow(deps, r, r.mapping, async (result) => {
        seen++;
        if (seen <= resumeAfter) return; // committed by an earlier run
        batch.push(result);
        if (batch.length >= BATCH_ROWS) await flush();
      });
      await flush();
      await writing;
    } finally {
      // A read error must not leave a batch being written behind the failure handling.
      await (writing as Promise<void> | null)?.catch(() => {});
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

async function commitBatch(
  deps: FileforceDeps,
  integration: store.IntegrationRef,
  r: FileImportRow,
  rows: RowResult[],
  state: { processed: number; imported: number; errorRows: number; errors: ImportRowError[] },
  companies: CompanyCache,
): Promise<void> {
  let written = new Map() as CompanyCache;
  const good = rows.flatMap((x) => (x.ok ? [x] : []));
  const bad = rows.flatMap((x) => (x.ok ? [] : [x]));
  const newErrors = bad.flatMap((x) => x.errors);
  const room = MAX_LISTED_ERRORS - state.errors.length;
  const errors = room > 0 && newErrors.length ? [...state.errors, ...newErrors.slice(0, room)] : undefined;
  const next = {
    processedRows: state.processed + rows.length,
    importedRows: state.imported + good.length,
    errorRows: state.errorRows + bad.length,
    errors,
  };
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
    } else {
      written = await writeTargets(
        tx,
        integration,
        good.flatMap((x) => (x.kind === 'targets' ? [x.value] : [])),
        companies,
      );
    }
    if (!(await commitProgress(tx, r.id, state.processed, next))) throw new Superseded();
  });
  // Known once committed: a batch rolled back leaves nothing to remember.
  if (companies.size + written.size > COMPANY_CACHE_MAX) companies.clear();
  for (const [k, v] of written) companies.set(k, v);
  state.processed = next.processedRows;
  state.imported = next.importedRows;
  state.errorRows = next.errorRows;
  if (errors) state.errors = errors;
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
 * One batch of target rows, keyed as a sequence-platform sync keys them: sales reps and file
 * cadences (a handful per batch) through the sync's own upserts (store.ts), then companies,
 * prospects and targets (one per row) in one set-based statement. Sales reps and prospects are keyed
 * by lower-cased e-mail, companies and file cadences by lower-cased name. A blank cell never erases
 * what is stored.
 */
async function writeTargets(
  tx: store.Tx,
  integration: store.IntegrationRef,
  rows: TargetValue[],
  known: CompanyCache,
): Promise<CompanyCache> {
  if (!rows.length) return new Map();

  const reps = mergePeople(
    rows.flatMap((r) => (r.rep ? [r.rep] : [])),
    (rep) => rep.email,
  );
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

  const names = new Map<string, string>();
  for (const r of rows) {
    if (r.cadence && 'name' in r.cadence && !names.has(r.cadence.name.toLowerCase())) {
      names.set(r.cadence.name.toLowerCase(), r.cadence.name);
    }
  }
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
    );
    for (const [k, v] of created) cadenceIds.set(k, v);
  }

  const people = mergePeople(rows, (r) => r.email);
  // One company per lower-cased name; a website given on any of its rows counts.
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
  const targetRows = new Map<string, BatchTarget>();
  for (const r of rows) {
    if (!r.cadence) continue;
    const cadenceId = 'id' in r.cadence ? r.cadence.id : cadenceIds.get(r.cadence.name.toLowerCase());
    if (cadenceId === undefined) continue;
    // The last row of a (cadence, prospect) wins, as in a sync.
    targetRows.set(`${cadenceId}:${r.email}`, {
      email: r.email,
      cadenceId,
      dayNumber: r.day,
      salesRepId: r.rep ? (repIds.get(r.rep.email) ?? null) : null,
      isActive: r.isActive,
      token: '',
    });
  }
  const cadencesOf = new Map<string, number[]>();
  for (const target of targetRows.values()) {
    const list = cadencesOf.get(target.email) ?? [];
    list.push(target.cadenceId);
    cadencesOf.set(target.email, list);
  }
  const tokens = randomBytes(TOKEN_BYTES * targetRows.size);
  let t = 0;
  for (const target of targetRows.values()) {
    target.token = tokens.toString('base64url', t * TOKEN_BYTES, ++t * TOKEN_BYTES);
  }
  const toWrite = [...companies.values()].filter((c) => {
    const had = known.get(c.key);
    return !had || had.name !== c.name || (c.website !== null && c.website !== had.website);
  });
  const unchanged = new Set(companies.keys());
  for (const c of toWrite) unchanged.delete(c.key);
  const ids = await writeTargetBatch(tx, integration, {
    companies: toWrite,
    prospects: [...people.values()].map((p) => {
      const key = companyOf.get(p.email) ?? null;
      const id = key !== null && unchanged.has(key) ? (known.get(key)?.id ?? null) : null;
      return {
        email: p.email,
        firstName: p.firstName,
        lastName: p.lastName,
        title: p.title,
        companyKey: id === null ? key : null,
        companyId: id,
        cadenceIds: (cadencesOf.get(p.email) ?? []).sort((a, b) => a - b),
      };
    }),
    targets: [...targetRows.values()],
  });
  const written: CompanyCache = new Map();
  for (const c of toWrite) {
    const id = ids.get(c.key);
    if (id) written.set(c.key, { id, name: c.name, website: c.website });
  }
  return written;
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
  const root = uploadsRoot(deps.config.dataDir);
  const stored = await storeStream(root, opts.clientId, createReadStream(opts.filePath), () => false);
  const created = await createImport(deps, {
    clientId: opts.clientId,
    userId: opts.userId ?? null,
    kind: opts.kind,
    fileName: opts.fileName ?? opts.filePath.split(/[\\/]/).pop() ?? 'import.csv',
    storageKey: stored.storageKey,
    byteSize: stored.byteSize,
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
