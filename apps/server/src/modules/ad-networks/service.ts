import { and, eq, inArray, isNull, lt, or } from 'drizzle-orm';
import type { SuppressionKey } from '../suppressions/key.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { adAudienceMembers, adAudiences, adNetworkConnections, cohorts } from '../../db/schema/index.ts';
import type { AdAudiencePool } from '../../db/schema/index.ts';
import type { SecretBox } from '../../lib/crypto.ts';
import type { JobQueue } from '../../lib/queue.ts';
import type { Credentials } from '../integrations/port.ts';
import { VendorAuthError } from '../integrations/vendor-http.ts';
import { desiredHashes } from './members.ts';
import {
  poolCandidate,
  poolHashes,
  poolOffNote,
  pooledNote,
  poolShortReason,
  sourceWords,
  unpooledNote,
} from './pool.ts';
import type { AdNetwork, AdNetworkAdapter, AdapterContext } from './port.ts';

export const AD_AUDIENCE_PUSH_JOB = 'ad-audience-push';
/** Meta's long-lived token lasts about 60 days: exchanged again when a week or less is left. */
const REFRESH_WITHIN_MS = 7 * 24 * 3600_000;
/** Rows per insert or update (bind parameters stay well under PostgreSQL's 65,535). */
const CHUNK = 2_000;
const NETWORK_NAMES: Record<AdNetwork, string> = { meta: 'Meta', linkedin: 'LinkedIn', google: 'Google Ads' };

type Connection = typeof adNetworkConnections.$inferSelect;
type Audience = typeof adAudiences.$inferSelect;

export type AdNetworkServiceDeps = {
  db: Db;
  queue: JobQueue;
  box: SecretBox;
  adapters: Record<AdNetwork, AdNetworkAdapter>;
  log: FastifyBaseLogger;
  /** Suppressed people (decision 0027) leave the client's audiences at the next push. */
  suppressionKey?: SuppressionKey;
};

/**
 * Ad-network connections and the audience push (decision 0025). A push computes the hashes an
 * audience should hold, records the difference as per-member states (`add`, `remove`) and sends only
 * those, in the network's batch size, marking each batch done as it is acknowledged: a later run
 * sends the difference, and a run that died sends each unacknowledged member once more at most.
 */
export function createAdNetworkService(deps: AdNetworkServiceDeps) {
  const { db, queue, box, adapters, log } = deps;

  function contextOf(row: Connection): AdapterContext {
    let creds = JSON.parse(box.decrypt(row.credentialsEnc)) as Credentials;
    return {
      credentials: () => creds,
      saveCredentials: async (next) => {
        creds = next;
        await db
          .update(adNetworkConnections)
          .set({ credentialsEnc: box.encrypt(JSON.stringify(next)), updatedAt: new Date() })
          .where(eq(adNetworkConnections.id, row.id));
      },
      reloadCredentials: async () => {
        const [r] = await db
          .select({ enc: adNetworkConnections.credentialsEnc })
          .from(adNetworkConnections)
          .where(eq(adNetworkConnections.id, row.id));
        return r ? (JSON.parse(box.decrypt(r.enc)) as Credentials) : null;
      },
    };
  }

  async function markInactive(row: Connection, reason: string): Promise<void> {
    await db
      .update(adNetworkConnections)
      .set({ isActive: false, inactiveReason: reason, updatedAt: new Date() })
      .where(eq(adNetworkConnections.id, row.id));
  }

  /** Runs a network call; a refused token makes the connection inactive with the network's words. */
  async function withNetwork<T>(
    row: Connection,
    fn: (a: AdNetworkAdapter, ctx: AdapterContext) => Promise<T>,
  ) {
    try {
      return await fn(adapters[row.network], contextOf(row));
    } catch (err) {
      if (err instanceof VendorAuthError) await markInactive(row, err.message);
      throw err;
    }
  }

  async function setAudience(id: string, set: Partial<Audience>) {
    await db
      .update(adAudiences)
      .set({ ...set, updatedAt: new Date() })
      .where(eq(adAudiences.id, id));
  }

  async function requestPush(audienceId: string): Promise<void> {
    await setAudience(audienceId, { state: 'queued', pushError: null });
    await queue.send(AD_AUDIENCE_PUSH_JOB, { audienceId }, { singletonKey: audienceId });
  }

  /** Records the difference between what the network holds and `desired` as member states. */
  async function reconcile(audience: Audience, desired: Set<string>): Promise<void> {
    const existing = await db
      .select({ hash: adAudienceMembers.hash, state: adAudienceMembers.state })
      .from(adAudienceMembers)
      .where(eq(adAudienceMembers.audienceId, audience.id));
    const known = new Set(existing.map((m) => m.hash));
    const fresh = [...desired].filter((h) => !known.has(h));
    const revive = existing.filter((m) => m.state === 'remove' && desired.has(m.hash)).map((m) => m.hash);
    const gone = existing.filter((m) => m.state !== 'remove' && !desired.has(m.hash)).map((m) => m.hash);
    for (let i = 0; i < fresh.length; i += CHUNK) {
      await db
        .insert(adAudienceMembers)
        .values(
          fresh.slice(i, i + CHUNK).map((hash) => ({
            audienceId: audience.id,
            clientId: audience.clientId,
            hash,
            state: 'add' as const,
          })),
        )
        .onConflictDoNothing();
    }
    for (const [hashes, state] of [
      [revive, 'add'],
      [gone, 'remove'],
    ] as const) {
      for (let i = 0; i < hashes.length; i += CHUNK) {
        await db
          .update(adAudienceMembers)
          .set({ state, updatedAt: new Date() })
          .where(
            and(
              eq(adAudienceMembers.audienceId, audience.id),
              inArray(adAudienceMembers.hash, hashes.slice(i, i + CHUNK)),
            ),
          );
      }
    }
  }

  /** Sends the members in `state`, a batch at a time; returns members sent and requests made. */
  async function sendPending(
    audience: Audience,
    state: 'add' | 'remove',
    send: (hashes: string[]) => Promise<unknown>,
    batch: number,
  ): Promise<{ members: number; requests: number }> {
    let members = 0;
    let requests = 0;
    for (;;) {
      const rows = await db
        .select({ hash: adAudienceMembers.hash })
        .from(adAudienceMembers)
        .where(and(eq(adAudienceMembers.audienceId, audience.id), eq(adAudienceMembers.state, state)))
        .orderBy(adAudienceMembers.hash)
        .limit(batch);
      if (!rows.length) return { members, requests };
      const hashes = rows.map((r) => r.hash);
      await send(hashes);
      requests++;
      members += hashes.length;
      for (let i = 0; i < hashes.length; i += CHUNK) {
        const part = and(
          eq(adAudienceMembers.audienceId, audience.id),
          inArray(adAudienceMembers.hash, hashes.slice(i, i + CHUNK)),
        );
        if (state === 'add')
          await db.update(adAudienceMembers).set({ state: 'added', updatedAt: new Date() }).where(part);
        else await db.delete(adAudienceMembers).where(part);
      }
    }
  }

  /**
   * What a push sends (decision 0034), re-decided on every push: the source's own members, or, when
   * they are under the network's minimum and the owner chose pooling, its pool's. `hold` is the
   * reason to hold it (under the minimum even pooled, or not pooled), with the pool proposed.
   */
  async function planPool(
    audience: Audience,
    own: Set<string>,
    adapter: AdNetworkAdapter,
    name: string,
  ): Promise<{
    desired: Set<string>;
    hold: string | null;
    pooledWith: AdAudiencePool | null;
    poolNote: string | null;
  }> {
    const minimum = adapter.minimumAudience;
    const source = sourceWords(audience);
    const was = audience.pooledWith;
    if (own.size >= minimum) {
      const poolNote = was ? unpooledNote(source, own.size, was.name, name, minimum) : audience.poolNote;
      return { desired: own, hold: null, pooledWith: null, poolNote };
    }
    const candidate = audience.sourceKind === 'cohort' ? null : await poolCandidate(db, audience);
    const members = candidate
      ? await poolHashes(db, audience, candidate, adapter.hashEmail, deps.suppressionKey)
      : null;
    const pool: AdAudiencePool | null =
      candidate && members ? { ...candidate, sourceCount: own.size, poolCount: members.size, minimum } : null;
    const offNote = was ? poolOffNote(source, was.name) : audience.poolNote;
    const short = `${own.size} ${own.size === 1 ? 'member has' : 'members have'} an e-mail Rally can match; ${name} shows ads only to audiences of at least ${minimum} matched people.`;
    if (!pool || !members)
      return {
        desired: own,
        hold: `${short} Add members, or run the whole cohort instead.`,
        pooledWith: null,
        poolNote: offNote,
      };
    if (!audience.poolWhenSmall) {
      const proposal =
        pool.poolCount >= minimum
          ? ` Pool it with ${pool.name} (${pool.poolCount} people) to run now.`
          : ` Even pooled with ${pool.name} there would be only ${pool.poolCount}.`;
      return { desired: own, hold: `${short}${proposal}`, pooledWith: null, poolNote: offNote };
    }
    const union = pool.poolCount >= minimum;
    return {
      desired: union ? members : own,
      hold: union ? null : poolShortReason(source, pool, name),
      pooledWith: union ? pool : null,
      poolNote: union ? pooledNote(source, pool, name) : offNote,
    };
  }

  /** The push job (idempotent): see the service's comment. */
  async function push(audienceId: string): Promise<void> {
    const [audience] = await db.select().from(adAudiences).where(eq(adAudiences.id, audienceId));
    if (!audience) return;
    const [connection] = await db
      .select()
      .from(adNetworkConnections)
      .where(eq(adNetworkConnections.id, audience.connectionId));
    if (!connection) return;
    const name = NETWORK_NAMES[connection.network];
    if (!connection.isActive) {
      await setAudience(audience.id, {
        state: 'failed',
        pushError: `${name} is not connected: ${connection.inactiveReason ?? 'connect it again'}`,
      });
      return;
    }
    const adAccountId = audience.adAccountId ?? connection.adAccountId;
    if (!adAccountId) {
      await setAudience(audience.id, {
        state: 'failed',
        pushError: `Choose a ${name} ad account in Settings › Ad networks first.`,
      });
      return;
    }
    const adapter = adapters[connection.network];
    await setAudience(audience.id, { state: 'pushing', pushError: null });
    try {
      const own = await desiredHashes(db, audience, adapter.hashEmail, deps.suppressionKey);
      const plan = await planPool(audience, own, adapter, name);
      const desired = plan.desired;
      if (plan.hold && !audience.networkAudienceId) {
        await setAudience(audience.id, {
          state: 'held',
          memberCount: own.size,
          heldReason: plan.hold,
          pooledWith: plan.pooledWith,
          poolNote: plan.poolNote,
        });
        return;
      }
      await reconcile(audience, desired);
      const result = await withNetwork(connection, async (a, ctx) => {
        await a.refreshIfDue(ctx, REFRESH_WITHIN_MS);
        let networkId = audience.networkAudienceId;
        if (!networkId) {
          networkId = (
            await a.createAudience(ctx, adAccountId, {
              name: `Rally · ${audience.name}`,
              description: 'Kept in sync by Rally; members are SHA-256 hashes of e-mail addresses.',
            })
          ).id;
          // Stored before any member is sent: a crash after this never creates a second audience.
          await setAudience(audience.id, { networkAudienceId: networkId, adAccountId });
        }
        const id = networkId;
        const added = await sendPending(audience, 'add', (h) => a.addMembers(ctx, id, h), a.batchLimit);
        const removed = await sendPending(
          audience,
          'remove',
          (h) => a.removeMembers(ctx, id, h),
          a.batchLimit,
        );
        const read = await a.readAudience(ctx, id);
        return { added, removed, read };
      });
      const { added, removed, read } = result;
      const lower = read.matchedLowerBound;
      const held = plan.hold
        ? plan.hold
        : lower === null
          ? `${name} has not counted the matches yet (it can take up to 24 hours).`
          : lower < adapter.minimumAudience
            ? `${name} matched about ${lower} of ${desired.size} people; it shows ads only to audiences of at least ${adapter.minimumAudience} matched people.`
            : read.problem;
      await setAudience(audience.id, {
        state: held ? 'held' : 'ready',
        heldReason: held,
        memberCount: desired.size,
        pooledWith: plan.pooledWith,
        poolNote: plan.poolNote,
        matchedLower: lower,
        matchedUpper: read.matchedUpperBound,
        matchedAt: new Date(),
        lastPushedAt: new Date(),
        lastPush: {
          added: added.members,
          removed: removed.members,
          requests: added.requests + removed.requests,
        },
      });
    } catch (err) {
      await setAudience(audience.id, { state: 'failed', pushError: (err as Error).message.slice(0, 500) });
      // A refused token will not get better by retrying; anything else is retried by the queue.
      if (err instanceof VendorAuthError) return;
      throw err;
    }
  }

  /**
   * Queues a push of every audience whose last push is older than `maxAgeMs` (or never happened) on
   * an active connection: members that joined or left the cohort, stage or cadence reach the network
   * without anyone pressing Sync now. Audiences queued or pushing, or that failed, are left alone,
   * and so are those of a paused or archived cohort (ARCHITECTURE.md §11: no sync while paused).
   */
  async function requestDue(maxAgeMs: number): Promise<number> {
    const due = await db
      .select({ id: adAudiences.id })
      .from(adAudiences)
      .innerJoin(adNetworkConnections, eq(adNetworkConnections.id, adAudiences.connectionId))
      .leftJoin(cohorts, eq(cohorts.id, adAudiences.cohortId))
      .where(
        and(
          eq(adNetworkConnections.isActive, true),
          inArray(adAudiences.state, ['ready', 'held']),
          or(isNull(adAudiences.cohortId), eq(cohorts.status, 'active')),
          or(isNull(adAudiences.lastPushedAt), lt(adAudiences.lastPushedAt, new Date(Date.now() - maxAgeMs))),
        ),
      );
    for (const a of due) await requestPush(a.id);
    return due.length;
  }

  function register(): void {
    queue.register<{ audienceId: string }>(
      AD_AUDIENCE_PUSH_JOB,
      async (data) => {
        try {
          await push(data.audienceId);
        } catch (err) {
          log.warn({ err, audienceId: data.audienceId }, 'audience push failed; the queue retries it');
          throw err;
        }
      },
      { policy: 'stately', retryLimit: 3, retryDelay: 30, retryBackoff: true },
    );
  }

  return {
    adapters,
    /** Suppressed people are counted out of previews as they are out of pushes. */
    suppressionKey: deps.suppressionKey,
    contextOf,
    markInactive,
    withNetwork,
    requestPush,
    requestDue,
    push,
    register,
  };
}

export type AdNetworkService = ReturnType<typeof createAdNetworkService>;
