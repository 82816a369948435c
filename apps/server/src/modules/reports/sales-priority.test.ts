import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser, signedIn } from '../../../test/http.ts';
import { fieldsOf, standardScene } from '../../../test/reports-world.ts';

/**
 * SPEC.md §7 "Sales priority: POST and DELETE /rest/client/{id}/sales/priority" (issue 17): marking an
 * account or a target puts its opportunities first in pipeline/priority, with `is_priority`.
 */
describe('sales priority (POST and DELETE /v1/rest/client/{id}/sales/priority)', async () => {
  const app = await createTestApp();
  const s = await standardScene(app, 'Acme');
  const foreign = await standardScene(app, 'Foreign');
  const { browser: owner } = await signedIn(app, { [s.clientId]: 'purple_owner' });
  const { browser: manager } = await signedIn(app, { [s.clientId]: 'green_manager' });
  const { browser: sdr } = await signedIn(app, { [s.clientId]: 'yellow_sdr' });
  const url = `/v1/rest/client/${s.clientId}/sales/priority`;
  const report = `/v1/report/client/${s.clientId}/pipeline/priority`;
  type Row = { opportunity_id: string; is_priority: boolean; priority_marked_at: string | null };
  const order = async () =>
    ((await sdr.get(report)).json().items as Row[]).map((o) => [o.opportunity_id, o.is_priority]);

  it('marking an account puts its open opportunities first; unmarking restores the engagement order', async () => {
    // By engagement alone Alpha (score 13) comes before Beta (score 1).
    expect(await order()).toEqual([
      [s.alphaDeal, false],
      [s.betaDeal, false],
    ]);
    const res = await owner.post(url, { account_id: s.beta });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      kind: 'account',
      account_id: s.beta,
      target_id: null,
      is_priority: true,
    });
    const markedAt = res.json().marked_at as string;
    expect(Date.parse(markedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(await order()).toEqual([
      [s.betaDeal, true],
      [s.alphaDeal, false],
    ]);
    const row = ((await sdr.get(report)).json().items as Row[])[0];
    expect(row?.priority_marked_at).toBe(markedAt);

    // Marking again keeps the first mark (idempotent).
    const again = await manager.post(url, { account_id: s.beta });
    expect(again.statusCode).toBe(200);
    expect(again.json().marked_at).toBe(markedAt);

    // The export follows the same order.
    const csv = await sdr.get(`${report}/export`);
    expect(csv.body.split('\n')[1]).toMatch(/^Beta platform,/);

    const del = await owner.delete(`${url}?account_id=${s.beta}`);
    expect(del.statusCode, del.body).toBe(200);
    expect(del.json()).toMatchObject({ kind: 'account', is_priority: false, marked_at: null });
    expect(await order()).toEqual([
      [s.alphaDeal, false],
      [s.betaDeal, false],
    ]);
    // Unmarking what is not marked answers the same.
    expect((await owner.delete(`${url}?account_id=${s.beta}`)).statusCode).toBe(200);
  });

  it("marking a target marks the accounts of its prospect (Bo's Beta)", async () => {
    const res = await manager.post(url, { target_id: s.bo.targetId });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ kind: 'target', target_id: s.bo.targetId, is_priority: true });
    expect(await order()).toEqual([
      [s.betaDeal, true],
      [s.alphaDeal, false],
    ]);
    // Marking Alpha too: both marked, ranked among themselves by engagement again.
    await owner.post(url, { account_id: s.alpha });
    expect(await order()).toEqual([
      [s.alphaDeal, true],
      [s.betaDeal, true],
    ]);
    await owner.delete(`${url}?target_id=${s.bo.targetId}`);
    await owner.delete(`${url}?account_id=${s.alpha}`);
    expect(await order()).toEqual([
      [s.alphaDeal, false],
      [s.betaDeal, false],
    ]);
  });

  it("another client's account or target is not found (404), and its marks never show here", async () => {
    for (const body of [{ account_id: foreign.beta }, { target_id: foreign.bo.targetId }]) {
      const res = await owner.post(url, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(404);
    }
    expect((await owner.delete(`${url}?account_id=${foreign.alpha}`)).statusCode).toBe(404);
    expect((await owner.delete(`${url}?target_id=${foreign.avery.targetId}`)).statusCode).toBe(404);
    // The foreign client marks its own Beta: nothing changes here.
    const { browser: other } = await signedIn(app, { [foreign.clientId]: 'purple_owner' });
    const res = await other.post(`/v1/rest/client/${foreign.clientId}/sales/priority`, {
      account_id: foreign.beta,
    });
    expect(res.statusCode).toBe(200);
    expect(await order()).toEqual([
      [s.alphaDeal, false],
      [s.betaDeal, false],
    ]);
    // A path naming another client than x-client-id is refused.
    expect(
      (await owner.post(`/v1/rest/client/${foreign.clientId}/sales/priority`, { account_id: foreign.beta }))
        .statusCode,
    ).toBe(403);
  });

  it('bad input is a 422 naming the field', async () => {
    const cases: [() => Promise<{ statusCode: number; json(): unknown }>, string][] = [
      [() => owner.post(url, {}), 'body.account_id'],
      [() => owner.post(url, { account_id: 'nope' }), 'body.account_id'],
      [() => owner.post(url, { target_id: 42 }), 'body.target_id'],
      [() => owner.post(url, { account_id: s.alpha, target_id: s.bo.targetId }), 'body.target_id'],
      [() => owner.delete(url), 'querystring.account_id'],
      [() => owner.delete(`${url}?target_id=x`), 'querystring.target_id'],
    ];
    for (const [call, field] of cases) {
      const res = await call();
      expect(res.statusCode, field).toBe(422);
      expect(fieldsOf(res), field).toEqual([field]);
    }
  });

  it('401 signed out; 403 without cadence.write (an SDR reads the list but does not change it)', async () => {
    const anon = new Browser(app);
    anon.clientId = s.clientId;
    expect((await anon.post(url, { account_id: s.alpha })).statusCode).toBe(401);
    expect((await anon.delete(`${url}?account_id=${s.alpha}`)).statusCode).toBe(401);
    for (const res of [
      await sdr.post(url, { account_id: s.alpha }),
      await sdr.delete(`${url}?account_id=${s.alpha}`),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toMatch(/cadence\.write/);
    }
  });
});
