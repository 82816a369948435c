import {
  ActionIcon,
  Badge,
  Button,
  EmptyState,
  Group,
  Modal,
  Paper,
  Stack,
  Table,
  Text,
  Tooltip,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconTrash, IconUsers } from '@tabler/icons-react';
import { useState } from 'react';
import type { Member } from '@rally/shared/schemas/auth';
import { useChangeMemberRole } from '../api/change-member-role.ts';
import { useMembers } from '../api/get-members.ts';
import { useRemoveMember } from '../api/remove-member.ts';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { RoleBadge } from '../../../components/role-badge.tsx';
import { RoleSelect, roleLabel } from './role-select.tsx';

const OWNER = 'purple_owner';
const fullName = (m: Member) => `${m.first_name} ${m.last_name}`.trim() || m.email;

type Props = {
  clientId: string;
  clientName: string;
  selfId: string;
  /** The signed-in user's role here: only an owner grants or removes the owner role. */
  myRole: string;
  canWrite: boolean;
};

/** The members of the current client with their roles; with users.write, change a role or remove. */
export function MembersPanel({ clientId, clientName, selfId, myRole, canWrite }: Props) {
  const members = useMembers(clientId);
  const changeRole = useChangeMemberRole();
  const remove = useRemoveMember();
  const [removing, setRemoving] = useState<Member | null>(null);
  const isOwner = myRole === OWNER;

  if (members.isPending) return <PanelLoading label="Loading members" />;
  if (members.isError)
    return <PanelError error={members.error} what="the members" onRetry={() => void members.refetch()} />;
  if (members.data.length === 0)
    return (
      <Paper withBorder p="xl">
        <EmptyState
          icon={<IconUsers size={28} />}
          title="No members yet"
          description="Invite your team from the Pending invitations tab."
        />
      </Paper>
    );

  const owners = members.data.filter((m) => m.role === OWNER).length;

  return (
    <>
      <Paper withBorder radius="md">
        <Table.ScrollContainer minWidth={680} type="native">
          <Table verticalSpacing="sm" horizontalSpacing="md" highlightOnHover aria-label="Members">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Email</Table.Th>
                <Table.Th>Role</Table.Th>
                {canWrite && <Table.Th w={220}>Actions</Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {members.data.map((m) => {
                const name = fullName(m);
                const isSelf = m.id === selfId;
                const ownerLocked = m.role === OWNER && !isOwner;
                // The server refuses to leave a client without an owner (409); say so up front.
                const lastOwner = m.role === OWNER && owners <= 1;
                const changing = changeRole.isPending && changeRole.variables.userId === m.id;
                return (
                  <Table.Tr key={m.id}>
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap">
                        <Text size="sm" fw={500}>
                          {name}
                        </Text>
                        {isSelf && (
                          <Badge size="xs" variant="outline" color="gray">
                            You
                          </Badge>
                        )}
                      </Group>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" c="dimmed">
                        {m.email}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <RoleBadge role={m.role} />
                    </Table.Td>
                    {canWrite && (
                      <Table.Td>
                        <Group gap="xs" wrap="nowrap">
                          <Tooltip
                            label={
                              ownerLocked
                                ? "Only an owner can change an owner's role"
                                : 'A client needs at least one owner. Make someone else owner first.'
                            }
                            disabled={!ownerLocked && !lastOwner}
                          >
                            <div>
                              <RoleSelect
                                size="xs"
                                w={150}
                                aria-label={`Role of ${name}`}
                                value={m.role}
                                canGrantOwner={isOwner}
                                disabled={ownerLocked || lastOwner || changing}
                                onChange={(role) => {
                                  if (role === m.role) return;
                                  changeRole.mutate(
                                    { clientId, userId: m.id, role },
                                    {
                                      onSuccess: () =>
                                        notifications.show({
                                          color: 'green',
                                          message: `${name} is now ${/^[aeiou]/i.test(roleLabel(role)) ? 'an' : 'a'} ${roleLabel(role)}.`,
                                        }),
                                    },
                                  );
                                }}
                              />
                            </div>
                          </Tooltip>
                          <Tooltip
                            label={
                              isSelf
                                ? 'You cannot remove yourself'
                                : ownerLocked
                                  ? 'Only an owner can remove an owner'
                                  : `Remove ${name}`
                            }
                          >
                            <ActionIcon
                              variant="subtle"
                              color="red"
                              aria-label={`Remove ${name}`}
                              disabled={isSelf || ownerLocked}
                              onClick={() => setRemoving(m)}
                            >
                              <IconTrash size={16} />
                            </ActionIcon>
                          </Tooltip>
                        </Group>
                      </Table.Td>
                    )}
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>

      <Modal
        opened={removing !== null}
        onClose={() => {
          if (!remove.isPending) setRemoving(null);
        }}
        title={<Text fw={600}>Remove member</Text>}
        centered
      >
        {removing && (
          <Stack gap="md">
            <Text size="sm">
              Remove <b>{fullName(removing)}</b> ({removing.email}) from <b>{clientName}</b>? They lose access
              to this client at once. Their account and their other clients are not affected.
            </Text>
            <Group justify="flex-end" gap="sm">
              <Button variant="default" onClick={() => setRemoving(null)} disabled={remove.isPending}>
                Cancel
              </Button>
              <Button
                color="red"
                loading={remove.isPending}
                onClick={() =>
                  remove.mutate(
                    { clientId, userId: removing.id },
                    {
                      onSuccess: () => {
                        notifications.show({
                          color: 'green',
                          message: `${fullName(removing)} was removed from ${clientName}.`,
                        });
                        setRemoving(null);
                      },
                    },
                  )
                }
              >
                Remove
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </>
  );
}
