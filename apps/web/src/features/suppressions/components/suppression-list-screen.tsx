import { useState } from 'react';
import {
  Alert,
  Badge,
  Button,
  FileButton,
  Group,
  Modal,
  Paper,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconLock, IconMailOff, IconPlus, IconSearch, IconTrash, IconUpload } from '@tabler/icons-react';
import { addSuppressionBody } from '@rally/shared/schemas/suppressions';
import type { Suppression, SuppressionSource } from '@rally/shared/schemas/suppressions';
import { DownloadButton } from '../../../components/download-button.tsx';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import {
  downloadSuppressions,
  useAddSuppression,
  useRemoveSuppression,
  useSuppressions,
  useUploadSuppressions,
} from '../api/suppressions.ts';

const SOURCE_LABEL: Record<SuppressionSource, { label: string; color: string }> = {
  opt_out: { label: 'Opted out', color: 'grape' },
  manual: { label: 'Added by hand', color: 'blue' },
  import: { label: 'Uploaded', color: 'cyan' },
  erasure: { label: 'Erased', color: 'gray' },
};

const when = (iso: string) =>
  new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

/**
 * Settings › Suppression list (issue 44): the people of this client who are shown no ads and counted
 * nowhere, by address: those who pressed "Stop showing me these ads", and those added here by hand
 * or by a CSV file. Removing someone asks why; the entry is kept as history. Owners and admins only.
 */
export function SuppressionListScreen({ clientId, canWrite }: { clientId: string; canWrite: boolean }) {
  const [state, setState] = useState<'active' | 'removed'>('active');
  const [q, setQ] = useState('');
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors.at(-1) ?? null;
  const list = useSuppressions(clientId, { state, q, cursor }, canWrite);
  const [removing, setRemoving] = useState<Suppression | null>(null);
  const reset = () => setCursors([null]);

  if (!canWrite) {
    return (
      <Stack gap="md" maw={860}>
        <Title order={1}>Suppression list</Title>
        <Alert color="gray" variant="light" icon={<IconLock size={18} />} role="note">
          Only owners and admins of this client can see and change the suppression list: it names people.
        </Alert>
      </Stack>
    );
  }

  return (
    <Stack gap="lg" maw={960}>
      <div>
        <Title order={1}>Suppression list</Title>
        <Text c="dimmed" maw={720}>
          People on this list see a blank image instead of your ads and are counted nowhere, in every cadence
          and cohort. They leave your ad-network audiences, and imports skip them. Prospects add themselves
          with “Stop showing me these ads” on the page behind “Why am I seeing this?”.
        </Text>
      </div>

      <AddForm clientId={clientId} onAdded={reset} />

      <Group justify="space-between" wrap="wrap" gap="sm">
        <Group gap="sm" wrap="wrap">
          <SegmentedControl
            aria-label="Which entries"
            value={state}
            onChange={(v) => {
              setState(v === 'removed' ? 'removed' : 'active');
              reset();
            }}
            data={[
              { label: 'On the list', value: 'active' },
              { label: 'Removed', value: 'removed' },
            ]}
          />
          <TextInput
            aria-label="Search addresses"
            placeholder="Search addresses"
            leftSection={<IconSearch size={14} />}
            value={q}
            onChange={(e) => {
              setQ(e.currentTarget.value);
              reset();
            }}
            w={220}
          />
        </Group>
        <Group gap="xs">
          <UploadButton clientId={clientId} onDone={reset} />
          <DownloadButton
            label="Export CSV"
            ariaLabel="Export CSV: the whole list with its removals"
            onDownload={() => downloadSuppressions(clientId)}
          />
        </Group>
      </Group>

      {list.isPending ? (
        <PanelLoading label="Loading the suppression list" />
      ) : list.isError ? (
        <PanelError error={list.error} what="the suppression list" onRetry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <Paper withBorder radius="md" p="lg">
          <Group gap="sm" wrap="nowrap" align="flex-start">
            <IconMailOff size={28} stroke={1.5} aria-hidden />
            <div>
              <Text fw={600}>
                {q.trim()
                  ? 'No address matches your search'
                  : state === 'active'
                    ? 'No one is on the list'
                    : 'No one has been taken off the list'}
              </Text>
              <Text size="sm" c="dimmed">
                {state === 'active'
                  ? 'When a prospect stops your ads, or you add an address, it shows here.'
                  : 'Removals show here with who made them and why.'}
              </Text>
            </div>
          </Group>
        </Paper>
      ) : (
        <>
          <Text size="sm" c="dimmed" role="status">
            {list.data.total} {list.data.total === 1 ? 'person' : 'people'}
            {state === 'removed' ? ' taken off the list' : ' on the list'}
          </Text>
          <Table.ScrollContainer minWidth={640}>
            <Table verticalSpacing="sm" striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Address</Table.Th>
                  <Table.Th>How</Table.Th>
                  <Table.Th>Reason</Table.Th>
                  <Table.Th>{state === 'removed' ? 'Removed' : 'Added'}</Table.Th>
                  {state === 'active' && (
                    <Table.Th>
                      <VisuallyHidden>Actions</VisuallyHidden>
                    </Table.Th>
                  )}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.data.items.map((s) => (
                  <Table.Tr key={s.id}>
                    <Table.Td style={{ wordBreak: 'break-all' }}>
                      {s.email ?? (
                        <Text span c="dimmed" size="sm">
                          Erased (kept as a hash only)
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Badge variant="light" color={SOURCE_LABEL[s.source].color}>
                        {SOURCE_LABEL[s.source].label}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{state === 'removed' ? s.removed_reason : s.reason || '—'}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">
                        {state === 'removed' && s.removed_at ? when(s.removed_at) : when(s.created_at)}
                      </Text>
                      <Text size="xs" c="dimmed">
                        {state === 'removed'
                          ? (s.removed_by_name ?? '')
                          : (s.created_by_name ?? (s.source === 'opt_out' ? 'The prospect' : ''))}
                      </Text>
                    </Table.Td>
                    {state === 'active' && (
                      <Table.Td>
                        <Button
                          size="xs"
                          variant="subtle"
                          color="red"
                          leftSection={<IconTrash size={14} />}
                          aria-label={`Remove ${s.email ?? 'this erased person'} from the list`}
                          onClick={() => setRemoving(s)}
                        >
                          Remove
                        </Button>
                      </Table.Td>
                    )}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <Group justify="flex-end" gap="xs">
            <Button
              variant="default"
              size="xs"
              disabled={cursors.length < 2}
              onClick={() => setCursors((c) => c.slice(0, -1))}
            >
              Newer
            </Button>
            <Button
              variant="default"
              size="xs"
              disabled={!list.data.next_cursor}
              onClick={() => setCursors((c) => [...c, list.data.next_cursor])}
            >
              Older
            </Button>
          </Group>
        </>
      )}
      <RemoveModal clientId={clientId} entry={removing} onClose={() => setRemoving(null)} />
    </Stack>
  );
}

function AddForm({ clientId, onAdded }: { clientId: string; onAdded: () => void }) {
  const add = useAddSuppression(clientId);
  const [email, setEmail] = useState('');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const serverErrors = fieldErrorsOf(add.error);
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="add-suppression-title">
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const parsed = addSuppressionBody.safeParse({ email, reason });
          if (!parsed.success) {
            setError(`This ${parsed.error.issues[0]?.message ?? 'is not valid'}`);
            return;
          }
          setError(null);
          add.mutate(parsed.data, {
            onSuccess: (r) => {
              setEmail('');
              setReason('');
              onAdded();
              notifications.show({
                color: 'teal',
                message: r.created
                  ? `${r.suppression.email ?? 'The address'} is on the list`
                  : `${r.suppression.email ?? 'The address'} was on the list already`,
              });
            },
          });
        }}
      >
        <Title order={2} size="h4" id="add-suppression-title" mb="xs">
          Add a person
        </Title>
        <Group align="flex-start" gap="sm" wrap="wrap">
          <TextInput
            label="E-mail address"
            placeholder="name@company.com"
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            error={error ?? serverErrors.email}
            style={{ flex: '1 1 220px' }}
          />
          <TextInput
            label="Reason (optional)"
            placeholder="Asked us by phone"
            value={reason}
            onChange={(e) => setReason(e.currentTarget.value)}
            error={serverErrors.reason}
            style={{ flex: '1 1 220px' }}
          />
          <Button
            type="submit"
            mt={{ base: 0, xs: 25 }}
            leftSection={<IconPlus size={14} />}
            loading={add.isPending}
          >
            Add to the list
          </Button>
        </Group>
        {add.isError && !serverErrors.email && <FormError error={add.error} />}
      </form>
    </Paper>
  );
}

function UploadButton({ clientId, onDone }: { clientId: string; onDone: () => void }) {
  const upload = useUploadSuppressions(clientId);
  return (
    <>
      <FileButton
        accept=".csv,text/csv"
        onChange={(file) => {
          if (!file) return;
          upload.mutate(file, {
            onSuccess: (r) => {
              onDone();
              const parts = [`${r.added} added`];
              if (r.already) parts.push(`${r.already} already on the list`);
              if (r.invalid_count) {
                const first = r.invalid[0];
                parts.push(
                  `${r.invalid_count} not an address${first ? ` (line ${first.line}: “${first.value}”)` : ''}`,
                );
              }
              notifications.show({ color: r.invalid_count ? 'yellow' : 'teal', message: parts.join(', ') });
            },
            onError: (err) => {
              const field = fieldErrorsOf(err).file;
              notifications.show({
                color: 'red',
                message: field
                  ? field.replace(/^This /, 'The file ')
                  : 'The file could not be uploaded. Please try again.',
              });
            },
          });
        }}
      >
        {(props) => (
          <Button
            {...props}
            variant="default"
            size="xs"
            leftSection={<IconUpload size={14} />}
            loading={upload.isPending}
            aria-label="Upload CSV: one address per line, or a column headed email"
          >
            Upload CSV
          </Button>
        )}
      </FileButton>
    </>
  );
}

function RemoveModal({
  clientId,
  entry,
  onClose,
}: {
  clientId: string;
  entry: Suppression | null;
  onClose: () => void;
}) {
  const remove = useRemoveSuppression(clientId);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const close = () => {
    setReason('');
    setError(null);
    remove.reset();
    onClose();
  };
  return (
    <Modal opened={entry !== null} onClose={close} title="Take this person off the list?" centered>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          if (!entry) return;
          if (!reason.trim()) {
            setError('Say why this person may be shown ads again');
            return;
          }
          remove.mutate(
            { id: entry.id, reason: reason.trim() },
            {
              onSuccess: () => {
                notifications.show({
                  color: 'teal',
                  message: `${entry.email ?? 'The person'} is off the list`,
                });
                close();
              },
            },
          );
        }}
      >
        <Stack gap="sm">
          <Text size="sm">
            {entry?.email ?? 'This person'} will be shown your ads and counted again.
            {entry?.source === 'opt_out' &&
              ' They asked to stop seeing them: remove them only if they asked again.'}
          </Text>
          <Textarea
            label="Reason"
            required
            rows={2}
            value={reason}
            onChange={(e) => setReason(e.currentTarget.value)}
            error={error ?? fieldErrorsOf(remove.error).reason}
            data-autofocus
          />
          {remove.isError && !fieldErrorsOf(remove.error).reason && <FormError error={remove.error} />}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" color="red" loading={remove.isPending}>
              Remove from the list
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
