import { useEffect, useId, useMemo, useState } from 'react';
import type { KeyboardEvent, ReactNode } from 'react';
import {
  ActionIcon,
  Alert,
  Box,
  Button,
  Center,
  Group,
  Kbd,
  Loader,
  Modal,
  Stack,
  Text,
  TextInput,
  Tooltip,
  UnstyledButton,
  VisuallyHidden,
} from '@mantine/core';
import { useDebouncedValue, useDisclosure, useHotkeys, useMediaQuery } from '@mantine/hooks';
import {
  IconAlertTriangle,
  IconBuilding,
  IconFileText,
  IconLayoutDashboard,
  IconRoute,
  IconSearch,
  IconSettings,
  IconUser,
} from '@tabler/icons-react';
import { useNavigate } from 'react-router';
import type { ReportSearch } from '@rally/shared/schemas/report-insights';
import { ApiError } from '../../../lib/api-client.ts';
import { findPages } from '../../../lib/app-pages.ts';
import { useAuth } from '../../../lib/auth/store.ts';
import { SEARCH_MAX_LENGTH, SEARCH_MIN_LENGTH, useSearchEverything } from '../api/search-everything.ts';
import classes from './global-search.module.css';

/** Long enough that typing a name asks once, short enough to feel immediate. */
export const SEARCH_DEBOUNCE_MS = 250;

type Kind = 'screen' | 'setting' | 'prospect' | 'company' | 'cadence' | 'content';
type Result = { key: string; kind: Kind; label: string; detail: string; to: string };
type Group = { kind: Kind; title: string; items: Result[] };

const ICONS: Record<Kind, ReactNode> = {
  screen: <IconLayoutDashboard size={16} />,
  setting: <IconSettings size={16} />,
  prospect: <IconUser size={16} />,
  company: <IconBuilding size={16} />,
  cadence: <IconRoute size={16} />,
  content: <IconFileText size={16} />,
};

const isMac = () => typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/**
 * Where each kind of result opens: a prospect in the prospects screen's drawer, a company as its
 * buying group in the reports, a cadence and an ad on their own screens. Each keeps the client.
 */
export function groupsOf(data: ReportSearch, clientId: string): Group[] {
  const c = `client_id=${clientId}`;
  const groups: Group[] = [
    {
      kind: 'prospect',
      title: 'Prospects',
      items: data.prospects.map((p) => ({
        key: `prospect-${p.prospect_id}`,
        kind: 'prospect',
        label: p.name || p.email || 'Unnamed prospect',
        detail: [p.title, p.company_name].filter(Boolean).join(' · ') || (p.email ?? ''),
        to: `/prospects?${c}&prospect=${p.prospect_id}`,
      })),
    },
    {
      kind: 'company',
      title: 'Companies',
      items: data.companies.map((a) => ({
        key: `company-${a.account_id}`,
        kind: 'company',
        label: a.name,
        detail: a.website ?? '',
        to: `/reports?${c}&tab=engagement&account=${a.account_id}`,
      })),
    },
    {
      kind: 'cadence',
      title: 'Cadences',
      items: data.cadences.map((k) => ({
        key: `cadence-${k.cadence_id}`,
        kind: 'cadence',
        label: k.name,
        detail: k.status,
        to: `/cadence/${k.cadence_id}?${c}`,
      })),
    },
    {
      kind: 'content',
      title: 'Content',
      items: data.content.map((a) => ({
        key: `content-${a.content_id}`,
        kind: 'content',
        label: a.name,
        detail: [a.title !== a.name ? a.title : '', a.status].filter(Boolean).join(' · '),
        to: `/content/${a.content_id}?${c}`,
      })),
    },
  ];
  return groups.filter((g) => g.items.length > 0);
}

/**
 * Issue 42 item 2: the screens and settings pages whose name matches, found here (no call), for the
 * pages this role may open.
 */
export function pageGroupsOf(
  text: string,
  permissions: readonly string[],
  clientId: string,
  role?: string,
): Group[] {
  const found = findPages(text, permissions, role);
  const items = (kind: 'screen' | 'setting', pages: typeof found.screens): Result[] =>
    pages.map((p) => ({
      key: `${kind}-${p.to}`,
      kind,
      label: p.label,
      detail: p.detail,
      to: `${p.to}?client_id=${clientId}`,
    }));
  return [
    { kind: 'screen' as const, title: 'Screens', items: items('screen', found.screens) },
    { kind: 'setting' as const, title: 'Settings', items: items('setting', found.settings) },
  ].filter((g) => g.items.length > 0);
}

/**
 * Issue 17: global search in the header, for roles that may read reports (the search call is a
 * report). A button (and Ctrl/⌘+K or "/") opens a dialog whose box asks the server as the user types;
 * results are grouped by kind, moved through with the arrow keys and opened with Enter.
 */
export function GlobalSearch() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  const allowed =
    auth.loggedIn &&
    auth.status === 'ready' &&
    clientId !== null &&
    (auth.currentRole?.permissions.includes('reports.read') ?? false);
  const [opened, dialog] = useDisclosure(false);
  const openIfAllowed = () => {
    if (allowed) dialog.open();
  };
  // Ctrl/⌘+K works even while typing elsewhere; "/" only outside text fields.
  useHotkeys([['mod+K', openIfAllowed]], []);
  useHotkeys([['/', openIfAllowed]]);
  if (!allowed || !clientId) return null;
  const shortcut = isMac() ? '⌘ K' : 'Ctrl K';
  return (
    <>
      {/* An icon: the header's row is full on every width (inline links, client switcher, name). */}
      <Tooltip label={`Search (${shortcut})`}>
        <ActionIcon
          variant="subtle"
          color="gray"
          size="lg"
          aria-label="Search"
          aria-haspopup="dialog"
          aria-keyshortcuts="Control+K Meta+K /"
          onClick={dialog.open}
        >
          <IconSearch size={20} />
        </ActionIcon>
      </Tooltip>
      <SearchDialog key={clientId} clientId={clientId} opened={opened} onClose={dialog.close} />
    </>
  );
}

function SearchDialog({
  clientId,
  opened,
  onClose,
}: {
  clientId: string;
  opened: boolean;
  onClose: () => void;
}) {
  const phone = useMediaQuery('(max-width: 36em)') ?? false;
  const [text, setText] = useState('');
  const close = () => {
    setText('');
    onClose();
  };
  return (
    <Modal
      opened={opened}
      onClose={close}
      title="Search"
      size="lg"
      yOffset="10vh"
      fullScreen={phone}
      closeButtonProps={{ 'aria-label': 'Close search' }}
    >
      <SearchBox clientId={clientId} text={text} onText={setText} onDone={close} />
    </Modal>
  );
}

function SearchBox({
  clientId,
  text,
  onText,
  onDone,
}: {
  clientId: string;
  text: string;
  onText: (t: string) => void;
  onDone: () => void;
}) {
  const navigate = useNavigate();
  const id = useId();
  const listId = `${id}-results`;
  const [asked] = useDebouncedValue(text.trim(), SEARCH_DEBOUNCE_MS);
  const tooShort = text.trim().length < SEARCH_MIN_LENGTH;
  const q = useSearchEverything(clientId, asked);
  const currentRole = useAuth().currentRole;
  const permissions = currentRole?.permissions;
  const role = currentRole ? `${currentRole.colour}_${currentRole.name}` : undefined;
  const current = !tooShort && q.data !== undefined && q.data.search === asked;
  // Screens and settings first: they are found at once, and a page's name is what short words mean.
  const groups = useMemo(
    () => [
      ...(tooShort ? [] : pageGroupsOf(asked, permissions ?? [], clientId, role)),
      ...(current && q.data ? groupsOf(q.data, clientId) : []),
    ],
    [tooShort, asked, permissions, role, current, q.data, clientId],
  );
  const results = groups.flatMap((g) => g.items);
  // The highlighted result, back to the first for each new search.
  const [highlight, setHighlight] = useState({ asked, index: 0 });
  const active = highlight.asked === asked ? highlight.index : 0;
  const setActive = (index: number | ((i: number) => number)) =>
    setHighlight({ asked, index: typeof index === 'function' ? index(active) : index });
  const activeResult = results[Math.min(active, results.length - 1)];
  const optionId = (r: Result) => `${id}-${r.key}`;
  useEffect(() => {
    if (activeResult) document.getElementById(optionId(activeResult))?.scrollIntoView?.({ block: 'nearest' });
    // optionId is derived from id and the result's key.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [activeResult?.key]);
  const settling = !tooShort && (text.trim() !== asked || q.isFetching);

  const openResult = (r: Result) => {
    onDone();
    void navigate(r.to);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (results.length === 0) return;
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      setActive((a) => (a + 1) % results.length);
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((a) => (a - 1 + results.length) % results.length);
    } else if (e.key === 'Home' && e.ctrlKey) {
      e.preventDefault();
      setActive(0);
    } else if (e.key === 'End' && e.ctrlKey) {
      e.preventDefault();
      setActive(results.length - 1);
    } else if (e.key === 'Enter' && activeResult) {
      e.preventDefault();
      openResult(activeResult);
    }
  };

  let body: ReactNode;
  if (tooShort) {
    body = (
      <Stack gap={6}>
        <Text size="sm" c="dimmed">
          Type at least {SEARCH_MIN_LENGTH} characters of a prospect, company, cadence, ad, screen or setting.
          Use ↑ and ↓ to move through the results and Enter to open one.
        </Text>
        <Text size="xs" c="dimmed">
          <Kbd size="xs">{isMac() ? '⌘ K' : 'Ctrl K'}</Kbd> or <Kbd size="xs">/</Kbd> opens this search from
          any screen.
        </Text>
      </Stack>
    );
  } else if (q.isError && !settling && results.length === 0) {
    const detail = q.error instanceof ApiError && q.error.status < 500 ? q.error.message : null;
    body = (
      <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title="Search failed">
        <Stack gap="xs" align="flex-start">
          <Text size="sm">{detail ?? 'Something went wrong. Please try again in a moment.'}</Text>
          <Button size="xs" variant="white" color="red" onClick={() => void q.refetch()}>
            Try again
          </Button>
        </Stack>
      </Alert>
    );
  } else if (!current && results.length === 0) {
    body = (
      <Center py="lg" role="status" aria-label="Searching">
        <Loader size="sm" />
      </Center>
    );
  } else if (results.length === 0) {
    body = (
      <Text size="sm" c="dimmed" ta="center" py="lg">
        No results for “{asked}”
      </Text>
    );
  } else {
    body = (
      <div role="listbox" id={listId} aria-label="Search results" className={classes.list}>
        {groups.map((g) => (
          <div role="group" key={g.kind} aria-labelledby={`${id}-${g.kind}`}>
            <Text id={`${id}-${g.kind}`} size="xs" fw={700} tt="uppercase" c="dimmed" px="xs" pt="xs" pb={4}>
              {g.title}
            </Text>
            {g.items.map((r) => (
              <UnstyledButton
                component="div"
                role="option"
                key={r.key}
                id={optionId(r)}
                tabIndex={-1}
                aria-selected={r === activeResult}
                className={classes.option}
                onMouseMove={() => setActive(results.indexOf(r))}
                onClick={() => openResult(r)}
              >
                <Group gap="sm" wrap="nowrap">
                  <Box c="dimmed" className={classes.icon}>
                    {ICONS[r.kind]}
                  </Box>
                  <div className={classes.text}>
                    <Text size="sm" fw={600} truncate>
                      {r.label}
                    </Text>
                    {r.detail && (
                      <Text size="xs" c="dimmed" truncate>
                        {r.detail}
                      </Text>
                    )}
                  </div>
                </Group>
              </UnstyledButton>
            ))}
          </div>
        ))}
      </div>
    );
  }

  return (
    <Stack gap="sm">
      <TextInput
        data-autofocus
        role="combobox"
        aria-label="Search prospects, companies, cadences, content, screens and settings"
        aria-autocomplete="list"
        aria-expanded={results.length > 0}
        aria-controls={results.length > 0 ? listId : undefined}
        aria-activedescendant={activeResult ? optionId(activeResult) : undefined}
        placeholder="Prospects, cadences, content, settings…"
        maxLength={SEARCH_MAX_LENGTH}
        value={text}
        onChange={(e) => onText(e.currentTarget.value)}
        onKeyDown={onKeyDown}
        leftSection={<IconSearch size={16} />}
        rightSection={settling && current ? <Loader size="xs" aria-hidden /> : null}
        autoComplete="off"
        spellCheck={false}
      />
      {body}
      <VisuallyHidden role="status" aria-live="polite">
        {current && !tooShort
          ? results.length === 0
            ? `No results for ${asked}`
            : `${results.length} ${results.length === 1 ? 'result' : 'results'}`
          : ''}
      </VisuallyHidden>
    </Stack>
  );
}
