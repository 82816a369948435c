import { createHash } from 'node:crypto';
import { and, eq, isNotNull } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { adFieldSettings, integrations } from '../../db/schema/index.ts';
import type { SecretBox } from '../../lib/crypto.ts';
import type { JobQueue } from '../../lib/queue.ts';
import { AdFieldsError } from '../integrations/ad-fields-port.ts';
import type { AdFieldNames, AdFieldsPort, AdFieldWrite } from '../integrations/ad-fields-port.ts';
import { VendorAuthError } from '../integrations/vendor-http.ts';
import { adUrls, neutralAdUrls } from '../tracking/index.ts';
import { adapterContext } from './context.ts';
import { pendingRecords, recordWritten } from './repository.ts';

export const AD_FIELDS_JOB = 'ad-fields-write';
export type AdFieldsJob = { integrationId: number };

/** A run writes for at most this long, then queues the next one, so other connections get a turn. */
export const RUN_BUDGET_MS = 10 * 60_000;

/**
 * What every written value depends on besides its token: the two fields and the shape of the URLs
 * (public URL, the e-mail size, the neutral pair). When it changes, every record is written again.
 */
export function writeSignature(publicUrl: string, fields: AdFieldNames): string {
  const shape = [fields.image, fields.click, adUrls(publicUrl, '{t}'), neutralAdUrls(publicUrl)];
  return createHash('sha256').update(JSON.stringify(shape)).digest('hex').slice(0, 24);
}

type Deps = {
  db: Db;
  queue: JobQueue;
  box: SecretBox;
  /** The ad-fields part of each source's adapter (absent where a source has none). */
  ports: (source: string) => AdFieldsPort | undefined;
  publicUrl: string;
  log: FastifyBaseLogger;
  heartbeatSeconds: number;
  /** The run's clock (tests move it to end a run's budget). */
  now?: () => number;
};

/** Text for the owner: no control characters, not a whole failed statement. */
function plain(message: string): string {
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  return message.replace(/[\u0000-\u001f]+/g, ' ').slice(0, 500);
}

/**
 * The write-back as a queue job, one connection at a time (a run per connection; runs of different
 * connections side by side). A run counts the records whose fields differ from what they should
 * hold, writes them in the vendor's batches, and stores what each batch wrote in one transaction
 * right after the vendor's answer. So a crash or a retry goes on from the first batch not stored:
 * records already written are not sent again, and only the batch under way when the process died
 * may be sent twice (the same values: writing them again changes nothing at the vendor).
 */
export function createAdFieldsWriter(deps: Deps) {
  const { db, queue, log } = deps;
  const now = deps.now ?? Date.now;
  const jobOptions = {
    heartbeatSeconds: deps.heartbeatSeconds,
    retryDelay: Math.max(1, Math.round(deps.heartbeatSeconds / 3)),
  };

  async function setState(integrationId: number, values: Partial<typeof adFieldSettings.$inferInsert>) {
    await db
      .update(adFieldSettings)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(adFieldSettings.integrationId, integrationId));
  }

  async function run(job: AdFieldsJob): Promise<void> {
    const [row] = await db
      .select({ integration: integrations, settings: adFieldSettings })
      .from(adFieldSettings)
      .innerJoin(integrations, eq(integrations.id, adFieldSettings.integrationId))
      .where(eq(adFieldSettings.integrationId, job.integrationId));
    if (!row) return;
    const { integration, settings } = row;
    const port = deps.ports(integration.source);
    if (!port || !settings.enabled || !settings.imageField || !settings.clickField) return;
    if (!integration.isActive || !integration.credentialsEnc) {
      await setState(integration.id, {
        isWriting: false,
        lastError:
          integration.lastError ??
          'The connection is not active: reconnect it in Settings › Connections to write the ad fields.',
      });
      return;
    }
    const fields: AdFieldNames = { image: settings.imageField, click: settings.clickField };
    const ref = { integrationId: integration.id, clientId: integration.clientId };
    const signature = writeSignature(deps.publicUrl, fields);
    const ctx = adapterContext(db, deps.box, {
      id: integration.id,
      credentialsEnc: integration.credentialsEnc,
      apiUsage: integration.apiUsage,
    });
    const started = now();
    await setState(integration.id, { isWriting: true });
    try {
      const pending = await pendingRecords(db, integration, signature);
      let left = pending.length;
      await setState(integration.id, { pendingCount: left });
      // Nothing changed since the last run: nothing is asked of the vendor at all.
      if (pending.length) await port.check(ctx, fields);
      for (let i = 0; i < pending.length; i += port.batchSize) {
        if (now() - started > RUN_BUDGET_MS) {
          // Resumable by construction: the next run counts again and goes on from here.
          await queue.send(AD_FIELDS_JOB, job, { singletonKey: String(integration.id), ...jobOptions });
          break;
        }
        const batch = pending.slice(i, i + port.batchSize);
        const items: AdFieldWrite[] = batch.map((r) => ({
          recordId: r.recordId,
          ...(r.token ? adUrls(deps.publicUrl, r.token) : neutralAdUrls(deps.publicUrl)),
        }));
        const results = await port.write(ctx, fields, items);
        const refused = new Map(results.flatMap((r) => (r.ok ? [] : [[r.recordId, r.reason] as const])));
        left -= batch.length;
        await db.transaction(async (tx) => {
          await recordWritten(
            tx,
            ref,
            signature,
            batch.map((r) => ({ ...r, failedReason: refused.get(r.recordId) ?? null })),
          );
          await tx
            .update(adFieldSettings)
            .set({ pendingCount: left, lastWrittenAt: new Date(), updatedAt: new Date() })
            .where(eq(adFieldSettings.integrationId, integration.id));
        });
      }
      await setState(integration.id, { isWriting: false, lastError: null });
      log.info({ integrationId: integration.id, pending: pending.length }, 'ad fields written');
    } catch (err) {
      if (err instanceof AdFieldsError || err instanceof VendorAuthError) {
        // Nothing a retry can fix until the owner acts: said on the connection, not retried.
        await setState(integration.id, { isWriting: false, lastError: err.message });
        return;
      }
      await setState(integration.id, {
        isWriting: false,
        lastError: plain(`The last write failed and will be retried: ${(err as Error).message}`),
      });
      throw err;
    }
  }

  return {
    run,
    register() {
      // One run per connection at a time, one more queued behind it ('stately' per singleton key).
      queue.register<AdFieldsJob>(AD_FIELDS_JOB, (data) => run(data), {
        policy: 'stately',
        retryLimit: 5,
        retryBackoff: true,
        expireInSeconds: 2 * 3600,
        ...jobOptions,
      });
    },
    /** Queues a run for the connection (a run already queued absorbs it). */
    async request(integrationId: number): Promise<void> {
      await queue.send(
        AD_FIELDS_JOB,
        { integrationId },
        { singletonKey: String(integrationId), ...jobOptions },
      );
    },
    /**
     * After any sync of a client: every connection of that client with writing on may have new
     * targets to write (a sequence sync brings targets that CRM contacts match too).
     */
    async afterSync(integrationId: number): Promise<void> {
      const due = await db
        .select({ id: adFieldSettings.integrationId })
        .from(adFieldSettings)
        .innerJoin(integrations, eq(integrations.clientId, adFieldSettings.clientId))
        .where(
          and(
            eq(integrations.id, integrationId),
            eq(adFieldSettings.enabled, true),
            isNotNull(adFieldSettings.imageField),
            isNotNull(adFieldSettings.clickField),
          ),
        );
      for (const r of due) await this.request(r.id);
    },
  };
}

export type AdFieldsWriter = ReturnType<typeof createAdFieldsWriter>;
