import { useState } from 'react';
import { Alert, Badge, Button, Group, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconRefresh, IconTrash, IconWorldWww } from '@tabler/icons-react';
import { landingDomainBody } from '@rally/shared/schemas/content';
import type { LandingDomain, LandingDomainCheck } from '@rally/shared/schemas/content';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import {
  useCheckLandingDomain,
  useLandingDomain,
  useRemoveLandingDomain,
  useSetLandingDomain,
} from '../api/landing-domain.ts';
import { ConfirmModal } from './confirm-modal.tsx';
import { schemaErrors } from './form-validation.ts';
import { PermissionNote, hasPermission } from './permission-note.tsx';
import { RelativeTime } from './relative-time.tsx';
import { CopyValue } from '../../../components/copy-value.tsx';

/** Settings › Domains: landing pages on the client's own domain (a CNAME to us, checked by DNS). */
export function DomainSettingsScreen() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  const canWrite = hasPermission(auth.currentRole.permissions, 'settings.write');
  return (
    // A section of Settings › Domains (app/routes/settings-domain.tsx), under its page heading.
    <Stack gap="sm" maw={860} component="section" aria-labelledby="landing-domain-title">
      <div>
        <Title order={2} size="h3" id="landing-domain-title">
          Landing page domain
        </Title>
        <Text size="sm" c="dimmed">
          Serve your landing pages on a domain of your own, such as go.yourcompany.com, instead of ours.
        </Text>
      </div>
      {!canWrite && <PermissionNote permission="settings.write" what="the landing page domain" />}
      <DomainPanel clientId={clientId} canWrite={canWrite} />
    </Stack>
  );
}

function DomainPanel({ clientId, canWrite }: { clientId: string; canWrite: boolean }) {
  const domain = useLandingDomain(clientId);
  if (domain.isPending) return <PanelLoading label="Loading the landing page domain" />;
  if (domain.isError)
    return (
      <PanelError error={domain.error} what="the landing page domain" onRetry={() => void domain.refetch()} />
    );
  if (!domain.data.domain) return <DomainForm clientId={clientId} canWrite={canWrite} />;
  return (
    <DomainStatus key={domain.data.domain} clientId={clientId} domain={domain.data} canWrite={canWrite} />
  );
}

function DomainForm({ clientId, canWrite }: { clientId: string; canWrite: boolean }) {
  const set = useSetLandingDomain(clientId);
  const form = useForm({
    initialValues: { domain: '' },
    validate: (v) => schemaErrors(landingDomainBody, v),
  });
  return (
    <Paper withBorder radius="md" p="lg">
      <form
        noValidate
        onSubmit={form.onSubmit(({ domain }) =>
          set.mutate(domain, { onError: (err) => form.setErrors(fieldErrorsOf(err)) }),
        )}
      >
        <Stack gap="md">
          <Group gap="sm" wrap="nowrap" align="flex-start">
            <IconWorldWww size={28} stroke={1.5} />
            <div>
              <Text fw={600}>No domain yet</Text>
              <Text size="sm" c="dimmed">
                Landing pages are served from this app until you add a domain. Use a subdomain you do not use
                for anything else.
              </Text>
            </div>
          </Group>
          <Group align="flex-start" gap="sm" wrap="nowrap">
            <TextInput
              label="Domain"
              placeholder="go.yourcompany.com"
              disabled={!canWrite}
              style={{ flex: 1 }}
              {...form.getInputProps('domain')}
            />
            {canWrite && (
              <Button type="submit" mt={25} loading={set.isPending}>
                Add domain
              </Button>
            )}
          </Group>
          {Object.keys(fieldErrorsOf(set.error)).length === 0 && <FormError error={set.error} />}
        </Stack>
      </form>
    </Paper>
  );
}

function DomainStatus({
  clientId,
  domain,
  canWrite,
}: {
  clientId: string;
  domain: LandingDomain;
  canWrite: boolean;
}) {
  const check = useCheckLandingDomain(clientId);
  const remove = useRemoveLandingDomain(clientId);
  const [lastCheck, setLastCheck] = useState<LandingDomainCheck | null>(null);
  const [removing, setRemoving] = useState(false);
  // The CNAME brings the pages here; the TXT record proves the domain is the client's (issue 37.6).
  const records = [domain.dns_record, domain.txt_record].filter((r) => r !== null);
  return (
    <Stack gap="md">
      <Paper withBorder radius="md" p="lg">
        <Stack gap="md">
          <Group justify="space-between" wrap="wrap" gap="sm">
            <Group gap="sm">
              <Text fw={700} size="lg">
                {domain.domain}
              </Text>
              {domain.verified ? (
                <Badge color="teal" variant="light">
                  Verified
                </Badge>
              ) : (
                <Badge color="yellow" variant="light">
                  Not verified
                </Badge>
              )}
            </Group>
            {canWrite && (
              <Group gap="xs">
                <Button
                  variant="light"
                  leftSection={<IconRefresh size={16} />}
                  loading={check.isPending}
                  onClick={() => check.mutate(undefined, { onSuccess: setLastCheck })}
                >
                  Check
                </Button>
                <Button
                  variant="subtle"
                  color="red"
                  leftSection={<IconTrash size={16} />}
                  onClick={() => setRemoving(true)}
                >
                  Remove
                </Button>
              </Group>
            )}
          </Group>
          <Text size="sm" c="dimmed">
            {domain.verified ? (
              <>
                Landing pages are served at https://{domain.domain}/… · verified{' '}
                <RelativeTime value={domain.verified_at} />
              </>
            ) : (
              'Create both records at your DNS provider, then press Check. DNS changes can take up to an hour to show.'
            )}
          </Text>
          {records.length > 0 && (
            <Table withTableBorder aria-label="DNS records to create" verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Type</Table.Th>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Value</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {records.map((record) => (
                  <Table.Tr key={record.type}>
                    <Table.Td>
                      <CopyValue value={record.type} label={`${record.type} record type`} />
                    </Table.Td>
                    <Table.Td>
                      <CopyValue value={record.name} label={`${record.type} record name`} />
                    </Table.Td>
                    <Table.Td>
                      <CopyValue value={record.value} label={`${record.type} record value`} />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      </Paper>
      {lastCheck && (
        <Alert
          color={lastCheck.verified ? 'teal' : 'yellow'}
          variant="light"
          title={lastCheck.verified ? 'Verified' : 'Not verified yet'}
          role="status"
        >
          <Text size="sm">{lastCheck.message}</Text>
        </Alert>
      )}
      <FormError error={check.error} />
      <ConfirmModal
        opened={removing}
        onClose={() => setRemoving(false)}
        title="Remove the domain?"
        error={remove.error}
        loading={remove.isPending}
        confirmLabel="Remove"
        onConfirm={() =>
          remove.mutate(undefined, {
            onSuccess: () => {
              notifications.show({ color: 'green', message: `${domain.domain} has been removed.` });
              setRemoving(false);
            },
          })
        }
      >
        Landing pages stop being served at {domain.domain}. Links to this app’s own /lp/… addresses keep
        working.
      </ConfirmModal>
    </Stack>
  );
}
