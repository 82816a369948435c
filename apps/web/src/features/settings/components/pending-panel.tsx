import { Badge, Button, EmptyState, Group, Paper, Stack, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconMailForward } from '@tabler/icons-react';
import { daysBetween, formatDay } from '@rally/shared';
import { useInvitations } from '../api/get-invitations.ts';
import { useInviteUser } from '../api/invite-user.ts';
import { useRevokeInvitation } from '../api/revoke-invitation.ts';
import { InviteForm } from './invite-form.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { RoleBadge } from '../../../components/role-badge.tsx';
import { isBuiltInRole } from './role-select.tsx';

/** `now` is when the list was fetched, so a render stays pure. */
function Expiry({ at, now }: { at: string; now: number }) {
  const days = daysBetween(now, at);
  const expired = new Date(at).getTime() <= now;
  return (
    <Group gap={6} wrap="nowrap">
      <Text size="sm">{formatDay(at)}</Text>
      {expired ? (
        <Badge size="xs" color="red" variant="light">
          Expired
        </Badge>
      ) : (
        <Text size="xs" c="dimmed">
          {days <= 0 ? 'today' : days === 1 ? 'tomorrow' : `in ${days} days`}
        </Text>
      )}
    </Group>
  );
}

/** Invitations not yet accepted; with users.write, invite, resend (renews the link) and revoke. */
export function PendingPanel({
  clientId,
  clientName,
  canWrite,
  canGrantOwner,
}: {
  clientId: string;
  clientName: string;
  canWrite: boolean;
  canGrantOwner: boolean;
}) {
  const invitations = useInvitations(clientId);
  const resend = useInviteUser();
  const revoke = useRevokeInvitation();
  const resending = resend.isPending ? resend.variables.email : null;
  const revoking = revoke.isPending ? revoke.variables.id : null;

  let list;
  if (invitations.isPending) list = <PanelLoading label="Loading invitations" />;
  else if (invitations.isError)
    list = (
      <PanelError
        error={invitations.error}
        what="the invitations"
        onRetry={() => void invitations.refetch()}
      />
    );
  else if (invitations.data.length === 0)
    list = (
      <Paper withBorder radius="md" p="xl">
        <EmptyState
          icon={<IconMailForward size={28} />}
          title="No pending invitations"
          description={
            canWrite
              ? 'Invitations you send appear here until they are accepted.'
              : 'Invitations appear here until they are accepted.'
          }
        />
      </Paper>
    );
  else
    list = (
      <Paper withBorder radius="md">
        <Table.ScrollContainer minWidth={640} type="native">
          <Table
            verticalSpacing="sm"
            horizontalSpacing="md"
            highlightOnHover
            aria-label="Pending invitations"
          >
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Email</Table.Th>
                <Table.Th>Role</Table.Th>
                <Table.Th>Expires</Table.Th>
                {canWrite && <Table.Th w={200}>Actions</Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {invitations.data.map((i) => (
                <Table.Tr key={i.id}>
                  <Table.Td>
                    <Text size="sm" fw={500}>
                      {i.email}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <RoleBadge role={i.role} />
                  </Table.Td>
                  <Table.Td>
                    <Expiry at={i.expires_at} now={invitations.dataUpdatedAt} />
                  </Table.Td>
                  {canWrite && (
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap">
                        <Button
                          size="xs"
                          variant="light"
                          aria-label={`Resend the invitation to ${i.email}`}
                          loading={resending === i.email}
                          disabled={!isBuiltInRole(i.role)}
                          onClick={() => {
                            if (!isBuiltInRole(i.role)) return;
                            resend.mutate(
                              { clientId, email: i.email, role: i.role },
                              {
                                onSuccess: () =>
                                  notifications.show({
                                    color: 'green',
                                    message: `Invitation resent to ${i.email}.`,
                                  }),
                              },
                            );
                          }}
                        >
                          Resend
                        </Button>
                        <Button
                          size="xs"
                          variant="subtle"
                          color="red"
                          aria-label={`Revoke the invitation to ${i.email}`}
                          loading={revoking === i.id}
                          onClick={() =>
                            revoke.mutate(
                              { clientId, id: i.id },
                              {
                                onSuccess: () =>
                                  notifications.show({
                                    color: 'green',
                                    message: `The invitation to ${i.email} was revoked.`,
                                  }),
                              },
                            )
                          }
                        >
                          Revoke
                        </Button>
                      </Group>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
    );

  return (
    <Stack gap="md">
      {canWrite && <InviteForm clientId={clientId} clientName={clientName} canGrantOwner={canGrantOwner} />}
      {list}
    </Stack>
  );
}
