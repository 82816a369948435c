import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { invoices } from '../../db/schema/index.ts';
import {
  DEMO_CLIENTS,
  seedDemo,
  seedDemoBillingData,
  seedDemoData,
  seedDemoEngagementData,
} from '../../db/seed.ts';
import { createTestApp } from '../../../test/helpers.ts';

describe('demo billing seed (issue 9 "Demo": the seed\'s clients have usage, one paid and one open invoice)', () => {
  it('a test card, one paid and one open invoice, uncharged supers left; a second seed adds nothing', async () => {
    const app = await createTestApp({ workers: false });
    await seedDemo(app.db);
    await seedDemoData(app);
    await seedDemoEngagementData(app);

    expect(await seedDemoBillingData(app)).toEqual({ invoices: 4 });
    for (const client of [DEMO_CLIENTS.agency, DEMO_CLIENTS.acme]) {
      const rows = await app.db
        .select()
        .from(invoices)
        .where(eq(invoices.clientId, client.id))
        .orderBy(invoices.number);
      expect(rows.map((r) => r.status)).toEqual(['paid', 'open']);
      const card = await app.billing.service.card(client.id);
      expect(card.card).toMatchObject({ brand: 'visa', last4: '4242' });
      const balance = await app.billing.service.balance(client.id);
      expect(balance.unpaid_invoices_cents).toBe(rows[1]!.amountCents);
      expect(balance.uncharged_supers).toBeGreaterThan(0);
      expect((await app.billing.service.usage(client.id, {})).total.super).toBeGreaterThan(0);
      // The open invoice waits for the month end: a billing run now does not charge it.
      await app.billing.charging.run({ clientId: client.id });
      const after = await app.db.select().from(invoices).where(eq(invoices.id, rows[1]!.id));
      expect(after[0]!.status).toBe('open');
    }
    expect(await seedDemoBillingData(app)).toEqual({ invoices: 0 });
    const globex = await app.db.select().from(invoices).where(eq(invoices.clientId, DEMO_CLIENTS.globex.id));
    expect(globex).toEqual([]);
  }, 120_000);
});
