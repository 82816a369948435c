import { useState } from 'react';
import { Button, Code, Group, List, Modal, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconEraser, IconUserOff } from '@tabler/icons-react';
import { erasureBody } from '@rally/shared/schemas/erasures';
import type { Erasure } from '@rally/shared/schemas/erasures';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useErase, useErasures } from '../api/erasures.ts';

const when = (iso: string) =>
  new Date(iso).toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });

function removedSummary(c: Erasure['counts']): string {
  const parts = [
    [c.prospects, 'prospect'],
    [c.targets, 'target'],
    [c.events + c.uncounted_events, 'event'],
    [c.crm_contacts, 'CRM contact'],
  ] as const;
  const said = parts.filter(([n]) => n > 0).map(([n, w]) => `${n} ${w}${n === 1 ? '' : 's'}`);
  return said.length ? said.join(', ') : 'Nothing was held';
}

/**
 * Settings › Suppression list › Forget a person (issue 44, decision 0031): owners erase a prospect by
 * address after confirming it twice. What stays is listed below: a keyed hash, when and by whom.
 */
export function ForgetPersonPanel({ clientId }: { clientId: string }) {
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const records = useErasures(clientId);
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="forget-person-title">
      <Stack gap="md">
        <div>
          <Title order={2} size="h4" id="forget-person-title">
            Forget a person
          </Title>
          <Text size="sm" c="dimmed" maw={720}>
            Erases everything this client holds about one person: prospect, targets, engagement (reports drop
            by their events), CRM contacts, cohort and journey memberships, report files, queued e-mails,
            webhook deliveries and ad-network audiences. Only a record stays — a keyed hash of the address,
            when and by whom — and imports and syncs leave the person out unless you take their entry off the
            list above.
          </Text>
        </div>
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            const parsed = erasureBody.shape.email.safeParse(email);
            if (!parsed.success) {
              setError(`This ${parsed.error.issues[0]?.message ?? 'is not valid'}`);
              return;
            }
            setError(null);
            setConfirming(parsed.data);
          }}
        >
          <Group align="flex-start" gap="sm" wrap="wrap">
            <TextInput
              label="Address of the person to forget"
              placeholder="name@company.com"
              value={email}
              onChange={(e) => setEmail(e.currentTarget.value)}
              error={error}
              style={{ flex: '1 1 260px' }}
            />
            <Button
              type="submit"
              color="red"
              variant="light"
              mt={{ base: 0, xs: 25 }}
              leftSection={<IconEraser size={14} />}
            >
              Forget this person…
            </Button>
          </Group>
        </form>
        <ConfirmModal
          clientId={clientId}
          email={confirming}
          onClose={() => setConfirming(null)}
          onDone={() => setEmail('')}
        />

        <Title order={3} size="h5">
          Erasure records
        </Title>
        {records.isPending ? (
          <PanelLoading label="Loading the erasure records" />
        ) : records.isError ? (
          <PanelError
            error={records.error}
            what="the erasure records"
            onRetry={() => void records.refetch()}
          />
        ) : records.data.items.length === 0 ? (
          <Group gap="sm" wrap="nowrap" align="flex-start">
            <IconUserOff size={24} stroke={1.5} aria-hidden />
            <div>
              <Text fw={600}>No one has been forgotten</Text>
              <Text size="sm" c="dimmed">
                Each erasure leaves a record here, without the address.
              </Text>
            </div>
          </Group>
        ) : (
          <Table.ScrollContainer minWidth={560}>
            <Table striped aria-label="Erasure records">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>When</Table.Th>
                  <Table.Th>By</Table.Th>
                  <Table.Th>Removed</Table.Th>
                  <Table.Th>Keyed hash</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {records.data.items.map((r) => (
                  <Table.Tr key={r.id}>
                    <Table.Td>{when(r.erased_at)}</Table.Td>
                    <Table.Td>{r.erased_by_name ?? 'A former member'}</Table.Td>
                    <Table.Td>{removedSummary(r.counts)}</Table.Td>
                    <Table.Td>
                      <Code title={r.email_hash}>{r.email_hash.slice(0, 12)}…</Code>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
    </Paper>
  );
}

function ConfirmModal({
  clientId,
  email,
  onClose,
  onDone,
}: {
  clientId: string;
  email: string | null;
  onClose: () => void;
  onDone: () => void;
}) {
  const erase = useErase(clientId);
  const [again, setAgain] = useState('');
  const [error, setError] = useState<string | null>(null);
  const close = () => {
    setAgain('');
    setError(null);
    erase.reset();
    onClose();
  };
  const serverErrors = fieldErrorsOf(erase.error);
  return (
    <Modal opened={email !== null} onClose={close} title="Forget this person for good?" centered>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          if (!email) return;
          if (again.trim().toLowerCase() !== email.toLowerCase()) {
            setError('Type the same address to confirm');
            return;
          }
          setError(null);
          erase.mutate(
            { email, confirm: true },
            {
              onSuccess: (r) => {
                notifications.show({
                  color: 'teal',
                  message: `Forgotten. Removed: ${removedSummary(r.erasure.counts).toLowerCase()}.`,
                });
                onDone();
                close();
              },
            },
          );
        }}
      >
        <Stack gap="sm">
          <Text size="sm">
            Everything this client holds about <b>{email}</b> is erased now. This cannot be undone:
          </Text>
          <List size="sm">
            <List.Item>reports lose the person’s impressions, clicks and views;</List.Item>
            <List.Item>they leave every cadence, cohort, journey and ad-network audience;</List.Item>
            <List.Item>report files that name them are deleted (export again if you need them).</List.Item>
          </List>
          <TextInput
            label="Type the address again"
            value={again}
            onChange={(e) => setAgain(e.currentTarget.value)}
            error={error ?? serverErrors.email}
            data-autofocus
          />
          {erase.isError && !serverErrors.email && <FormError error={erase.error} />}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" color="red" loading={erase.isPending}>
              Forget for good
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
