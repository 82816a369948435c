import type { AdapterContext, CrmAdapter, CrmPage, RemoteList, RemoteListMember } from '../../port.ts';
import { iso, numeric } from './values.ts';

type Post = <T>(ctx: AdapterContext, path: string, body: unknown) => Promise<T>;
type Listing = <T>(ctx: AdapterContext, path: string, q: Record<string, string>) => AsyncGenerator<T[]>;

/** HubSpot contact lists (Lists v3) and their members, for the HubSpot adapter. */
export function hubspotLists(post: Post, listing: Listing): Pick<CrmAdapter, 'lists' | 'listMembers'> {
  return {
    async *lists(ctx: AdapterContext, since: string | null): AsyncGenerator<CrmPage<RemoteList>> {
      // Contact lists (objectTypeId 0-1), read whole (a search page holds 500: lists are few), and
      // only those changed since the cursor are given: a list's definition moves `updatedAt`, its
      // members coming and going move `hs_last_record_added_at` and `hs_last_record_removed_at`
      // (additional properties every list search returns). The newest of the three is the list's
      // time, so the sync re-reads the members of a changed list only (issue 40: every list's
      // members were read again every 30 minutes).
      let offset = 0;
      for (;;) {
        const reply = await post<{
          lists: {
            listId: string;
            name: string;
            objectTypeId: string;
            processingType: string;
            updatedAt?: string;
            filtersUpdatedAt?: string;
            additionalProperties?: Record<string, string | undefined>;
          }[];
          hasMore: boolean;
          offset: number;
          total: number;
        }>(ctx, '/crm/v3/lists/search', {
          // ListSearchRequest requires `additionalProperties`; these three are also its defaults.
          additionalProperties: ['hs_list_size', 'hs_last_record_added_at', 'hs_last_record_removed_at'],
          objectTypeId: '0-1',
          offset,
          count: 500,
        });
        yield {
          total: reply.total,
          items: reply.lists
            .filter((l) => l.objectTypeId === '0-1')
            .map((l): RemoteList => {
              const extra = l.additionalProperties ?? {};
              const times = [
                l.updatedAt,
                l.filtersUpdatedAt,
                extra.hs_last_record_added_at,
                extra.hs_last_record_removed_at,
              ].flatMap((t) => iso(t) ?? []);
              return {
                externalId: String(l.listId),
                name: l.name,
                kind: 'list',
                memberType: 'contact',
                memberCount: numeric(extra.hs_list_size),
                isActive: true,
                updatedAt: times.sort().at(-1) ?? null,
              };
            })
            // Unchanged since the last sync: its members are what Rally holds. A list without any
            // time (none documented as always there) is read each time.
            .filter((l) => !since || !l.updatedAt || l.updatedAt > since),
        };
        if (!reply.hasMore || reply.offset <= offset) return;
        offset = reply.offset;
      }
    },

    async *listMembers(
      ctx: AdapterContext,
      listExternalId: string,
    ): AsyncGenerator<CrmPage<RemoteListMember>> {
      for await (const page of listing<{ recordId: string; membershipTimestamp?: string }>(
        ctx,
        `/crm/v3/lists/${encodeURIComponent(listExternalId)}/memberships`,
        { limit: '250' },
      )) {
        yield {
          total: null,
          items: page.map((m) => ({
            memberExternalId: String(m.recordId),
            status: '',
            addedAt: iso(m.membershipTimestamp),
          })),
        };
      }
    },
  };
}
