import { eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { opportunities } from '../src/db/schema/index.ts';
import { mainCurrency } from '../src/modules/reports/repository.ts';
import { createTestApp } from './helpers.ts';
import { reportWorld } from './reports-world.ts';

/**
 * The main currency reads each client's live opportunities counted per currency, kept by triggers
 * (migration 0078): after every kind of write the kept counts must equal a count of the opportunities,
 * and the main currency the one of that count (most opportunities, then the currency's name).
 */
describe('opportunities counted per currency, kept (issue 43)', async () => {
  const app = await createTestApp({ env: { LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent' } });
  const a = await reportWorld(app, 'Currency A');
  const b = await reportWorld(app, 'Currency B');
  const companyA = await a.company('Currency A Co');
  const companyB = await b.company('Currency B Co');

  const kept = async (clientId: string) =>
    Object.fromEntries(
      (
        (await app.database.execute(
          'select currency, n::int as n from opportunity_currency_counts where client_id = $1 and n <> 0 order by 1',
          [clientId],
        )) as { rows: { currency: string; n: number }[] }
      ).rows.map((r) => [r.currency, r.n]),
    );
  const counted = async (clientId: string) =>
    Object.fromEntries(
      (
        (await app.database.execute(
          `select currency, count(*)::int as n from opportunities where client_id = $1 and not is_deleted
            group by 1 order by 1`,
          [clientId],
        )) as { rows: { currency: string; n: number }[] }
      ).rows.map((r) => [r.currency, r.n]),
    );
  const expectExact = async (moment: string, main?: { a: string; b: string }) => {
    for (const s of [a, b]) expect(await kept(s.clientId), moment).toEqual(await counted(s.clientId));
    if (main) {
      expect(await mainCurrency(app.db, a.clientId), moment).toBe(main.a);
      expect(await mainCurrency(app.db, b.clientId), moment).toBe(main.b);
    }
  };
  const deal = async (s: typeof a, company: string, currency: string, n = 1) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = await s.deal(company, { name: `Deal ${currency} ${i}`, amount: 100, created: new Date() });
      await app.db.update(opportunities).set({ currency }).where(eq(opportunities.id, id));
      ids.push(id);
    }
    return ids;
  };

  it('equals a count of the live opportunities after inserts, updates and deletes', async () => {
    await expectExact('no opportunity', { a: 'USD', b: 'USD' });
    const eur = await deal(a, companyA, 'EUR', 3);
    const usd = await deal(a, companyA, 'USD', 2);
    await deal(b, companyB, 'GBP', 1);
    await expectExact('inserted', { a: 'EUR', b: 'GBP' });
    // A statement of several rows at once.
    await app.db.insert(opportunities).values(
      ['JPY', 'JPY', 'USD'].map((currency, i) => ({
        clientId: b.clientId,
        integrationId: b.crmId,
        externalId: `many-${i}`,
        name: `Many ${i}`,
        accountName: 'Many',
        companyId: companyB,
        amountCents: 1,
        currency,
        stage: 'Prospecting',
      })),
    );
    await expectExact('a statement of three', { a: 'EUR', b: 'JPY' });
    // A currency changed, a deletion flag set and unset, a hard delete, a tie by name.
    await app.db.update(opportunities).set({ currency: 'USD' }).where(eq(opportunities.id, eur[0]!));
    await expectExact('a currency changed', { a: 'USD', b: 'JPY' });
    await app.db.update(opportunities).set({ isDeleted: true }).where(inArray(opportunities.id, usd));
    await expectExact('two soft-deleted', { a: 'EUR', b: 'JPY' });
    await app.db.update(opportunities).set({ isDeleted: false }).where(eq(opportunities.id, usd[0]!));
    await expectExact('one restored', { a: 'EUR', b: 'JPY' });
    await app.db.delete(opportunities).where(eq(opportunities.id, eur[1]!));
    await expectExact('a hard delete: EUR 1, USD 2', { a: 'USD', b: 'JPY' });
    await app.db
      .update(opportunities)
      .set({ amountCents: 5, name: 'Renamed' })
      .where(eq(opportunities.id, usd[0]!));
    await expectExact('an update of other columns');
    // An opportunity moved to another client.
    await app.db
      .update(opportunities)
      .set({ clientId: b.clientId, integrationId: b.crmId, companyId: companyB })
      .where(eq(opportunities.id, eur[2]!));
    await expectExact('moved to another client', { a: 'USD', b: 'JPY' });
    await app.db.execute(sql`delete from opportunities where client_id = ${a.clientId}`);
    await expectExact('every opportunity of A deleted', { a: 'USD', b: 'JPY' });
  });
});
