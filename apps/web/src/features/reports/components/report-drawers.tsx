import { Anchor, Drawer, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { formatDayTime } from '@rally/shared';
import type { ActivityItem } from '@rally/shared/schemas/report-insights';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useBuyingGroup, useTarget, useTargetActivities, useTargetStats } from '../api/get-insights.ts';
import type { Range } from '../api/get-insights.ts';
import { ExportButton, day, fileDay, percent, whole } from './report-parts.tsx';

const when = (iso: string) => formatDayTime(iso);

/** What a report row opened: an account's buying group or a target's timeline. */
export type Opened = { kind: 'account'; id: string } | { kind: 'target'; id: string } | null;

/** An account opened from a report: its people grouped by opportunity contact role. */
export function AccountDrawer({
  clientId,
  accountId,
  range,
  onClose,
  onOpenTarget,
}: {
  clientId: string;
  accountId: string | null;
  range: Range;
  onClose: () => void;
  onOpenTarget: (targetId: string) => void;
}) {
  const q = useBuyingGroup(clientId, accountId, range);
  return (
    <Drawer
      opened={accountId !== null}
      onClose={onClose}
      position="right"
      size="xl"
      title={<Text fw={700}>{q.data?.account.name ?? 'Account'}</Text>}
      closeButtonProps={{ 'aria-label': 'Close the account' }}
    >
      {q.isPending ? (
        <PanelLoading label="Loading the buying group" />
      ) : q.isError ? (
        <PanelError error={q.error} what="the buying group" onRetry={() => void q.refetch()} />
      ) : (
        <Stack gap="lg">
          <Group justify="space-between" wrap="wrap">
            <Text c="dimmed" size="sm">
              {whole(q.data.members)} people · {whole(q.data.engaged_members)} engaged in the period ·{' '}
              {whole(q.data.open_opportunities)} open opportunities
            </Text>
            <ExportButton
              clientId={clientId}
              report={`buying_group/${q.data.account.id}`}
              query={range}
              filename={`buying-group-${fileDay(range.from)}.csv`}
            />
          </Group>
          {q.data.roles.length === 0 && (
            <Text c="dimmed">No prospect or CRM contact of this account is known yet.</Text>
          )}
          {q.data.roles.map((role) => (
            <Stack key={role.role} gap="xs">
              <Title order={3} size="h5">
                {role.role}{' '}
                <Text span c="dimmed" size="sm" fw={400}>
                  · {whole(role.impressions)} impressions, {whole(role.clicks)} clicks, {whole(role.views)}{' '}
                  views
                </Text>
              </Title>
              <Table.ScrollContainer minWidth={560} type="native">
                <Table fz="sm" verticalSpacing={6} aria-label={`Buying group: ${role.role}`}>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Person</Table.Th>
                      <Table.Th ta="right">Impressions</Table.Th>
                      <Table.Th ta="right">Clicks</Table.Th>
                      <Table.Th ta="right">Views</Table.Th>
                      <Table.Th ta="right">Outreach</Table.Th>
                      <Table.Th>Super since</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {role.members.map((m) => (
                      <Table.Tr key={m.prospect_id ?? m.contact_id}>
                        <Table.Td>
                          {m.target_id ? (
                            <Anchor
                              component="button"
                              type="button"
                              fw={600}
                              size="sm"
                              onClick={() => onOpenTarget(m.target_id ?? '')}
                            >
                              {m.name || m.email}
                            </Anchor>
                          ) : (
                            <Text fw={600} size="sm">
                              {m.name || m.email}
                            </Text>
                          )}
                          <Text size="xs" c="dimmed">
                            {[m.title, m.is_primary ? 'primary contact' : ''].filter(Boolean).join(' · ') ||
                              (m.prospect_id ? 'Prospect' : 'CRM contact')}
                          </Text>
                        </Table.Td>
                        <Table.Td ta="right">{whole(m.impressions)}</Table.Td>
                        <Table.Td ta="right">{whole(m.clicks)}</Table.Td>
                        <Table.Td ta="right">{whole(m.views)}</Table.Td>
                        <Table.Td ta="right">{whole(m.outreach_activities)}</Table.Td>
                        <Table.Td>{day(m.super_date)}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            </Stack>
          ))}
        </Stack>
      )}
    </Drawer>
  );
}

const KIND: Record<ActivityItem['kind'], string> = {
  impression: 'Impression',
  click: 'Click',
  view: 'Landing page view',
  crm_activity: 'CRM activity',
  stage_move: 'Stage move',
};

/** A target opened from a report: its numbers in the period and its timeline. */
export function TargetDrawer({
  clientId,
  targetId,
  range,
  onClose,
}: {
  clientId: string;
  targetId: string | null;
  range: Range;
  onClose: () => void;
}) {
  const target = useTarget(clientId, targetId);
  const stats = useTargetStats(clientId, targetId, range);
  const acts = useTargetActivities(clientId, targetId, range);
  const t = target.data;
  return (
    <Drawer
      opened={targetId !== null}
      onClose={onClose}
      position="right"
      size="xl"
      title={<Text fw={700}>{t?.name ?? 'Prospect'}</Text>}
      closeButtonProps={{ 'aria-label': 'Close the prospect' }}
    >
      {target.isPending || stats.isPending ? (
        <PanelLoading label="Loading the prospect" />
      ) : target.isError || stats.isError ? (
        <PanelError
          error={target.error ?? stats.error}
          what="the prospect"
          onRetry={() => {
            void target.refetch();
            void stats.refetch();
          }}
        />
      ) : (
        <Stack gap="lg">
          <Text c="dimmed" size="sm">
            {[t?.title, t?.company_name, t?.cadence_name, t?.sales_rep && `rep ${t.sales_rep}`]
              .filter(Boolean)
              .join(' · ')}
            {t?.super_date ? ` · superprospect since ${day(t.super_date)}` : ''}
          </Text>
          <SimpleGrid cols={{ base: 2, sm: 4 }}>
            <Figure label="Impressions" value={whole(stats.data.impressions)} />
            <Figure label="Clicks" value={`${whole(stats.data.clicks)} (${percent(stats.data.ctr)})`} />
            <Figure label="Views" value={whole(stats.data.views)} />
            <Figure label="Outreach" value={whole(stats.data.outreach_activities)} />
          </SimpleGrid>
          <Group justify="space-between">
            <Title order={3} size="h5">
              Timeline
            </Title>
            <ExportButton
              clientId={clientId}
              report={`target/${targetId}/activities`}
              query={range}
              filename={`target-activities-${fileDay(range.from)}.csv`}
            />
          </Group>
          {acts.isPending ? (
            <PanelLoading label="Loading the timeline" />
          ) : acts.isError ? (
            <PanelError error={acts.error} what="the timeline" onRetry={() => void acts.refetch()} />
          ) : acts.data.items.length === 0 ? (
            <Text c="dimmed">Nothing happened for this prospect in the period.</Text>
          ) : (
            <>
              <Table fz="sm" verticalSpacing={6} aria-label="Timeline">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>When</Table.Th>
                    <Table.Th>What</Table.Th>
                    <Table.Th>Detail</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {acts.data.items.map((a, i) => (
                    <Table.Tr key={`${a.at}-${a.kind}-${i}`}>
                      <Table.Td style={{ whiteSpace: 'nowrap' }}>{when(a.at)}</Table.Td>
                      <Table.Td style={{ whiteSpace: 'nowrap' }}>
                        <Text size="sm" fw={600}>
                          {KIND[a.kind]}
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        {a.detail}
                        {a.count !== null ? ` (${whole(a.count)} in all)` : ''}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
              {acts.data.total > acts.data.items.length && (
                <Text size="xs" c="dimmed">
                  The latest {acts.data.items.length} of {whole(acts.data.total)}; the export has them all.
                </Text>
              )}
            </>
          )}
        </Stack>
      )}
    </Drawer>
  );
}

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="xs" tt="uppercase" fw={700} c="dimmed">
        {label}
      </Text>
      <Text fw={700} size="lg">
        {value}
      </Text>
    </div>
  );
}
