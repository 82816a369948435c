/**
 * Child process for the billing crash test: runs the billing job on the database it is given and
 * dies by SIGKILL right after the payment provider accepted a charge, before the invoice is
 * recorded paid — the worst moment for a crash.
 */
import { openDatabase } from '../../src/db/client.ts';
import { createCharging } from '../../src/modules/billing/charging.ts';
import { createLocalProvider } from '../../src/modules/billing/providers/local.ts';
import { silentLog } from '../billing.ts';

const database = await openDatabase({
  dataDir: process.env.DATA_DIR ?? 'memory://',
  databaseUrl: process.env.DATABASE_URL || undefined,
});
const now = () => new Date(process.env.BILLING_NOW ?? Date.now());
const charging = createCharging({
  db: database.db,
  provider: createLocalProvider({ db: database.db, now }),
  now,
  log: silentLog,
  afterProviderCharge: () => {
    process.kill(process.pid, 'SIGKILL');
  },
});
await charging.run();
console.log('the billing run finished without being killed');
await database.close();
