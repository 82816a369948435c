import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { integrations } from '../../db/schema/index.ts';
import { createSecretBox } from '../../lib/crypto.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient } from '../../../test/http.ts';

describe('CRM syncs asked for on a schedule (issue 16)', async () => {
  // No workers: the queued jobs stay queued, so only the asking is seen.
  const app = await createTestApp({ workers: false });
  const sealed = createSecretBox(app.config.appSecret).encrypt(
    JSON.stringify({
      kind: 'oauth',
      accessToken: 'a',
      refreshToken: 'r',
      expiresAt: null,
      instanceUrl: null,
    }),
  );
  const hour = 3_600_000;

  it('queues connected CRMs whose last sync is older than the age given, once, and nothing else', async () => {
    const [a, b, c, d, e] = await Promise.all([1, 2, 3, 4, 5].map((i) => makeClient(app, `Client ${i}`)));
    const rows = await app.db
      .insert(integrations)
      .values([
        {
          clientId: a!,
          source: 'salesforce',
          credentialsEnc: sealed,
          lastSyncedAt: new Date(Date.now() - 2 * hour),
        },
        { clientId: b!, source: 'hubspot', credentialsEnc: sealed, lastSyncedAt: null },
        // Fresh, the demo connection (no credentials), inactive, and a sequence platform: left alone.
        { clientId: c!, source: 'salesforce', credentialsEnc: sealed, lastSyncedAt: new Date() },
        { clientId: d!, source: 'salesforce', credentialsEnc: null, lastSyncedAt: null },
        { clientId: e!, source: 'salesforce', credentialsEnc: sealed, isActive: false },
        { clientId: a!, source: 'salesloft', credentialsEnc: sealed, lastSyncedAt: null },
      ])
      .returning();
    expect(await app.crmSync.requestDue(hour)).toBe(2);
    // Already syncing: not queued twice.
    expect(await app.crmSync.requestDue(hour)).toBe(0);
    const syncing = await app.db.select().from(integrations).where(eq(integrations.isSyncing, true));
    expect(syncing.map((r) => r.id).sort()).toEqual([rows[0]!.id, rows[1]!.id].sort());
  });
});
