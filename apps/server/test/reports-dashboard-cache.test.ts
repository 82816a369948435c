import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { engagementEvents } from '../src/db/schema/index.ts';
import { REPORT_RESULT_TTL_MS } from '../src/modules/reports/report-results.ts';
import { rowsOf } from '../src/modules/reports/repository.ts';
import { createTestApp } from './helpers.ts';
import { signedIn } from './http.ts';
import { daysAgo, epoch, standardScene } from './reports-world.ts';

/**
 * Issue 43, the product owner's decision: dashboard/stats may serve a result computed in the last
 * 60 s for the same client and range, saying when it was computed (`as_of`). Kept in the database
 * (`report_results`), so every instance serves the same one. The minute is played by ageing the stored
 * row (the database's clock decides, as it does for every instance).
 */
describe('dashboard/stats serves the last minute’s result with its time (issue 43)', async () => {
  const app = await createTestApp();
  const s = await standardScene(app, 'Acme');
  const other = await standardScene(app, 'Other');
  const { browser: owner } = await signedIn(app, { [s.clientId]: 'purple_owner' });
  const { browser: sdr } = await signedIn(app, { [s.clientId]: 'yellow_sdr' });
  const { browser: otherOwner } = await signedIn(app, { [other.clientId]: 'purple_owner' });
  const from = epoch(daysAgo(60));
  const to = epoch(daysAgo(-1));
  const range = `from=${from}&to=${to}`;
  const stats = async (browser = owner, clientId = s.clientId, q = range) => {
    const res = await browser.get(`/v1/report/client/${clientId}/dashboard/stats?${q}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { as_of: string; impressions: number; engaged_targets: number; range: unknown };
  };
  const impression = (clientId: string, targetId: string, cadenceId: number) =>
    app.db
      .insert(engagementEvents)
      .values({ clientId, targetId, cadenceId, type: 'impression', occurredAt: new Date() });
  /** Moves the client's stored results `ms` into the past, as if that much time had gone by. */
  const age = (clientId: string, ms: number) =>
    app.db.execute(sql`update report_results set computed_at = computed_at - ${`${ms} milliseconds`}::interval
      where client_id = ${clientId}`);

  it('serves the same result within the minute, with its time, then computes again', async () => {
    expect(REPORT_RESULT_TTL_MS).toBe(60_000);
    const before = Date.now();
    const first = await stats();
    const asOf = Date.parse(first.as_of);
    expect(asOf).toBeGreaterThanOrEqual(before - 1_000);
    expect(asOf).toBeLessThanOrEqual(Date.now());
    expect(first.impressions).toBe(4);

    // A new impression: within the minute the reply is the stored one, for any member of the client.
    await impression(s.clientId, s.bo.targetId, s.cadenceId);
    const cached = await stats(sdr);
    expect(cached).toEqual(first);

    // 45 s later it is still served (the test's own seconds add to it); 61 s later it is computed
    // again, with the impression and a new time.
    await age(s.clientId, 45_000);
    expect(await stats()).toMatchObject({ as_of: new Date(asOf - 45_000).toISOString(), impressions: 4 });
    await age(s.clientId, 16_000);
    const fresh = await stats();
    expect(fresh.impressions).toBe(5);
    expect(Date.parse(fresh.as_of)).toBeGreaterThan(asOf);
    expect(await stats()).toEqual(fresh);
  });

  it('keys results by the range as asked', async () => {
    const a = await stats();
    await impression(s.clientId, s.avery.targetId, s.cadenceId);
    // Another range (another end) is computed: it sees the new impression.
    const other = await stats(owner, s.clientId, `from=${from}&to=${to + 1}`);
    expect(other.impressions).toBe(a.impressions + 1);
    expect(other.as_of).not.toBe(a.as_of);
    // A range left open ("now") is its own key, computed once and then served within the minute.
    const open1 = await stats(owner, s.clientId, `from=${from}`);
    await impression(s.clientId, s.avery.targetId, s.cadenceId);
    const open2 = await stats(owner, s.clientId, `from=${from}`);
    expect(open2).toEqual(open1);
    // The first range is still the stored one.
    expect(await stats()).toEqual(a);
    // Only the last minute's results are kept: an expired one goes when the client stores another.
    await age(s.clientId, 61_000);
    await stats();
    const kept = rowsOf(
      await app.db.execute(sql`select key from report_results where client_id = ${s.clientId} order by key`),
    ).map((r) => String(r.key));
    expect(kept).toEqual([`from=${from}&to=${to}`]);
  });

  it("never serves one client's result to another", async () => {
    await app.db.execute(sql`delete from report_results`);
    // Acme has more impressions than Other by now; both asked the same range within the minute.
    const mine = await stats();
    await impression(other.clientId, other.bo.targetId, other.cadenceId);
    const theirs = await stats(otherOwner, other.clientId);
    expect(theirs.impressions).toBe(5); // Other's scene (4) and its new impression, not Acme's numbers
    expect(mine.impressions).not.toBe(theirs.impressions);
    const rows = rowsOf(
      await app.db.execute(sql`select client_id::text as c, body from report_results order by 1`),
    );
    expect(rows.map((r) => r.c).sort()).toEqual([s.clientId, other.clientId].sort());
    // Another client's dashboard through this client's membership is refused, cached or not.
    const foreign = await owner.get(`/v1/report/client/${other.clientId}/dashboard/stats?${range}`);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.body).not.toContain('impressions');
  });
});
