import { useState } from 'react';
import {
  Alert,
  Badge,
  Button,
  Group,
  Modal,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconLock, IconRefresh, IconTrash, IconWorldCheck } from '@tabler/icons-react';
import { relativeTime } from '@rally/shared/utils/dates';
import { domainBody } from '@rally/shared/schemas/domains';
import type { ClientDomain } from '@rally/shared/schemas/domains';
import { FormError } from '../../../components/form-error.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAddDomain, useDomains, useRemoveDomain, useVerifyDomain } from '../api/domains.ts';
import { CopyValue } from '../../../components/copy-value.tsx';
import { domainFieldError } from './field-errors.ts';

/**
 * "Verified domains" (docs/domains.md): the domains a client proves it controls with a DNS TXT
 * record. Single sign-on signs in only addresses on them; the click tag redirects straight only to
 * them. Every member sees them; adding, checking and removing needs settings.write.
 */
export function VerifiedDomainsPanel({ clientId, canWrite }: { clientId: string; canWrite: boolean }) {
  const list = useDomains(clientId);
  return (
    <Stack gap="sm" component="section" aria-labelledby="verified-domains-title">
      <div>
        <Title order={2} size="h3" id="verified-domains-title">
          Verified domains
        </Title>
        <Text size="sm" c="dimmed" maw={680}>
          Prove that your company controls a domain by adding a DNS record. Single sign-on only signs in
          addresses on verified domains, and ad clicks go straight only to them.
        </Text>
      </div>
      {!canWrite && (
        <Alert color="gray" variant="light" icon={<IconLock size={18} />} role="note">
          You can look at the domains but not add, verify or remove them: your role does not have permission
          to change the settings.
        </Alert>
      )}
      {list.isPending ? (
        <PanelLoading label="Loading the verified domains" />
      ) : list.isError ? (
        <PanelError error={list.error} what="the verified domains" onRetry={() => void list.refetch()} />
      ) : (
        <>
          {list.data.domains.length === 0 ? (
            <Paper withBorder radius="md" p="lg">
              <Group gap="sm" wrap="nowrap" align="flex-start">
                <IconWorldCheck size={28} stroke={1.5} aria-hidden />
                <div>
                  <Text fw={600}>No verified domains yet</Text>
                  <Text size="sm" c="dimmed">
                    {canWrite
                      ? 'Add the domain of your work e-mail addresses, such as yourcompany.com.'
                      : 'An owner or admin of this client adds them.'}
                  </Text>
                </div>
              </Group>
            </Paper>
          ) : (
            list.data.domains.map((d) => (
              <DomainCard key={d.id} clientId={clientId} domain={d} canWrite={canWrite} />
            ))
          )}
          {canWrite && <AddDomainForm clientId={clientId} />}
        </>
      )}
    </Stack>
  );
}

function AddDomainForm({ clientId }: { clientId: string }) {
  const add = useAddDomain(clientId);
  const form = useForm({
    initialValues: { domain: '' },
    validate: (v) => {
      const parsed = domainBody.safeParse(v);
      return parsed.success ? {} : { domain: `This ${parsed.error.issues[0]?.message ?? 'is not valid'}` };
    },
  });
  return (
    <form
      noValidate
      aria-label="Add a domain to verify"
      onSubmit={form.onSubmit(({ domain }) =>
        add.mutate(domain.trim(), {
          onSuccess: () => form.reset(),
          onError: (err) => {
            const message = domainFieldError(err);
            if (message) form.setFieldError('domain', message);
          },
        }),
      )}
    >
      <Stack gap="xs">
        <Group align="flex-start" gap="sm" wrap="nowrap">
          <TextInput
            label="Domain to verify"
            placeholder="yourcompany.com"
            description="A domain covers its subdomains: yourcompany.com covers eu.yourcompany.com."
            style={{ flex: 1 }}
            {...form.getInputProps('domain')}
          />
          <Button type="submit" mt={45} loading={add.isPending} variant="light">
            Add
          </Button>
        </Group>
        {add.isError && !domainFieldError(add.error) && <FormError error={add.error} />}
      </Stack>
    </form>
  );
}

function DomainCard({
  clientId,
  domain,
  canWrite,
}: {
  clientId: string;
  domain: ClientDomain;
  canWrite: boolean;
}) {
  const verify = useVerifyDomain(clientId);
  const remove = useRemoveDomain(clientId);
  const [removing, setRemoving] = useState(false);
  const record = domain.dns_record;
  return (
    <Paper withBorder radius="md" p={{ base: 'sm', xs: 'md' }} aria-label={domain.domain} component="article">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="sm">
            <Text fw={700} size="lg" style={{ wordBreak: 'break-all' }}>
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
                size="xs"
                variant="light"
                leftSection={<IconRefresh size={14} />}
                loading={verify.isPending}
                onClick={() => verify.mutate(domain.id)}
              >
                Verify now
              </Button>
              <Button
                size="xs"
                variant="subtle"
                color="red"
                leftSection={<IconTrash size={14} />}
                aria-label={`Remove ${domain.domain}`}
                onClick={() => setRemoving(true)}
              >
                Remove
              </Button>
            </Group>
          )}
        </Group>

        <div role="status" aria-live="polite">
          <Text size="sm">
            {domain.last_checked_at ? (
              <>
                <Text span c="dimmed" size="sm">
                  Last checked {relativeTime(domain.last_checked_at)}:{' '}
                </Text>
                {domain.last_check_message}
              </>
            ) : (
              <Text span c="dimmed" size="sm">
                Not checked yet.
              </Text>
            )}
          </Text>
        </div>
        <FormError error={verify.error} />

        {domain.verified ? (
          <Text size="xs" c="dimmed">
            Keep the record below in place: Rally checks it again every few hours, and the domain stops being
            verified when the record is gone.
          </Text>
        ) : (
          <Text size="sm">
            Create this TXT record at your DNS provider, then press Verify now.
            {!domain.last_checked_at && ' DNS changes can take up to an hour to show.'}
          </Text>
        )}
        {/* One field a row: a long name or value wraps instead of squeezing columns on a phone. */}
        <Table withTableBorder aria-label={`TXT record for ${domain.domain}`} verticalSpacing={6}>
          <Table.Tbody>
            <Table.Tr>
              <Table.Th scope="row" w={72}>
                Type
              </Table.Th>
              <Table.Td>
                <Text size="sm" ff="monospace">
                  {record.type}
                </Text>
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th scope="row">Name</Table.Th>
              <Table.Td>
                <CopyValue value={record.name} label={`record name for ${domain.domain}`} />
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th scope="row">Value</Table.Th>
              <Table.Td>
                <CopyValue value={record.value} label={`record value for ${domain.domain}`} />
              </Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
      </Stack>
      <Modal opened={removing} onClose={() => setRemoving(false)} title={`Remove ${domain.domain}?`}>
        <Stack gap="md">
          <Text size="sm">
            Single sign-on stops signing in addresses at {domain.domain}, and sessions it started for them
            end. Ad clicks to {domain.domain} first show a page naming it. You can add it again later.
          </Text>
          <FormError error={remove.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setRemoving(false)}>
              Cancel
            </Button>
            <Button
              color="red"
              loading={remove.isPending}
              onClick={() =>
                remove.mutate(domain.id, {
                  onSuccess: () => {
                    notifications.show({ color: 'green', message: `${domain.domain} was removed.` });
                    setRemoving(false);
                  },
                })
              }
            >
              Remove
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}
