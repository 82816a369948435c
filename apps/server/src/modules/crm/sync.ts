import { and, asc, count, eq, gte, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import {
  crmAccounts,
  crmContacts,
  crmIntegrationSettings,
  integrations,
  opportunities,
} from '../../db/schema/index.ts';
import type { ApiUsage, SyncCursor, SyncProgress } from '../../db/schema/index.ts';
import type { SecretBox } from '../../lib/crypto.ts';
import type { JobQueue } from '../../lib/queue.ts';
import { ATTRIBUTION_JOB } from '../reports/jobs.ts';
import { LIFT_JOB } from '../incrementality/jobs.ts';
import { VendorAuthError } from '../integrations/vendor-http.ts';
import { endSync, whileActive } from '../integrations/while-active.ts';
import { CRM_SOURCES } from './port.ts';
import type {
  AdapterContext,
  CrmAdapter,
  CrmPage,
  CrmSource,
  CrmSyncPhase,
  Credentials,
  RemoteContact,
  RemoteList,
} from './port.ts';
import {
  companyDomains,
  finishListMembers,
  markDeleted,
  stageLookup,
  upsertAccounts,
  upsertActivityCounts,
  upsertContacts,
  upsertListMembers,
  upsertLists,
  upsertOpportunities,
  upsertOwners,
  upsertRecordTypes,
  upsertStageHistory,
  upsertStages,
  superprospectContacts,
} from './store.ts';
import type { Tx } from './store.ts';
import { batches, readAhead } from './read-ahead.ts';
import { twoAtATime } from './two-at-a-time.ts';
import type { WebhookEvents } from '../hookly/index.ts';
import type { SuppressionService } from '../suppressions/service.ts';

export const CRM_SYNC_JOB = 'crm-sync';
/**
 * Items stored per transaction: pages are gathered up to this many (issue 43: HubSpot's pages of
 * 200 and 250 each cost a transaction, a cursor write and a statement per table).
 */
export const STORE_BATCH = 1000;
/** Contacts per page of `storedContactsSince` (HubSpot's association batch read takes 1,000 ids). */
export const STORED_CONTACTS_PAGE = 1000;

/**
 * The connection's stored, not deleted contacts whose CRM modified time is at or after `since`
 * (every one when null), oldest first, in pages walked by (modified time, external id) through
 * `crm_contacts_integration_updated_idx`. The activities phase runs after the contacts phase of the
 * same run, so these are what that phase read from the CRM; a contact changed in between is read by
 * the next run's contacts phase, and counted then.
 */
export async function* storedContactsSince(
  db: Db,
  integrationId: number,
  since: string | null,
  pageSize = STORED_CONTACTS_PAGE,
): AsyncGenerator<CrmPage<{ externalId: string; updatedAt: string }>> {
  const changed = and(
    eq(crmContacts.integrationId, integrationId),
    eq(crmContacts.isDeleted, false),
    isNotNull(crmContacts.crmUpdatedAt),
    since ? gte(crmContacts.crmUpdatedAt, new Date(since)) : undefined,
  );
  const [counted] = await db.select({ n: count() }).from(crmContacts).where(changed);
  const total = Number(counted?.n ?? 0);
  // The keyset's time goes back to the database as the text it gave (exact to the microsecond).
  let after: { at: string; id: string } | null = null;
  for (;;) {
    const rows = await db
      .select({
        externalId: crmContacts.externalId,
        at: crmContacts.crmUpdatedAt,
        key: sql<string>`${crmContacts.crmUpdatedAt}::text`,
      })
      .from(crmContacts)
      .where(
        and(
          changed,
          after
            ? sql`(${crmContacts.crmUpdatedAt}, ${crmContacts.externalId}) > (${after.at}::timestamptz, ${after.id})`
            : undefined,
        ),
      )
      .orderBy(asc(crmContacts.crmUpdatedAt), asc(crmContacts.externalId))
      .limit(pageSize);
    const last = rows.at(-1);
    if (!last) return;
    yield {
      items: rows.map((r) => ({ externalId: r.externalId, updatedAt: new Date(r.at ?? 0).toISOString() })),
      total,
    };
    if (rows.length < pageSize) return;
    after = { at: last.key, id: last.externalId };
  }
}

/**
 * A batch's transaction, committed without waiting for its WAL to reach the disk (issue 43: a first
 * sync commits a few hundred batches, each an fsync the sync waited for). Crash-safe as before: a
 * batch and the cursor that follows it are one transaction, so a database crash that loses the last
 * batches loses their cursors with them and the retry reads them again (the upserts make that
 * harmless); the run's last write (`finish`) commits normally, which flushes every batch before it.
 * A crash of the app loses nothing: what PostgreSQL has committed stays committed.
 */
function batchTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`set local synchronous_commit = off`);
    return fn(tx);
  });
}

export type CrmSyncJob = { integrationId: number };

export function isCrmSource(source: string): source is CrmSource {
  return (CRM_SOURCES as readonly string[]).includes(source);
}

type Deps = {
  db: Db;
  queue: JobQueue;
  box: SecretBox;
  adapters: Partial<Record<CrmSource, CrmAdapter>>;
  log: FastifyBaseLogger;
  /** The sync's clock (tests set it). */
  now?: () => Date;
  /** JOB_HEARTBEAT_SECONDS: a worker that dies mid-sync is noticed by its silence and the job retried. */
  heartbeatSeconds?: number;
  /** Webhooks' `sync_finished` (a no-op unless the client has an endpoint for it). */
  events?: WebhookEvents;
  /** After a sync that succeeded: the ad fields' write-back queues its runs (issue 38). */
  afterSync?: (integrationId: number) => Promise<unknown>;
  /** The client's suppression list: the CRM's own opt-outs go on it (issue 44). */
  suppressions?: Pick<SuppressionService, 'suppressMany'>;
  /**
   * People erased in the client (decision 0031) and not brought back by hand: their contacts are not
   * stored again, so neither they nor a cohort made from a list brings the person back.
   */
  erasedTest?: (
    tx: Tx,
    clientId: string,
    emails: readonly (string | null | undefined)[],
  ) => Promise<(email: string | null | undefined) => boolean>;
};

/** How each CRM names its opt-out, for the suppression's reason. */
const OPT_OUT_NAMES: Record<CrmSource, string> = {
  hubspot: 'HubSpot (Unsubscribed from all email)',
  salesforce: 'Salesforce (Email Opt Out)',
  marketo: 'Marketo (Unsubscribed)',
};

const newest = (a: string | undefined, b: string | null | undefined) => (!b ? a : !a || b > a ? b : a);

/**
 * Syncs a CRM connection (ARCHITECTURE.md §7, §10) as a queue job, resource by resource: stages and
 * record types, owners, accounts, contacts, opportunities, stage history, lists with their members,
 * activity counts. Each page is stored in one transaction with the cursor that follows it (the
 * newest modified time stored), so a crash or a retry resumes where it stopped, and a page stored
 * twice lands once (upserts by integration + external id). A refused token makes the connection
 * inactive with the vendor's reason; rate-limit replies are waited out by the adapter, and what is
 * still refused fails the job, which the queue retries later from the stored cursors.
 */
export function createCrmSyncService(deps: Deps) {
  const { db, queue, box, adapters, log } = deps;
  const now = deps.now ?? (() => new Date());
  const heartbeat = {
    heartbeatSeconds: deps.heartbeatSeconds ?? 30,
    retryDelay: Math.max(1, Math.round((deps.heartbeatSeconds ?? 30) / 3)),
  };

  async function run(job: CrmSyncJob): Promise<void> {
    const [integration] = await db.select().from(integrations).where(eq(integrations.id, job.integrationId));
    if (!integration || !isCrmSource(integration.source)) return;
    const adapter = adapters[integration.source];
    if (!adapter || !integration.isActive || !integration.credentialsEnc) {
      await finish(job.integrationId, { failed: true });
      return;
    }
    let creds = JSON.parse(box.decrypt(integration.credentialsEnc)) as Credentials;
    /** The vendor's API budget as its replies tell it (Salesforce), stored with each page and at the end. */
    let usage: ApiUsage | null = null;
    const usageSet = () => (usage ? { apiUsage: usage } : {});
    const ctx: AdapterContext = {
      apiUsage: integration.apiUsage ?? null,
      reportUsage: (u) => {
        usage = { ...u, at: now().toISOString() };
      },
      credentials: () => creds,
      saveCredentials: async (next) => {
        creds = next;
        await db
          .update(integrations)
          .set({ credentialsEnc: box.encrypt(JSON.stringify(next)), updatedAt: new Date() })
          .where(whileActive(integration.id));
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
    /**
     * The CRM's opt-outs of each contacts page go on the client's suppression list before the page
     * is stored (as the sequence sync does), so the person never runs an ad. Idempotent: an entry
     * in force stays as it is; a person whose opt-out is later lifted in the CRM stays suppressed
     * until someone removes them with a reason.
     */
    async function* optOutsFirst(
      source: CrmSource,
      pages: AsyncIterable<CrmPage<RemoteContact>>,
    ): AsyncGenerator<CrmPage<RemoteContact>> {
      for await (const page of pages) {
        // A deleted or converted record's opt-out counts too: it is the person's wish, not the record's.
        const optedOut = page.items.flatMap((c) => (c.optedOut && c.email ? [c.email] : []));
        if (optedOut.length && deps.suppressions) {
          await deps.suppressions.suppressMany(ref.clientId, optedOut, {
            source: 'opt_out',
            reason: `Opted out in ${OPT_OUT_NAMES[source]}`,
            by: null,
          });
        }
        yield page;
      }
    }
    const saveCursor = (tx: Tx, progress: SyncProgress) =>
      tx
        .update(integrations)
        .set({ syncCursor: cursor, syncProgress: progress, ...usageSet() })
        .where(eq(integrations.id, ref.id));

    /**
     * Walks one listing: each page stored with the cursor that follows it. `store` says whether the
     * page was complete; an incomplete one (history of an opportunity not stored yet) holds the
     * cursor so the next sync reads it again.
     */
    async function walk<T>(
      phase: CrmSyncPhase,
      pages: AsyncIterable<CrmPage<T>> | undefined,
      updatedAt: (item: T) => string | null,
      store: (tx: Tx, items: T[]) => Promise<unknown>,
      /** Unordered listings: the newest time is returned for the caller to apply once all is stored. */
      opts: { deferCursor?: boolean; twoAtATime?: boolean } = {},
    ): Promise<string | undefined> {
      if (!pages) return undefined;
      if (opts.twoAtATime) return walkTwoAtATime(phase, pages, updatedAt, store, opts);
      let done = 0;
      let seen = 0;
      let hold = false;
      let deferred: string | undefined;
      // A batch of pages per transaction, the next batch read from the vendor while this one is stored.
      for await (const batch of readAhead(batches(pages, STORE_BATCH))) {
        const last = batch[batch.length - 1];
        if (!last) continue; // batches are never empty
        seen += batch.reduce((n, p) => n + p.items.length, 0);
        done += batch.length;
        await batchTransaction(db, async (tx) => {
          const items = batch.length === 1 ? last.items : batch.flatMap((p) => p.items);
          const complete = (await store(tx, items)) !== false;
          if (!complete) hold = true;
          for (const page of batch) {
            if (opts.deferCursor) {
              for (const item of page.items) deferred = newest(deferred, updatedAt(item));
              deferred = newest(deferred, page.cursor);
            } else if (!hold) {
              for (const item of page.items) cursor[phase] = newest(cursor[phase], updatedAt(item));
              cursor[phase] = newest(cursor[phase], page.cursor);
            }
          }
          const perPage = last.items.length || 1;
          const total = last.total === null ? null : Math.max(done, Math.ceil(last.total / perPage));
          await saveCursor(tx, { phase, done, total });
        });
      }
      log.debug({ integrationId: ref.id, phase, seen }, 'crm sync phase done');
      return deferred;
    }
    /**
     * `walk` with two batches stored at once (two-at-a-time.ts), for a store that is always complete
     * (contacts). A batch's transaction writes the cursor as it stood when the batch started: the
     * batches up to two before it, all committed by then; the cursor after the last batch is written
     * once all are in. A crash re-reads at most the two batches under way (the upserts make that
     * harmless), as a crash between a batch and its cursor always did.
     */
    async function walkTwoAtATime<T>(
      phase: CrmSyncPhase,
      pages: AsyncIterable<CrmPage<T>>,
      updatedAt: (item: T) => string | null,
      store: (tx: Tx, items: T[]) => Promise<unknown>,
      opts: { deferCursor?: boolean },
    ): Promise<string | undefined> {
      let done = 0;
      let deferred: string | undefined;
      let progress: SyncProgress = { phase, done, total: null };
      await twoAtATime(
        readAhead(batches(pages, STORE_BATCH)),
        (batch) => {
          const last = batch[batch.length - 1];
          if (!last) return () => Promise.resolve(); // batches are never empty
          done += batch.length;
          const perPage = last.items.length || 1;
          const total = last.total === null ? null : Math.max(done, Math.ceil(last.total / perPage));
          progress = { phase, done, total };
          const written = { syncCursor: { ...cursor }, syncProgress: progress };
          const items = batch.length === 1 ? last.items : batch.flatMap((p) => p.items);
          return () =>
            batchTransaction(db, async (tx) => {
              await store(tx, items);
              await tx
                .update(integrations)
                .set({ ...written, ...usageSet() })
                .where(eq(integrations.id, ref.id));
            });
        },
        (batch) => {
          let at: string | undefined;
          for (const page of batch) {
            for (const item of page.items) at = newest(at, updatedAt(item));
            at = newest(at, page.cursor);
          }
          if (opts.deferCursor) deferred = newest(deferred, at);
          else cursor[phase] = newest(cursor[phase], at);
        },
      );
      await saveCursor(db, progress);
      log.debug({ integrationId: ref.id, phase, batches: done }, 'crm sync phase done');
      return deferred;
    }
    /** Moves a phase's cursor to `at` (a deferred one: the whole phase is stored). */
    async function advance(phase: CrmSyncPhase, at: string | undefined) {
      if (!at) return;
      cursor[phase] = newest(cursor[phase], at);
      await db.update(integrations).set({ syncCursor: cursor }).where(eq(integrations.id, ref.id));
    }

    try {
      await db
        .update(integrations)
        .set({ syncProgress: { phase: 'stages', done: 0, total: null } })
        .where(eq(integrations.id, ref.id));
      // Small catalogues: read whole every time.
      const stages = adapter.stages ? await adapter.stages(ctx) : [];
      const recordTypes = adapter.recordTypes ? await adapter.recordTypes(ctx) : [];
      await db.transaction(async (tx) => {
        if (adapter.stages) await upsertStages(tx, ref, stages);
        if (recordTypes.length) await upsertRecordTypes(tx, ref, recordTypes);
        await saveCursor(tx, { phase: 'stages', done: 1, total: 1 });
      });

      await walk(
        'owners',
        adapter.owners(ctx, cursor.owners ?? null),
        (o) => o.updatedAt,
        (tx, items) => upsertOwners(tx, ref, items),
      );
      const domains = await companyDomains(db, ref.clientId);
      await walk(
        'accounts',
        adapter.accounts?.(ctx, cursor.accounts ?? null),
        (a) => a.updatedAt,
        (tx, items) => upsertAccounts(tx, ref, items, domains),
      );
      const contactsAt = await walk(
        'contacts',
        optOutsFirst(
          integration.source,
          adapter.contacts(ctx, cursor.contacts ?? null, async (externalIds) => {
            if (externalIds.length === 0) return new Set<string>();
            const rows = await db
              .select({ externalId: crmContacts.externalId })
              .from(crmContacts)
              .where(
                and(eq(crmContacts.integrationId, ref.id), inArray(crmContacts.externalId, externalIds)),
              );
            return new Set(rows.map((r) => r.externalId));
          }),
        ),
        (c) => c.updatedAt,
        async (tx, items) => {
          const erased = deps.erasedTest
            ? await deps.erasedTest(
                tx,
                ref.clientId,
                items.map((c) => c.email),
              )
            : null;
          await upsertContacts(tx, ref, erased ? items.filter((c) => !erased(c.email)) : items);
        },
        // Two batches at once (issue 43: a first sync's contacts were half its database time, on one core).
        { deferCursor: adapter.contactsUnordered === true, twoAtATime: true },
      );
      await advance('contacts', contactsAt);
      const stageOf = await stageLookup(db, ref.id);
      await walk(
        'opportunities',
        adapter.opportunities?.(ctx, cursor.opportunities ?? null),
        (o) => o.updatedAt,
        (tx, items) => upsertOpportunities(tx, ref, items, stageOf),
      );
      // Deletions the modified-since listings cannot show (HubSpot's archived records, Marketo's
      // deleted leads). No cursor: HubSpot's are read whole (listed by id, not time), Marketo's from
      // a day before the last sync (marking is idempotent, so the overlap costs nothing), and a crash
      // or a retry simply reads them again. After the walks above: a record restored in the CRM came
      // back through them as live.
      const deletedSince = new Date(
        (integration.lastSyncedAt ?? integration.createdAt).getTime() - 86_400_000,
      ).toISOString();
      const deletions = [
        ['accounts', adapter.deletedAccounts, crmAccounts],
        ['contacts', adapter.deletedContacts, crmContacts],
        ['opportunities', adapter.deletedOpportunities, opportunities],
      ] as const;
      for (const [what, read, table] of deletions) {
        if (!read) continue;
        let marked = 0;
        for await (const page of read.call(adapter, ctx, deletedSince)) {
          if (page.items.length)
            marked += await db.transaction((tx) => markDeleted(tx, table, ref, page.items));
        }
        if (marked) log.info({ integrationId: ref.id, marked }, `CRM ${what} deleted`);
      }
      await walk(
        'history',
        adapter.stageHistory?.(ctx, cursor.history ?? null),
        (h) => h.updatedAt,
        async (tx, items) => (await upsertStageHistory(tx, ref, items, stageOf)).complete,
      );

      // Lists changed since the cursor, then each one's members read whole (vendors give no
      // modified-since for memberships), so members who left are dropped. The lists cursor moves
      // only once every changed list's members are stored: a sync stopped half-way reads them again.
      const changedLists: { externalId: string; id: string; memberType: RemoteList['memberType'] }[] = [];
      const listsAt = await walk(
        'lists',
        adapter.lists(ctx, cursor.lists ?? null),
        (l) => l.updatedAt,
        async (tx, items) => {
          const ids = await upsertLists(tx, ref, items);
          for (const l of items) {
            const id = ids.get(l.externalId);
            if (id) changedLists.push({ externalId: l.externalId, id, memberType: l.memberType });
          }
        },
        { deferCursor: true },
      );
      for (const list of changedLists) {
        const seen: string[] = [];
        // Two batches stored at once (two-at-a-time.ts). Members carry no cursor (a stopped sync reads
        // the list whole again), `finish` runs once all are in, and each batch upserts its members
        // sorted by id, so two batches that share a member wait for each other, not deadlock.
        await twoAtATime(
          readAhead(batches(adapter.listMembers(ctx, list.externalId), STORE_BATCH)),
          (batch) => {
            const items = batch.flatMap((p) => p.items);
            for (const m of items) seen.push(m.memberExternalId);
            return () =>
              batchTransaction(db, (tx) => upsertListMembers(tx, ref, list.id, items, list.memberType));
          },
          () => {},
        );
        await db.transaction((tx) => finishListMembers(tx, list.id, seen));
      }
      await advance('lists', listsAt);

      // The cursor is the vendor's time of the newest change read (never our clock: the two drift).
      await walk(
        'activities',
        adapter.activityCounts?.(ctx, cursor.activities ?? null, (since) =>
          storedContactsSince(db, ref.id, since),
        ),
        (c) => c.changedAt,
        (tx, items) => upsertActivityCounts(tx, ref, items),
      );
      // Write-back (off by default): Rally's superprospects to the CRM, after the pull so that
      // contacts synced just now are matched.
      const [settings] = await db
        .select()
        .from(crmIntegrationSettings)
        .where(eq(crmIntegrationSettings.integrationId, ref.id));
      if (settings?.writeBack && adapter.writeBack) {
        const items = await superprospectContacts(db, ref.id);
        if (items.length) {
          const { target, written } = await adapter.writeBack(ctx, items, settings.writeBackTarget);
          await db
            .update(crmIntegrationSettings)
            .set({ writeBackTarget: target, updatedAt: new Date() })
            .where(eq(crmIntegrationSettings.integrationId, ref.id));
          log.info({ integrationId: ref.id, written, of: items.length }, 'CRM write-back');
        }
      }
      await finish(ref.id, { failed: false, also: usageSet() });
    } catch (err) {
      if (err instanceof VendorAuthError) {
        log.warn({ integrationId: ref.id, source: integration.source }, 'CRM refused our credentials');
        await finish(ref.id, {
          failed: true,
          also: { isActive: false, lastError: err.message, updatedAt: new Date(), ...usageSet() },
        });
        return; // retrying cannot help until the user reconnects
      }
      await db
        .update(integrations)
        .set({
          // Text for the user: no control characters, and not a whole failed statement.
          lastError: `The last sync failed and will be retried: ${(err as Error).message}`
            // eslint-disable-next-line no-control-regex -- removing control characters is the point
            .replace(/[\u0000-\u001f]+/g, ' ')
            .slice(0, 500),
          ...usageSet(),
        })
        .where(whileActive(ref.id));
      await finish(ref.id, { failed: true });
      throw err;
    }
  }

  async function finish(
    integrationId: number,
    { failed, also = {} }: { failed: boolean; also?: Partial<typeof integrations.$inferInsert> },
  ) {
    await endSync(db, integrationId, {
      isSyncing: false,
      syncProgress: failed ? null : { phase: 'done', done: 1, total: 1 },
      ...(failed ? {} : { lastSyncedAt: now(), lastError: null }),
      ...also,
    });
    // What the sync changed is folded into the stored attribution and lift outcomes now, not at the
    // next report.
    if (!failed) {
      queue
        .send(ATTRIBUTION_JOB, {})
        .catch((err: unknown) => log.warn({ err }, 'could not queue the attribution refresh'));
      queue
        .send(LIFT_JOB, {})
        .catch((err: unknown) => log.warn({ err }, 'could not queue the lift outcomes refresh'));
      await deps
        .afterSync?.(integrationId)
        .catch((err: unknown) => log.warn({ err }, 'could not queue the ad-field write'));
    }
    // A sync that will be retried has not finished; one that stopped for good (refused credentials) has.
    if (deps.events && (!failed || also.isActive === false)) {
      const [row] = await db
        .select({ clientId: integrations.clientId, source: integrations.source })
        .from(integrations)
        .where(eq(integrations.id, integrationId));
      if (row) {
        await deps.events.emit(row.clientId, 'sync_finished', {
          integration_id: integrationId,
          source: row.source,
          status: failed ? 'failed' : 'succeeded',
          error: also.lastError ?? null,
          finished_at: now().toISOString(),
        });
      }
    }
  }

  return {
    adapters,
    run,
    register() {
      // Resumable (cursors stored with each page) and idempotent, as the queue requires.
      queue.register<CrmSyncJob>(CRM_SYNC_JOB, (data) => run(data), {
        retryLimit: 3,
        retryBackoff: true,
        expireInSeconds: 6 * 3600,
        ...heartbeat,
      });
    },
    /**
     * Queues an incremental sync of every connected CRM whose last sync is older than `maxAgeMs`
     * (asked for every few minutes where job workers run). Any number of instances may ask: the
     * claim in `request` lets one through per connection.
     */
    async requestDue(maxAgeMs: number): Promise<number> {
      const due = await db
        .select({ id: integrations.id })
        .from(integrations)
        .where(
          and(
            inArray(integrations.source, [...CRM_SOURCES]),
            eq(integrations.isActive, true),
            eq(integrations.isSyncing, false),
            isNotNull(integrations.credentialsEnc),
            or(
              isNull(integrations.lastSyncedAt),
              lt(integrations.lastSyncedAt, new Date(now().getTime() - maxAgeMs)),
            ),
          ),
        );
      let queued = 0;
      for (const row of due) if (await this.request(row.id)) queued += 1;
      return queued;
    },
    /** Marks the connection as syncing and queues the job; a sync already under way is not queued twice. */
    async request(integrationId: number): Promise<boolean> {
      const [row] = await db
        .update(integrations)
        .set({ isSyncing: true, syncProgress: { phase: 'stages', done: 0, total: null } })
        .where(
          and(
            eq(integrations.id, integrationId),
            eq(integrations.isActive, true),
            eq(integrations.isSyncing, false),
            inArray(integrations.source, [...CRM_SOURCES]),
          ),
        )
        .returning({ id: integrations.id });
      if (!row) return false;
      // Given with each job too: a queue made before JOB_HEARTBEAT_SECONDS changed keeps its old values.
      await queue.send(CRM_SYNC_JOB, { integrationId }, heartbeat);
      return true;
    },
  };
}

export type CrmSyncService = ReturnType<typeof createCrmSyncService>;
