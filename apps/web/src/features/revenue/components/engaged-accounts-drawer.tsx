import { useState } from 'react';
import { Anchor, Drawer, Group, Pagination, Stack, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { formatCount, formatDay } from '@rally/shared';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { OPPORTUNITY_PAGE_SIZE, useEngagedAccounts } from '../api/get-reports.ts';
import type { Range } from '../api/get-reports.ts';

/**
 * The rows behind "Engaged accounts" (issue 42 item 7): each account engaged with the ads in the
 * range, with its engagement, opening its buying group on the Reports screen.
 */
export function EngagedAccountsDrawer({
  clientId,
  range,
  opened,
  onClose,
}: {
  clientId: string;
  range: Range;
  opened: boolean;
  onClose: () => void;
}) {
  const [page, setPage] = useState(1);
  const q = useEngagedAccounts(clientId, range, page, opened);
  return (
    <Drawer
      opened={opened}
      onClose={onClose}
      position="right"
      size="lg"
      title={<Text fw={700}>Engaged accounts</Text>}
      closeButtonProps={{ 'aria-label': 'Close the engaged accounts' }}
    >
      {q.isPending ? (
        <PanelLoading label="Loading the engaged accounts" />
      ) : q.isError ? (
        <PanelError error={q.error} what="the engaged accounts" onRetry={() => void q.refetch()} />
      ) : q.data.items.length === 0 ? (
        <Text size="sm" c="dimmed">
          No account engaged with your ads in this period.
        </Text>
      ) : (
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            {formatCount(q.data.total)} {q.data.total === 1 ? 'account' : 'accounts'} with an impression,
            click or landing page view of one of their prospects in the period.
          </Text>
          <Table.ScrollContainer minWidth={480} type="native">
            <Table fz="sm" verticalSpacing={6} aria-label="Engaged accounts">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Account</Table.Th>
                  <Table.Th ta="right">Impressions</Table.Th>
                  <Table.Th ta="right">Clicks</Table.Th>
                  <Table.Th ta="right">Views</Table.Th>
                  <Table.Th>Last engaged</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {q.data.items.map((a) => (
                  <Table.Tr key={a.account_id}>
                    <Table.Td>
                      <Anchor
                        component={Link}
                        to={`/reports?client_id=${clientId}&account=${a.account_id}`}
                        size="sm"
                        fw={600}
                      >
                        {a.name}
                      </Anchor>
                      <Text size="xs" c="dimmed">
                        {a.engaged_prospects} engaged {a.engaged_prospects === 1 ? 'prospect' : 'prospects'}
                      </Text>
                    </Table.Td>
                    <Table.Td ta="right">{formatCount(a.impressions)}</Table.Td>
                    <Table.Td ta="right">{formatCount(a.clicks)}</Table.Td>
                    <Table.Td ta="right">{formatCount(a.views)}</Table.Td>
                    <Table.Td>{a.last_engaged_at ? formatDay(a.last_engaged_at) : '—'}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          {q.data.total > OPPORTUNITY_PAGE_SIZE && (
            <Group justify="flex-end">
              <Pagination
                total={Math.ceil(q.data.total / OPPORTUNITY_PAGE_SIZE)}
                value={page}
                onChange={setPage}
                size="sm"
                getControlProps={(control) => ({ 'aria-label': `${control} page of accounts` })}
              />
            </Group>
          )}
        </Stack>
      )}
    </Drawer>
  );
}
