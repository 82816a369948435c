import { useEffect } from 'react';
import type { ReactNode } from 'react';
import { Group, Stack, Tabs, Text, Title } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { usePeriodPicker } from '../../../components/period-picker.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { NoDataYet } from '../../../components/no-data-yet.tsx';
import { AccountDrawer, TargetDrawer } from './report-drawers.tsx';
import { EmbeddedReportsPanel } from './embedded-reports-panel.tsx';
import type { Opened } from './report-drawers.tsx';
import { AlignmentPanel } from './alignment-panel.tsx';
import { ContentPanel } from './content-panel.tsx';
import { PriorityPanel } from './priority-panel.tsx';
import { SignalsPanel } from './signals-panel.tsx';
import type { Range } from '../api/get-insights.ts';

/**
 * The four reports of issue 17 and SPEC.md §1. Engagement and Pipeline hold several views each; the
 * tab and the view are kept in the address (`?tab=pipeline&view=priority`), so a report can be linked.
 */
const TABS = [
  { value: 'engagement', label: 'Engagement' },
  { value: 'pipeline', label: 'Pipeline' },
  { value: 'revenue', label: 'Revenue' },
  { value: 'opportunities', label: 'Opportunities' },
  { value: 'shared', label: 'Shared links' },
] as const;
type Tab = (typeof TABS)[number]['value'];
const VIEWS = {
  engagement: [
    { value: 'alignment', label: 'Alignment' },
    { value: 'content', label: 'Content' },
    { value: 'signals', label: 'Signals' },
  ],
  pipeline: [
    { value: 'generated', label: 'Generated' },
    { value: 'progressed', label: 'Progressed' },
    { value: 'priority', label: 'Priority' },
  ],
} as const;
type ViewTab = keyof typeof VIEWS;
type View = (typeof VIEWS)[ViewTab][number]['value'];
/** The tabs before the four (`?tab=alignment` … `?tab=priority`) still open their report. */
const OLD_TABS: Record<string, { tab: ViewTab; view: View }> = {
  alignment: { tab: 'engagement', view: 'alignment' },
  content: { tab: 'engagement', view: 'content' },
  signals: { tab: 'engagement', view: 'signals' },
  priority: { tab: 'pipeline', view: 'priority' },
};

/** Where the address points: its tab and view, an old tab name mapped to the new pair. */
export function placeOf(params: URLSearchParams): { tab: Tab; view: View | null } {
  const asked = params.get('tab') ?? '';
  const old = OLD_TABS[asked];
  if (old) return old;
  const tab: Tab = TABS.some((t) => t.value === asked) ? (asked as Tab) : 'engagement';
  if (tab !== 'engagement' && tab !== 'pipeline') return { tab, view: null };
  const views: readonly { value: View }[] = VIEWS[tab];
  const view = params.get('view');
  return { tab, view: views.find((v) => v.value === view)?.value ?? views[0]?.value ?? null };
}

/** A part of the revenue report drawn by the revenue feature; the app passes it in (features do not import each other). */
export type RevenuePartSlot = (props: {
  part: 'engagement' | 'generated' | 'progressed' | 'revenue' | 'opportunities';
  clientId: string;
  range: Range;
}) => ReactNode;

/**
 * /reports (issue 17): Engagement (engagement over time, alignment, content, signals), Pipeline
 * (generated, progressed, priority), Revenue and Opportunities, each table with its CSV export.
 * `?account=` and `?target=` open an account's buying group or a prospect's timeline (the global
 * search links to them).
 */
export function ReportsScreen({ revenuePart }: { revenuePart?: RevenuePartSlot }) {
  const auth = useAuth();
  const clientId = auth.currentClient;
  if (!clientId) return <ScreenLoader />;
  const canMark = auth.currentRole?.permissions.includes('cadence.write') ?? false;
  const canShare = auth.currentRole?.permissions.includes('settings.write') ?? false;
  return (
    <Reports
      key={clientId}
      clientId={clientId}
      canMark={canMark}
      canShare={canShare}
      revenuePart={revenuePart}
      noData={auth.integrations.length === 0}
      canConnect={auth.currentRole?.permissions.includes('integration.write') ?? false}
    />
  );
}

function Reports({
  clientId,
  canMark,
  canShare,
  revenuePart: RevenuePart,
  noData,
  canConnect,
}: {
  clientId: string;
  /** Nothing connected yet: say so above the zeros (issue 42 item 5). */
  noData: boolean;
  canConnect: boolean;
  canMark: boolean;
  canShare: boolean;
  revenuePart: RevenuePartSlot | undefined;
}) {
  const [params, setParams] = useSearchParams();
  const { tab, view } = placeOf(params);
  const { range, presets, customField } = usePeriodPicker();
  const accountId = params.get('account');
  const targetId = params.get('target');
  const opened: Opened = accountId
    ? { kind: 'account', id: accountId }
    : targetId
      ? { kind: 'target', id: targetId }
      : null;
  const update = (change: (next: URLSearchParams) => void) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        change(next);
        return next;
      },
      { replace: true },
    );
  const setOpened = (o: Opened) =>
    update((next) => {
      next.delete('account');
      next.delete('target');
      if (o) next.set(o.kind, o.id);
    });
  const openAccount = (id: string) => setOpened({ kind: 'account', id });
  const openTarget = (id: string) => setOpened({ kind: 'target', id });
  // An old tab name in the address becomes its new tab and view.
  const oldTab = params.get('tab') ?? '';
  useEffect(() => {
    const old = OLD_TABS[oldTab];
    if (old)
      update((next) => {
        next.set('tab', old.tab);
        next.set('view', old.view);
      });
    // Only the old name matters; update reads the latest address itself.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [oldTab]);
  const setTab = (value: string | null) =>
    update((next) => {
      next.set('tab', value ?? 'engagement');
      next.delete('view');
    });
  const setView = (value: string | null) =>
    update((next) => {
      next.set('tab', tab);
      if (value) next.set('view', value);
    });
  const usesRange = !(tab === 'pipeline' && view === 'priority') && tab !== 'shared';
  const slot = (part: Parameters<RevenuePartSlot>[0]['part']) =>
    RevenuePart ? <RevenuePart part={part} clientId={clientId} range={range} /> : null;
  const views = (of: ViewTab, panels: Record<string, ReactNode>) => (
    <Tabs value={view} onChange={setView} keepMounted={false} variant="pills" mt="md">
      <Tabs.List aria-label={`${TABS.find((t) => t.value === of)?.label} reports`}>
        {VIEWS[of].map((v) => (
          <Tabs.Tab key={v.value} value={v.value}>
            {v.label}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {VIEWS[of].map((v) => (
        <Tabs.Panel key={v.value} value={v.value} pt="md">
          {panels[v.value]}
        </Tabs.Panel>
      ))}
    </Tabs>
  );

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
        <div>
          <Title order={1}>Reports</Title>
          <Text c="dimmed" mt={4}>
            What your ads did for engagement, pipeline and revenue, and the opportunities behind it.
          </Text>
        </div>
        {usesRange && presets}
      </Group>
      {noData && (
        <NoDataYet
          clientId={clientId}
          what="Reports show what your ads did once prospects see them: engagement, pipeline and revenue."
          canConnect={canConnect}
        />
      )}
      {usesRange && customField}
      <Tabs value={tab} onChange={setTab} keepMounted={false}>
        <Tabs.List aria-label="Reports">
          {TABS.map((t) => (
            <Tabs.Tab key={t.value} value={t.value}>
              {t.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="engagement" pt="md">
          {slot('engagement')}
          {views('engagement', {
            alignment: <AlignmentPanel clientId={clientId} range={range} onOpen={openAccount} />,
            content: <ContentPanel clientId={clientId} range={range} />,
            signals: <SignalsPanel clientId={clientId} range={range} onOpen={openTarget} />,
          })}
        </Tabs.Panel>
        <Tabs.Panel value="pipeline" pt="md">
          {views('pipeline', {
            generated: slot('generated'),
            progressed: slot('progressed'),
            priority: <PriorityPanel clientId={clientId} canMark={canMark} onOpen={openAccount} />,
          })}
        </Tabs.Panel>
        <Tabs.Panel value="revenue" pt="md">
          {slot('revenue')}
        </Tabs.Panel>
        <Tabs.Panel value="opportunities" pt="md">
          {slot('opportunities')}
        </Tabs.Panel>
        <Tabs.Panel value="shared" pt="md">
          <EmbeddedReportsPanel clientId={clientId} canManage={canShare} />
        </Tabs.Panel>
      </Tabs>
      <AccountDrawer
        clientId={clientId}
        accountId={opened?.kind === 'account' ? opened.id : null}
        range={range}
        onClose={() => setOpened(null)}
        onOpenTarget={openTarget}
      />
      <TargetDrawer
        clientId={clientId}
        targetId={opened?.kind === 'target' ? opened.id : null}
        range={range}
        onClose={() => setOpened(null)}
      />
    </Stack>
  );
}
