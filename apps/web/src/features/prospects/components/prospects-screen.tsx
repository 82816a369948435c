import { useEffect, useMemo, useState } from 'react';
import {
  Alert,
  Anchor,
  Avatar,
  Badge,
  Button,
  Group,
  Loader,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import {
  IconChevronDown,
  IconChevronLeft,
  IconChevronRight,
  IconChevronUp,
  IconSearch,
  IconSelector,
  IconUsersGroup,
} from '@tabler/icons-react';
import { Link, useSearchParams } from 'react-router';
import { formatDay } from '@rally/shared';
import { DEFAULT_PROSPECT_ORDER, PROSPECT_PAGE_SIZES, PROSPECT_SORTS } from '@rally/shared/schemas/prospects';
import type { Prospect, ProspectSort, SortOrder } from '@rally/shared/schemas/prospects';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useCadenceOptions, useRepOptions } from '../api/get-filter-options.ts';
import { useProspect } from '../api/get-prospect.ts';
import { useProspects } from '../api/get-prospects.ts';
import type { ProspectListParams } from '../api/get-prospects.ts';
import { ProspectDrawer } from './prospect-drawer.tsx';

/** Search waits for a pause in typing, so each keystroke is not a request. */
export const SEARCH_DEBOUNCE_MS = 300;

export const personName = (p: Pick<Prospect, 'first_name' | 'last_name' | 'email'>) =>
  `${p.first_name} ${p.last_name}`.trim() || p.email || 'Unnamed prospect';

/** The latest super_date of a prospect's cadence entries (the super_date sort's key). */
export const latestSuper = (p: Prospect) =>
  p.cadences.reduce<string | null>(
    (max, c) => (c.super_date && (!max || c.super_date > max) ? c.super_date : max),
    null,
  );

/** The most impressions in one cadence. */
export const topImpressions = (p: Prospect) => Math.max(0, ...p.cadences.map((c) => c.impressions));

/**
 * The impressions the row shows. Under the impressions sort, those of the cadence entry that placed
 * the row (`target_id`: with a cadence or rep filter, the best matching entry), so the column reads
 * in the order of the sort even when another entry, such as a cohort's, has more; otherwise the most
 * in one cadence.
 */
export const shownImpressions = (p: Prospect, sort: ProspectSort) =>
  (sort === 'impressions' ? p.cadences.find((c) => c.target_id === p.target_id)?.impressions : undefined) ??
  topImpressions(p);

const yesNo = (v: string | null) => (v === 'true' ? true : v === 'false' ? false : null);

/** The list's state lives in the URL, so a search can be shared and Back returns to it. */
function useListParams(): [ProspectListParams, (next: Partial<ProspectListParams>) => void] {
  const [search, setSearch] = useSearchParams();
  const sortParam = search.get('sort');
  const sort: ProspectSort = (PROSPECT_SORTS as readonly string[]).includes(sortParam ?? '')
    ? (sortParam as ProspectSort)
    : 'name';
  const orderParam = search.get('order');
  const order: SortOrder =
    orderParam === 'asc' || orderParam === 'desc' ? orderParam : DEFAULT_PROSPECT_ORDER[sort];
  const size = Number(search.get('page_size'));
  const cadence = Number(search.get('cadence_id'));
  const params: ProspectListParams = {
    search: search.get('q') ?? '',
    sort,
    order,
    cadenceId: Number.isInteger(cadence) && cadence > 0 ? cadence : null,
    salesRepId: search.get('sales_rep_id'),
    isSuper: yesNo(search.get('super')),
    isActive: yesNo(search.get('active')),
    pageSize: (PROSPECT_PAGE_SIZES as readonly number[]).includes(size) ? size : 50,
  };
  const update = (next: Partial<ProspectListParams>) =>
    setSearch(
      (prev) => {
        const q = new URLSearchParams(prev);
        const merged = { ...params, ...next };
        const set = (key: string, value: string | null, fallback: string | null = null) => {
          if (value === null || value === '' || value === fallback) q.delete(key);
          else q.set(key, value);
        };
        set('q', merged.search.trim());
        set('sort', merged.sort, 'name');
        set('order', merged.order, DEFAULT_PROSPECT_ORDER[merged.sort]);
        set('cadence_id', merged.cadenceId === null ? null : String(merged.cadenceId));
        set('sales_rep_id', merged.salesRepId);
        set('super', merged.isSuper === null ? null : String(merged.isSuper));
        set('active', merged.isActive === null ? null : String(merged.isActive));
        set('page_size', String(merged.pageSize), '50');
        return q;
      },
      { replace: true },
    );
  return [params, update];
}

/** /prospects: everyone in the client's cadences, searched, filtered and sorted, a page at a time. */
export function ProspectsScreen() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  if (!clientId) return <ScreenLoader />;
  return (
    <Stack gap="lg">
      <div>
        <Title order={1}>Prospects</Title>
        <Text c="dimmed">
          Everyone in your cadences, with the ads they have seen and when they became superprospects.
        </Text>
      </div>
      <ProspectList clientId={clientId} />
    </Stack>
  );
}

function ProspectList({ clientId }: { clientId: string }) {
  const [params, setParams] = useListParams();
  const [text, setText] = useState(params.search);
  const [debounced] = useDebouncedValue(text, SEARCH_DEBOUNCE_MS);
  useEffect(() => {
    if (debounced.trim() !== params.search) setParams({ search: debounced });
    // Only a settled search updates the URL; the URL changing elsewhere must not loop back.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [debounced]);

  // Cursors of the pages seen, for Previous; a new search, filter or sort starts again at page 1.
  const key = JSON.stringify(params);
  const [pager, setPager] = useState<{ key: string; cursors: (string | null)[] }>({ key, cursors: [null] });
  const cursors = pager.key === key ? pager.cursors : [null];
  const cursor = cursors.at(-1) ?? null;
  const list = useProspects(clientId, params, cursor);
  // `?prospect={id}` opens that prospect's drawer (the global search links here); a row opened by
  // hand gives way when the link changes.
  const [address, setAddress] = useSearchParams();
  const linkedId = address.get('prospect');
  const linked = useProspect(clientId, linkedId);
  const [picked, setPicked] = useState<{ prospect: Prospect; linkedId: string | null } | null>(null);
  const open = picked?.linkedId === linkedId ? picked.prospect : null;
  const setOpen = (prospect: Prospect | null) => setPicked(prospect ? { prospect, linkedId } : null);
  const shown = open ?? (linkedId ? (linked.data ?? null) : null);
  const closeDrawer = () => {
    setOpen(null);
    if (linkedId)
      setAddress(
        (prev) => {
          const next = new URLSearchParams(prev);
          next.delete('prospect');
          return next;
        },
        { replace: true },
      );
  };

  const filtered =
    params.search !== '' ||
    params.cadenceId !== null ||
    params.salesRepId !== null ||
    params.isSuper !== null ||
    params.isActive !== null;
  const sortBy = (sort: ProspectSort) =>
    setParams({
      sort,
      order: params.sort === sort ? (params.order === 'asc' ? 'desc' : 'asc') : DEFAULT_PROSPECT_ORDER[sort],
    });

  let body: React.ReactNode;
  if (list.isPending) body = <PanelLoading label="Loading prospects" />;
  else if (list.isError)
    body = <PanelError error={list.error} what="prospects" onRetry={() => void list.refetch()} />;
  else if (list.data.items.length === 0 && cursors.length === 1)
    body = filtered ? (
      <Paper withBorder radius="md" p="xl">
        <Stack align="center" gap="xs">
          <IconSearch size={32} stroke={1.5} />
          <Text fw={600}>No prospects match</Text>
          <Text size="sm" c="dimmed" ta="center">
            Nobody matches this search and these filters.
          </Text>
          <Button
            variant="light"
            mt="xs"
            onClick={() => {
              setText('');
              setParams({ search: '', cadenceId: null, salesRepId: null, isSuper: null, isActive: null });
            }}
          >
            Clear search and filters
          </Button>
        </Stack>
      </Paper>
    ) : (
      <Paper withBorder radius="md" p="xl">
        <Stack align="center" gap="xs">
          <IconUsersGroup size={32} stroke={1.5} />
          <Text fw={600}>No prospects yet</Text>
          <Text size="sm" c="dimmed" ta="center">
            Prospects arrive with your cadences, from your sequence platform or a CSV import.
          </Text>
          <Button component={Link} to={`/settings/connections?client_id=${clientId}`} mt="xs" variant="light">
            Go to connections
          </Button>
        </Stack>
      </Paper>
    );
  else
    body = (
      <ProspectTable
        items={list.data.items}
        params={params}
        onSort={sortBy}
        onOpen={setOpen}
        loading={list.isFetching}
      />
    );

  return (
    <Stack gap="md">
      <Filters clientId={clientId} params={params} setParams={setParams} text={text} setText={setText} />
      {body}
      {list.data && (list.data.items.length > 0 || cursors.length > 1) && (
        <Group justify="space-between">
          <Group gap="xs">
            <Text size="sm" c="dimmed">
              Page {cursors.length}
            </Text>
            <Select
              aria-label="Rows per page"
              size="xs"
              w={120}
              data={PROSPECT_PAGE_SIZES.map((n) => ({ value: String(n), label: `${n} / page` }))}
              value={String(params.pageSize)}
              onChange={(v) => v && setParams({ pageSize: Number(v) })}
              allowDeselect={false}
            />
            {list.isFetching && <Loader size="xs" aria-label="Updating" />}
          </Group>
          <Group gap="xs">
            <Button
              variant="default"
              size="xs"
              leftSection={<IconChevronLeft size={14} />}
              disabled={cursors.length === 1}
              onClick={() => setPager({ key, cursors: cursors.slice(0, -1) })}
            >
              Previous
            </Button>
            <Button
              variant="default"
              size="xs"
              rightSection={<IconChevronRight size={14} />}
              disabled={!list.data.next_cursor || list.isPlaceholderData}
              onClick={() => setPager({ key, cursors: [...cursors, list.data.next_cursor] })}
            >
              Next
            </Button>
          </Group>
        </Group>
      )}
      {linkedId && linked.isError && (
        <Alert
          color="yellow"
          variant="light"
          withCloseButton
          onClose={closeDrawer}
          closeButtonLabel="Dismiss"
        >
          That prospect could not be opened: it may have been removed.
        </Alert>
      )}
      <ProspectDrawer clientId={clientId} prospect={shown} onClose={closeDrawer} />
    </Stack>
  );
}

function Filters({
  clientId,
  params,
  setParams,
  text,
  setText,
}: {
  clientId: string;
  params: ProspectListParams;
  setParams: (next: Partial<ProspectListParams>) => void;
  text: string;
  setText: (v: string) => void;
}) {
  const cadences = useCadenceOptions(clientId);
  const reps = useRepOptions(clientId);
  const cadenceData = useMemo(
    () => (cadences.data ?? []).map((c) => ({ value: String(c.id), label: c.name })),
    [cadences.data],
  );
  const repData = useMemo(
    () =>
      (reps.data ?? []).map((r) => ({
        value: r.id,
        label: `${r.first_name} ${r.last_name}`.trim() || r.email || 'Unnamed rep',
      })),
    [reps.data],
  );
  return (
    <Paper withBorder radius="md" p="sm">
      <Stack gap="sm">
        <TextInput
          aria-label="Search prospects"
          placeholder="Search by name, company, e-mail or title"
          leftSection={<IconSearch size={16} />}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          maxLength={100}
        />
        <Group gap="sm" align="flex-end" wrap="wrap">
          <Select
            label="Cadence"
            placeholder={cadences.isError ? 'Could not load cadences' : 'All cadences'}
            data={cadenceData}
            value={params.cadenceId === null ? null : String(params.cadenceId)}
            onChange={(v) => setParams({ cadenceId: v ? Number(v) : null })}
            searchable
            clearable
            nothingFoundMessage="No elements found. Consider changing the search query."
            w={220}
          />
          <Select
            label="Sales rep"
            placeholder={reps.isError ? 'Could not load reps' : 'All reps'}
            data={repData}
            value={params.salesRepId}
            onChange={(v) => setParams({ salesRepId: v })}
            searchable
            clearable
            nothingFoundMessage="No elements found. Consider changing the search query."
            w={200}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Superprospects
            </Text>
            <SegmentedControl
              aria-label="Superprospects"
              size="sm"
              data={[
                { value: '', label: 'All' },
                { value: 'true', label: 'Super' },
                { value: 'false', label: 'Not super' },
              ]}
              value={params.isSuper === null ? '' : String(params.isSuper)}
              onChange={(v) => setParams({ isSuper: yesNo(v) })}
            />
          </Stack>
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Status
            </Text>
            <SegmentedControl
              aria-label="Status"
              size="sm"
              data={[
                { value: '', label: 'All' },
                { value: 'true', label: 'Active' },
                { value: 'false', label: 'Inactive' },
              ]}
              value={params.isActive === null ? '' : String(params.isActive)}
              onChange={(v) => setParams({ isActive: yesNo(v) })}
            />
          </Stack>
        </Group>
      </Stack>
    </Paper>
  );
}

const COLUMNS: { sort: ProspectSort; label: string; align?: 'right' }[] = [
  { sort: 'name', label: 'Name' },
  { sort: 'company', label: 'Company' },
  { sort: 'email', label: 'E-mail' },
  { sort: 'title', label: 'Title' },
];

function SortHeader({
  sort,
  label,
  params,
  onSort,
  align,
}: {
  sort: ProspectSort;
  label: string;
  params: ProspectListParams;
  onSort: (s: ProspectSort) => void;
  align?: 'right' | undefined;
}) {
  const active = params.sort === sort;
  const Icon = !active ? IconSelector : params.order === 'asc' ? IconChevronUp : IconChevronDown;
  return (
    <Table.Th
      aria-sort={active ? (params.order === 'asc' ? 'ascending' : 'descending') : 'none'}
      ta={align}
      style={{ whiteSpace: 'nowrap' }}
    >
      <UnstyledButton onClick={() => onSort(sort)} aria-label={`Sort by ${label.toLowerCase()}`}>
        <Group gap={4} wrap="nowrap" justify={align === 'right' ? 'flex-end' : 'flex-start'}>
          <Text size="sm" fw={600}>
            {label}
          </Text>
          <Icon size={14} stroke={1.5} />
        </Group>
      </UnstyledButton>
    </Table.Th>
  );
}

function ProspectTable({
  items,
  params,
  onSort,
  onOpen,
  loading,
}: {
  items: Prospect[];
  params: ProspectListParams;
  onSort: (s: ProspectSort) => void;
  onOpen: (p: Prospect) => void;
  loading: boolean;
}) {
  return (
    <Paper withBorder radius="md" style={{ opacity: loading ? 0.7 : 1, transition: 'opacity 150ms' }}>
      <Table.ScrollContainer minWidth={1000}>
        <Table verticalSpacing="sm" highlightOnHover aria-label="Prospects">
          <Table.Thead>
            <Table.Tr>
              {COLUMNS.map((c) => (
                <SortHeader key={c.sort} {...c} params={params} onSort={onSort} />
              ))}
              <Table.Th>Cadences</Table.Th>
              <SortHeader sort="super_date" label="Super date" params={params} onSort={onSort} />
              <SortHeader
                sort="impressions"
                label="Impressions"
                params={params}
                onSort={onSort}
                align="right"
              />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((p) => {
              const superAt = latestSuper(p);
              return (
                <Table.Tr key={p.id} onClick={() => onOpen(p)} style={{ cursor: 'pointer' }}>
                  <Table.Td>
                    <Group gap="sm" wrap="nowrap">
                      <Avatar src={p.photo_url} name={personName(p)} color="initials" size={30} />
                      <div>
                        <Anchor
                          component="button"
                          type="button"
                          size="sm"
                          fw={600}
                          ta="left"
                          onClick={(e) => {
                            e.stopPropagation();
                            onOpen(p);
                          }}
                        >
                          {personName(p)}
                        </Anchor>
                        {!p.is_active && (
                          <Badge size="xs" color="gray" variant="light" ml={6}>
                            Inactive
                          </Badge>
                        )}
                      </div>
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{p.company_name ?? '—'}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" c={p.email ? undefined : 'dimmed'}>
                      {p.email ?? '—'}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{p.title || '—'}</Text>
                  </Table.Td>
                  <Table.Td>
                    <CadenceBadges prospect={p} />
                  </Table.Td>
                  <Table.Td>
                    {superAt ? (
                      <Badge
                        color="indigo"
                        variant="light"
                        size="sm"
                        tt="none"
                        style={{ whiteSpace: 'nowrap' }}
                      >
                        {formatDay(superAt)}
                      </Badge>
                    ) : (
                      <Text size="sm" c="dimmed">
                        —
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td ta="right">
                    <Text size="sm">{shownImpressions(p, params.sort)}</Text>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

function CadenceBadges({ prospect }: { prospect: Prospect }) {
  if (prospect.cadences.length === 0)
    return (
      <Text size="sm" c="dimmed">
        None
      </Text>
    );
  const shown = prospect.cadences.slice(0, 2);
  const rest = prospect.cadences.slice(2);
  return (
    <Stack gap={2}>
      {shown.map((c) => (
        <Text key={c.cadence_id} size="xs" lh={1.3}>
          {c.cadence_name}
        </Text>
      ))}
      {rest.length > 0 && (
        <Tooltip label={rest.map((c) => c.cadence_name).join(', ')} withArrow>
          <Text size="xs" c="dimmed">
            and {rest.length} more
          </Text>
        </Tooltip>
      )}
    </Stack>
  );
}
