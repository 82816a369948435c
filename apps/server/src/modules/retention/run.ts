import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import { RETENTION_BOUNDS } from '@rally/shared/schemas/retention';
import type { Db } from '../../db/client.ts';
import { purgeAudit } from '../audit/index.ts';
import { foldBatch, foldCutoff } from './fold.ts';
import { allRetention } from './settings.ts';

const DAY_MS = 86_400_000;
const rowsOf = (result: unknown) => (result as { rows: Record<string, unknown>[] }).rows;

export type RetentionOptions = {
  now?: Date;
  /** Rows deleted per transaction. */
  batchSize?: number;
  /** Batches of events this run folds at most (the rest is the next run's); unlimited by default. */
  maxEventBatches?: number;
  /** One client only (tests). */
  clientId?: string;
};

export type RetentionTotals = {
  clients: number;
  eventsFolded: number;
  daysCounted: number;
  exportFiles: number;
  webhookDeliveries: number;
  outboxMessages: number;
  auditEntries: number;
  /** False when the run stopped at maxEventBatches with events still to fold. */
  done: boolean;
};

/** Deletes what `pick` selects (ids, at most `batchSize`), a batch per transaction, until none is left. */
async function deleteInBatches(db: Db, table: string, pick: SQL, batchSize: number): Promise<number> {
  let total = 0;
  for (;;) {
    const [row] = rowsOf(
      await db.execute(sql`
        with gone as (
          delete from ${sql.identifier(table)} where id in (${pick} limit ${batchSize}) returning 1
        ) select count(*)::int as n from gone`),
    );
    const n = Number(row?.n ?? 0);
    total += n;
    if (n < batchSize) return total;
  }
}

/**
 * The daily retention run (decision 0032): for each client, by its settings, folds and deletes raw
 * events, deletes old export files, finished webhook deliveries and sent e-mails, and purges the
 * audit log. Resumable and idempotent: everything is a batch per transaction chosen by age alone,
 * so a run after a crash continues with what is left and a second run finds nothing more.
 */
export async function runRetention(db: Db, opts: RetentionOptions = {}): Promise<RetentionTotals> {
  const now = opts.now ?? new Date();
  const batchSize = opts.batchSize ?? 10_000;
  let eventBatches = opts.maxEventBatches ?? Number.POSITIVE_INFINITY;
  const totals: RetentionTotals = {
    clients: 0,
    eventsFolded: 0,
    daysCounted: 0,
    exportFiles: 0,
    webhookDeliveries: 0,
    outboxMessages: 0,
    auditEntries: 0,
    done: true,
  };
  const daysAgo = (days: number) => new Date(now.getTime() - days * DAY_MS);
  const clients = (await allRetention(db)).filter((c) => !opts.clientId || c.clientId === opts.clientId);
  for (const { clientId, settings } of clients) {
    totals.clients++;
    const cutoff = foldCutoff(now, settings.events_months);
    for (;;) {
      if (eventBatches <= 0) {
        totals.done = false;
        break;
      }
      const batch = await foldBatch(db, clientId, cutoff, batchSize);
      if (!batch) break;
      eventBatches--;
      totals.eventsFolded += batch.deleted;
      if (batch.counted) totals.daysCounted++;
    }
    const files = daysAgo(settings.export_files_days);
    totals.exportFiles += await deleteInBatches(
      db,
      'export_files',
      sql`select id from export_files where client_id = ${clientId} and created_at < ${files}`,
      batchSize,
    );
    const logs = daysAgo(settings.delivery_logs_days);
    // Unfinished deliveries stay whatever their age: they are still being tried.
    totals.webhookDeliveries += await deleteInBatches(
      db,
      'webhook_deliveries',
      sql`select id from webhook_deliveries
           where client_id = ${clientId} and status in ('succeeded', 'failed') and created_at < ${logs}`,
      batchSize,
    );
    totals.outboxMessages += await deleteInBatches(
      db,
      'email_outbox',
      sql`select id from email_outbox
           where client_id = ${clientId} and status in ('sent', 'logged')
             and coalesce(sent_at, created_at) < ${logs}`,
      batchSize,
    );
    totals.auditEntries += await purgeAudit(db, clientId, daysAgo(settings.audit_log_days));
  }
  if (!opts.clientId) {
    // Account mail (sign-in links, resets) belongs to no client: the default applies.
    totals.outboxMessages += await deleteInBatches(
      db,
      'email_outbox',
      sql`select id from email_outbox
           where client_id is null and status in ('sent', 'logged')
             and coalesce(sent_at, created_at) < ${daysAgo(RETENTION_BOUNDS.delivery_logs_days.default)}`,
      batchSize,
    );
  }
  return totals;
}
