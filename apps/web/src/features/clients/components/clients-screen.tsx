import {
  Anchor,
  Badge,
  Button,
  EmptyState,
  Box,
  Group,
  Paper,
  Stack,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { IconArrowRight, IconBuildingSkyscraper } from '@tabler/icons-react';
import { Link, useNavigate } from 'react-router';
import { abbreviateNumber, formatCount } from '@rally/shared';
import type { ClientHealth, ClientOverviewRow } from '@rally/shared/schemas/client-overview';
import { getAuthState, refreshClients, useAuth } from '../../../lib/auth/store.ts';
import { useClientOverview } from '../api/get-client-overview.ts';
import { NewClientForm } from './new-client-form.tsx';
import { RoleBadge } from '../../../components/role-badge.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';

const HEALTH: Record<ClientHealth, { label: string; color: string }> = {
  healthy: { label: 'Healthy', color: 'teal' },
  needs_attention: { label: 'Needs attention', color: 'yellow' },
  at_risk: { label: 'At risk', color: 'red' },
};

function currencySymbol(currency: string): string {
  try {
    const part = new Intl.NumberFormat('en-US', { style: 'currency', currency })
      .formatToParts(0)
      .find((p) => p.type === 'currency');
    return part?.value ?? `${currency} `;
  } catch {
    return `${currency} `;
  }
}

/** SPEC.md §9 abbreviations (K, MM, B…), as Revenue shows amounts; a dash where the role sees none. */
const money = (cents: number | null, currency: string) =>
  cents === null ? '—' : `${currencySymbol(currency)}${abbreviateNumber(cents / 100)}`;

const withClient = (path: string, clientId: string) =>
  `${path}${path.includes('?') ? '&' : '?'}client_id=${clientId}`;

/** The top of `id`'s tree among the clients the user may create under (the agency, usually). */
function topParent(
  id: string | null,
  all: { id: string; parent_id: string | null }[],
  allowed: Set<string>,
): string | null {
  let best: string | null = null;
  const seen = new Set<string>();
  for (let at = id; at && !seen.has(at); at = all.find((c) => c.id === at)?.parent_id ?? null) {
    seen.add(at);
    if (allowed.has(at)) best = at;
  }
  return best ?? [...allowed][0] ?? null;
}

/**
 * /clients: the agency view (issue 42 item 13). Every client of the user with, over the last 30 days,
 * its new superprospects, spend and pipeline, its health and the first thing that needs a person
 * (a link into that client); switch to one, or create one under a parent chosen on purpose.
 */
export function ClientsScreen() {
  const auth = useAuth();
  const navigate = useNavigate();
  // A client made a moment ago is in this table before the sign-in state has its membership (that
  // refresh is not awaited on creation); the route gate would then put the old client back in the
  // URL, so the switch waits for the membership first.
  const switchTo = async (id: string) => {
    if (!getAuthState().user?.clients.some((m) => m.client_id === id))
      await refreshClients().catch(() => undefined);
    await navigate(`/feed?client_id=${id}`);
  };
  const overview = useClientOverview();
  const current = auth.currentClient;
  const parents = (auth.user?.clients ?? [])
    .filter((m) => m.permissions.includes('client.write'))
    .map((m) => ({ id: m.client_id, name: m.client_name }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const canCreate = parents.length > 0;
  const defaultParent = topParent(current, auth.clients, new Set(parents.map((p) => p.id)));

  let list;
  if (overview.isPending) list = <PanelLoading label="Loading clients" />;
  else if (overview.isError)
    list = <PanelError error={overview.error} what="your clients" onRetry={() => void overview.refetch()} />;
  else if (overview.data.clients.length === 0)
    list = (
      <Paper withBorder radius="md" p="xl">
        <EmptyState
          icon={<IconBuildingSkyscraper size={28} />}
          title="No clients yet"
          description={
            canCreate ? 'Create your first client here.' : 'Ask an owner to invite you to a client.'
          }
        />
      </Paper>
    );
  else {
    const rows = overview.data.clients;
    const names = new Map(rows.map((c) => [c.id, c.name]));
    list = (
      <Paper withBorder radius="md">
        <Table.ScrollContainer minWidth={960} type="native">
          <Table verticalSpacing="sm" horizontalSpacing="md" aria-label="Your clients">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Client</Table.Th>
                <Table.Th ta="right">Superprospects</Table.Th>
                <Table.Th ta="right">Spend</Table.Th>
                <Table.Th ta="right">Pipeline</Table.Th>
                <Table.Th>Health</Table.Th>
                <Table.Th>Needs attention</Table.Th>
                <Table.Th w={120}>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((c) => (
                <ClientRow
                  key={c.id}
                  c={c}
                  parent={c.parent_id ? names.get(c.parent_id) : undefined}
                  isCurrent={c.id === current}
                  onSwitch={() => void switchTo(c.id)}
                />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <Text size="xs" c="dimmed" px="md" py="xs">
          Last {overview.data.days} days. Superprospects and pipeline as Revenue counts them; spend is what
          was billed for them. A dash: your role there does not show that number.
        </Text>
      </Paper>
    );
  }

  return (
    <Stack gap="lg">
      <div>
        <Title order={1}>Clients</Title>
        <Text c="dimmed">The companies you work for, how each is doing, and what needs you.</Text>
      </div>
      {list}
      {/* Below the table, so the numbers have the page's width. */}
      {canCreate && (
        <Box maw={480}>
          <NewClientForm parents={parents} defaultParent={defaultParent} />
        </Box>
      )}
    </Stack>
  );
}

function ClientRow({
  c,
  parent,
  isCurrent,
  onSwitch,
}: {
  c: ClientOverviewRow;
  parent: string | undefined;
  isCurrent: boolean;
  onSwitch: () => void;
}) {
  const health = HEALTH[c.health];
  return (
    <Table.Tr aria-current={isCurrent ? 'true' : undefined}>
      <Table.Td>
        <Group gap={6} wrap="wrap">
          <Text size="sm" fw={isCurrent ? 700 : 500}>
            {c.name}
          </Text>
          {isCurrent && (
            <Badge size="xs" variant="filled" color="indigo">
              Current
            </Badge>
          )}
          <RoleBadge role={c.role} />
        </Group>
        {parent && (
          <Text size="xs" c="dimmed">
            Part of {parent}
          </Text>
        )}
      </Table.Td>
      <Table.Td ta="right">
        <Text size="sm">{c.superprospects === null ? '—' : formatCount(c.superprospects)}</Text>
      </Table.Td>
      <Table.Td ta="right">
        <Text size="sm">{money(c.spend_cents, c.currency)}</Text>
      </Table.Td>
      <Table.Td ta="right">
        <Text size="sm">{money(c.pipeline_cents, c.currency)}</Text>
      </Table.Td>
      <Table.Td>
        <Badge variant="light" color={health.color} styles={{ label: { overflow: 'visible' } }}>
          {health.label}
        </Badge>
      </Table.Td>
      <Table.Td maw={320}>
        {c.attention ? (
          <Stack gap={2}>
            <Text size="sm" lineClamp={2}>
              {c.attention.message}
            </Text>
            <Anchor component={Link} to={withClient(c.attention.path, c.id)} size="sm">
              {c.attention.label}
              <VisuallyHidden> in {c.name}</VisuallyHidden>
            </Anchor>
            {c.attention_count > 1 && (
              <Text size="xs" c="dimmed">
                and {c.attention_count - 1} more
              </Text>
            )}
          </Stack>
        ) : (
          <Text size="sm" c="dimmed">
            Nothing
          </Text>
        )}
      </Table.Td>
      <Table.Td ta="right">
        {isCurrent ? (
          <Text size="sm" c="dimmed">
            You are here
          </Text>
        ) : (
          <Button
            size="xs"
            variant="light"
            rightSection={<IconArrowRight size={14} />}
            aria-label={`Switch to ${c.name}`}
            onClick={onSwitch}
          >
            Switch
          </Button>
        )}
      </Table.Td>
    </Table.Tr>
  );
}
