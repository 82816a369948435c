import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { eq, sql } from 'drizzle-orm';
import { cadences, integrations, prospects, targets } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient } from '../../../test/http.ts';
import { importCsvFile } from '../fileforce/index.ts';

/**
 * `prospects.cadence_ids` (migration 0028) is kept by triggers on targets, whoever writes them: it
 * must equal the sorted cadences of the prospect's targets after inserts (one row, many rows, an
 * upsert), moves to another cadence or prospect, deletes of targets, of a cadence (cascade) and of a
 * prospect. The prospects list relies on it for a cadence filter (repository.ts).
 */
let app: FastifyInstance;
let clientId: string;
let integrationId: number;
let cad: number[];
let pro: string[];

/** Every prospect's column next to the truth from its targets, for the comparison. */
async function columnAndTruth(): Promise<{
  stored: Record<string, number[]>;
  truth: Record<string, number[]>;
}> {
  const rows = (
    (await app.db.execute(sql`
      select p.id::text as id, p.cadence_ids as stored,
        coalesce((select array_agg(t.cadence_id order by t.cadence_id) from targets t where t.prospect_id = p.id),
          '{}') as truth
      from prospects p where p.client_id = ${clientId} order by p.external_id`)) as unknown as {
      rows: { id: string; stored: number[]; truth: number[] }[];
    }
  ).rows;
  return {
    stored: Object.fromEntries(rows.map((r) => [r.id, r.stored])),
    truth: Object.fromEntries(rows.map((r) => [r.id, r.truth])),
  };
}

async function expectExact(expected: Record<number, number[]>) {
  const { stored, truth } = await columnAndTruth();
  expect(stored).toEqual(truth);
  // The scenario's own expectation too, so an empty table cannot pass.
  expect(stored).toEqual(
    Object.fromEntries(Object.entries(expected).map(([i, ids]) => [pro[Number(i)], ids])),
  );
}

beforeAll(async () => {
  app = await createTestApp();
  clientId = await makeClient(app);
  const [integration] = await app.db
    .insert(integrations)
    .values({ clientId, source: 'salesloft', isActive: true })
    .returning();
  integrationId = integration!.id;
  const ref = { clientId, integrationId };
  cad = (
    await app.db
      .insert(cadences)
      .values([0, 1, 2].map((i) => ({ ...ref, externalId: `c${i}`, name: `Cadence ${i}` })))
      .returning()
  )
    .map((c) => c.id)
    .sort((a, b) => a - b);
  pro = (
    await app.db
      .insert(prospects)
      .values([0, 1, 2].map((i) => ({ ...ref, externalId: `p${i}`, firstName: `P${i}` })))
      .returning()
  ).map((p) => p.id);
});

describe('prospects.cadence_ids', () => {
  it('follows inserts, moves and deletes of targets, of a cadence and of a prospect', async () => {
    const [c0, c1, c2] = cad as [number, number, number];
    const [p0, p1] = pro as [string, string, string];
    await expectExact({ 0: [], 1: [], 2: [] });

    // Many rows in one statement, out of order; then one more on its own.
    await app.db.insert(targets).values([
      { clientId, cadenceId: c2, prospectId: p0 },
      { clientId, cadenceId: c0, prospectId: p0 },
      { clientId, cadenceId: c0, prospectId: p1 },
    ]);
    await app.db.insert(targets).values({ clientId, cadenceId: c1, prospectId: p1 });
    await expectExact({ 0: [c0, c2], 1: [c0, c1], 2: [] });

    // An upsert that changes nothing but the day, and a counter update, leave it as it is.
    await app.db
      .insert(targets)
      .values({ clientId, cadenceId: c0, prospectId: p0, dayNumber: 3 })
      .onConflictDoUpdate({ target: [targets.cadenceId, targets.prospectId], set: { dayNumber: 3 } });
    await app.db.update(targets).set({ impressions: sql`impressions + 1` });
    await expectExact({ 0: [c0, c2], 1: [c0, c1], 2: [] });

    // Moves: to another cadence, then to another prospect.
    await app.db.update(targets).set({ cadenceId: c1 }).where(eq(targets.cadenceId, c2));
    await expectExact({ 0: [c0, c1], 1: [c0, c1], 2: [] });
    await app.db
      .update(targets)
      .set({ prospectId: pro[2]! })
      .where(sql`${targets.prospectId} = ${p1} and ${targets.cadenceId} = ${c1}`);
    await expectExact({ 0: [c0, c1], 1: [c0], 2: [c1] });

    // Deletes: one target, a whole cadence (cascade), a prospect (its targets go by cascade).
    await app.db.delete(targets).where(sql`${targets.prospectId} = ${p0} and ${targets.cadenceId} = ${c1}`);
    await expectExact({ 0: [c0], 1: [c0], 2: [c1] });
    await app.db.delete(cadences).where(eq(cadences.id, c0));
    await expectExact({ 0: [], 1: [], 2: [c1] });
    await app.db.delete(prospects).where(eq(prospects.id, pro[2]!));
    const { stored } = await columnAndTruth();
    expect(stored).toEqual({ [p0]: [], [p1]: [] });
  });

  it('follows a file import, which writes it on the prospects it creates', async () => {
    const importer = await makeClient(app);
    const dir = mkdtempSync(path.join(tmpdir(), 'rally-cadence-ids-'));
    const header = 'Email,First Name,Last Name,Title,Company,Cadence,Day';
    const file = (name: string, lines: string[]) => {
      const filePath = path.join(dir, name);
      writeFileSync(filePath, [header, ...lines].join('\n') + '\n');
      return filePath;
    };
    const run = async (filePath: string) =>
      expect(await importCsvFile(app, { clientId: importer, kind: 'targets', filePath })).toMatchObject({
        status: 'done',
        error_rows: 0,
      });
    await run(
      file('a.csv', [
        'a@x.test,Ann,A,CEO,Acme,Wave B,1',
        'a@x.test,Ann,A,CEO,Acme,Wave A,2',
        'b@x.test,Bob,B,CTO,Acme,Wave B,1',
      ]),
    );
    // A prospect that exists gains a cadence: the trigger's path.
    await run(file('b.csv', ['b@x.test,Bob,B,CTO,Acme,Wave C,1']));
    const rows = (
      (await app.db.execute(sql`
        select p.external_id as email, p.cadence_ids as stored,
          (select array_agg(c.name order by t.cadence_id) from targets t join cadences c on c.id = t.cadence_id
            where t.prospect_id = p.id) as names,
          (select array_agg(t.cadence_id order by t.cadence_id) from targets t where t.prospect_id = p.id) as truth
        from prospects p where p.client_id = ${importer} order by p.external_id`)) as unknown as {
        rows: { email: string; stored: number[]; names: string[]; truth: number[] }[];
      }
    ).rows;
    expect(rows.map((r) => [r.email, [...r.names].sort()])).toEqual([
      ['a@x.test', ['Wave A', 'Wave B']],
      ['b@x.test', ['Wave B', 'Wave C']],
    ]);
    for (const r of rows) expect(r.stored).toEqual(r.truth);
  });
});
