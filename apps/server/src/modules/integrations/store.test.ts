import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { cadences, integrations, targets } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient } from '../../../test/http.ts';
import { upsertProspects, upsertTargets } from './store.ts';

describe('store: upserts keyed by (integration, external id)', () => {
  it('a target moved to another day by its source starts that day afresh; same day keeps its day counters', async () => {
    const app = await createTestApp();
    const clientId = await makeClient(app);
    const [integration] = await app.db
      .insert(integrations)
      .values({ clientId, source: 'fileforce' })
      .returning();
    const ref = { id: integration!.id, clientId };
    const [cadence] = await app.db
      .insert(cadences)
      .values({ clientId, integrationId: ref.id, externalId: 'c1', name: 'C1' })
      .returning();
    const ids = await upsertProspects(app.db, ref, [
      {
        externalId: 'p1',
        firstName: 'Ada',
        lastName: 'L',
        email: 'ada@example.com',
        title: '',
        company: null,
        updatedAt: null,
      },
    ]);
    const row = (dayNumber: number) => ({
      cadenceId: cadence!.id,
      prospectId: ids.get('p1')!,
      salesRepId: null,
      externalId: 'm1',
      dayNumber,
      isActive: true,
      contacted: false,
    });
    await upsertTargets(app.db, ref, [row(1)]);
    const entered = new Date('2026-01-01T00:00:00Z');
    await app.db.update(targets).set({ dayImpressions: 7, dayClicks: 1, dayEnteredAt: entered });

    await upsertTargets(app.db, ref, [row(1)]);
    let [t] = await app.db.select().from(targets).where(eq(targets.clientId, clientId));
    expect(t).toMatchObject({ dayNumber: 1, dayImpressions: 7, dayClicks: 1, dayEnteredAt: entered });

    await upsertTargets(app.db, ref, [row(3)]);
    [t] = await app.db.select().from(targets).where(eq(targets.clientId, clientId));
    expect(t).toMatchObject({ dayNumber: 3, dayImpressions: 0, dayClicks: 0 });
    expect(t!.dayEnteredAt.getTime()).toBeGreaterThan(entered.getTime());
  });
});
