import { once } from 'node:events';
import { createWriteStream, openAsBlob } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FileImport } from '@rally/shared/schemas/fileforce';
import { startServer, stopServer } from '../server-process.ts';
import { Caller, crashRig, poll, registerOwner, withDatabase } from './crash-kit.ts';
import type { Query } from './crash-kit.ts';

const ROWS = 100_000;
const COMPANIES = 1000;
const CADENCES = ['Spring Outbound', 'Summer Outbound', 'Autumn Outbound', 'Winter Outbound'];
const DAYS = 7;
const REPS = 12;
/** Killed once this many rows are committed: well into the file, far from its end. */
const KILL_AFTER = 10_000;

/** Row i: a prospect of its own, one of a few cadences, days, companies and reps. */
async function writeTargetsCsv(filePath: string): Promise<void> {
  const out = createWriteStream(filePath);
  out.write('Email,First Name,Last Name,Title,Company,Website,Cadence,Day,Rep Email,Rep First Name\n');
  for (let i = 0; i < ROWS; i += 1000) {
    const lines: string[] = [];
    for (let j = i; j < i + 1000; j++) {
      const c = j % COMPANIES;
      lines.push(
        `person${j}@company${c}.example,First${j},Last${j},Buyer,Company ${c},company${c}.example,` +
          `${CADENCES[j % CADENCES.length]},${1 + (j % DAYS)},rep${j % REPS}@seller.example,Rep${j % REPS}`,
      );
    }
    if (!out.write(`${lines.join('\n')}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

type Counts = {
  prospects: number;
  distinct_prospects: number;
  targets: number;
  distinct_target_prospects: number;
  companies: number;
  cadences: number;
  cadence_days: number;
  sales_reps: number;
};

async function countsOf(q: Query, clientId: string): Promise<Counts> {
  const [row] = await q<Counts>(
    `select
       (select count(*)::int from prospects where client_id = $1) as prospects,
       (select count(distinct lower(email))::int from prospects where client_id = $1) as distinct_prospects,
       (select count(*)::int from targets where client_id = $1) as targets,
       (select count(distinct prospect_id)::int from targets where client_id = $1) as distinct_target_prospects,
       (select count(*)::int from companies where client_id = $1) as companies,
       (select count(*)::int from cadences where client_id = $1) as cadences,
       (select count(*)::int from cadence_days where client_id = $1) as cadence_days,
       (select count(*)::int from sales_reps where client_id = $1) as sales_reps`,
    [clientId],
  );
  return row!;
}

describe('issue 6 "Crash safety"', async () => {
  const { dir, running, env } = await crashRig('import-crash', {
    // The shortest heartbeat pg-boss allows: the killed worker's job is taken up again in seconds.
    JOB_HEARTBEAT_SECONDS: '10',
  });

  it('"kill the server with SIGKILL in the middle of a 100,000-row import; after restart the import finishes with every row exactly once"', async () => {
    const csv = path.join(dir, 'targets.csv');
    await writeTargetsCsv(csv);

    const first = await startServer(env);
    running.push(first);
    const api = new Caller();
    api.base = first.url;
    await registerOwner(api, 'crash@import.example');
    const imports = `/v1/integration/crm/fileforce/client/${api.clientId}/imports`;
    const form = new FormData();
    form.append('kind', 'targets');
    form.append('file', await openAsBlob(csv, { type: 'text/csv' }), 'targets.csv');
    const uploaded = await api.json<FileImport>('POST', imports, form, 201);
    expect(uploaded.mapping).toMatchObject({ email: 'Email', cadence: 'Cadence', day: 'Day' });
    await api.json<FileImport>('POST', `${imports}/${uploaded.id}/start`, undefined, 202);

    const midway = await poll(
      async () => {
        const r = await api.json<FileImport>('GET', `${imports}/${uploaded.id}`);
        if (r.status === 'failed' || r.status === 'done')
          throw new Error(`import ended before the kill: ${r.status}`);
        return r.processed_rows >= KILL_AFTER ? r : null;
      },
      180_000,
      500,
    );
    await stopServer(first, 'SIGKILL');
    expect(first.child.signalCode).toBe('SIGKILL');

    // What the killed process left: whole batches, each with its progress, nothing half-written.
    const left = await withDatabase(env, async (q) => {
      const [row] = await q<{ status: string; processed_rows: number; imported_rows: number }>(
        'select status, processed_rows, imported_rows from file_imports where id = $1',
        [uploaded.id],
      );
      return { ...row!, counts: await countsOf(q, api.clientId) };
    });
    expect(left.status).toBe('running');
    expect(left.processed_rows).toBeGreaterThanOrEqual(midway.processed_rows);
    expect(left.processed_rows).toBeLessThan(ROWS);
    expect(left.processed_rows % 1000).toBe(0);
    expect(left.imported_rows).toBe(left.processed_rows);
    expect(left.counts.prospects).toBe(left.processed_rows);
    expect(left.counts.targets).toBe(left.processed_rows);

    const second = await startServer(env);
    running.push(second);
    api.base = second.url;
    const done = await poll(
      async () => {
        const r = await api.json<FileImport>('GET', `${imports}/${uploaded.id}`);
        if (r.status === 'failed') throw new Error(`import failed after the restart: ${r.failure_reason}`);
        return r.status === 'done' ? r : null;
      },
      300_000,
      500,
    );
    expect(done).toMatchObject({
      status: 'done',
      total_rows: ROWS,
      processed_rows: ROWS,
      imported_rows: ROWS,
      error_rows: 0,
      errors: [],
    });
    await stopServer(second, 'SIGTERM');
    expect(second.child.exitCode).toBe(0);

    const counts = await withDatabase(env, (q) => countsOf(q, api.clientId));
    expect(counts).toEqual({
      prospects: ROWS,
      distinct_prospects: ROWS,
      targets: ROWS,
      distinct_target_prospects: ROWS,
      companies: COMPANIES,
      cadences: CADENCES.length,
      // Row j is on cadence j mod 4, day 1 + j mod 7: 28 (cadence, day) pairs.
      cadence_days: CADENCES.length * DAYS,
      sales_reps: REPS,
    });
  }, 600_000);
});
