import { useState } from 'react';
import {
  Alert,
  Badge,
  Button,
  Group,
  Modal,
  NativeSelect,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconKey, IconLock } from '@tabler/icons-react';
import { relativeTime } from '@rally/shared/utils/dates';
import { SCIM_GROUP_NAMES, SCIM_ROLES, scimTokenBody } from '@rally/shared/schemas/scim';
import type { ScimRole, ScimToken, ScimTokenCreated } from '@rally/shared/schemas/scim';
import { CopyValue } from '../../../components/copy-value.tsx';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useDomains } from '../api/domains.ts';
import { useCreateScimToken, useRevokeScimToken, useScimTokens } from '../api/scim-tokens.ts';
import type { SsoAccess } from './sso-panel.tsx';

const roleName = (role: string) => SCIM_GROUP_NAMES[role as ScimRole] ?? role;

/**
 * "User provisioning (SCIM)" (docs/scim.md): bearer tokens for the client's identity provider, which
 * then adds, updates and deactivates members on the verified domains. Owners make and revoke them;
 * admins see them; others are told who can.
 */
export function ScimPanel({ clientId, access }: { clientId: string; access: SsoAccess }) {
  const list = useScimTokens(clientId, access !== 'none');
  const [made, setMade] = useState<ScimTokenCreated | null>(null);
  const domains = useDomains(clientId);
  const noneVerified = domains.isSuccess && !domains.data.domains.some((d) => d.verified);
  return (
    <Stack gap="sm" component="section" aria-labelledby="scim-title">
      <div>
        <Title order={2} size="h3" id="scim-title">
          User provisioning (SCIM)
        </Title>
        <Text size="sm" c="dimmed" maw={680}>
          Let your identity provider (Okta, Microsoft Entra ID) add members, keep their names and roles up to
          date, and take access away the moment someone leaves. It provisions addresses on your verified
          domains only.
        </Text>
      </div>
      {access === 'none' ? (
        <Alert color="gray" variant="light" icon={<IconLock size={18} />} role="note">
          Only owners and admins of this client see the provisioning settings.
        </Alert>
      ) : list.isPending ? (
        <PanelLoading label="Loading the provisioning tokens" />
      ) : list.isError ? (
        <PanelError error={list.error} what="the provisioning tokens" onRetry={() => void list.refetch()} />
      ) : (
        <Paper withBorder radius="md" p={{ base: 'sm', xs: 'md' }}>
          <Stack gap="md">
            {noneVerified && (
              <Alert
                color="yellow"
                variant="light"
                icon={<IconAlertTriangle size={18} />}
                title="No verified domain yet"
              >
                Your identity provider cannot add anyone until a domain above is verified: it provisions only
                addresses on verified domains.
              </Alert>
            )}
            <div>
              <Text size="sm" fw={500}>
                SCIM base URL
              </Text>
              <CopyValue value={list.data.base_url} label="SCIM base URL" />
            </div>
            {made && <ShownOnce made={made} onDone={() => setMade(null)} />}
            {list.data.tokens.length === 0 ? (
              <Group gap="sm" wrap="nowrap" align="flex-start">
                <IconKey size={24} stroke={1.5} aria-hidden />
                <div>
                  <Text fw={600}>No provisioning tokens yet</Text>
                  <Text size="sm" c="dimmed">
                    {access === 'owner'
                      ? 'Make one below and paste it into your identity provider with the base URL.'
                      : 'An owner of this client makes them.'}
                  </Text>
                </div>
              </Group>
            ) : (
              <TokenTable clientId={clientId} tokens={list.data.tokens} canRevoke={access === 'owner'} />
            )}
            {access === 'owner' ? (
              <NewTokenForm clientId={clientId} onMade={setMade} />
            ) : (
              <Alert color="gray" variant="light" icon={<IconLock size={18} />} role="note">
                Only an owner of this client can make or revoke provisioning tokens, because they decide who
                becomes a member.
              </Alert>
            )}
          </Stack>
        </Paper>
      )}
    </Stack>
  );
}

function ShownOnce({ made, onDone }: { made: ScimTokenCreated; onDone: () => void }) {
  return (
    <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />} title="Copy the token now">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">
          This is the only time “{made.token.name}” is shown. Paste it into your identity provider as the API
          token (bearer token); Rally keeps only a fingerprint of it.
        </Text>
        <CopyValue value={made.secret} label="provisioning token" />
        <Button size="xs" variant="default" onClick={onDone}>
          I have copied it
        </Button>
      </Stack>
    </Alert>
  );
}

function TokenTable({
  clientId,
  tokens,
  canRevoke,
}: {
  clientId: string;
  tokens: ScimToken[];
  canRevoke: boolean;
}) {
  const [revoking, setRevoking] = useState<ScimToken | null>(null);
  const revoke = useRevokeScimToken(clientId);
  return (
    <>
      {/* Three columns, so that a phone shows the whole row without scrolling sideways. */}
      <Table.ScrollContainer minWidth={320}>
        <Table verticalSpacing="xs" aria-label="Provisioning tokens">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Token</Table.Th>
              <Table.Th>New members become</Table.Th>
              <Table.Th>Status</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tokens.map((t) => (
              <Table.Tr key={t.id}>
                <Table.Td>
                  <Text size="sm" fw={500}>
                    {t.name}
                  </Text>
                  <Text size="xs" c="dimmed" style={{ wordBreak: 'break-word' }}>
                    {t.hint} · made {relativeTime(t.created_at)}
                    {t.created_by ? ` by ${t.created_by}` : ''}
                  </Text>
                  <Text size="xs" c="dimmed">
                    Last used {t.last_used_at ? relativeTime(t.last_used_at) : 'never'}
                  </Text>
                </Table.Td>
                <Table.Td>{roleName(t.default_role)}</Table.Td>
                <Table.Td>
                  <Stack gap={6} align="flex-start">
                    {t.revoked_at ? (
                      <Badge color="gray" variant="light">
                        Revoked
                      </Badge>
                    ) : (
                      <Badge color="teal" variant="light">
                        Active
                      </Badge>
                    )}
                    {canRevoke && !t.revoked_at && (
                      <Button size="xs" variant="default" onClick={() => setRevoking(t)}>
                        Revoke
                      </Button>
                    )}
                  </Stack>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Modal
        opened={revoking !== null}
        onClose={() => setRevoking(null)}
        title={`Revoke “${revoking?.name ?? ''}”?`}
      >
        <Stack gap="md">
          <Text size="sm">
            The identity provider using this token can no longer add, change or deactivate members. Members it
            provisioned stay as they are.
          </Text>
          <FormError error={revoke.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setRevoking(null)}>
              Cancel
            </Button>
            <Button
              color="red"
              loading={revoke.isPending}
              onClick={() =>
                revoking &&
                revoke.mutate(revoking.id, {
                  onSuccess: () => {
                    notifications.show({ color: 'green', message: `“${revoking.name}” was revoked.` });
                    setRevoking(null);
                  },
                })
              }
            >
              Revoke
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

function NewTokenForm({ clientId, onMade }: { clientId: string; onMade: (made: ScimTokenCreated) => void }) {
  const create = useCreateScimToken(clientId);
  const form = useForm({
    initialValues: { name: '', default_role: 'grey_viewer' as ScimRole },
    validate: (v) => {
      const parsed = scimTokenBody.safeParse(v);
      if (parsed.success) return {};
      const errors: Record<string, string> = {};
      for (const issue of parsed.error.issues) {
        errors[issue.path.map(String).join('.')] ??= /^(is|must) /.test(issue.message)
          ? `This ${issue.message}`
          : issue.message;
      }
      return errors;
    },
  });
  return (
    <form
      noValidate
      aria-label="New provisioning token"
      onSubmit={form.onSubmit((v) =>
        create.mutate(
          { name: v.name.trim(), default_role: v.default_role },
          {
            onSuccess: (made) => {
              form.reset();
              onMade(made);
            },
            onError: (err) => form.setErrors(fieldErrorsOf(err)),
          },
        ),
      )}
    >
      <Stack gap="sm">
        <Group align="flex-start" gap="sm" grow preventGrowOverflow={false} wrap="wrap">
          <TextInput label="Token name" placeholder="Okta" miw={200} {...form.getInputProps('name')} />
          {/* A native list: chosen reliably by keyboard, touch and tests alike (as the holdout share). */}
          <NativeSelect
            label="New members become"
            description="Groups in your identity provider change it later."
            data={SCIM_ROLES.map((r) => ({ value: r, label: roleName(r) }))}
            miw={200}
            {...form.getInputProps('default_role')}
          />
        </Group>
        {Object.keys(fieldErrorsOf(create.error)).length === 0 && <FormError error={create.error} />}
        <Group>
          <Button type="submit" loading={create.isPending}>
            Make a provisioning token
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
