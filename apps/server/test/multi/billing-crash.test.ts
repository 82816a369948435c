import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import { invoices } from '../../src/db/schema/index.ts';
import { freshDatabaseUrl, here } from '../helpers.ts';
import { makeBillingClient, makeSupers, providerCharges, silentLog } from '../billing.ts';
import { createCharging } from '../../src/modules/billing/charging.ts';
import { createLocalProvider } from '../../src/modules/billing/providers/local.ts';
import { createBillingService } from '../../src/modules/billing/service.ts';

const CHILD = path.join(here, 'multi/billing-crash-child.ts');
const NOW = '2026-03-10T12:00:00.000Z';

function runChild(
  env: Record<string, string>,
): Promise<{ code: number | null; signal: string | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child did not finish:\n${out}`));
    }, 90_000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out });
    });
  });
}

describe('"SIGKILL between charging and recording leaves no double charge after restart"', () => {
  it('a process killed right after the provider charged: one charge at the provider and one invoice, paid after restart', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'rally-billing-crash-'));
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
    const databaseUrl = await freshDatabaseUrl();
    const env: Record<string, string> = {
      DATA_DIR: dataDir,
      BILLING_NOW: NOW,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    };
    const now = () => new Date(NOW);

    // A client with a card and 40 superprospects, on a database on disk.
    let database = await openDatabase({ dataDir, databaseUrl });
    const clientId = await makeBillingClient(database.db);
    const provider = createLocalProvider({ db: database.db, now });
    const charging = createCharging({ db: database.db, provider, now, log: silentLog });
    const service = createBillingService({ db: database.db, provider, charging, now, requestRun: () => {} });
    await service.setCard(clientId, {
      number: '4242424242424242',
      exp_month: 12,
      exp_year: 2031,
      cvc: '123',
    });
    await makeSupers(database.db, clientId, 40, new Date('2026-03-09T10:00:00Z'));
    await database.close();

    const killed = await runChild(env);
    expect(killed.signal, killed.out).toBe('SIGKILL');

    // After the crash: the provider has the payment, our invoice is still marked "charging".
    database = await openDatabase({ dataDir, databaseUrl });
    afterAll(() => database.close());
    let rows = await database.db.select().from(invoices).where(eq(invoices.clientId, clientId));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'open', attempts: 1, amountCents: 20_000 });
    expect(rows[0]!.chargingAt).not.toBeNull();
    expect(await providerCharges(database.db, clientId)).toMatchObject([
      { status: 'succeeded', amountCents: 20_000 },
    ]);

    // The restarted job (past the in-flight lease) asks the provider by key and records the payment.
    const later = () => new Date(Date.parse(NOW) + 5 * 60_000);
    const restarted = createCharging({
      db: database.db,
      provider: createLocalProvider({ db: database.db, now: later }),
      now: later,
      log: silentLog,
    });
    await restarted.run();
    await restarted.run();
    rows = await database.db.select().from(invoices).where(eq(invoices.clientId, clientId));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'paid', attempts: 1, chargingAt: null });
    const charges = await providerCharges(database.db, clientId);
    expect(charges).toHaveLength(1);
    expect(rows[0]!.providerChargeId).toBe(charges[0]!.id);
  }, 180_000);
});
