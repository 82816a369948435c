import { useState } from 'react';
import {
  Alert,
  Anchor,
  Button,
  Group,
  Paper,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconLock, IconMailOff } from '@tabler/icons-react';
import { Link } from 'react-router';
import { SDR_DIGESTS } from '@rally/shared/schemas/sdr-notifications';
import type { SdrDigest, SdrNotification } from '@rally/shared/schemas/sdr-notifications';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useSaveSdrNotifications, useSdrNotifications } from '../api/sdr-notifications.ts';

const DIGEST_LABELS: Record<SdrDigest, string> = { off: 'Off', daily: 'Daily', weekly: 'Weekly' };
type Choice = Pick<SdrNotification, 'super_email' | 'digest'>;

/**
 * /client-settings/notifications (issue 17; SPEC.md §7 sdr_notifications): for each rep, an e-mail
 * when a prospect of theirs becomes a superprospect, and a daily or weekly digest. Changing them
 * needs settings.write; others see them read-only.
 */
export function NotificationSettingsScreen() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  const canEdit = auth.currentRole.permissions.includes('settings.write');
  return (
    <Stack gap="lg">
      <div>
        <Title order={1}>Notifications</Title>
        <Text c="dimmed">
          E-mail each sales rep when a prospect of theirs becomes a superprospect, and send them a daily or
          weekly digest of their prospects&apos; engagement.
        </Text>
      </div>
      <Anchor component={Link} to={`/client-settings/sales-reps?client_id=${clientId}`} size="sm">
        Sales reps and their e-mails
      </Anchor>
      {!canEdit && (
        <Alert variant="light" color="gray" icon={<IconLock size={18} />}>
          Your role cannot change notifications: it needs permission to change the settings.
        </Alert>
      )}
      <RepNotifications key={clientId} clientId={clientId} canEdit={canEdit} />
    </Stack>
  );
}

function RepNotifications({ clientId, canEdit }: { clientId: string; canEdit: boolean }) {
  const q = useSdrNotifications(clientId);
  const save = useSaveSdrNotifications(clientId);
  const [edits, setEdits] = useState<Record<string, Choice>>({});
  if (q.isPending) return <PanelLoading label="Loading notifications" />;
  if (q.isError) return <PanelError error={q.error} what="notifications" onRetry={() => void q.refetch()} />;
  if (q.data.reps.length === 0)
    return (
      <Paper withBorder radius="md" p="xl">
        <Text c="dimmed" ta="center">
          No sales reps yet. Reps come from your sequence platform or a CSV import.
        </Text>
      </Paper>
    );
  const current = (r: SdrNotification): Choice => edits[r.sales_rep_id] ?? r;
  const change = (r: SdrNotification, patch: Partial<Choice>) =>
    setEdits((e) => ({ ...e, [r.sales_rep_id]: { ...current(r), ...patch } }));
  const changed = q.data.reps.filter((r) => {
    const c = edits[r.sales_rep_id];
    return c && (c.super_email !== r.super_email || c.digest !== r.digest);
  });
  return (
    <Stack gap="md">
      <Paper withBorder radius="md">
        <Table.ScrollContainer minWidth={640}>
          <Table verticalSpacing="sm" aria-label="Notifications per sales rep">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Sales rep</Table.Th>
                <Table.Th>New superprospect e-mail</Table.Th>
                <Table.Th>Digest</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {q.data.reps.map((r) => {
                const c = current(r);
                const noEmail = !r.email;
                return (
                  <Table.Tr key={r.sales_rep_id}>
                    <Table.Td>
                      <Text size="sm" fw={600}>
                        {r.name}
                      </Text>
                      {noEmail ? (
                        <Group gap={4} c="orange">
                          <IconMailOff size={14} />
                          <Text size="xs">No e-mail: nothing can be sent</Text>
                        </Group>
                      ) : (
                        <Text size="xs" c="dimmed">
                          {r.email}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Switch
                        aria-label={`E-mail ${r.name} about new superprospects`}
                        checked={c.super_email}
                        disabled={!canEdit}
                        onChange={(e) => change(r, { super_email: e.currentTarget.checked })}
                      />
                    </Table.Td>
                    <Table.Td>
                      <Select
                        aria-label={`Digest for ${r.name}`}
                        data={SDR_DIGESTS.map((d) => ({ value: d, label: DIGEST_LABELS[d] }))}
                        value={c.digest}
                        allowDeselect={false}
                        disabled={!canEdit}
                        w={140}
                        onChange={(v) => v && change(r, { digest: v as SdrDigest })}
                      />
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
      {canEdit && (
        <Group justify="flex-end" gap="sm">
          {changed.length > 0 && (
            <Text size="sm" c="dimmed">
              {changed.length} rep{changed.length === 1 ? '' : 's'} changed
            </Text>
          )}
          <Button
            disabled={changed.length === 0}
            loading={save.isPending}
            onClick={() =>
              save.mutate(
                {
                  reps: changed.map((r) => ({
                    sales_rep_id: r.sales_rep_id,
                    super_email: current(r).super_email,
                    digest: current(r).digest,
                  })),
                },
                {
                  onSuccess: () => {
                    setEdits({});
                    notifications.show({ color: 'teal', message: 'Notifications saved.' });
                  },
                },
              )
            }
          >
            Save notifications
          </Button>
        </Group>
      )}
    </Stack>
  );
}
