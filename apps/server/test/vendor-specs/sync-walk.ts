import type { AdapterContext, Credentials, Page, SequenceAdapter } from '../../src/modules/integrations/port.ts';

/**
 * What the contract tests record: a sequence adapter's connect (whoami) and first full sync, then
 * an incremental sync from the newest times the first one saw. Answers how many requests the first
 * part sent, so a test can tell the two syncs apart in its proxy's log.
 */
export async function connectAndSyncTwice(
  adapter: SequenceAdapter,
  credentials: Credentials,
  sentSoFar: () => number,
): Promise<{ first: number }> {
  let creds = credentials;
  const ctx: AdapterContext = {
    credentials: () => creds,
    saveCredentials: async (next) => {
      creds = next;
    },
  };
  const drain = async <T extends { updatedAt: string | null }>(pages: AsyncIterable<Page<T>>) => {
    const items: T[] = [];
    for await (const p of pages) items.push(...p.items);
    return items;
  };
  const newest = (items: { updatedAt: string | null }[]) =>
    items.map((i) => i.updatedAt ?? '').reduce((a, b) => (a > b ? a : b), '') || null;

  await adapter.whoami(ctx);
  const users = await drain(adapter.users(ctx, null));
  const cadences = await drain(adapter.cadences(ctx, null));
  const memberships = await drain(adapter.memberships(ctx, null));
  const first = sentSoFar();
  await drain(adapter.users(ctx, newest(users)));
  await drain(adapter.cadences(ctx, newest(cadences)));
  await drain(adapter.memberships(ctx, newest(memberships)));
  return { first };
}
