import { and, eq, inArray, sql } from 'drizzle-orm';
import type { SuppressionService } from '../suppressions/service.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { cadences, integrations } from '../../db/schema/index.ts';
import type { SyncCursor, SyncProgress } from '../../db/schema/index.ts';
import type { SecretBox } from '../../lib/crypto.ts';
import type { JobQueue } from '../../lib/queue.ts';
import { SEQUENCE_SOURCES } from './port.ts';
import type { AdapterContext, Credentials, Page, SequenceAdapter, SequenceSource } from './port.ts';
import {
  cadenceIdsByExternal,
  salesRepIdsByExternal,
  upsertCadences,
  upsertProspects,
  upsertSalesReps,
  upsertTargets,
} from './store.ts';
import type { Tx } from './store.ts';
import { VendorAuthError } from './vendor-http.ts';
import { endSync, whileActive } from './while-active.ts';
import type { WebhookEvents } from '../hookly/index.ts';

export const SYNC_JOB = 'integration-sync';
export type SyncJob = { integrationId: number; cadenceId?: number };

type Deps = {
  db: Db;
  queue: JobQueue;
  box: SecretBox;
  adapters: Record<SequenceSource, SequenceAdapter>;
  log: FastifyBaseLogger;
  /** The feed's 'sync' item when a sync finishes (issue 7: the feed shows syncs). */
  feed?: { recordSync(integrationId: number, cadenceId?: number): Promise<unknown> };
  /** Webhooks' `sync_finished` (a no-op unless the client has an endpoint for it). */
  events?: WebhookEvents;
  /** After a sync that succeeded: the ad fields' write-back queues its runs (issue 38). */
  afterSync?: (integrationId: number) => Promise<unknown>;
  /** The holdout share cadences new to Rally start with (config.holdoutDefaultPercent; issue 45). */
  holdoutPercent?: number;
  /** People the platform marks opted out go on the client's suppression list (issue 44). */
  suppressions?: Pick<SuppressionService, 'suppressMany'>;
  /**
   * People erased in the client (decision 0031) whom an owner has not brought back by taking their
   * entry off the suppression list: their memberships are left out, so a sync does not store them again.
   */
  erasedTest?: (
    clientId: string,
    emails: readonly (string | null | undefined)[],
  ) => Promise<(email: string | null | undefined) => boolean>;
};

export function isSequenceSource(source: string): source is SequenceSource {
  return (SEQUENCE_SOURCES as readonly string[]).includes(source);
}

const VENDOR_NAMES: Record<SequenceSource, string> = {
  salesloft: 'Salesloft (Do Not Contact)',
  outreach: 'Outreach (opted out)',
  apolloio: 'Apollo',
};

const newest = (a: string | undefined, b: string | null | undefined) => (!b ? a : !a || b > a ? b : a);

/**
 * Memberships stored per transaction. Vendors page by 100; storing ten pages at once makes a tenth
 * of the statements, commits and progress writes (a 50,000-membership first sync spent most of its
 * time on those round trips), and a retry re-reads at most this many.
 */
export const MEMBERSHIPS_PER_TRANSACTION = 1000;

/** Pages of a listing grouped until they hold `size` items (the last group may hold fewer). */
async function* grouped<T>(
  pages: AsyncIterable<Page<T>>,
  size: number,
): AsyncGenerator<{ items: T[]; pages: number; totalPages: number | null; fullPass?: string }> {
  type Group = { items: T[]; pages: number; totalPages: number | null; fullPass?: string };
  let group: Group = { items: [], pages: 0, totalPages: null };
  for await (const page of pages) {
    group.items.push(...page.items);
    group.pages += 1;
    group.totalPages = page.totalPages;
    if (page.fullPass) group.fullPass = page.fullPass;
    if (group.items.length >= size) {
      yield group;
      group = { items: [], pages: 0, totalPages: null };
    }
  }
  if (group.pages) yield group;
}

/**
 * Yields what `source` yields while already reading its next item, so the vendor is asked for the
 * next batch while this one is stored (the two waits overlap). Batches are still stored one at a
 * time and in order; a batch read ahead and never stored is read again by the next sync.
 */
async function* readAhead<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  let next = it.next();
  try {
    for (;;) {
      const current = await next;
      if (current.done) return;
      next = it.next();
      // A failure surfaces when this is awaited; until then it must not count as unhandled.
      next.catch(() => {});
      yield current.value;
    }
  } finally {
    // After a failure while storing, the read under way stops at its next page. Not awaited: it may
    // be sleeping out a rate limit, and the job's failure should not wait for that.
    void it.return?.().catch(() => {});
  }
}

/**
 * External id → our id for records that few syncs change (reps, cadences), remembered for one sync
 * run: each page looks up only the ids it has not seen yet. Ids not found are asked again, so a
 * cadence created after the cadence pass is found once it exists.
 */
function rememberedLookup<Id>(
  lookup: (tx: Tx, externalIds: string[]) => Promise<Map<string, Id>>,
): (tx: Tx, externalIds: string[]) => Promise<Map<string, Id>> {
  const known = new Map<string, Id>();
  return async (tx, externalIds) => {
    const missing = [...new Set(externalIds)].filter((id) => !known.has(id));
    if (missing.length) for (const [k, v] of await lookup(tx, missing)) known.set(k, v);
    return known;
  };
}

/**
 * Syncs a sequence-platform integration (ARCHITECTURE.md §7) as a queue job: users → sales reps,
 * cadences and their step days, then memberships → prospects, companies and targets. Each page
 * (memberships: each batch of pages) is stored in one transaction together with the cursor that
 * follows it, so a crash or a retry resumes where it stopped and a page stored twice lands once
 * (upserts by integration + external id). A vendor that refuses our credentials makes the
 * integration inactive with its message.
 */
export function createSyncService(deps: Deps) {
  const { db, queue, box, adapters, log } = deps;

  async function sealCredentials(integrationId: number, creds: Credentials) {
    await db
      .update(integrations)
      .set({ credentialsEnc: box.encrypt(JSON.stringify(creds)), updatedAt: new Date() })
      .where(whileActive(integrationId));
  }

  async function setProgress(integrationId: number, progress: SyncProgress) {
    await db.update(integrations).set({ syncProgress: progress }).where(whileActive(integrationId));
  }

  async function run(job: SyncJob): Promise<void> {
    const [integration] = await db.select().from(integrations).where(eq(integrations.id, job.integrationId));
    if (!integration || !isSequenceSource(integration.source)) return;
    if (!integration.isActive || !integration.credentialsEnc) {
      await finish(job, { failed: true });
      return;
    }
    const adapter = adapters[integration.source];
    let creds = JSON.parse(box.decrypt(integration.credentialsEnc)) as Credentials;
    /** What the adapter said the user should know (shown on the connection when the sync ends). */
    const warnings = new Set<string>();
    const ctx: AdapterContext = {
      warn: (message) => void warnings.add(message),
      credentials: () => creds,
      saveCredentials: async (next) => {
        creds = next;
        await sealCredentials(integration.id, next);
      },
      reloadCredentials: async () => {
        const [row] = await db
          .select({ sealed: integrations.credentialsEnc })
          .from(integrations)
          .where(eq(integrations.id, integration.id));
        return row?.sealed ? (JSON.parse(box.decrypt(row.sealed)) as Credentials) : null;
      },
    };
    const ref = { id: integration.id, clientId: integration.clientId };
    const cursor: SyncCursor = { ...integration.syncCursor };
    // A one-cadence "sync now" reads that cadence's memberships in full and leaves the cursors alone.
    const oneCadence = job.cadenceId
      ? (
          await db
            .select({ externalId: cadences.externalId })
            .from(cadences)
            .where(and(eq(cadences.id, job.cadenceId), eq(cadences.integrationId, integration.id)))
        )[0]
      : undefined;

    try {
      if (!oneCadence) {
        let done = 0;
        for await (const page of adapter.users(ctx, cursor.users ?? null)) {
          await db.transaction(async (tx) => {
            await upsertSalesReps(tx, ref, page.items);
            for (const u of page.items) cursor.users = newest(cursor.users, u.updatedAt);
            await tx.update(integrations).set({ syncCursor: cursor }).where(eq(integrations.id, ref.id));
          });
          await setProgress(ref.id, { phase: 'users', done: ++done, total: page.totalPages });
        }
        done = 0;
        for await (const page of adapter.cadences(ctx, cursor.cadences ?? null)) {
          await db.transaction(async (tx) => {
            const owners = page.items.flatMap((c) => (c.ownerExternalId ? [c.ownerExternalId] : []));
            await upsertCadences(
              tx,
              ref,
              page.items,
              await salesRepIdsByExternal(tx, ref.id, owners),
              deps.holdoutPercent ?? 0,
            );
            for (const c of page.items) cursor.cadences = newest(cursor.cadences, c.updatedAt);
            await tx.update(integrations).set({ syncCursor: cursor }).where(eq(integrations.id, ref.id));
          });
          await setProgress(ref.id, { phase: 'cadences', done: ++done, total: page.totalPages });
        }
      }
      let done = 0;
      // Once a membership had to be skipped, the cursor stays put so the next sync reads it again.
      let holdCursor = false;
      const since = oneCadence ? null : (cursor.memberships ?? null);
      const pages = adapter.memberships(
        ctx,
        since,
        oneCadence ? { cadenceExternalId: oneCadence.externalId } : { lastFullPass: cursor.fullPass ?? null },
      );
      let fullPass: string | undefined;
      const repIds = rememberedLookup((tx, ids) => salesRepIdsByExternal(tx, ref.id, ids));
      const cadenceIdsOf = rememberedLookup((tx, ids) => cadenceIdsByExternal(tx, ref.id, ids));
      for await (const page of readAhead(grouped(pages, MEMBERSHIPS_PER_TRANSACTION))) {
        done += page.pages;
        fullPass = page.fullPass ?? fullPass;
        // The platform's opt-outs first: their targets then never run an ad (issue 44).
        const optedOut = page.items.flatMap((m) =>
          m.prospect.optedOut && m.prospect.email ? [m.prospect.email] : [],
        );
        if (optedOut.length && deps.suppressions) {
          await deps.suppressions.suppressMany(ref.clientId, optedOut, {
            source: 'opt_out',
            reason: `Opted out in ${VENDOR_NAMES[integration.source]}`,
            by: null,
          });
        }
        if (deps.erasedTest) {
          const erased = await deps.erasedTest(
            ref.clientId,
            page.items.map((m) => m.prospect.email),
          );
          page.items = page.items.filter((m) => !erased(m.prospect.email));
        }
        await db.transaction(async (tx) => {
          const prospectIds = await upsertProspects(
            tx,
            ref,
            page.items.map((m) => m.prospect),
          );
          const reps = await repIds(
            tx,
            page.items.flatMap((m) => (m.userExternalId ? [m.userExternalId] : [])),
          );
          const cadenceIds = await cadenceIdsOf(
            tx,
            page.items.map((m) => m.cadenceExternalId),
          );
          const rows = page.items.flatMap((m) => {
            const cadenceId = cadenceIds.get(m.cadenceExternalId);
            const prospectId = prospectIds.get(m.prospect.externalId);
            // A membership of a cadence created after the cadence pass: read again by the next sync.
            if (cadenceId === undefined || prospectId === undefined) {
              holdCursor = true;
              return [];
            }
            return [
              {
                cadenceId,
                prospectId,
                salesRepId: (m.userExternalId && reps.get(m.userExternalId)) || null,
                externalId: m.externalId,
                dayNumber: Math.max(1, Math.trunc(m.dayNumber)),
                isActive: m.isActive,
                contacted: m.contacted,
              },
            ];
          });
          await upsertTargets(tx, ref, rows);
          const syncProgress: SyncProgress = { phase: 'memberships', done, total: page.totalPages };
          // Something left out (the adapter warned): the next sync reads it again.
          if (warnings.size) holdCursor = true;
          if (!oneCadence && !holdCursor) {
            for (const m of page.items) cursor.memberships = newest(cursor.memberships, m.updatedAt);
            if (fullPass) cursor.fullPass = fullPass;
          }
          // The progress goes with the cursor in the same write: one statement less per batch.
          await tx
            .update(integrations)
            .set(!oneCadence && !holdCursor ? { syncCursor: cursor, syncProgress } : { syncProgress })
            .where(eq(integrations.id, ref.id));
        });
      }
      // Warnings stay on the connection until a sync ends without any.
      await finish(job, {
        failed: false,
        also: { lastError: warnings.size ? [...warnings].join(' ') : null },
      });
    } catch (err) {
      if (err instanceof VendorAuthError) {
        log.warn({ integrationId: ref.id, source: integration.source }, 'vendor refused our credentials');
        // In the same write as the end of the sync: no reader sees it inactive yet still syncing.
        await finish(job, {
          failed: true,
          also: { isActive: false, lastError: err.message, updatedAt: new Date() },
        });
        return; // retrying cannot help until the user reconnects
      }
      await db
        .update(integrations)
        .set({ lastError: `The last sync failed and will be retried: ${(err as Error).message}` })
        .where(whileActive(ref.id));
      await finish(job, { failed: true });
      throw err;
    }
  }

  async function finish(
    job: SyncJob,
    { failed, also = {} }: { failed: boolean; also?: Partial<typeof integrations.$inferInsert> },
  ) {
    const now = new Date();
    await db.transaction(async (tx) => {
      await endSync(tx, job.integrationId, {
        isSyncing: false,
        syncProgress: failed ? null : { phase: 'done', done: 1, total: 1 },
        ...(failed ? {} : { lastSyncedAt: now, lastError: null }),
        ...also,
      });
      const where = job.cadenceId
        ? and(eq(cadences.id, job.cadenceId), eq(cadences.integrationId, job.integrationId))
        : eq(cadences.integrationId, job.integrationId);
      await tx
        .update(cadences)
        .set({ isSyncing: false, ...(failed ? {} : { lastSyncedAt: now }) })
        .where(where);
    });
    if (!failed) {
      await deps.feed
        ?.recordSync(job.integrationId, job.cadenceId)
        .catch((err: unknown) => log.warn({ err }, 'sync: feed item not recorded'));
      await deps
        .afterSync?.(job.integrationId)
        .catch((err: unknown) => log.warn({ err }, 'sync: ad-field write not queued'));
    }
    // A sync that will be retried has not finished; one that stopped for good (refused credentials) has.
    if (!failed || also.isActive === false) await emitFinished(job, failed, also.lastError ?? null, now);
  }

  async function emitFinished(job: SyncJob, failed: boolean, error: string | null, at: Date) {
    if (!deps.events) return;
    const [row] = await db
      .select({ clientId: integrations.clientId, source: integrations.source })
      .from(integrations)
      .where(eq(integrations.id, job.integrationId));
    if (!row) return;
    await deps.events.emit(row.clientId, 'sync_finished', {
      integration_id: job.integrationId,
      source: row.source,
      ...(job.cadenceId ? { cadence_id: job.cadenceId } : {}),
      status: failed ? 'failed' : 'succeeded',
      error,
      finished_at: at.toISOString(),
    });
  }

  return {
    adapters,
    run,
    register() {
      queue.register<SyncJob>(SYNC_JOB, (data) => run(data), { retryLimit: 3, retryDelay: 30 });
    },
    /**
     * Marks the integration (or one of its cadences) as syncing and queues the job. A sync already
     * under way is not queued twice.
     */
    async request(integrationId: number, cadenceId?: number): Promise<boolean> {
      const claimed = await db.transaction(async (tx) => {
        const [row] = await tx
          .update(integrations)
          .set({ isSyncing: true, syncProgress: { phase: 'users', done: 0, total: null } })
          .where(
            and(
              eq(integrations.id, integrationId),
              eq(integrations.isActive, true),
              cadenceId ? sql`true` : eq(integrations.isSyncing, false),
            ),
          )
          .returning({ id: integrations.id });
        if (!row) return false;
        await tx
          .update(cadences)
          .set({ isSyncing: true })
          .where(
            cadenceId
              ? and(eq(cadences.id, cadenceId), eq(cadences.integrationId, integrationId))
              : eq(cadences.integrationId, integrationId),
          );
        return true;
      });
      if (claimed) await queue.send(SYNC_JOB, { integrationId, ...(cadenceId ? { cadenceId } : {}) });
      return claimed;
    },
    /** Active sequence integrations of a client, for "sync all". */
    async sequenceIntegrations(clientId: string) {
      return db
        .select()
        .from(integrations)
        .where(and(eq(integrations.clientId, clientId), inArray(integrations.source, [...SEQUENCE_SOURCES])));
    },
  };
}

export type SyncService = ReturnType<typeof createSyncService>;
