import { useRef, useState } from 'react';
import { Stack, Tabs } from '@mantine/core';
import { usePeriodPicker } from '../../../components/period-picker.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useRevenueSettings, useSummary } from '../api/get-reports.ts';
import type { OpportunityFilter } from '../api/get-reports.ts';
import { EngagedAccountsDrawer } from './engaged-accounts-drawer.tsx';
import { EngagementPanel } from './engagement-panel.tsx';
import { GeneratedPanel } from './generated-panel.tsx';
import { Headlines } from './headlines.tsx';
import type { CardKey } from './headlines.tsx';
import { LiftPanel } from './lift-panel.tsx';
import { NoCrmNote, emptyWithoutCrm, useHasCrm } from './no-crm.tsx';
import { OpportunityDrawer } from './opportunity-drawer.tsx';
import { OpportunitiesPanel } from './opportunity-tables.tsx';
import { ProgressedPanel } from './progressed-panel.tsx';
import { Header, RevenueOff } from './revenue-off.tsx';
import { ValueLine, WindowNote } from './value-line.tsx';

export { RevenueReportPart } from './revenue-report-part.tsx';
export type { RevenuePart } from './revenue-report-part.tsx';

/** /revenue: the pipeline and revenue Rally's ads were behind (docs/reports.md). */
export function RevenueScreen() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  if (!clientId) return <ScreenLoader />;
  return <RevenueGate key={clientId} clientId={clientId} />;
}

function RevenueGate({ clientId }: { clientId: string }) {
  const settings = useRevenueSettings(clientId);
  if (settings.isPending) return <PanelLoading label="Loading the revenue report" />;
  if (settings.isError)
    return (
      <PanelError error={settings.error} what="the client settings" onRetry={() => void settings.refetch()} />
    );
  if (!settings.data.revenue_report_enabled) return <RevenueOff clientId={clientId} />;
  return <Revenue clientId={clientId} windowDays={settings.data.attribution_window_days} />;
}

function Revenue({ clientId, windowDays }: { clientId: string; windowDays: number }) {
  const hasCrm = useHasCrm();
  const { range, presets, customField } = usePeriodPicker();
  const summary = useSummary(clientId, range);
  const [opened, setOpened] = useState<string | null>(null);
  const [tab, setTab] = useState<string>('generated');
  // "Revenue influenced" opens the opportunities list on its filter; the key starts it afresh.
  const [oppFilter, setOppFilter] = useState<{ filter: OpportunityFilter; n: number }>({
    filter: 'all',
    n: 0,
  });
  const [accountsOpen, setAccountsOpen] = useState(false);
  const tabsRef = useRef<HTMLDivElement>(null);
  // Issue 42 item 7: each card opens the rows behind its number.
  const openCard = (card: CardKey) => {
    if (card === 'engaged_accounts') return setAccountsOpen(true);
    if (card === 'revenue_influenced') {
      setTab('opportunities');
      setOppFilter((f) => ({ filter: 'influenced', n: f.n + 1 }));
    } else setTab(card === 'pipeline_generated' ? 'generated' : 'progressed');
    requestAnimationFrame(() => tabsRef.current?.scrollIntoView({ block: 'start' }));
  };
  return (
    <Stack gap="lg">
      <Header>{presets}</Header>
      {customField}
      {summary.isError ? (
        <PanelError error={summary.error} what="the revenue report" onRetry={() => void summary.refetch()} />
      ) : emptyWithoutCrm(hasCrm, summary.data) ? (
        <NoCrmNote clientId={clientId} />
      ) : (
        <Headlines summary={summary.data} onOpen={openCard} />
      )}
      <WindowNote windowDays={windowDays} />
      <ValueLine clientId={clientId} range={range} />
      <LiftPanel clientId={clientId} />
      <EngagementPanel clientId={clientId} range={range} />
      <Tabs value={tab} onChange={(v) => setTab(v ?? 'generated')} keepMounted={false} ref={tabsRef}>
        <Tabs.List>
          <Tabs.Tab value="generated">Pipeline generated</Tabs.Tab>
          <Tabs.Tab value="progressed">Pipeline progressed</Tabs.Tab>
          <Tabs.Tab value="opportunities">All opportunities</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="generated" pt="md">
          <GeneratedPanel clientId={clientId} range={range} onOpen={setOpened} />
        </Tabs.Panel>
        <Tabs.Panel value="progressed" pt="md">
          <ProgressedPanel clientId={clientId} range={range} onOpen={setOpened} />
        </Tabs.Panel>
        <Tabs.Panel value="opportunities" pt="md">
          <OpportunitiesPanel
            key={oppFilter.n}
            clientId={clientId}
            range={range}
            onOpen={setOpened}
            initialFilter={oppFilter.filter}
          />
        </Tabs.Panel>
      </Tabs>
      <OpportunityDrawer clientId={clientId} opportunityId={opened} onClose={() => setOpened(null)} />
      <EngagedAccountsDrawer
        clientId={clientId}
        range={range}
        opened={accountsOpen}
        onClose={() => setAccountsOpen(false)}
      />
    </Stack>
  );
}
