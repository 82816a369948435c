import { Anchor, Drawer, Stack, Table, Text, Timeline, Title } from '@mantine/core';
import { IconExternalLink } from '@tabler/icons-react';
import { Link } from 'react-router';
import { formatDay } from '@rally/shared';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useOpportunityDetail } from '../api/get-reports.ts';
import { NetworkEngagement } from './network-engagement.tsx';

const fullMoney = (cents: number, currency: string) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: 0 }).format(
    cents / 100,
  );
const day = (iso: string) => formatDay(iso);

/** One opportunity opened: the engaged prospects of its account and its stage history. */
export function OpportunityDrawer({
  clientId,
  opportunityId,
  onClose,
}: {
  clientId: string;
  opportunityId: string | null;
  onClose: () => void;
}) {
  const q = useOpportunityDetail(clientId, opportunityId);
  const o = q.data?.opportunity;
  return (
    <Drawer
      opened={opportunityId !== null}
      onClose={onClose}
      position="right"
      size="lg"
      title={<Text fw={700}>{o?.name ?? 'Opportunity'}</Text>}
      closeButtonProps={{ 'aria-label': 'Close the opportunity' }}
    >
      {q.isPending ? (
        <PanelLoading label="Loading the opportunity" />
      ) : q.isError ? (
        <PanelError error={q.error} what="the opportunity" onRetry={() => void q.refetch()} />
      ) : o ? (
        <Stack gap="lg">
          <Text c="dimmed">
            {o.account_name} · {o.stage} · {fullMoney(o.amount_cents, o.currency)}
            {o.created_at ? ` · created ${day(o.created_at)}` : ''}
            {o.close_date ? ` · ${o.is_closed ? 'closed' : 'closes'} ${day(o.close_date)}` : ''}
          </Text>
          {q.data.crm_record ? (
            <Anchor href={q.data.crm_record.url} target="_blank" rel="noopener noreferrer" size="sm" fw={600}>
              Open in {q.data.crm_record.vendor}
              <IconExternalLink size={14} aria-hidden style={{ marginLeft: 4, verticalAlign: 'middle' }} />
            </Anchor>
          ) : null}
          <Stack gap="xs">
            <Title order={3} size="h5">
              Engaged prospects
            </Title>
            {q.data.prospects.length === 0 ? (
              <Text size="sm" c="dimmed">
                Nobody at this account engaged with your ads within {q.data.window_days} days of this
                opportunity.
              </Text>
            ) : (
              <Table fz="sm" verticalSpacing={6} aria-label="Engaged prospects">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Prospect</Table.Th>
                    <Table.Th ta="right">Impressions</Table.Th>
                    <Table.Th ta="right">Clicks</Table.Th>
                    <Table.Th ta="right">Views</Table.Th>
                    <Table.Th>First engaged</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {q.data.prospects.map((p) => (
                    <Table.Tr key={p.prospect_id}>
                      <Table.Td>
                        <Anchor
                          component={Link}
                          to={`/prospects?client_id=${clientId}&prospect=${p.prospect_id}`}
                          size="sm"
                          fw={600}
                        >
                          {p.name || p.email}
                        </Anchor>
                        <Text size="xs" c="dimmed">
                          {p.title || p.email}
                        </Text>
                      </Table.Td>
                      <Table.Td ta="right">{p.impressions}</Table.Td>
                      <Table.Td ta="right">{p.clicks}</Table.Td>
                      <Table.Td ta="right">{p.views}</Table.Td>
                      <Table.Td>{day(p.first_engaged_at)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
          </Stack>
          <NetworkEngagement clientId={clientId} companyId={o.company_id} />
          <Stack gap="xs">
            <Title order={3} size="h5">
              Stage history
            </Title>
            {q.data.stage_history.length === 0 ? (
              <Text size="sm" c="dimmed">
                The CRM gave no stage history for this opportunity.
              </Text>
            ) : (
              <Timeline bulletSize={14} lineWidth={2}>
                {q.data.stage_history.map((h) => (
                  <Timeline.Item key={`${h.changed_at}-${h.to_stage}`} title={h.to_stage}>
                    <Text size="xs" c="dimmed">
                      {h.from_stage ? `from ${h.from_stage}, ` : 'created, '}
                      {day(h.changed_at)}
                    </Text>
                  </Timeline.Item>
                ))}
              </Timeline>
            )}
          </Stack>
        </Stack>
      ) : null}
    </Drawer>
  );
}
