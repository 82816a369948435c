import { eq, isNotNull } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { askPeriodically } from '../../lib/periodic-job.ts';
import type { Db } from '../../db/client.ts';
import { samlConfigs } from '../../db/schema/index.ts';
import { GuardedFetchError, fetchErrorMessage, guardedFetch } from '../../lib/guarded-fetch.ts';
import { recordAudit } from '../audit/index.ts';
import { describeCertificate, parseIdpMetadata } from './idp-metadata.ts';
import type { IdpMetadata } from './idp-metadata.ts';

export const SAML_METADATA_JOB = 'saml.metadata_refresh';
const METADATA_MAX_BYTES = 1024 * 1024;
const ASK_EVERY_MS = 24 * 3_600_000;
/** Not at start: a fresh server (or a test's app) is not fetching while it starts. */
const FIRST_ASK_MS = 15 * 60_000;

/**
 * An identity provider's metadata from its URL, through the guarded fetcher (issue 20: never an
 * internal address unless allowed, 10 s, 1 MiB), or why not (a sentence for the owner).
 */
export async function fetchIdpMetadata(url: string, allowPrivate: boolean): Promise<IdpMetadata | string> {
  let xml: string;
  try {
    const res = await guardedFetch(
      url,
      { headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml' } },
      { allowPrivate, timeoutMs: 10_000, maxBytes: METADATA_MAX_BYTES },
    );
    if (!res.ok) return `answered ${res.status}, not the metadata`;
    xml = await res.text();
  } catch (err) {
    if (err instanceof GuardedFetchError) return fetchErrorMessage(err);
    throw err;
  }
  const parsed = parseIdpMetadata(xml);
  return typeof parsed === 'string' ? `the metadata there ${parsed}` : parsed;
}

export type RefreshTotals = { checked: number; changed: number; failed: number };

/**
 * Fetches again the metadata of every client whose identity provider was set by URL, and takes
 * what it lists now: a new signing certificate is trusted from now on, an old one as long as it is
 * still listed (rotation), and the sign-on and logout URLs and WantAuthnRequestsSigned follow. A
 * failure keeps the last good metadata and records the error for the settings screen. Another
 * entity ID is not taken: that changes who vouches for members, which an owner decides by saving
 * (members are then e-mailed, decision 0035).
 */
export async function refreshSamlMetadata(db: Db, allowPrivate: boolean): Promise<RefreshTotals> {
  const rows = await db.select().from(samlConfigs).where(isNotNull(samlConfigs.metadataUrl));
  const totals: RefreshTotals = { checked: 0, changed: 0, failed: 0 };
  for (const row of rows) {
    if (!row.metadataUrl) continue;
    totals.checked++;
    const now = new Date();
    let got = await fetchIdpMetadata(row.metadataUrl, allowPrivate).catch((err: unknown) =>
      err instanceof Error ? err.message : String(err),
    );
    if (typeof got !== 'string' && got.entityId !== row.idpEntityId) {
      got = `now names another entity ID (${got.entityId}); save the settings to accept it`;
    }
    if (typeof got === 'string') {
      totals.failed++;
      await db
        .update(samlConfigs)
        .set({ metadataCheckedAt: now, metadataError: got.slice(0, 500) })
        .where(eq(samlConfigs.clientId, row.clientId));
      continue;
    }
    const next = {
      certificates: got.certificates,
      ssoUrl: got.ssoUrl,
      sloUrl: got.sloUrl,
      idpWantsSignedRequests: got.wantsSignedRequests,
    };
    const fields = (Object.keys(next) as (keyof typeof next)[]).filter(
      (k) => JSON.stringify(row[k]) !== JSON.stringify(next[k]),
    );
    await db
      .update(samlConfigs)
      .set({ ...next, metadataFetchedAt: now, metadataCheckedAt: now, metadataError: null })
      .where(eq(samlConfigs.clientId, row.clientId));
    if (fields.length === 0) continue;
    totals.changed++;
    const fingerprints = (list: string[]) => list.map((c) => describeCertificate(c).fingerprint);
    const before = fingerprints(row.certificates);
    const after = fingerprints(got.certificates);
    await recordAudit(db, {
      clientId: row.clientId,
      actor: null,
      action: 'sso.metadata_refreshed',
      target: { kind: 'sso', id: row.clientId },
      details: {
        protocol: 'saml',
        fields,
        certificates_added: after.filter((f) => !before.includes(f)),
        certificates_removed: before.filter((f) => !after.includes(f)),
      },
    });
  }
  return totals;
}

/**
 * The daily re-fetch as a queue job: one queued or running at a time (exclusive), asked for a
 * quarter of an hour after start and then daily where job workers run; call before the queue starts.
 */
export function setupSamlMetadataRefresh(app: FastifyInstance, opts: { workers?: boolean } = {}): void {
  app.queue.register(
    SAML_METADATA_JOB,
    async () => {
      const totals = await refreshSamlMetadata(app.db, app.config.allowPrivateFetch);
      app.log.info(totals, 'SAML metadata refresh');
    },
    { policy: 'exclusive', retryLimit: 0 },
  );
  askPeriodically(app, {
    job: SAML_METADATA_JOB,
    label: 'SAML metadata refresh',
    firstMs: FIRST_ASK_MS,
    everyMs: ASK_EVERY_MS,
    workers: opts.workers,
  });
}
