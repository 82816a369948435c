import type { Integration } from '@rally/shared/schemas/auth';
import type { integrations } from '../../db/schema/index.ts';
import { maskUrlsIn } from '../../lib/mask-url.ts';

/** An integration as the API shows it: SPEC.md §3's fields plus sync state; never credentials. */
export function toIntegrationReply(r: typeof integrations.$inferSelect): Integration {
  return {
    client_id: r.clientId,
    created_at: r.createdAt.toISOString(),
    id: r.id,
    is_active: r.isActive,
    source: r.source,
    updated_at: r.updatedAt.toISOString(),
    account_name: r.accountName,
    // A vendor's error may quote a URL with its key (issue 37).
    last_error: r.lastError === null ? null : maskUrlsIn(r.lastError),
    access_note: r.accessNote,
    // Active with nothing to sync with: the demo's sample connection (files have no credentials).
    is_demo: r.isActive && r.source !== 'fileforce' && r.credentialsEnc === null,
    api_usage: r.apiUsage ?? null,
    is_syncing: r.isSyncing,
    last_synced_at: r.lastSyncedAt?.toISOString() ?? null,
    sync_progress: r.syncProgress ?? null,
  };
}
