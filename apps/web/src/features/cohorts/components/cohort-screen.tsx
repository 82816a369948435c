import '@mantine/charts/styles.css';
import { LineChart } from '@mantine/charts';
import {
  Alert,
  Anchor,
  Button,
  Group,
  Paper,
  Progress,
  SegmentedControl,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { IconArchive, IconChartLine, IconRoute } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { ComponentType } from 'react';
import { Link, useParams } from 'react-router';
import { COHORT_SOURCE_LABELS } from '@rally/shared/schemas/cohorts';
import type { Cohort, CohortAudienceReport } from '@rally/shared/schemas/cohorts';
import { abbreviateNumber } from '@rally/shared';
import { AbbreviatedNumber } from '../../../components/abbreviated-number.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth/store.ts';
import { useCohort } from '../api/get-cohort.ts';
import { useCohortAudience, useCohortImpact } from '../api/get-cohort-reports.ts';
import { useSyncCohort } from '../api/sync-cohort.ts';
import { CohortCampaignsPanel } from './cohort-campaigns-panel.tsx';
import { CohortStatusActions } from './cohort-status-actions.tsx';
import { MembersPanel } from './members-panel.tsx';
import { CohortStatusBadge, syncText } from './status-badge.tsx';
import { ReadOnlyNote } from '../../../components/read-only-note.tsx';

/** The members' ad URLs as CSV (the ad-delivery feature's button), given by the route. */
export type TargetsExportComponent = ComponentType<{
  clientId: string;
  kind: 'cohort';
  id: string;
  name: string;
}>;

/** "Run on networks" (the ad-networks feature's panel), given by the route. */
export type NetworksComponent = ComponentType<{ clientId: string; id: string; canWrite: boolean }>;

/** /cohorts/{id}: the cohort's state, sync, members with engagement, impact by date and audience. */
export function CohortScreen({
  TargetsExport,
  Networks,
}: { TargetsExport?: TargetsExportComponent; Networks?: NetworksComponent } = {}) {
  const auth = useAuth();
  const { id = '' } = useParams();
  const clientId = auth.currentClient;
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  return (
    <CohortView
      clientId={clientId}
      id={id}
      canWrite={auth.currentRole.permissions.includes('cohort.write')}
      canReport={auth.currentRole.permissions.includes('reports.read')}
      TargetsExport={TargetsExport}
      Networks={Networks}
    />
  );
}

function CohortView({
  clientId,
  id,
  canWrite,
  canReport,
  TargetsExport,
  Networks,
}: {
  clientId: string;
  id: string;
  canWrite: boolean;
  canReport: boolean;
  TargetsExport?: TargetsExportComponent;
  Networks?: NetworksComponent;
}) {
  const cohort = useCohort(clientId, id);
  useRefreshOnSync(clientId, id, cohort.data ? cohort.data.last_synced_at : undefined);
  const back = (
    <Anchor component={Link} to={`/cohorts?client_id=${clientId}`} size="sm">
      ← Cohorts
    </Anchor>
  );
  if (cohort.isPending) return <PanelLoading label="Loading the cohort" />;
  if (cohort.isError) {
    if (cohort.error instanceof ApiError && cohort.error.status === 404)
      return (
        <Stack>
          {back}
          <Alert color="gray" title="Cohort not found">
            It may have been removed, or it belongs to another client.
          </Alert>
        </Stack>
      );
    return <PanelError error={cohort.error} what="the cohort" onRetry={() => void cohort.refetch()} />;
  }
  const c = cohort.data;
  return (
    <Stack gap="lg">
      <div>
        {back}
        <Group justify="space-between" align="flex-start">
          <div>
            <Group gap="sm">
              <Title order={1}>{c.name}</Title>
              <CohortStatusBadge status={c.status} />
            </Group>
            <Text c="dimmed" size="sm">
              {COHORT_SOURCE_LABELS[c.source_kind]}
              {c.crm_list_name ? `: ${c.crm_list_name}` : ''}
              {c.source_kind === 'filter' ? `: ${describeFilters(c)}` : ''}
            </Text>
          </div>
          {canWrite && <CohortStatusActions clientId={clientId} cohort={c} size="sm" />}
        </Group>
      </div>
      {!canWrite && <ReadOnlyNote permission="cohort.write" />}
      {c.status === 'archived' && (
        <Alert color="gray" icon={<IconArchive size={18} />} title="Archived">
          This cohort is read-only and its ads are stopped. Restore it to change it.
        </Alert>
      )}
      {c.status === 'paused' && (
        <Alert color="yellow" title="Paused">
          Its members&apos; ads show a blank image and count nothing, and syncs stop, until you resume it.
        </Alert>
      )}
      <SimpleGrid cols={{ base: 2, sm: 3, md: 6 }}>
        <Stat label="Members" value={c.size} />
        <Stat label="Accounts" value={c.accounts} />
        <Stat label="Impressions" value={c.impressions} />
        <Stat label="Clicks" value={c.clicks} />
        <Stat label="Landing page views" value={c.views} />
        <Stat label="Superprospects" value={c.supers} />
      </SimpleGrid>
      <SyncPanel clientId={clientId} cohort={c} canWrite={canWrite} />
      {Networks && c.status !== 'archived' && <Networks clientId={clientId} id={c.id} canWrite={canWrite} />}
      <JourneyPanel clientId={clientId} cohort={c} canWrite={canWrite} canReport={canReport} />
      <CohortCampaignsPanel clientId={clientId} cohort={c} canWrite={canWrite} />
      {canReport && <ImpactPanel clientId={clientId} id={c.id} />}
      <MembersPanel
        clientId={clientId}
        id={c.id}
        download={
          canReport && TargetsExport ? (
            <TargetsExport clientId={clientId} kind="cohort" id={c.id} name={c.name} />
          ) : null
        }
      />
      {canReport && <AudiencePanel clientId={clientId} id={c.id} />}
    </Stack>
  );
}

function describeFilters(c: Cohort): string {
  const f = c.filters;
  const parts = [
    f.title ? `title contains “${f.title}”` : null,
    f.company ? `company contains “${f.company}”` : null,
    f.cadence_id ? `in cadence #${f.cadence_id}` : null,
    f.superprospect === true ? 'superprospects' : f.superprospect === false ? 'not superprospects' : null,
    f.engagement === 'engaged' ? 'engaged' : f.engagement === 'not_engaged' ? 'not engaged' : null,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'every active prospect';
}

function Stat({ label, value }: { label: string; value: number }) {
  return (
    <Paper withBorder radius="md" p="sm">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={700} fz="xl">
        <AbbreviatedNumber value={value} />
      </Text>
    </Paper>
  );
}

function SyncPanel({ clientId, cohort, canWrite }: { clientId: string; cohort: Cohort; canWrite: boolean }) {
  const sync = useSyncCohort(clientId);
  const busy = cohort.sync_state === 'queued' || cohort.sync_state === 'running';
  const progress = cohort.sync_progress;
  return (
    <Paper withBorder radius="md" p="md">
      <Group justify="space-between">
        <div>
          <Text fw={600} size="sm">
            Sync
          </Text>
          <Text size="sm" c={cohort.sync_state === 'failed' ? 'red.8' : 'dimmed'} aria-live="polite">
            {syncText(cohort)}
            {cohort.sync_error ? ` — ${cohort.sync_error}` : ''}
          </Text>
        </div>
        {canWrite && cohort.status === 'active' && (
          <Button
            size="xs"
            variant="light"
            loading={sync.isPending}
            disabled={busy}
            onClick={() => sync.mutate(cohort.id)}
          >
            {busy ? 'Syncing…' : 'Sync now'}
          </Button>
        )}
      </Group>
      {busy && (
        <Progress
          mt="sm"
          value={progress?.total ? Math.min(100, (progress.done / progress.total) * 100) : 5}
          animated
          aria-label="Sync progress"
        />
      )}
    </Paper>
  );
}

/** Links to the cohort's journey builder and journey view (features/journeys). */
function JourneyPanel({
  clientId,
  cohort,
  canWrite,
  canReport,
}: {
  clientId: string;
  cohort: Cohort;
  canWrite: boolean;
  canReport: boolean;
}) {
  if (!canWrite && !canReport) return null;
  return (
    <Paper withBorder radius="md" p="md">
      <Group justify="space-between">
        <div>
          <Text fw={600} size="sm">
            Journey
          </Text>
          <Text size="sm" c="dimmed">
            Stages with their own ads, and rules that move accounts along.
          </Text>
        </div>
        <Group gap="xs">
          {canWrite && cohort.status !== 'archived' && (
            <Button
              component={Link}
              to={`/cohorts/${cohort.id}/journey?client_id=${clientId}`}
              size="xs"
              variant="light"
              leftSection={<IconRoute size={14} />}
            >
              Journey builder
            </Button>
          )}
          {canReport && (
            <Button
              component={Link}
              to={`/cohorts/${cohort.id}/journey/view?client_id=${clientId}`}
              size="xs"
              variant="default"
            >
              Journey view
            </Button>
          )}
        </Group>
      </Group>
    </Paper>
  );
}

function ImpactPanel({ clientId, id }: { clientId: string; id: string }) {
  const [days, setDays] = useState('60');
  const q = useCohortImpact(clientId, id, Number(days));
  return (
    <Paper withBorder radius="md" p="md">
      <Group justify="space-between" mb="sm">
        <Group gap={6}>
          <IconChartLine size={16} aria-hidden />
          <Title order={2} size="h5">
            Impact by date
          </Title>
        </Group>
        <SegmentedControl
          size="xs"
          aria-label="Period"
          value={days}
          onChange={setDays}
          data={[
            { value: '30', label: '30 days' },
            { value: '60', label: '60 days' },
            { value: '90', label: '90 days' },
          ]}
        />
      </Group>
      {q.isPending ? (
        <Skeleton height={220} role="status" aria-label="Loading the impact" />
      ) : q.isError ? (
        <PanelError error={q.error} what="the impact" onRetry={() => void q.refetch()} />
      ) : q.data.by_date.length === 0 ? (
        <Text size="sm" c="dimmed">
          No impressions, clicks or views in this period yet.
        </Text>
      ) : (
        <>
          <LineChart
            h={220}
            data={q.data.by_date}
            dataKey="date"
            series={[
              { name: 'impressions', label: 'Impressions', color: 'indigo.6' },
              { name: 'clicks', label: 'Clicks', color: 'teal.7' },
              { name: 'views', label: 'Landing page views', color: 'orange.7' },
            ]}
            withLegend
            curveType="monotone"
            valueFormatter={(v) => abbreviateNumber(v)}
            // The table below carries the numbers for screen readers and copying.
            lineChartProps={{ accessibilityLayer: false }}
            aria-hidden
          />
          <details>
            <summary>
              <Text span size="sm">
                Show the numbers
              </Text>
            </summary>
            <Table mt="xs" fz="sm" verticalSpacing={4} aria-label="Impact per day">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Day</Table.Th>
                  <Table.Th ta="right">Impressions</Table.Th>
                  <Table.Th ta="right">Clicks</Table.Th>
                  <Table.Th ta="right">Landing page views</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {q.data.by_date.map((r) => (
                  <Table.Tr key={r.date}>
                    <Table.Td>{r.date}</Table.Td>
                    <Table.Td ta="right">{r.impressions}</Table.Td>
                    <Table.Td ta="right">{r.clicks}</Table.Td>
                    <Table.Td ta="right">{r.views}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </details>
        </>
      )}
    </Paper>
  );
}

/**
 * The members and reports may have been fetched while the sync was still running; when the cohort
 * reports a new sync time, ask for them again so the page never shows "Synced" beside an empty list.
 */
function useRefreshOnSync(clientId: string, id: string, syncedAt: string | null | undefined) {
  const queryClient = useQueryClient();
  const seen = useRef(syncedAt);
  useEffect(() => {
    if (syncedAt === undefined || seen.current === syncedAt) return;
    const first = seen.current === undefined;
    seen.current = syncedAt;
    if (first) return;
    void queryClient.invalidateQueries({
      queryKey: ['cohorts', clientId, 'one', id],
      predicate: (q) => q.queryKey.length > 4,
    });
  }, [queryClient, clientId, id, syncedAt]);
}

function AudienceTable({ label, rows }: { label: string; rows: CohortAudienceReport['by_title'] }) {
  return (
    <Paper withBorder radius="md" p="md">
      <Title order={3} size="h5" mb="xs">
        {label}
      </Title>
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          No members yet.
        </Text>
      ) : (
        // Five columns do not fit a phone: the table scrolls in its own box, not the page.
        <Table.ScrollContainer minWidth={440} type="native">
          <Table fz="sm" verticalSpacing={4} aria-label={label}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{label.replace('By ', '').replace(/^./, (s) => s.toUpperCase())}</Table.Th>
                <Table.Th ta="right">Members</Table.Th>
                <Table.Th ta="right">Engaged</Table.Th>
                <Table.Th ta="right">Impressions</Table.Th>
                <Table.Th ta="right">Clicks</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r) => (
                <Table.Tr key={r.label}>
                  <Table.Td>{r.label}</Table.Td>
                  <Table.Td ta="right">{r.members}</Table.Td>
                  <Table.Td ta="right">{r.engaged}</Table.Td>
                  <Table.Td ta="right">{r.impressions}</Table.Td>
                  <Table.Td ta="right">{r.clicks}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Paper>
  );
}

function AudiencePanel({ clientId, id }: { clientId: string; id: string }) {
  const q = useCohortAudience(clientId, id);
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        Audience
      </Title>
      {q.isPending ? (
        <PanelLoading label="Loading the audience" />
      ) : q.isError ? (
        <PanelError error={q.error} what="the audience" onRetry={() => void q.refetch()} />
      ) : (
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <AudienceTable label="By title" rows={q.data.by_title} />
          <AudienceTable label="By company" rows={q.data.by_company} />
        </SimpleGrid>
      )}
    </Stack>
  );
}
