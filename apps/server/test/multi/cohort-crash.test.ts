import { describe, expect, it } from 'vitest';
import type { Cohort } from '@rally/shared/schemas/cohorts';
import type { FileImport } from '@rally/shared/schemas/fileforce';
import { startServer, stopServer } from '../server-process.ts';
import { Caller, crashRig, poll, registerOwner, withDatabase } from './crash-kit.ts';
import type { Query } from './crash-kit.ts';

const PEOPLE = 3_000;
/** Members per transaction (COHORT_SYNC_CHUNK's least): 300 chunks, so the kill lands mid-sync. */
const CHUNK = 10;

/** What a cohort's sync has written: members, distinct prospects, and the targets they point to. */
async function membersOf(q: Query, cohortId: string) {
  const [row] = await q<{ members: number; prospects: number; targets: number }>(
    `select count(*)::int as members, count(distinct prospect_id)::int as prospects,
            count(distinct target_id)::int as targets
       from cohort_members where cohort_id = $1`,
    [cohortId],
  );
  return row!;
}

describe('issue 18 "SIGKILL during a cohort sync then finishing with every member once"', async () => {
  const { running, env } = await crashRig('cohort-crash', {
    COHORT_SYNC_CHUNK: String(CHUNK),
    // The shortest heartbeat pg-boss allows: the killed worker's job is taken up again in seconds.
    JOB_HEARTBEAT_SECONDS: '10',
  });

  it('is killed between chunks, and the restarted server finishes the sync with each prospect once', async () => {
    const first = await startServer(env);
    running.push(first);
    const api = new Caller();
    api.base = first.url;
    await registerOwner(api, 'crash@cohort.example');

    // The prospects come in through the product's own file import.
    const rows = Array.from(
      { length: PEOPLE },
      (_, i) => `person${i}@company${i % 50}.example,First${i},Last${i},Buyer,Company ${i % 50},Spring,1`,
    );
    const form = new FormData();
    form.append('kind', 'targets');
    form.append(
      'file',
      new Blob([`Email,First Name,Last Name,Title,Company,Cadence,Day\n${rows.join('\n')}\n`], {
        type: 'text/csv',
      }),
      'people.csv',
    );
    const imports = `/v1/integration/crm/fileforce/client/${api.clientId}/imports`;
    const uploaded = await api.json<FileImport>('POST', imports, form, 201);
    await api.json<FileImport>('POST', `${imports}/${uploaded.id}/start`, undefined, 202);
    await poll(
      async () => {
        const r = await api.json<FileImport>('GET', `${imports}/${uploaded.id}`);
        if (r.status === 'failed') throw new Error(`import failed: ${r.failure_reason}`);
        return r.status === 'done' ? r : null;
      },
      120_000,
      500,
    );

    const cohort = await api.json<Cohort>(
      'POST',
      '/v1/rest/cohort',
      { name: 'Every buyer', source_kind: 'filter', filters: { title: 'buyer' } },
      201,
    );
    // Killed once some chunks, but far from all, are committed.
    const midway = await poll(
      async () => {
        const c = await api.json<Cohort>('GET', `/v1/api/cohort/${cohort.id}`);
        if (c.sync_state === 'done' || c.sync_state === 'failed')
          throw new Error(`the sync ended before the kill: ${c.sync_state}`);
        const done = c.sync_progress?.done ?? 0;
        return done >= 5 * CHUNK ? c : null;
      },
      120_000,
      50,
    );
    await stopServer(first, 'SIGKILL');
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(midway.sync_progress?.total).toBe(PEOPLE);

    // What the killed process left: whole chunks, each with its cursor, nothing half-written.
    const left = await withDatabase(env, async (q) => {
      const [row] = await q<{ sync_state: string; done: number }>(
        `select sync_state, (sync_progress->>'done')::int as done from cohorts where id = $1`,
        [cohort.id],
      );
      return { ...row!, ...(await membersOf(q, cohort.id)) };
    });
    expect(left.sync_state).toBe('running');
    expect(left.done).toBeGreaterThanOrEqual(midway.sync_progress!.done);
    expect(left.done).toBeLessThan(PEOPLE);
    expect(left.done % CHUNK).toBe(0);
    expect(left.members).toBe(left.done);
    expect(left.prospects).toBe(left.done);

    const second = await startServer(env);
    running.push(second);
    api.base = second.url;
    const finished = await poll(
      async () => {
        const c = await api.json<Cohort>('GET', `/v1/api/cohort/${cohort.id}`);
        if (c.sync_state === 'failed') throw new Error('the sync failed after the restart');
        return c.sync_state === 'done' ? c : null;
      },
      180_000,
      250,
    );
    expect(finished).toMatchObject({ size: PEOPLE, accounts: 50 });
    await stopServer(second, 'SIGTERM');
    expect(second.child.exitCode).toBe(0);

    expect(await withDatabase(env, (q) => membersOf(q, cohort.id))).toEqual({
      members: PEOPLE,
      prospects: PEOPLE,
      targets: PEOPLE,
    });
  }, 600_000);
});
