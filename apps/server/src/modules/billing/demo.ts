import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { invoices } from '../../db/schema/index.ts';
import { monthBounds, monthOf, startOfLocalDate } from './calendar.ts';
import { insertInvoice } from './charging.ts';
import type { Charging } from './charging.ts';
import { ensureAccount, unchargedSupers } from './repository.ts';
import type { BillingService } from './service.ts';

type Deps = { db: Db; service: BillingService; charging: Charging; now: () => Date; providerName: string };

/**
 * Demo billing for the demo data clients (issue 9 "Demo"): a local test card on file (4242…), an
 * address and invoice details, one paid invoice (the oldest superprospects, charged through the
 * local provider) and one open invoice due at the month's end; the rest stay uncharged, so the
 * balance shows both. A client that has invoices already is left alone, so restarts add nothing.
 */
export async function seedDemoBilling(
  deps: Deps,
  clients: readonly { id: string; name: string }[],
): Promise<{ invoices: number }> {
  const { db, service, charging, now } = deps;
  let made = 0;
  for (const client of clients) {
    const [has] = await db
      .select({ one: sql`1` })
      .from(invoices)
      .where(eq(invoices.clientId, client.id))
      .limit(1);
    if (has) continue;
    const slug = client.name.toLowerCase().replace(/[^a-z]+/g, '');
    await service.setBillingInfo(client.id, {
      billing_email: `billing@${slug}.example`,
      company_name: client.name,
      tax_id: '',
      po_number: '',
      time_zone: 'UTC',
    });
    await service.setBillingAddress(client.id, {
      first_name: 'Dana',
      last_name: 'Reyes',
      company: client.name,
      line1: '500 Market Street',
      line2: 'Suite 300',
      city: 'San Francisco',
      state: 'CA',
      zip: '94105',
      country: 'US',
    });
    // The local provider takes test cards only; with Stripe, cards come from Stripe.js.
    if (deps.providerName === 'local') {
      await service.setCard(client.id, {
        number: '4242424242424242',
        exp_month: 12,
        exp_year: 2030,
        cvc: '123',
      });
    }

    const at = now();
    const supers = await unchargedSupers(db, client.id, at);
    if (supers.length < 2) continue;
    const account = await ensureAccount(db, client.id);
    // Superprospects of past months all go on the two invoices (a billing run would otherwise charge
    // them at once as a missed month end); this month's stay uncharged.
    const thisMonth = monthOf(at, account.timeZone);
    const prior = supers.filter((x) => monthOf(x.superDate, account.timeZone) < thisMonth);
    const pool = prior.length >= 2 ? prior : supers;
    const paidCount = Math.max(1, Math.floor(pool.length / 2));
    const paidLines = pool.slice(0, paidCount);
    const openLines =
      prior.length >= 2
        ? prior.slice(paidCount)
        : pool.slice(paidCount, paidCount + Math.max(1, Math.floor((pool.length - paidCount) / 2)));
    const lastDay = startOfLocalDate(monthBounds(monthOf(at, account.timeZone)).end, account.timeZone);

    const paidId = await db.transaction((tx) =>
      insertInvoice(tx, {
        clientId: client.id,
        currency: account.currency,
        at: paidLines.at(-1)?.superDate ?? at,
        reason: 'month_end',
        period: monthOf(paidLines.at(-1)?.superDate ?? at, account.timeZone),
        key: `demo:${client.id}:paid`,
        lines: paidLines,
      }),
    );
    if (paidId && deps.providerName === 'local') await charging.chargeInvoice(paidId);
    await db.transaction((tx) =>
      insertInvoice(tx, {
        clientId: client.id,
        currency: account.currency,
        at,
        reason: 'month_end',
        period: monthOf(at, account.timeZone),
        key: `demo:${client.id}:open`,
        lines: openLines,
        nextAttemptAt: lastDay,
      }),
    );
    made += 2;
  }
  return { invoices: made };
}
