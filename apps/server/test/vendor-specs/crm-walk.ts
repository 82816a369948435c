import type { AdapterContext, CrmAdapter, CrmPage, Credentials } from '../../src/modules/crm/port.ts';

/**
 * What the CRM contract tests record: a CRM adapter's sync walked as sync.ts walks it (stages,
 * owners, accounts, contacts, opportunities, deletions, stage history, lists and the members of each
 * list `lists()` gave, activity totals from the contacts read), each phase from the newest time the
 * last walk stored. `syncTwice` answers how many requests each sync sent, for the figures.
 */
export async function crmSyncTwice(
  adapter: CrmAdapter,
  credentials: Credentials,
  sentSoFar: () => number,
  between: () => void | Promise<void> = () => {},
) {
  let creds = credentials;
  const ctx: AdapterContext = {
    credentials: () => creds,
    saveCredentials: async (next) => {
      creds = next;
    },
  };
  const cursor: Record<string, string | null> = {};
  const stored = new Map<string, string>();
  const newest = (a: string | null | undefined, b: string | null | undefined) =>
    !a ? (b ?? null) : !b ? a : a > b ? a : b;
  async function drain<T>(phase: string, pages: AsyncIterable<CrmPage<T>> | undefined, at: (t: T) => string | null) {
    const items: T[] = [];
    if (!pages) return items;
    for await (const p of pages) {
      items.push(...p.items);
      for (const i of p.items) cursor[phase] = newest(cursor[phase], at(i));
      cursor[phase] = newest(cursor[phase], p.cursor);
    }
    return items;
  }
  async function sync() {
    const start = sentSoFar();
    const members: Record<string, number> = {};
    await adapter.stages?.(ctx);
    await drain('owners', adapter.owners(ctx, cursor.owners ?? null), (o) => o.updatedAt);
    await drain('accounts', adapter.accounts?.(ctx, cursor.accounts ?? null), (a) => a.updatedAt);
    const contacts = await drain('contacts', adapter.contacts(ctx, cursor.contacts ?? null), (c) => c.updatedAt);
    for (const c of contacts) stored.set(c.externalId, c.updatedAt ?? '');
    const opportunities = await drain(
      'opportunities',
      adapter.opportunities?.(ctx, cursor.opportunities ?? null),
      (o) => o.updatedAt,
    );
    const since = new Date(Date.now() - 86_400_000).toISOString();
    const deleted = {
      accounts: await drain('-', adapter.deletedAccounts?.(ctx, since), () => null),
      contacts: await drain('-', adapter.deletedContacts?.(ctx, since), () => null),
      opportunities: await drain('-', adapter.deletedOpportunities?.(ctx, since), () => null),
    };
    await drain('history', adapter.stageHistory?.(ctx, cursor.history ?? null), (h) => h.updatedAt);
    const lists = await drain('lists', adapter.lists(ctx, cursor.lists ?? null), (l) => l.updatedAt);
    for (const l of lists) {
      members[l.externalId] = (await drain('-', adapter.listMembers(ctx, l.externalId), () => null)).length;
    }
    const activities = await drain(
      'activities',
      adapter.activityCounts?.(ctx, cursor.activities ?? null, async function* (from) {
        const items = [...stored]
          .map(([externalId, updatedAt]) => ({ externalId, updatedAt }))
          .filter((c) => !from || c.updatedAt >= from)
          .sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : 0));
        yield { items, total: items.length };
      }),
      (a) => a.changedAt,
    );
    return {
      requests: sentSoFar() - start,
      contacts,
      opportunities,
      deleted,
      lists,
      members,
      activities,
    };
  }

  await adapter.whoami(ctx);
  const first = await sync();
  await between();
  const second = await sync();
  return { ctx, first, second };
}
