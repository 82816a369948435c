import { describe, expect, it } from 'vitest';
import { engagementEvents, targets } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeSupers } from '../../../test/billing.ts';
import { makeClient, signedIn } from '../../../test/http.ts';

describe('usage report "active" (SPEC.md §3 "Usage report": total {active, …} and by_date {active, date, super})', async () => {
  const app = await createTestApp({ workers: false });

  it('active counts distinct targets shown an ad that day (impressions only), in the billing time zone', async () => {
    const clientId = await makeClient(app, 'Usage Co');
    const { browser } = await signedIn(app, { [clientId]: 'purple_owner' });
    const now = new Date();
    const [a, b] = await makeSupers(app.db, clientId, 2, now);
    const [row] = await app.db.select({ cadenceId: targets.cadenceId }).from(targets).limit(1);
    const at = now;
    const event = (targetId: string, type: 'impression' | 'click') => ({
      clientId,
      targetId,
      cadenceId: row!.cadenceId,
      type,
      occurredAt: at,
    });
    // Target a seen twice, b once, and a click on b (not an ad shown): two active targets.
    await app.db
      .insert(engagementEvents)
      .values([
        event(a!, 'impression'),
        event(a!, 'impression'),
        event(b!, 'impression'),
        event(b!, 'click'),
      ]);

    const res = await browser.get(`/biller/client/${clientId}/usage`);
    expect(res.statusCode).toBe(200);
    const report = res.json();
    const day = at.toISOString().slice(0, 10);
    expect(report.by_date.find((d: { date: string }) => d.date === day)).toMatchObject({ active: 2 });
    expect(report.total.active).toBe(2);
    expect(report.total.super).toBe(2);
    expect(report.total.estimated_supers).toBeGreaterThanOrEqual(2);
    expect(report.total.estimated_payment).toBe(report.total.estimated_supers * 500);
  });
});
