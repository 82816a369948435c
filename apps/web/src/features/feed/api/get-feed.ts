import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { InfiniteData, QueryClient } from '@tanstack/react-query';
import { feedPageReply, feedSummaryReply } from '@rally/shared/schemas/feed';
import type { FeedItem, FeedItemType, FeedPageReply } from '@rally/shared/schemas/feed';
import { apiRequest } from '../../../lib/api-client.ts';

export const FEED_PAGE_SIZE = 20;

type PageParam = { page: number; untilId: number | null };

/**
 * GET /sc/dashboard/feed/data, page after page ("Load more"). Later pages are asked `until_id` the
 * newest item of page 1, so live items prepended above do not shift them. The stream keeps the list
 * current, so it is never refetched by itself.
 */
export const getFeedPagesQueryOptions = (clientId: string, type: FeedItemType | null) =>
  infiniteQueryOptions({
    queryKey: ['feed', clientId, 'data', type ?? 'all'],
    initialPageParam: { page: 1, untilId: null } as PageParam,
    queryFn: ({ pageParam, signal }) =>
      apiRequest('/sc/dashboard/feed/data', {
        query: {
          page: pageParam.page,
          page_size: FEED_PAGE_SIZE,
          type: type ?? undefined,
          until_id: pageParam.untilId ?? undefined,
        },
        schema: feedPageReply,
        signal,
        clientId,
      }),
    getNextPageParam: (last, all, lastParam): PageParam | undefined =>
      last.has_more
        ? { page: lastParam.page + 1, untilId: lastParam.untilId ?? all[0]?.items[0]?.id ?? null }
        : undefined,
    staleTime: Infinity,
  });

export const useFeedPages = (clientId: string, type: FeedItemType | null) =>
  useInfiniteQuery(getFeedPagesQueryOptions(clientId, type));

/** Puts a live item at the top of every loaded list it belongs to (once). */
export function prependFeedItem(queryClient: QueryClient, clientId: string, item: FeedItem): void {
  for (const type of [null, item.type] as const) {
    queryClient.setQueryData<InfiniteData<FeedPageReply, PageParam>>(
      getFeedPagesQueryOptions(clientId, type).queryKey,
      (data) => {
        const first = data?.pages[0];
        if (!data || !first) return data;
        if (data.pages.some((p) => p.items.some((i) => i.id === item.id))) return data;
        return {
          ...data,
          pages: [
            { ...first, items: [item, ...first.items], total: first.total + 1 },
            ...data.pages.slice(1),
          ],
        };
      },
    );
  }
}

/** GET /sc/dashboard/feed: items of each type in the last 7 days (the filter's counts). */
export const getFeedSummaryQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: ['feed', clientId, 'summary'],
    queryFn: ({ signal }) => apiRequest('/sc/dashboard/feed', { schema: feedSummaryReply, signal, clientId }),
  });

export const useFeedSummary = (clientId: string) => useQuery(getFeedSummaryQueryOptions(clientId));
