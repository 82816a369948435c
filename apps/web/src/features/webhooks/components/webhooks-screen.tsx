import { useState } from 'react';
import type { FormEvent } from 'react';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  CopyButton,
  Group,
  Modal,
  Paper,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import {
  IconArrowLeft,
  IconCheck,
  IconCopy,
  IconKey,
  IconLock,
  IconPlus,
  IconSend,
  IconTrash,
  IconWebhook,
} from '@tabler/icons-react';
import { Link } from 'react-router';
import { relativeTime } from '@rally/shared/utils/dates';
import { WEBHOOK_EVENTS, WEBHOOK_EVENT_TYPES } from '@rally/shared/schemas/hookly';
import type {
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookEndpoint,
  WebhookEventType,
} from '@rally/shared/schemas/hookly';
import { MultiSelect } from '../../../components/multi-select.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import {
  useChangeWebhook,
  useCreateWebhook,
  useDeleteWebhook,
  useRotateWebhookSecret,
  useSendWebhookTest,
  useWebhookDeliveries,
  useWebhookSettings,
} from '../api/webhooks.ts';
import { formatDayTime } from '@rally/shared';

const STATUS_COLORS: Record<WebhookDeliveryStatus, string> = {
  pending: 'gray',
  retrying: 'orange',
  succeeded: 'teal',
  failed: 'red',
};
const STATUS_LABELS: Record<WebhookDeliveryStatus, string> = {
  pending: 'Pending',
  retrying: 'Retrying',
  succeeded: 'Delivered',
  failed: 'Failed',
};

/**
 * /settings/integrations/webhooks: the client's webhook endpoints (SPEC.md §7 "hookly"), each with
 * its events, a test export and its delivery log. Owners and admins (integration.write) see, add,
 * change, test and delete them; other members are told who can (endpoint addresses often carry a
 * receiver's key, so the server shows them only to those who manage them, issue 37).
 */
export function WebhooksScreen() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  const canWrite = auth.currentRole.permissions.includes('integration.write');
  return (
    <Stack gap="lg">
      <Anchor component={Link} to={`/settings/connections?client_id=${clientId}`} size="sm">
        <Group gap={4}>
          <IconArrowLeft size={14} /> All connections
        </Group>
      </Anchor>
      <div>
        <Title order={1}>Webhooks</Title>
        <Text c="dimmed">
          Rally posts its events (superprospects, clicks, landing page views, finished syncs and imports,
          invoices) to your endpoints, signed the Standard Webhooks way.
        </Text>
      </div>
      {canWrite ? (
        <EndpointList clientId={clientId} />
      ) : (
        <Paper withBorder radius="md" p="xl">
          <Stack align="center" gap="xs">
            <IconLock size={32} stroke={1.5} aria-hidden />
            <Text fw={600}>Only owners and admins see webhooks</Text>
            <Text size="sm" c="dimmed" ta="center" maw={460}>
              Endpoint addresses often hold a key of the system that receives them, so they are shown only to
              the people who manage them. Ask an owner or admin of this client.
            </Text>
          </Stack>
        </Paper>
      )}
    </Stack>
  );
}

function EndpointList({ clientId }: { clientId: string }) {
  const settings = useWebhookSettings(clientId);
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);

  if (settings.isPending) return <PanelLoading label="Loading webhooks" />;
  if (settings.isError) {
    return <PanelError error={settings.error} what="your webhooks" onRetry={() => void settings.refetch()} />;
  }
  const endpoints = settings.data.endpoints;
  return (
    <Stack gap="lg">
      {secret && <SecretOnce {...secret} onClose={() => setSecret(null)} />}
      {!adding && (
        <Group>
          <Button leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
            Add endpoint
          </Button>
        </Group>
      )}
      {adding && (
        <AddEndpointForm
          clientId={clientId}
          onCancel={() => setAdding(false)}
          onCreated={(url, s) => {
            setAdding(false);
            setSecret({ url, secret: s });
          }}
        />
      )}
      {endpoints.length === 0 ? (
        <Paper withBorder radius="md" p="xl">
          <Stack align="center" gap="xs">
            <IconWebhook size={32} stroke={1.5} aria-hidden />
            <Text fw={600}>No webhook endpoints yet</Text>
            <Text size="sm" c="dimmed" ta="center">
              Add an endpoint to have Rally post events to your own systems.
            </Text>
          </Stack>
        </Paper>
      ) : (
        endpoints.map((e) => (
          <EndpointCard
            key={e.id}
            clientId={clientId}
            endpoint={e}
            onSecret={(s) => setSecret({ url: e.url, secret: s })}
          />
        ))
      )}
    </Stack>
  );
}

/** The signing secret, shown once after it was made. */
function SecretOnce({ url, secret, onClose }: { url: string; secret: string; onClose: () => void }) {
  return (
    <Alert
      color="teal"
      variant="light"
      icon={<IconKey size={18} />}
      title="Copy the signing secret now"
      withCloseButton
      closeButtonLabel="Hide the secret"
      onClose={onClose}
    >
      <Stack gap="xs">
        <Text size="sm">
          This is the only time Rally shows the secret of {url}. Your receiver needs it to check the
          webhook-signature header.
        </Text>
        <Group gap="xs" wrap="nowrap">
          <TextInput
            readOnly
            value={secret}
            aria-label="Signing secret"
            onFocus={(e) => e.currentTarget.select()}
            style={{ flex: 1, minWidth: 0 }}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          />
          <CopyButton value={secret}>
            {({ copied, copy }) => (
              <Button
                variant="light"
                color={copied ? 'teal' : 'blue'}
                leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
                onClick={copy}
              >
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        </Group>
      </Stack>
    </Alert>
  );
}

/** The events to send, in the app's one multi-choice field (SPEC.md §9); each option says what it is. */
function EventPicker({
  value,
  onChange,
  error,
}: {
  value: WebhookEventType[];
  onChange: (v: WebhookEventType[]) => void;
  error?: string;
}) {
  return (
    <MultiSelect
      label="Events"
      description="Rally sends only the events you choose."
      data={WEBHOOK_EVENT_TYPES.map((t) => ({ value: t, label: WEBHOOK_EVENTS[t].label }))}
      value={value}
      onChange={(v) => onChange(v as WebhookEventType[])}
      error={error}
      withAsterisk
      renderOption={({ option, checked }) => (
        <div>
          <Group gap={6} wrap="nowrap">
            {/* The picked ones stay listed (to unpick them), so they carry a check mark. */}
            {checked && <IconCheck size={14} aria-hidden />}
            <Text size="sm" fw={checked ? 600 : undefined}>
              {option.label}
            </Text>
          </Group>
          <Text size="xs" c="dimmed">
            {WEBHOOK_EVENTS[option.value as WebhookEventType].description}
          </Text>
        </div>
      )}
    />
  );
}

function AddEndpointForm({
  clientId,
  onCancel,
  onCreated,
}: {
  clientId: string;
  onCancel: () => void;
  onCreated: (url: string, secret: string) => void;
}) {
  const create = useCreateWebhook(clientId);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<WebhookEventType[]>([]);
  const [local, setLocal] = useState<Record<string, string>>({});
  const server = fieldErrorsOf(create.error);
  const errors = { ...server, ...local };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const problems: Record<string, string> = {};
    if (!url.trim()) problems.url = 'Enter the URL Rally should post to.';
    if (!events.length) problems.events = 'Choose at least one event.';
    setLocal(problems);
    if (Object.keys(problems).length) return;
    create.mutate(
      { url: url.trim(), events, ...(description.trim() ? { description: description.trim() } : {}) },
      { onSuccess: (r) => onCreated(r.endpoint.url, r.secret) },
    );
  };

  const other = create.error && !Object.keys(server).length ? create.error : null;
  return (
    <Paper withBorder radius="md" p="lg" component="form" onSubmit={submit} aria-label="Add endpoint">
      <Stack gap="md">
        <Title order={2} size="h4">
          Add endpoint
        </Title>
        <TextInput
          label="Endpoint URL"
          description="An https:// address that answers 2xx to a POST."
          placeholder="https://example.com/webhooks/rally"
          value={url}
          onChange={(e) => {
            setUrl(e.currentTarget.value);
            setLocal(({ url: _fixed, ...rest }) => rest);
          }}
          error={errors.url}
          withAsterisk
          maxLength={2000}
        />
        <TextInput
          label="Description"
          placeholder="What receives these events"
          value={description}
          onChange={(e) => setDescription(e.currentTarget.value)}
          error={errors.description}
          maxLength={200}
        />
        <EventPicker
          value={events}
          onChange={(v) => {
            setEvents(v);
            setLocal(({ events: _fixed, ...rest }) => rest);
          }}
          error={errors.events ?? Object.entries(errors).find(([k]) => k.startsWith('events.'))?.[1]}
        />
        <FormError error={other} />
        <Group>
          <Button type="submit" loading={create.isPending}>
            Add endpoint
          </Button>
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

function EndpointCard({
  clientId,
  endpoint,
  onSecret,
}: {
  clientId: string;
  endpoint: WebhookEndpoint;
  onSecret: (secret: string) => void;
}) {
  const test = useSendWebhookTest(clientId, endpoint.id);
  const change = useChangeWebhook(clientId, endpoint.id);
  const rotate = useRotateWebhookSecret(clientId, endpoint.id);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [editing, setEditing] = useState(false);
  const error = test.error ?? change.error ?? rotate.error;

  return (
    <Card withBorder radius="md" padding="lg" component="section" aria-label={`Endpoint ${endpoint.url}`}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" wrap="wrap">
          <div style={{ minWidth: 0, flex: 1 }}>
            <Title order={2} size="h5" style={{ overflowWrap: 'anywhere' }}>
              {endpoint.url}
            </Title>
            {endpoint.description && (
              <Text size="sm" c="dimmed">
                {endpoint.description}
              </Text>
            )}
            <Text size="xs" c="dimmed">
              Secret {endpoint.secret_hint} · added {relativeTime(endpoint.created_at)}
            </Text>
            {endpoint.previous_secret_expires_at && (
              <Text size="xs" c="dimmed">
                The previous secret also signs deliveries until{' '}
                {formatDayTime(endpoint.previous_secret_expires_at)}, so your receiver can switch over.
              </Text>
            )}
            {!endpoint.enabled && endpoint.disabled_reason && (
              <Text size="xs" c="red">
                {endpoint.disabled_reason}
              </Text>
            )}
          </div>
          <Switch
            label="Enabled"
            checked={endpoint.enabled}
            disabled={change.isPending}
            onChange={(e) => change.mutate({ enabled: e.currentTarget.checked })}
          />
        </Group>
        <Group gap={6} aria-label="Events">
          {endpoint.events.map((t) => (
            <Badge key={t} variant="light" color="indigo">
              {WEBHOOK_EVENTS[t].label}
            </Badge>
          ))}
        </Group>
        <Group gap="xs">
          <Button
            size="xs"
            variant="light"
            leftSection={<IconSend size={14} />}
            loading={test.isPending}
            onClick={() => test.mutate()}
          >
            Send test
          </Button>
          <Button size="xs" variant="default" onClick={() => setEditing((v) => !v)}>
            {editing ? 'Close events' : 'Change events'}
          </Button>
          <Button
            size="xs"
            variant="default"
            leftSection={<IconKey size={14} />}
            loading={rotate.isPending}
            onClick={() => rotate.mutate(undefined, { onSuccess: (r) => onSecret(r.secret) })}
          >
            New secret
          </Button>
          <Button
            size="xs"
            variant="subtle"
            color="red"
            leftSection={<IconTrash size={14} />}
            onClick={() => setConfirmDelete(true)}
          >
            Delete
          </Button>
        </Group>
        {test.isSuccess && (
          <Text size="sm" c="teal" role="status">
            {test.data.deliveries.length === 1
              ? 'A test event is on its way.'
              : `${test.data.deliveries.length} test events are on their way.`}
          </Text>
        )}
        <FormError error={error} />
        {editing && <EditEvents clientId={clientId} endpoint={endpoint} onDone={() => setEditing(false)} />}
        <DeliveryLog clientId={clientId} endpointId={endpoint.id} />
      </Stack>
      <DeleteEndpoint
        clientId={clientId}
        endpoint={endpoint}
        opened={confirmDelete}
        onClose={() => setConfirmDelete(false)}
      />
    </Card>
  );
}

function EditEvents({
  clientId,
  endpoint,
  onDone,
}: {
  clientId: string;
  endpoint: WebhookEndpoint;
  onDone: () => void;
}) {
  const change = useChangeWebhook(clientId, endpoint.id);
  const [events, setEvents] = useState<WebhookEventType[]>(endpoint.events);
  const [local, setLocal] = useState<string | undefined>();
  const server = fieldErrorsOf(change.error);
  return (
    <Paper
      withBorder
      radius="md"
      p="md"
      component="form"
      aria-label="Change events"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        if (!events.length) return setLocal('Choose at least one event.');
        setLocal(undefined);
        change.mutate({ events }, { onSuccess: onDone });
      }}
    >
      <Stack gap="sm">
        <EventPicker
          value={events}
          onChange={(v) => {
            setEvents(v);
            setLocal(undefined);
          }}
          error={local ?? server.events}
        />
        <FormError error={change.error && !Object.keys(server).length ? change.error : null} />
        <Group>
          <Button size="xs" type="submit" loading={change.isPending}>
            Save events
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

function DeleteEndpoint({
  clientId,
  endpoint,
  opened,
  onClose,
}: {
  clientId: string;
  endpoint: WebhookEndpoint;
  opened: boolean;
  onClose: () => void;
}) {
  const remove = useDeleteWebhook(clientId, endpoint.id);
  return (
    <Modal opened={opened} onClose={onClose} title="Delete this endpoint?">
      <Stack gap="md">
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          Rally stops sending events to {endpoint.url} and forgets its delivery log. Deliveries waiting for a
          retry are dropped.
        </Text>
        <FormError error={remove.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Keep it
          </Button>
          <Button
            color="red"
            loading={remove.isPending}
            onClick={() => remove.mutate(undefined, { onSuccess: onClose })}
          >
            Delete endpoint
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function DeliveryLog({ clientId, endpointId }: { clientId: string; endpointId: string }) {
  const log = useWebhookDeliveries(clientId, endpointId);
  return (
    <Stack gap="xs">
      <Title order={3} size="h6">
        Delivery log
      </Title>
      {log.isPending ? (
        <PanelLoading label="Loading the delivery log" />
      ) : log.isError ? (
        <PanelError error={log.error} what="the delivery log" onRetry={() => void log.refetch()} />
      ) : log.data.deliveries.length === 0 ? (
        <Text size="sm" c="dimmed">
          Nothing sent yet. Events show here as they are delivered.
        </Text>
      ) : (
        <Paper withBorder radius="md">
          <Table.ScrollContainer minWidth={640} type="native">
            <Table verticalSpacing="xs" aria-label="Delivery log">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Event</Table.Th>
                  {/* Wide enough for "Retrying" and "Delivered" whole: a long last answer squeezed it to "RETR…". */}
                  <Table.Th w={130}>Status</Table.Th>
                  <Table.Th ta="right">Attempts</Table.Th>
                  <Table.Th>Last answer</Table.Th>
                  <Table.Th>Sent</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {log.data.deliveries.map((d) => (
                  <DeliveryRow key={d.id} delivery={d} />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
    </Stack>
  );
}

function DeliveryRow({ delivery: d }: { delivery: WebhookDelivery }) {
  return (
    <Table.Tr>
      <Table.Td>
        <Group gap={6} wrap="nowrap">
          <Text size="sm">{WEBHOOK_EVENTS[d.event_type].label}</Text>
          {d.is_test && (
            <Badge size="xs" variant="light" color="gray">
              Test
            </Badge>
          )}
        </Group>
      </Table.Td>
      <Table.Td>
        <Badge color={STATUS_COLORS[d.status]} variant="light" style={{ flexShrink: 0, overflow: 'visible' }}>
          {STATUS_LABELS[d.status]}
        </Badge>
        {d.status === 'retrying' && d.next_attempt_at && (
          <Text size="xs" c="dimmed">
            next {relativeTime(d.next_attempt_at)}
          </Text>
        )}
      </Table.Td>
      <Table.Td ta="right">{d.attempts}</Table.Td>
      <Table.Td>
        {d.last_error ? (
          <Tooltip label={d.last_error} multiline w={320}>
            <Text size="sm" lineClamp={2} style={{ overflowWrap: 'anywhere' }}>
              {d.last_error}
            </Text>
          </Tooltip>
        ) : (
          <Text size="sm" c="dimmed">
            {d.last_status_code ? `HTTP ${d.last_status_code}` : '—'}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Text size="sm">{relativeTime(d.delivered_at ?? d.created_at)}</Text>
      </Table.Td>
    </Table.Tr>
  );
}
