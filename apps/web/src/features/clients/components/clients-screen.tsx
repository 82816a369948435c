import {
  Badge,
  Button,
  EmptyState,
  Grid,
  Group,
  Paper,
  Stack,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { IconArrowRight, IconBuildingSkyscraper } from '@tabler/icons-react';
import { useNavigate } from 'react-router';
import { useAuth } from '../../../lib/auth/store.ts';
import { useClients } from '../api/get-clients.ts';
import { NewClientForm } from './new-client-form.tsx';
import { RoleBadge } from '../../../components/role-badge.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';

/** /clients (client.read): the user's clients and their role in each; switch, or create one. */
export function ClientsScreen() {
  const auth = useAuth();
  const navigate = useNavigate();
  const clients = useClients();
  const current = auth.currentClient;
  const canCreate = auth.currentRole?.permissions.includes('client.write') ?? false;
  const currentName = auth.clients.find((c) => c.id === current)?.name ?? 'the current client';

  let list;
  if (clients.isPending) list = <PanelLoading label="Loading clients" />;
  else if (clients.isError)
    list = <PanelError error={clients.error} what="your clients" onRetry={() => void clients.refetch()} />;
  else if (clients.data.length === 0)
    list = (
      <Paper withBorder radius="md" p="xl">
        <EmptyState
          icon={<IconBuildingSkyscraper size={28} />}
          title="No clients yet"
          description={
            canCreate ? 'Create your first client above.' : 'Ask an owner to invite you to a client.'
          }
        />
      </Paper>
    );
  else {
    const names = new Map(clients.data.map((c) => [c.id, c.name]));
    list = (
      <Paper withBorder radius="md">
        <Table.ScrollContainer minWidth={640} type="native">
          <Table verticalSpacing="sm" horizontalSpacing="md" aria-label="Your clients">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Your role</Table.Th>
                <Table.Th w={160}>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {clients.data.map((c) => {
                const isCurrent = c.id === current;
                const parent = c.parent_id ? names.get(c.parent_id) : undefined;
                return (
                  <Table.Tr
                    key={c.id}
                    aria-current={isCurrent ? 'true' : undefined}
                    bg={isCurrent ? 'var(--mantine-color-indigo-0)' : undefined}
                  >
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
                        {c.is_default && (
                          <Badge size="xs" variant="outline" color="gray">
                            Default
                          </Badge>
                        )}
                      </Group>
                      {parent && (
                        <Text size="xs" c="dimmed">
                          Part of {parent}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <RoleBadge role={c.role} />
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
                          onClick={() => navigate(`/feed?client_id=${c.id}`)}
                        >
                          Switch
                        </Button>
                      )}
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
    );
  }

  return (
    <Stack gap="lg">
      <div>
        <Title order={1}>Clients</Title>
        <Text c="dimmed">The companies you work for. Switch to one to work in it.</Text>
      </div>
      {canCreate ? (
        <Grid gap="lg" align="flex-start">
          <Grid.Col span={{ base: 12, md: 8 }}>{list}</Grid.Col>
          <Grid.Col span={{ base: 12, md: 4 }}>
            <NewClientForm parentName={currentName} />
          </Grid.Col>
        </Grid>
      ) : (
        list
      )}
    </Stack>
  );
}
