import { useEffect, useMemo, useState } from 'react';
import {
  Alert,
  Button,
  Group,
  Loader,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import {
  IconChevronLeft,
  IconChevronRight,
  IconSearch,
  IconUserQuestion,
  IconUsersGroup,
} from '@tabler/icons-react';
import { Link, useSearchParams } from 'react-router';
import { DEFAULT_PROSPECT_ORDER, PROSPECT_PAGE_SIZES, PROSPECT_SORTS } from '@rally/shared/schemas/prospects';
import type { Prospect, ProspectSort, SortOrder } from '@rally/shared/schemas/prospects';
import type { SalesRep } from '@rally/shared/schemas/integrations';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useCadenceOptions, useRepOptions } from '../api/get-filter-options.ts';
import { useProspect } from '../api/get-prospect.ts';
import { useProspects } from '../api/get-prospects.ts';
import type { ProspectListParams } from '../api/get-prospects.ts';
import { ProspectDrawer } from './prospect-drawer.tsx';
import { ProspectTable } from './prospect-table.tsx';

export { latestSuper, personName, shownImpressions, topImpressions } from './prospect-table.tsx';

/** Search waits for a pause in typing, so each keystroke is not a request. */
export const SEARCH_DEBOUNCE_MS = 300;

/** The reps who are the signed-in user: the same e-mail (the server's `mine` matches so too). */
export const myRepIds = (reps: readonly SalesRep[], email: string | undefined) =>
  email ? reps.filter((r) => r.email?.toLowerCase() === email.toLowerCase()).map((r) => r.id) : [];

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
    mine: search.get('mine') === 'true',
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
        set('mine', merged.mine ? 'true' : null);
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
  const auth = useAuth();
  const [params, setParams] = useListParams();
  const reps = useRepOptions(clientId);
  // "Mine" and no rep has the user's e-mail: say so rather than "no prospects match".
  const notARep =
    params.mine && reps.data !== undefined && myRepIds(reps.data, auth.user?.email).length === 0;
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

  // A saved view is the list's URL state without the prospect whose drawer is open.
  const viewParams = new URLSearchParams(address);
  viewParams.delete('prospect');
  viewParams.sort();
  const viewState = viewParams.toString();

  const filtered =
    params.search !== '' ||
    params.cadenceId !== null ||
    params.salesRepId !== null ||
    params.mine ||
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
    body = notARep ? (
      <Paper withBorder radius="md" p="xl">
        <Stack align="center" gap="xs">
          <IconUserQuestion size={32} stroke={1.5} />
          <Text fw={600}>No prospects are yours here</Text>
          <Text size="sm" c="dimmed" ta="center" maw={520}>
            No sales rep of this client has your e-mail address ({auth.user?.email}). Your prospects show here
            once your sequence platform lists you as their rep with that address.
          </Text>
          <Button variant="light" mt="xs" onClick={() => setParams({ mine: false })}>
            Show everyone&apos;s prospects
          </Button>
        </Stack>
      </Paper>
    ) : filtered ? (
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
              setParams({
                search: '',
                cadenceId: null,
                salesRepId: null,
                mine: false,
                isSuper: null,
                isActive: null,
              });
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
        views={{
          state: viewState,
          apply: (state) => {
            const next = new URLSearchParams(state);
            setText(next.get('q') ?? '');
            setAddress(next, { replace: true });
          },
        }}
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
  const auth = useAuth();
  const cadences = useCadenceOptions(clientId);
  const reps = useRepOptions(clientId);
  const mineIds = useMemo(() => myRepIds(reps.data ?? [], auth.user?.email), [reps.data, auth.user?.email]);
  const cadenceData = useMemo(
    () => (cadences.data ?? []).map((c) => ({ value: String(c.id), label: c.name })),
    [cadences.data],
  );
  const repData = useMemo(
    () =>
      (reps.data ?? []).map((r) => ({
        value: r.id,
        label: `${`${r.first_name} ${r.last_name}`.trim() || r.email || 'Unnamed rep'}${mineIds.includes(r.id) ? ' (you)' : ''}`,
      })),
    [reps.data, mineIds],
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
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Whose
            </Text>
            <SegmentedControl
              aria-label="Whose prospects"
              size="sm"
              data={[
                { value: '', label: 'Everyone' },
                { value: 'true', label: 'Mine' },
              ]}
              value={params.mine ? 'true' : ''}
              onChange={(v) => setParams({ mine: v === 'true' })}
            />
          </Stack>
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
