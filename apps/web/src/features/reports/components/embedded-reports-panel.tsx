import { useState } from 'react';
import type { FormEvent } from 'react';
import {
  Alert,
  Badge,
  Button,
  CopyButton,
  Group,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { IconCheck, IconCopy, IconLink } from '@tabler/icons-react';
import {
  EMBEDDED_EXPIRY_DAYS,
  EMBEDDED_RANGE_DAYS,
  EMBEDDED_REPORT_KINDS,
  EMBEDDED_REPORT_LABELS,
} from '@rally/shared/schemas/embedded-reports';
import type {
  EmbeddedReport,
  EmbeddedReportCreated,
  EmbeddedReportKind,
} from '@rally/shared/schemas/embedded-reports';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import {
  useCreateEmbeddedReport,
  useEmbeddedReports,
  useRevokeEmbeddedReport,
} from '../api/embedded-reports.ts';
import { Empty, day, whole } from './report-parts.tsx';

const RANGE_CHOICES = [7, 30, 90, 180, 365].map((d) => ({ value: String(d), label: `Last ${d} days` }));
const EXPIRY_CHOICES = [1, 7, 30, 90].map((d) => ({
  value: String(d),
  label: d === 1 ? '1 day' : `${d} days`,
}));
const STATUS_COLOR = { active: 'teal', expired: 'gray', revoked: 'red' } as const;

/** The `<iframe>` another tool takes to show a link. */
const iframeOf = (url: string) =>
  `<iframe src="${url}" title="Rally report" width="100%" height="640" style="border:0"></iframe>`;

function CopyField({ label, value, multiline }: { label: string; value: string; multiline?: boolean }) {
  const copy = (
    <CopyButton value={value}>
      {({ copied, copy: doCopy }) => (
        <Button
          size="xs"
          variant={copied ? 'filled' : 'default'}
          color={copied ? 'teal' : undefined}
          leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
          onClick={doCopy}
          aria-label={`Copy the ${label.toLowerCase()}`}
        >
          {copied ? 'Copied' : 'Copy'}
        </Button>
      )}
    </CopyButton>
  );
  return (
    <Group align="flex-end" gap="xs" wrap="nowrap">
      {multiline ? (
        <Textarea label={label} value={value} readOnly rows={3} style={{ flex: 1 }} />
      ) : (
        <TextInput
          label={label}
          value={value}
          readOnly
          style={{ flex: 1 }}
          onFocus={(e) => e.target.select()}
        />
      )}
      {copy}
    </Group>
  );
}

/**
 * /reports "Shared links" (issue 17; docs/reports.md "Embedded reports"): a report saved as an
 * expiring, read-only link another tool can embed. Members with reports.read see the links; those
 * with settings.write make and revoke them. A link is shown once, when made.
 */
export function EmbeddedReportsPanel({ clientId, canManage }: { clientId: string; canManage: boolean }) {
  const list = useEmbeddedReports(clientId);
  const [created, setCreated] = useState<EmbeddedReportCreated | null>(null);
  return (
    <Stack gap="md">
      <Text size="sm" c="dimmed">
        Share a report as a read-only link, to open in a browser or embed in another tool (a wiki, a
        dashboard). Anyone with the link sees the report&apos;s latest numbers until the link expires or is
        revoked; nothing else of your account.
      </Text>
      {canManage && <CreateLink clientId={clientId} onCreated={setCreated} />}
      {created && (
        <Alert
          color="teal"
          variant="light"
          icon={<IconLink size={18} />}
          title={`Link for “${created.name}” created`}
          withCloseButton
          closeButtonLabel="Hide the new link"
          onClose={() => setCreated(null)}
        >
          <Stack gap="sm">
            <Text size="sm">Copy it now: for safety it is shown only this once.</Text>
            <CopyField label="Link" value={created.url} />
            <CopyField label="Embed code" value={iframeOf(created.url)} multiline />
          </Stack>
        </Alert>
      )}
      {list.isPending ? (
        <PanelLoading label="Loading the shared links" />
      ) : list.isError ? (
        <PanelError error={list.error} what="the shared links" onRetry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <Empty
          text={
            canManage
              ? 'No shared links yet. Make one above.'
              : 'No shared links yet. A member who can change settings can make one.'
          }
        />
      ) : (
        <LinksTable clientId={clientId} items={list.data.items} canManage={canManage} />
      )}
    </Stack>
  );
}

function CreateLink({
  clientId,
  onCreated,
}: {
  clientId: string;
  onCreated: (c: EmbeddedReportCreated) => void;
}) {
  const [name, setName] = useState('');
  const [report, setReport] = useState<EmbeddedReportKind>('summary');
  const [rangeDays, setRangeDays] = useState(String(EMBEDDED_RANGE_DAYS.default));
  const [expiry, setExpiry] = useState(String(EMBEDDED_EXPIRY_DAYS.default));
  const [nameError, setNameError] = useState<string | null>(null);
  const create = useCreateEmbeddedReport(clientId);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (name.trim() === '') {
      setNameError('Give the link a name, so you know it in the list');
      return;
    }
    setNameError(null);
    create.mutate(
      { name, report, range_days: Number(rangeDays), expires_in_days: Number(expiry) },
      {
        onSuccess: (c) => {
          onCreated(c);
          setName('');
        },
      },
    );
  };

  return (
    <Paper withBorder radius="md" p="md" component="form" onSubmit={submit} aria-label="New shared link">
      <Title order={2} size="h4" mb="sm">
        New shared link
      </Title>
      <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
        <TextInput
          label="Name"
          placeholder="Board summary"
          value={name}
          maxLength={120}
          required
          error={nameError}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <Select
          label="Report"
          data={EMBEDDED_REPORT_KINDS.map((k) => ({ value: k, label: EMBEDDED_REPORT_LABELS[k] }))}
          value={report}
          onChange={(v) => v && setReport(v as EmbeddedReportKind)}
          allowDeselect={false}
        />
        <Select
          label="Period"
          description="Always up to the moment it is opened"
          data={RANGE_CHOICES}
          value={rangeDays}
          onChange={(v) => v && setRangeDays(v)}
          allowDeselect={false}
        />
        <Select
          label="Link expires in"
          description={`At most ${EMBEDDED_EXPIRY_DAYS.max} days`}
          data={EXPIRY_CHOICES}
          value={expiry}
          onChange={(v) => v && setExpiry(v)}
          allowDeselect={false}
        />
      </SimpleGrid>
      {create.isError && (
        <Alert color="red" variant="light" mt="sm" role="alert">
          {create.error.message || 'The link could not be made. Please try again.'}
        </Alert>
      )}
      <Group justify="flex-end" mt="md">
        <Button type="submit" loading={create.isPending} leftSection={<IconLink size={16} />}>
          Create link
        </Button>
      </Group>
    </Paper>
  );
}

function LinksTable({
  clientId,
  items,
  canManage,
}: {
  clientId: string;
  items: EmbeddedReport[];
  canManage: boolean;
}) {
  const revoke = useRevokeEmbeddedReport(clientId);
  const [confirming, setConfirming] = useState<string | null>(null);
  return (
    <Paper withBorder radius="md">
      <Table.ScrollContainer minWidth={820} type="native">
        <Table verticalSpacing="sm" aria-label="Shared links">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Report</Table.Th>
              <Table.Th>Period</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Expires</Table.Th>
              <Table.Th ta="right">Views</Table.Th>
              <Table.Th>Created by</Table.Th>
              {canManage && (
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              )}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((l) => (
              <Table.Tr key={l.id}>
                <Table.Td fw={600}>{l.name}</Table.Td>
                <Table.Td>{EMBEDDED_REPORT_LABELS[l.report]}</Table.Td>
                <Table.Td>Last {l.range_days} days</Table.Td>
                <Table.Td>
                  <Badge variant="light" color={STATUS_COLOR[l.status]}>
                    {l.status}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  {l.status === 'revoked' ? `Revoked ${day(l.revoked_at)}` : day(l.expires_at)}
                </Table.Td>
                <Table.Td ta="right">{whole(l.views)}</Table.Td>
                <Table.Td>
                  {l.created_by ?? '—'}
                  <Text size="xs" c="dimmed">
                    {day(l.created_at)}
                  </Text>
                </Table.Td>
                {canManage && (
                  <Table.Td ta="right">
                    {l.status === 'active' &&
                      (confirming === l.id ? (
                        <Group gap={6} justify="flex-end" wrap="nowrap">
                          <Button
                            size="xs"
                            color="red"
                            loading={revoke.isPending}
                            onClick={() => revoke.mutate(l.id, { onSettled: () => setConfirming(null) })}
                          >
                            Revoke now
                          </Button>
                          <Button size="xs" variant="default" onClick={() => setConfirming(null)}>
                            Keep
                          </Button>
                        </Group>
                      ) : (
                        <Button
                          size="xs"
                          variant="default"
                          color="red"
                          aria-label={`Revoke ${l.name}`}
                          onClick={() => setConfirming(l.id)}
                        >
                          Revoke
                        </Button>
                      ))}
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}
