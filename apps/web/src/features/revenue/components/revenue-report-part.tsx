import { useRef, useState } from 'react';
import { Stack, Title } from '@mantine/core';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useRevenueSettings, useSummary } from '../api/get-reports.ts';
import type { Range } from '../api/get-reports.ts';
import { EngagedAccountsDrawer } from './engaged-accounts-drawer.tsx';
import { EngagementPanel } from './engagement-panel.tsx';
import { GeneratedPanel } from './generated-panel.tsx';
import { Headlines } from './headlines.tsx';
import type { CardKey } from './headlines.tsx';
import { NoCrmNote, emptyWithoutCrm, useHasCrm } from './no-crm.tsx';
import { OpportunityDrawer } from './opportunity-drawer.tsx';
import { OpportunitiesPanel } from './opportunity-tables.tsx';
import { ProgressedPanel } from './progressed-panel.tsx';
import { RevenueOff } from './revenue-off.tsx';
import { ValueLine, WindowNote } from './value-line.tsx';

export type RevenuePart = 'engagement' | 'generated' | 'progressed' | 'revenue' | 'opportunities';

/**
 * One part of the revenue report for another screen (the /reports tabs, issue 17), over the range that
 * screen chose. The parts built on opportunities follow the client's revenue_report_enabled like
 * /revenue does; engagement over time does not depend on it.
 */
export function RevenueReportPart({
  part,
  clientId,
  range,
}: {
  part: RevenuePart;
  clientId: string;
  range: Range;
}) {
  const settings = useRevenueSettings(clientId);
  const [opened, setOpened] = useState<string | null>(null);
  if (part === 'engagement') return <EngagementPanel clientId={clientId} range={range} />;
  if (settings.isPending) return <PanelLoading label="Loading the revenue report" />;
  if (settings.isError)
    return (
      <PanelError error={settings.error} what="the client settings" onRetry={() => void settings.refetch()} />
    );
  if (!settings.data.revenue_report_enabled) return <RevenueOff clientId={clientId} withHeader={false} />;
  return (
    <>
      {part === 'generated' && <GeneratedPanel clientId={clientId} range={range} onOpen={setOpened} />}
      {part === 'progressed' && <ProgressedPanel clientId={clientId} range={range} onOpen={setOpened} />}
      {part === 'revenue' && (
        <RevenuePanel
          clientId={clientId}
          range={range}
          windowDays={settings.data.attribution_window_days}
          onOpen={setOpened}
        />
      )}
      {part === 'opportunities' && (
        <OpportunitiesPanel clientId={clientId} range={range} onOpen={setOpened} />
      )}
      <OpportunityDrawer clientId={clientId} opportunityId={opened} onClose={() => setOpened(null)} />
    </>
  );
}

/** The headline numbers, the return on spend and the won deals the ads were behind. */
function RevenuePanel({
  clientId,
  range,
  windowDays,
  onOpen,
}: {
  clientId: string;
  range: Range;
  windowDays: number;
  onOpen: (id: string) => void;
}) {
  const summary = useSummary(clientId, range);
  const hasCrm = useHasCrm();
  const [accountsOpen, setAccountsOpen] = useState(false);
  const listRef = useRef<HTMLHeadingElement>(null);
  // The influenced list is below; the pipeline cards' lists are on the Pipeline tab.
  const openCard = (card: CardKey) =>
    card === 'engaged_accounts' ? setAccountsOpen(true) : listRef.current?.scrollIntoView({ block: 'start' });
  return (
    <Stack gap="lg">
      {summary.isError ? (
        <PanelError error={summary.error} what="the revenue report" onRetry={() => void summary.refetch()} />
      ) : emptyWithoutCrm(hasCrm, summary.data) ? (
        <NoCrmNote clientId={clientId} />
      ) : (
        <Headlines
          summary={summary.data}
          onOpen={openCard}
          only={['revenue_influenced', 'engaged_accounts']}
        />
      )}
      <EngagedAccountsDrawer
        clientId={clientId}
        range={range}
        opened={accountsOpen}
        onClose={() => setAccountsOpen(false)}
      />
      <WindowNote windowDays={windowDays} />
      <ValueLine clientId={clientId} range={range} />
      <Title order={2} size="h4" ref={listRef}>
        Revenue influenced
      </Title>
      <OpportunitiesPanel clientId={clientId} range={range} onOpen={onOpen} initialFilter="influenced" />
    </Stack>
  );
}
