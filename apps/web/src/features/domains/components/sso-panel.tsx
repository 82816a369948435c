import {
  Alert,
  Badge,
  Button,
  Group,
  Paper,
  PasswordInput,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import type { ReactNode } from 'react';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconLock, IconMail } from '@tabler/icons-react';
import { ssoSettingsBody } from '@rally/shared/schemas/sso';
import type { SsoSettings } from '@rally/shared/schemas/sso';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useDomains } from '../api/domains.ts';
import { useSaveSso, useSso } from '../api/sso.ts';
import { CopyValue } from '../../../components/copy-value.tsx';

export type SsoAccess = 'owner' | 'read' | 'none';

/**
 * "Single sign-on" (OpenID Connect, docs/domains.md): the client's identity provider and the
 * verified domains it speaks for. Owners change it (it decides who can sign in as members); members
 * with client.write see it read-only; others are told who can see it.
 */
export function SsoPanel({ clientId, access }: { clientId: string; access: SsoAccess }) {
  const sso = useSso(clientId, access !== 'none');
  const domains = useDomains(clientId);
  const verified = domains.data?.domains.filter((d) => d.verified).map((d) => d.domain) ?? [];
  return (
    <Stack gap="sm" component="section" aria-labelledby="sso-title">
      <div>
        <Title order={2} size="h3" id="sso-title">
          Single sign-on
        </Title>
        <Text size="sm" c="dimmed" maw={680}>
          Let members sign in through your company&apos;s identity provider (OpenID Connect) instead of a
          password. It signs in only addresses on your verified domains, and such a session can use this
          client only.
        </Text>
      </div>
      {access === 'none' ? (
        <Alert color="gray" variant="light" icon={<IconLock size={18} />} role="note">
          Only owners and admins of this client see the single sign-on settings.
        </Alert>
      ) : sso.isPending ? (
        <PanelLoading label="Loading the single sign-on settings" />
      ) : sso.isError ? (
        <PanelError error={sso.error} what="the single sign-on settings" onRetry={() => void sso.refetch()} />
      ) : (
        <Paper withBorder radius="md" p={{ base: 'sm', xs: 'md' }}>
          <Stack gap="md">
            {domains.isSuccess && verified.length === 0 && (
              <Alert
                color="yellow"
                variant="light"
                icon={<IconAlertTriangle size={18} />}
                title="No verified domain yet"
              >
                Nobody can sign in through single sign-on until a domain above is verified: it signs in only
                addresses on verified domains.
              </Alert>
            )}
            {access === 'owner' ? (
              <SsoForm clientId={clientId} settings={sso.data} verified={verified} />
            ) : (
              <SsoReadOnly settings={sso.data} verified={verified} />
            )}
          </Stack>
        </Paper>
      )}
    </Stack>
  );
}

function SpeaksFor({ verified }: { verified: string[] }) {
  return (
    <div>
      <Text size="sm" fw={500}>
        Speaks for
      </Text>
      {verified.length ? (
        <Group gap={6} mt={4}>
          {verified.map((d) => (
            <Badge key={d} variant="light" color="teal" tt="none">
              {d}
            </Badge>
          ))}
        </Group>
      ) : (
        <Text size="sm" c="dimmed">
          No domain: verify one above.
        </Text>
      )}
      <Text size="xs" c="dimmed" mt={4}>
        Every verified domain of this client, with its subdomains.
      </Text>
    </div>
  );
}

function Fact({ name, children }: { name: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {name}
      </Text>
      <Text size="sm" fw={500} component="div" style={{ wordBreak: 'break-all' }}>
        {children}
      </Text>
    </div>
  );
}

function SsoReadOnly({ settings, verified }: { settings: SsoSettings | null; verified: string[] }) {
  return (
    <Stack gap="md">
      {settings ? (
        <Group gap="xl" wrap="wrap" align="flex-start">
          <Fact name="Status">
            {settings.enabled ? (
              <Badge color="teal" variant="light">
                On
              </Badge>
            ) : (
              <Badge color="gray" variant="light">
                Off
              </Badge>
            )}
          </Fact>
          <Fact name="Issuer">{settings.issuer}</Fact>
          <Fact name="Client ID">{settings.client_id}</Fact>
        </Group>
      ) : (
        <Text size="sm">Single sign-on is not set up.</Text>
      )}
      <SpeaksFor verified={verified} />
      <Alert color="gray" variant="light" icon={<IconLock size={18} />} role="note">
        Only an owner of this client can change single sign-on, because it decides who can sign in as its
        members.
      </Alert>
    </Stack>
  );
}

function SsoForm({
  clientId,
  settings,
  verified,
}: {
  clientId: string;
  settings: SsoSettings | null;
  verified: string[];
}) {
  const save = useSaveSso(clientId);
  const form = useForm({
    initialValues: {
      issuer: settings?.issuer ?? '',
      client_id: settings?.client_id ?? '',
      client_secret: '',
      enabled: settings?.enabled ?? false,
    },
    validate: (v) => {
      const parsed = ssoSettingsBody.safeParse({ ...v, client_secret: v.client_secret || undefined });
      if (parsed.success) return {};
      const errors: Record<string, string> = {};
      for (const issue of parsed.error.issues) {
        const key = issue.path.map(String).join('.');
        errors[key] ??= /^(is|must|has) /.test(issue.message) ? `This ${issue.message}` : issue.message;
      }
      return errors;
    },
  });
  const callback = `${window.location.origin}/v1/api/auth/sso/callback`;
  const secretKept = Boolean(settings?.has_secret) && form.values.client_id.trim() === settings?.client_id;
  return (
    <form
      noValidate
      aria-label="Single sign-on settings"
      onSubmit={form.onSubmit((v) =>
        save.mutate(
          {
            issuer: v.issuer.trim(),
            client_id: v.client_id.trim(),
            client_secret: v.client_secret || undefined,
            enabled: v.enabled,
          },
          {
            onSuccess: (reply) => {
              form.setValues({ client_secret: '' });
              form.resetDirty({ ...v, client_secret: '' });
              notifications.show({
                color: 'green',
                message: reply.enabled ? 'Single sign-on is on.' : 'Single sign-on settings saved.',
              });
            },
            onError: (err) => form.setErrors(fieldErrorsOf(err)),
          },
        ),
      )}
    >
      <Stack gap="md">
        <div>
          <Text size="sm" fw={500}>
            Redirect URI
          </Text>
          <Text size="xs" c="dimmed" mb={4}>
            Register this address with your identity provider.
          </Text>
          <CopyValue value={callback} label="redirect URI" />
        </div>
        <TextInput
          label="Issuer URL"
          placeholder="https://login.yourcompany.com"
          description="Where your provider publishes /.well-known/openid-configuration."
          {...form.getInputProps('issuer')}
        />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          <TextInput label="Client ID" {...form.getInputProps('client_id')} />
          <PasswordInput
            label="Client secret"
            placeholder={secretKept ? 'Stored: leave empty to keep it' : undefined}
            description={
              secretKept ? 'Never shown again. Type a new one to replace it.' : 'Stored encrypted.'
            }
            autoComplete="new-password"
            {...form.getInputProps('client_secret')}
          />
        </SimpleGrid>
        <SpeaksFor verified={verified} />
        <Switch
          label="Turn on single sign-on"
          description="While it is off, members sign in with their password only."
          {...form.getInputProps('enabled', { type: 'checkbox' })}
        />
        <Alert color="blue" variant="light" icon={<IconMail size={18} />}>
          When single sign-on is turned on, or its issuer changes, every member of this client is e-mailed.
          Turning it off or changing the issuer ends the sessions it started.
        </Alert>
        {Object.keys(fieldErrorsOf(save.error)).length === 0 && <FormError error={save.error} />}
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save single sign-on
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
