import { and, eq, lt } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { emailOutbox } from '../../db/schema/index.ts';
import type { JobQueue } from '../../lib/queue.ts';
import type { Mailer, OutgoingMail } from './mailer.ts';

export const DELIVER_EMAIL_JOB = 'email.deliver';

type DeliverJob = { outboxId: string };

export type Outbox = {
  /** Stores the message and queues its delivery (outside any transaction). */
  enqueue(mail: OutgoingMail & { clientId?: string | null }): Promise<string>;
  /**
   * Stores the message in the caller's transaction, so it exists exactly when the write commits.
   * Call `dispatch(id)` after the commit: on the embedded database a transaction holds the only
   * connection, so queueing inside it would wait for itself.
   */
  store(mail: OutgoingMail & { clientId?: string | null }, tx: Db): Promise<string>;
  dispatch(id: string): Promise<void>;
  /** Queues delivery of rows left pending (a crash between storing and queueing), older than `minAgeMs`. */
  requeuePending(minAgeMs?: number): Promise<number>;
};

export function createOutbox(deps: {
  db: Db;
  queue: JobQueue;
  mailer: Mailer;
  log: FastifyBaseLogger;
}): Outbox {
  const { queue, mailer, log } = deps;

  queue.register<DeliverJob>(
    DELIVER_EMAIL_JOB,
    async ({ outboxId }) => {
      const [row] = await deps.db.select().from(emailOutbox).where(eq(emailOutbox.id, outboxId));
      // The row may belong to a transaction that has not committed yet: retry rather than lose it.
      if (!row) throw new Error(`outbox message ${outboxId} is not visible (yet)`);
      // Idempotent: a message already delivered is not sent twice when the job re-runs.
      if (row.status !== 'pending') return;
      try {
        const outcome = await mailer.deliver({
          to: row.toAddress,
          subject: row.subject,
          text: row.textBody,
          html: row.htmlBody,
        });
        await deps.db
          .update(emailOutbox)
          .set({ status: outcome, sentAt: new Date(), attempts: row.attempts + 1, lastError: null })
          .where(and(eq(emailOutbox.id, row.id), eq(emailOutbox.status, 'pending')));
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        await deps.db
          .update(emailOutbox)
          .set({ attempts: row.attempts + 1, lastError: message })
          .where(eq(emailOutbox.id, row.id));
        log.warn({ err, outboxId }, 'e-mail delivery failed; will retry');
        throw err; // pg-boss retries with backoff
      }
    },
    { policy: 'stately' },
  ); // one queued job per message id (singletonKey), so re-queueing cannot double-send

  const send = (id: string) =>
    queue.send<DeliverJob>(DELIVER_EMAIL_JOB, { outboxId: id }, { singletonKey: id });

  const store = async (mail: OutgoingMail & { clientId?: string | null }, db: Db) => {
    const [row] = await db
      .insert(emailOutbox)
      .values({
        clientId: mail.clientId ?? null,
        toAddress: mail.to,
        subject: mail.subject,
        textBody: mail.text,
        htmlBody: mail.html ?? null,
      })
      .returning({ id: emailOutbox.id });
    if (!row) throw new Error('outbox insert returned no row');
    return row.id;
  };

  return {
    async enqueue(mail) {
      const id = await store(mail, deps.db);
      await send(id);
      return id;
    },
    store,
    async dispatch(id) {
      await send(id);
    },
    async requeuePending(minAgeMs = 0) {
      const rows = await deps.db
        .select({ id: emailOutbox.id })
        .from(emailOutbox)
        .where(
          // No age limit at start-up: a row stored within the same millisecond must count too (the
          // database's microseconds would put it after a millisecond-resolution cut-off).
          minAgeMs > 0
            ? and(
                eq(emailOutbox.status, 'pending'),
                lt(emailOutbox.createdAt, new Date(Date.now() - minAgeMs)),
              )
            : eq(emailOutbox.status, 'pending'),
        );
      for (const r of rows) await send(r.id);
      return rows.length;
    },
  };
}
