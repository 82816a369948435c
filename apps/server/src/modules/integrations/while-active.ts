import { and, eq } from 'drizzle-orm';
import { integrations } from '../../db/schema/index.ts';
import type { Tx } from './store.ts';

/**
 * A sync's writes to its connection (its end, progress, retry message, refreshed tokens) land only
 * while the connection is active: a disconnect made while the sync ran keeps its state, its message
 * ("Disconnected. Connect again to resume syncing.") and its forgotten credentials. A sync that ended
 * after a disconnect cleared that message in an end-to-end run. Shared by the sequence and CRM syncs.
 */
export function whileActive(integrationId: number) {
  return and(eq(integrations.id, integrationId), eq(integrations.isActive, true));
}

/**
 * Ends a sync with `set` while the connection is active; after a disconnect only the sync's own
 * flags are cleared, so the card stops showing it as running.
 */
export async function endSync(
  db: Pick<Tx, 'update'>,
  integrationId: number,
  set: Partial<typeof integrations.$inferInsert>,
): Promise<void> {
  const [ended] = await db
    .update(integrations)
    .set(set)
    .where(whileActive(integrationId))
    .returning({ id: integrations.id });
  if (!ended)
    await db
      .update(integrations)
      .set({ isSyncing: false, syncProgress: null })
      .where(eq(integrations.id, integrationId));
}
