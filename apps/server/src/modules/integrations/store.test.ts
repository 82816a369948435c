import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { cadences, integrations, salesReps, targets } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import { checkedEmail, upsertProspects, upsertSalesReps, upsertTargets } from './store.ts';

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

describe('sales reps: the e-mail must be a valid address, from every source (SPEC.md §5)', () => {
  const user = (externalId: string, email: string | null) => ({
    externalId,
    firstName: externalId,
    lastName: 'Rep',
    email,
    title: '',
    isActive: true,
    updatedAt: null,
  });

  it('checkedEmail keeps a valid address, drops and flags anything else, and treats blank as none', () => {
    expect(checkedEmail(' ada@example.com ')).toEqual({ email: 'ada@example.com', emailInvalid: false });
    expect(checkedEmail('n/a')).toEqual({ email: null, emailInvalid: true });
    expect(checkedEmail('ada@example')).toEqual({ email: null, emailInvalid: true });
    expect(checkedEmail('')).toEqual({ email: null, emailInvalid: false });
    expect(checkedEmail(null)).toEqual({ email: null, emailInvalid: false });
  });

  it('a synced rep with a bad address is stored without it and flagged, not rejected; a good one later clears the flag', async () => {
    const app = await createTestApp();
    const clientId = await makeClient(app);
    const [integration] = await app.db
      .insert(integrations)
      .values({ clientId, source: 'salesloft' })
      .returning();
    const ref = { id: integration!.id, clientId };
    const ids = await upsertSalesReps(app.db, ref, [
      user('u1', 'ada@example.com'),
      user('u2', 'not an address'),
      user('u3', null),
    ]);
    expect(ids.size).toBe(3);
    const stored = async () =>
      new Map(
        (await app.db.select().from(salesReps).where(eq(salesReps.clientId, clientId))).map((r) => [
          r.externalId,
          { email: r.email, emailInvalid: r.emailInvalid },
        ]),
      );
    expect(Object.fromEntries(await stored())).toEqual({
      u1: { email: 'ada@example.com', emailInvalid: false },
      u2: { email: null, emailInvalid: true },
      u3: { email: null, emailInvalid: false },
    });

    // The reply says which reps have no valid address.
    const { browser } = await signedIn(app, { [clientId]: 'purple_owner' });
    const res = await browser.get('/sc/sdr');
    expect(res.statusCode).toBe(200);
    const reps = res.json() as { first_name: string; email: string | null; email_invalid: boolean }[];
    expect(reps.find((r) => r.first_name === 'u2')).toMatchObject({ email: null, email_invalid: true });
    expect(reps.find((r) => r.first_name === 'u1')).toMatchObject({ email_invalid: false });

    // The source fixes it: the next sync stores the address and clears the flag; one turned bad is flagged.
    await upsertSalesReps(app.db, ref, [user('u2', 'rob@example.com'), user('u1', 'ada@@example.com')]);
    expect((await stored()).get('u2')).toEqual({ email: 'rob@example.com', emailInvalid: false });
    expect((await stored()).get('u1')).toEqual({ email: null, emailInvalid: true });
  });
});
