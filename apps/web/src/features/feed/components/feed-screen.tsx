import { useState } from 'react';
import { useThrottledCallback } from '@mantine/hooks';
import {
  Anchor,
  Badge,
  Button,
  Group,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  ThemeIcon,
  Title,
  Tooltip,
} from '@mantine/core';
import {
  IconActivity,
  IconArrowDownRight,
  IconArrowUpRight,
  IconClick,
  IconEye,
  IconFileImport,
  IconRefresh,
  IconRoute,
  IconStarFilled,
} from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { formatDayTime, relativeTime } from '@rally/shared';
import { FEED_ITEM_TYPES } from '@rally/shared/schemas/feed';
import type { FeedItem, FeedItemType } from '@rally/shared/schemas/feed';
import { SOURCE_LABELS } from '@rally/shared/schemas/integrations';
import { AbbreviatedNumber } from '../../../components/abbreviated-number.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { UncountedNote } from '../../../components/uncounted-note.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import {
  getFeedSummaryQueryOptions,
  prependFeedItem,
  useFeedPages,
  useFeedSummary,
} from '../api/get-feed.ts';
import {
  getEngagementLastQueryOptions,
  getSuperTodayQueryOptions,
  useEngagementLast,
  useSuperToday,
} from '../api/get-headlines.ts';
import { useFeedStream } from '../hooks/use-feed-stream.ts';
import type { StreamState } from '../hooks/use-feed-stream.ts';
import { useNow } from '../hooks/use-now.ts';
import { RequiredAttentions } from './required-attentions.tsx';
import { SetupChecklist } from './setup-checklist.tsx';

/** Headline cards are asked again at most this often while live items pour in. */
const HEADLINE_THROTTLE_MS = 5000;

const FILTERS: { value: FeedItemType | 'all'; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'super', label: 'Superprospects' },
  { value: 'click', label: 'Clicks' },
  { value: 'view', label: 'Views' },
  { value: 'sync', label: 'Syncs' },
  { value: 'import', label: 'Imports' },
];

/** /feed: what happened with the client's prospects, newest first, as it happens. */
export function FeedScreen() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  if (!clientId) return <ScreenLoader />;
  return <Feed key={clientId} clientId={clientId} />;
}

function Feed({ clientId }: { clientId: string }) {
  const auth = useAuth();
  const queryClient = useQueryClient();
  const now = useNow();
  const [type, setType] = useState<FeedItemType | null>(null);
  // At most one refresh of the headline cards per window, and one more at its end for what arrived
  // meanwhile, so the last item of a burst is always in them.
  const refreshHeadlines = useThrottledCallback(() => {
    for (const q of [getSuperTodayQueryOptions, getEngagementLastQueryOptions, getFeedSummaryQueryOptions])
      void queryClient.invalidateQueries({ queryKey: q(clientId).queryKey });
  }, HEADLINE_THROTTLE_MS);
  const stream = useFeedStream(clientId, (item) => {
    prependFeedItem(queryClient, clientId, item);
    refreshHeadlines();
  });
  const summary = useFeedSummary(clientId);
  const counts = summary.data?.last_7_days;

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={1}>Feed</Title>
          <Text c="dimmed">New superprospects, ad clicks, landing page views and syncs, as they happen.</Text>
        </div>
        <LiveBadge state={stream} />
      </Group>
      <SetupChecklist clientId={clientId} />
      <RequiredAttentions
        clientId={clientId}
        enabled={auth.currentRole?.permissions.includes('reports.read') ?? false}
      />
      <HeadlineCards clientId={clientId} now={now} />
      <Group justify="space-between" wrap="wrap">
        <SegmentedControl
          aria-label="Show"
          data={FILTERS.map((f) => ({
            value: f.value,
            label: f.value !== 'all' && counts?.[f.value] ? `${f.label} ${counts[f.value]}` : f.label,
          }))}
          value={type ?? 'all'}
          onChange={(v) =>
            setType((FEED_ITEM_TYPES as readonly string[]).includes(v) ? (v as FeedItemType) : null)
          }
        />
        {counts && (
          <Text size="xs" c="dimmed">
            Counts of the last 7 days
          </Text>
        )}
      </Group>
      <ActivityList clientId={clientId} type={type} now={now} />
    </Stack>
  );
}

function LiveBadge({ state }: { state: StreamState }) {
  const look = {
    live: { color: 'teal', label: 'Live', tip: 'New activity appears here as it happens.' },
    connecting: { color: 'gray', label: 'Connecting…', tip: 'Connecting to live updates.' },
    reconnecting: { color: 'yellow', label: 'Reconnecting…', tip: 'Live updates dropped; reconnecting.' },
    closed: { color: 'gray', label: 'Not live', tip: 'Reload the page to follow new activity.' },
  }[state];
  return (
    <Tooltip label={look.tip} withArrow>
      <Badge color={look.color} variant="dot" size="lg" aria-live="polite">
        {look.label}
      </Badge>
    </Tooltip>
  );
}

/** The change from `before` to `now`; `unit` names the period compared with ('' to say it once elsewhere). */
function Delta({ now, before, unit }: { now: number; before: number; unit: string }) {
  const vs = unit ? ` vs ${unit}` : '';
  if (now === before)
    return (
      <Text size="xs" c="dimmed">
        {unit ? `same as ${unit}` : 'no change'}
      </Text>
    );
  const up = now > before;
  const Icon = up ? IconArrowUpRight : IconArrowDownRight;
  return (
    <Group gap={2} wrap="nowrap">
      <Icon size={14} color={`var(--mantine-color-${up ? 'teal' : 'red'}-6)`} />
      <Text size="xs" c={up ? 'teal' : 'red'}>
        {up ? '+' : '−'}
        {Math.abs(now - before)}
        {vs}
      </Text>
    </Group>
  );
}

function Card({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Paper withBorder radius="md" p="md">
      <Text size="xs" tt="uppercase" fw={700} c="dimmed">
        {title}
      </Text>
      {children}
    </Paper>
  );
}

function HeadlineCards({ clientId, now }: { clientId: string; now: Date }) {
  const supers = useSuperToday(clientId);
  const engagement = useEngagementLast(clientId);
  const failed = (what: string, retry: () => void) => (
    <Group gap="xs" mt="xs">
      <Text size="sm" c="red">
        Could not load {what}.
      </Text>
      <Button size="compact-xs" variant="subtle" onClick={retry}>
        Try again
      </Button>
    </Group>
  );
  const e = engagement.data;
  return (
    <SimpleGrid cols={{ base: 1, sm: 3 }}>
      <Card title="New superprospects today">
        {supers.isPending ? (
          <Skeleton h={44} mt="xs" />
        ) : supers.isError ? (
          failed('superprospects', () => void supers.refetch())
        ) : (
          <Stack gap={2} mt={4}>
            <Text fz={32} fw={700} lh={1.1} aria-label="New superprospects today">
              <AbbreviatedNumber value={supers.data.count} />
            </Text>
            <Delta now={supers.data.count} before={supers.data.yesterday} unit="yesterday" />
          </Stack>
        )}
      </Card>
      <Card title="Engagement, last 7 days">
        {engagement.isPending ? (
          <Skeleton h={44} mt="xs" />
        ) : engagement.isError || !e ? (
          failed('engagement', () => void engagement.refetch())
        ) : (
          <SimpleGrid cols={3} spacing="xs" mt={4}>
            {(
              [
                ['Impressions', e.impressions, e.previous.impressions],
                ['Clicks', e.clicks, e.previous.clicks],
                ['Views', e.views, e.previous.views],
              ] as const
            ).map(([label, value, before]) => (
              <Stack gap={0} key={label}>
                <Text fz={22} fw={700} lh={1.2}>
                  <AbbreviatedNumber value={value} />
                </Text>
                <Text size="xs" c="dimmed">
                  {label}
                </Text>
                <Delta now={value} before={before} unit="" />
              </Stack>
            ))}
          </SimpleGrid>
        )}
        {e && (
          <Text size="xs" c="dimmed" mt={6}>
            Changes against the 7 days before
          </Text>
        )}
        {e && <UncountedNote summary={e.uncounted} ariaLabel="Not counted, last 7 days" mt={6} />}
      </Card>
      <Card title="Last engagement">
        {engagement.isPending ? (
          <Skeleton h={44} mt="xs" />
        ) : engagement.isError || !e ? (
          failed('engagement', () => void engagement.refetch())
        ) : e.last_event ? (
          <Stack gap={2} mt={4}>
            <Tooltip label={formatDayTime(e.last_event.at)}>
              <Text fz={22} fw={700} lh={1.2}>
                {relativeTime(e.last_event.at, now)}
              </Text>
            </Tooltip>
            <Text size="sm" c="dimmed" lineClamp={2}>
              {e.last_event.type === 'impression'
                ? 'Ad seen'
                : e.last_event.type === 'click'
                  ? 'Ad clicked'
                  : 'Landing page viewed'}
              {e.last_event.prospect_name ? ` by ${e.last_event.prospect_name}` : ''}
              {e.last_event.cadence_name ? ` · ${e.last_event.cadence_name}` : ''}
            </Text>
          </Stack>
        ) : (
          <Text size="sm" c="dimmed" mt="xs">
            No engagement yet. Switch ads on for a cadence to start.
          </Text>
        )}
      </Card>
    </SimpleGrid>
  );
}

function ActivityList({ clientId, type, now }: { clientId: string; type: FeedItemType | null; now: Date }) {
  const feed = useFeedPages(clientId, type);
  if (feed.isPending) return <PanelLoading label="Loading activity" />;
  if (feed.isError)
    return <PanelError error={feed.error} what="the feed" onRetry={() => void feed.refetch()} />;
  const items = feed.data.pages.flatMap((p) => p.items);
  if (items.length === 0)
    return (
      <Paper withBorder radius="md" p="xl">
        <Stack align="center" gap="xs">
          <IconActivity size={32} stroke={1.5} />
          <Text fw={600}>{type ? 'Nothing of this kind yet' : 'No activity yet'}</Text>
          <Text size="sm" c="dimmed" ta="center" maw={460}>
            New superprospects, ad clicks, landing page views and finished syncs show up here as they happen.
          </Text>
        </Stack>
      </Paper>
    );
  return (
    <Stack gap="sm">
      <Paper withBorder radius="md">
        <Stack
          gap={0}
          component="ul"
          aria-label="Activity"
          style={{ listStyle: 'none', margin: 0, padding: 0 }}
        >
          {items.map((item, i) => (
            <FeedRow key={item.id} item={item} now={now} divider={i > 0} clientId={clientId} />
          ))}
        </Stack>
      </Paper>
      {feed.hasNextPage && (
        <Group justify="center">
          <Button
            variant="default"
            loading={feed.isFetchingNextPage}
            onClick={() => void feed.fetchNextPage()}
          >
            Load more
          </Button>
        </Group>
      )}
    </Stack>
  );
}

const ICONS: Record<FeedItemType, { icon: typeof IconClick; color: string }> = {
  super: { icon: IconStarFilled, color: 'indigo' },
  click: { icon: IconClick, color: 'blue' },
  view: { icon: IconEye, color: 'teal' },
  sync: { icon: IconRefresh, color: 'gray' },
  import: { icon: IconFileImport, color: 'grape' },
  journey: { icon: IconRoute, color: 'orange' },
};

const num = (v: unknown) => (typeof v === 'number' ? v : null);
const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The item's sentence: who did what, and the line of context under it. */
export function describeFeedItem(item: FeedItem): { headline: string; context: string } {
  const who = item.prospect_name ?? 'A prospect';
  const context = [item.company_name, item.cadence_name, item.sales_rep_name && `rep ${item.sales_rep_name}`]
    .filter(Boolean)
    .join(' · ');
  switch (item.type) {
    case 'super': {
      const why =
        item.detail.reason === 'click'
          ? 'after an ad click'
          : num(item.detail.impressions) !== null
            ? `after ${num(item.detail.impressions)} impressions`
            : '';
      return { headline: `${who} became a superprospect${why ? ` ${why}` : ''}`, context };
    }
    case 'click':
      return { headline: `${who} clicked an ad`, context };
    case 'view':
      return { headline: `${who} viewed the landing page`, context };
    case 'sync': {
      const source =
        typeof item.detail.source === 'string'
          ? (SOURCE_LABELS[item.detail.source] ?? item.detail.source)
          : 'Sync';
      const cadences = num(item.detail.cadences);
      const targets = num(item.detail.targets);
      return {
        headline: `${source} sync finished${item.cadence_name ? `: ${item.cadence_name}` : ''}`,
        context: [
          cadences !== null && `${cadences} cadences`,
          targets !== null && `${targets} prospects in cadences`,
        ]
          .filter(Boolean)
          .join(' · '),
      };
    }
    case 'import': {
      const file = typeof item.detail.file_name === 'string' ? item.detail.file_name : 'A file';
      const rows = num(item.detail.imported_rows);
      const errors = num(item.detail.error_rows);
      return {
        headline: `${file} imported`,
        context: [
          rows !== null && `${count(rows, 'row', 'rows')} imported`,
          errors ? `${count(errors, 'row', 'rows')} with errors` : null,
        ]
          .filter(Boolean)
          .join(' · '),
      };
    }
    case 'journey': {
      const account = item.company_name ?? 'An account';
      const to = typeof item.detail.to_stage === 'string' ? item.detail.to_stage : 'a later stage';
      const from = typeof item.detail.from_stage === 'string' ? item.detail.from_stage : null;
      const journey = typeof item.detail.journey === 'string' ? item.detail.journey : null;
      return {
        headline: `${account} moved to ${to}${from ? ` from ${from}` : ''}`,
        context: [journey && `journey ${journey}`, item.cadence_name].filter(Boolean).join(' · '),
      };
    }
  }
}

/**
 * Where a feed row leads (issue 42 item 7: every name opens its record): the prospect's drawer, the
 * journey an account moved in, or the cadence a sync or import filled; null when there is none.
 */
export function feedItemLink(item: FeedItem, clientId: string): string | null {
  const c = `client_id=${encodeURIComponent(clientId)}`;
  if (item.prospect_id) return `/prospects?${c}&prospect=${encodeURIComponent(item.prospect_id)}`;
  const cohortId = item.detail.cohort_id;
  if (item.type === 'journey' && typeof cohortId === 'string')
    return `/cohorts/${encodeURIComponent(cohortId)}/journey/view?${c}`;
  // A journey's cadence is its cohort's hidden one, which has no screen of its own.
  if (item.cadence_id !== null && item.type !== 'journey') return `/cadence/${item.cadence_id}?${c}`;
  return null;
}

function FeedRow({
  item,
  now,
  divider,
  clientId,
}: {
  item: FeedItem;
  now: Date;
  divider: boolean;
  clientId: string;
}) {
  const { icon: Icon, color } = ICONS[item.type];
  const { headline, context } = describeFeedItem(item);
  const to = feedItemLink(item, clientId);
  return (
    <Group
      component="li"
      gap="md"
      wrap="nowrap"
      px="md"
      py="sm"
      data-feed-id={item.id}
      style={divider ? { borderTop: '1px solid var(--mantine-color-default-border)' } : undefined}
    >
      <ThemeIcon color={color} variant="light" radius="xl" size={34}>
        <Icon size={18} />
      </ThemeIcon>
      <Stack gap={0} style={{ flex: 1, minWidth: 0 }}>
        {to ? (
          <Anchor component={Link} to={to} size="sm" fw={600}>
            {headline}
          </Anchor>
        ) : (
          <Text size="sm" fw={600}>
            {headline}
          </Text>
        )}
        {context && (
          <Text size="xs" c="dimmed" truncate>
            {context}
          </Text>
        )}
      </Stack>
      <Tooltip label={formatDayTime(item.created_at)}>
        <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          {relativeTime(item.created_at, now)}
        </Text>
      </Tooltip>
    </Group>
  );
}
