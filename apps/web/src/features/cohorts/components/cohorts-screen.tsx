import {
  Anchor,
  Badge,
  Button,
  Checkbox,
  Group,
  Pagination,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconArrowDown, IconArrowUp, IconSearch, IconUsersGroup } from '@tabler/icons-react';
import { Link, useSearchParams } from 'react-router';
import { COHORT_SORT_FIELDS, COHORT_SOURCE_LABELS } from '@rally/shared/schemas/cohorts';
import type { CohortSortField } from '@rally/shared/schemas/cohorts';
import { AbbreviatedNumber } from '../../../components/abbreviated-number.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useCohorts } from '../api/get-cohorts.ts';
import { CohortStatusActions } from './cohort-status-actions.tsx';
import { CohortStatusBadge, syncText } from './status-badge.tsx';
import { formatDay } from '@rally/shared';

const PAGE_SIZE = 20;

export const cohortHref = (clientId: string, id: string) => `/cohorts/${id}?client_id=${clientId}`;

const isSortField = (v: string | null): v is CohortSortField =>
  v !== null && (COHORT_SORT_FIELDS as readonly string[]).includes(v);

/** /cohorts: the client's cohorts, paged, sortable, searchable by name, archived ones on demand. */
export function CohortsScreen() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  const canWrite = auth.currentRole.permissions.includes('cohort.write');
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={1}>Cohorts</Title>
          <Text c="dimmed">
            Audiences from your CRM lists or your prospects. Their members see your ads without a sales
            cadence.
          </Text>
        </div>
        {canWrite && (
          <Button component={Link} to={`/cohorts/new?client_id=${clientId}`}>
            New cohort
          </Button>
        )}
      </Group>
      <CohortTable clientId={clientId} canWrite={canWrite} />
    </Stack>
  );
}

function CohortTable({ clientId, canWrite }: { clientId: string; canWrite: boolean }) {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const sortParam = params.get('sort_field');
  const sortField: CohortSortField = isSortField(sortParam) ? sortParam : 'created_at';
  const order = params.get('order') === 'asc' ? 'asc' : 'desc';
  const showArchived = params.get('show_archived') === 'true';
  const nameParam = params.get('name') ?? '';
  const [name] = useDebouncedValue(nameParam.trim(), 300);
  const cohorts = useCohorts(clientId, { page, pageSize: PAGE_SIZE, name, showArchived, sortField, order });

  const update = (next: Record<string, string | null>) =>
    setParams(
      (prev) => {
        const p = new URLSearchParams(prev);
        for (const [k, v] of Object.entries(next)) {
          if (v === null || v === '') p.delete(k);
          else p.set(k, v);
        }
        return p;
      },
      { replace: true },
    );
  const sortBy = (field: CohortSortField) =>
    update({
      sort_field: field,
      order: sortField === field ? (order === 'asc' ? 'desc' : 'asc') : field === 'name' ? 'asc' : 'desc',
      page: null,
    });
  const header = (field: CohortSortField, label: string, right = false) => {
    const active = sortField === field;
    return (
      <Table.Th
        ta={right ? 'right' : undefined}
        aria-sort={active ? (order === 'asc' ? 'ascending' : 'descending') : 'none'}
      >
        <UnstyledButton onClick={() => sortBy(field)} fw={600} fz="sm">
          <Group gap={4} wrap="nowrap" justify={right ? 'flex-end' : undefined}>
            {label}
            {active &&
              (order === 'asc' ? (
                <IconArrowUp size={14} aria-hidden />
              ) : (
                <IconArrowDown size={14} aria-hidden />
              ))}
          </Group>
        </UnstyledButton>
      </Table.Th>
    );
  };

  return (
    <Stack gap="sm">
      <Group gap="md" align="flex-end">
        <TextInput
          label="Search by name"
          placeholder="Cohort name"
          leftSection={<IconSearch size={16} />}
          value={nameParam}
          onChange={(e) => update({ name: e.currentTarget.value, page: null })}
          w={280}
        />
        <Checkbox
          mb={8}
          label="Show archived"
          checked={showArchived}
          onChange={(e) => update({ show_archived: e.currentTarget.checked ? 'true' : null, page: null })}
        />
      </Group>
      {cohorts.isPending ? (
        <PanelLoading label="Loading cohorts" />
      ) : cohorts.isError ? (
        <PanelError error={cohorts.error} what="cohorts" onRetry={() => void cohorts.refetch()} />
      ) : cohorts.data.items.length === 0 ? (
        <Paper withBorder radius="md" p="xl">
          <Stack align="center" gap="xs">
            <IconUsersGroup size={32} stroke={1.5} aria-hidden />
            <Text fw={600}>{name || showArchived ? 'No cohorts match' : 'No cohorts yet'}</Text>
            <Text size="sm" c="dimmed" ta="center">
              {name
                ? 'No cohort has that in its name. Try another search.'
                : 'A cohort is an audience from a CRM list or from filters over your prospects.'}
            </Text>
            {canWrite && !name && (
              <Button component={Link} to={`/cohorts/new?client_id=${clientId}`} mt="xs" variant="light">
                Create a cohort
              </Button>
            )}
          </Stack>
        </Paper>
      ) : (
        <Paper withBorder radius="md">
          <Table.ScrollContainer minWidth={980}>
            <Table
              verticalSpacing="sm"
              highlightOnHover
              aria-label="Cohorts"
              styles={{ th: { whiteSpace: 'nowrap' } }}
            >
              <Table.Thead>
                <Table.Tr>
                  {header('name', 'Cohort')}
                  {header('status', 'Status')}
                  {header('size', 'Members', true)}
                  <Table.Th ta="right">Accounts</Table.Th>
                  <Table.Th ta="right">Impressions</Table.Th>
                  <Table.Th ta="right">Clicks</Table.Th>
                  {header('last_synced_at', 'Sync')}
                  {header('created_at', 'Created')}
                  {canWrite && <Table.Th>Actions</Table.Th>}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {cohorts.data.items.map((c) => (
                  <Table.Tr key={c.id}>
                    <Table.Td>
                      <Anchor component={Link} to={cohortHref(clientId, c.id)} fw={600} size="sm">
                        {c.name}
                      </Anchor>
                      <Text size="xs" c="dimmed">
                        {COHORT_SOURCE_LABELS[c.source_kind]}
                        {c.crm_list_name ? ` · ${c.crm_list_name}` : ''}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <CohortStatusBadge status={c.status} />
                    </Table.Td>
                    <Table.Td ta="right">
                      <AbbreviatedNumber value={c.size} />
                    </Table.Td>
                    <Table.Td ta="right">
                      <AbbreviatedNumber value={c.accounts} />
                    </Table.Td>
                    <Table.Td ta="right">
                      <AbbreviatedNumber value={c.impressions} />
                    </Table.Td>
                    <Table.Td ta="right">
                      <AbbreviatedNumber value={c.clicks} />
                    </Table.Td>
                    <Table.Td>
                      {c.sync_state === 'failed' ? (
                        <Badge color="red" variant="light">
                          Sync failed
                        </Badge>
                      ) : (
                        <Text size="sm">{syncText(c)}</Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{formatDay(c.created_at)}</Text>
                    </Table.Td>
                    {canWrite && (
                      <Table.Td>
                        <CohortStatusActions clientId={clientId} cohort={c} />
                      </Table.Td>
                    )}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
      {cohorts.data && cohorts.data.total > PAGE_SIZE && (
        <Group justify="space-between">
          <Text size="sm" c="dimmed">
            {cohorts.data.total} cohorts
          </Text>
          <Pagination
            total={Math.ceil(cohorts.data.total / PAGE_SIZE)}
            value={page}
            onChange={(p) => update({ page: String(p) })}
            getControlProps={(control) => ({ 'aria-label': `${control} page` })}
            getItemProps={(p) => ({ 'aria-label': `Page ${p}` })}
          />
        </Group>
      )}
    </Stack>
  );
}
