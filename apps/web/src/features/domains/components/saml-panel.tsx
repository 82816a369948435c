import {
  Alert,
  Badge,
  Button,
  Group,
  Paper,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconLock, IconMail } from '@tabler/icons-react';
import { SAML_JIT_ROLES, SAML_NAMEID_FORMATS } from '@rally/shared/schemas/saml';
import type { SamlSettings, SamlSettingsBody } from '@rally/shared/schemas/saml';
import { SCIM_GROUP_NAMES } from '@rally/shared/schemas/scim';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { CopyValue } from '../../../components/copy-value.tsx';
import { useSaml, useSaveSaml } from '../api/saml.ts';
import { SamlMetadataRefresh, SamlSpCertificate } from './saml-sp-details.tsx';
import type { SsoAccess } from './sso-panel.tsx';

const NAMEID_LABELS: Record<(typeof SAML_NAMEID_FORMATS)[number], string> = {
  'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent': 'Persistent (recommended)',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress': 'E-mail address',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified': 'Unspecified',
};

/**
 * "SAML single sign-on" (docs/saml.md), beside the OpenID Connect panel: the same rules (owners
 * change it, client.write reads it, verified domains only), with what to give the identity provider.
 */
export function SamlPanel({ clientId, access }: { clientId: string; access: SsoAccess }) {
  const saml = useSaml(clientId, access !== 'none');
  return (
    <Stack gap="sm" component="section" aria-labelledby="saml-title">
      <div>
        <Title order={2} size="h3" id="saml-title">
          SAML single sign-on
        </Title>
        <Text size="sm" c="dimmed" maw={680}>
          For identity providers that speak SAML 2.0 (Okta, Microsoft Entra ID, ADFS). Like OpenID Connect
          above, it signs in only addresses on your verified domains, and such a session can use this client
          only.
        </Text>
      </div>
      {access === 'none' ? (
        <Alert color="gray" variant="light" icon={<IconLock size={18} />} role="note">
          Only owners and admins of this client see the SAML settings.
        </Alert>
      ) : saml.isPending ? (
        <PanelLoading label="Loading the SAML settings" />
      ) : saml.isError ? (
        <PanelError error={saml.error} what="the SAML settings" onRetry={() => void saml.refetch()} />
      ) : (
        <Paper withBorder radius="md" p={{ base: 'sm', xs: 'md' }}>
          {access === 'owner' ? (
            <SamlForm clientId={clientId} settings={saml.data} />
          ) : (
            <SamlReadOnly settings={saml.data} />
          )}
        </Paper>
      )}
    </Stack>
  );
}

function SamlReadOnly({ settings }: { settings: SamlSettings | null }) {
  return (
    <Stack gap="md">
      {settings ? (
        <Group gap="xl" wrap="wrap" align="flex-start">
          <Badge color={settings.enabled ? 'teal' : 'gray'} variant="light">
            {settings.enabled ? 'On' : 'Off'}
          </Badge>
          <Text size="sm" style={{ wordBreak: 'break-all' }}>
            Identity provider: {settings.idp_entity_id}
          </Text>
        </Group>
      ) : (
        <Text size="sm">SAML single sign-on is not set up.</Text>
      )}
      <Alert color="gray" variant="light" icon={<IconLock size={18} />} role="note">
        Only an owner of this client can change single sign-on, because it decides who can sign in as its
        members.
      </Alert>
    </Stack>
  );
}

type Source = 'xml' | 'url' | 'manual';

function SamlForm({ clientId, settings }: { clientId: string; settings: SamlSettings | null }) {
  const save = useSaveSaml(clientId);
  const form = useForm({
    initialValues: {
      source: (settings?.metadata_url ? 'url' : settings ? 'manual' : 'xml') as Source,
      metadata_xml: '',
      metadata_url: settings?.metadata_url ?? '',
      idp_entity_id: settings?.idp_entity_id ?? '',
      sso_url: settings?.sso_url ?? '',
      certificates: '',
      name_id_format: settings?.name_id_format ?? SAML_NAMEID_FORMATS[0],
      email_attribute: settings?.email_attribute ?? '',
      first_name_attribute: settings?.first_name_attribute ?? '',
      last_name_attribute: settings?.last_name_attribute ?? '',
      jit_enabled: settings?.jit_enabled ?? false,
      jit_role: settings?.jit_role ?? 'grey_viewer',
      idp_initiated: settings?.idp_initiated ?? false,
      sign_requests: settings?.sign_requests ?? false,
      require_encryption: settings?.require_encryption ?? false,
      slo_url: settings?.slo_url ?? '',
      enabled: settings?.enabled ?? false,
    },
  });
  const v = form.values;
  const toBody = (): SamlSettingsBody => ({
    enabled: v.enabled,
    metadata_xml: v.source === 'xml' ? v.metadata_xml : null,
    metadata_url: v.source === 'url' ? v.metadata_url.trim() : null,
    idp_entity_id: v.source === 'manual' ? v.idp_entity_id.trim() : null,
    sso_url: v.source === 'manual' ? v.sso_url.trim() : null,
    // One PEM after another: each -----BEGIN CERTIFICATE----- block is one certificate.
    certificates:
      v.source === 'manual'
        ? (v.certificates.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ??
          (v.certificates.trim() ? [v.certificates.trim()] : []))
        : null,
    name_id_format: v.name_id_format as SamlSettingsBody['name_id_format'],
    email_attribute: v.email_attribute.trim() || null,
    first_name_attribute: v.first_name_attribute.trim() || null,
    last_name_attribute: v.last_name_attribute.trim() || null,
    jit_enabled: v.jit_enabled,
    jit_role: v.jit_role as SamlSettingsBody['jit_role'],
    idp_initiated: v.idp_initiated,
    sign_requests: v.sign_requests,
    require_encryption: v.require_encryption,
    slo_url: v.source === 'manual' ? v.slo_url.trim() || null : null,
  });
  const errors = fieldErrorsOf(save.error);
  return (
    <form
      noValidate
      aria-label="SAML settings"
      onSubmit={form.onSubmit(() =>
        save.mutate(toBody(), {
          onSuccess: (reply) =>
            notifications.show({
              color: 'green',
              message: reply.enabled ? 'SAML single sign-on is on.' : 'SAML settings saved.',
            }),
          // 'certificates.1' is shown at the certificates box.
          onError: (err) =>
            form.setErrors(
              Object.fromEntries(Object.entries(fieldErrorsOf(err)).map(([k, m]) => [k.split('.')[0], m])),
            ),
        }),
      )}
    >
      <Stack gap="md">
        {settings && (
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <div>
              <Text size="sm" fw={500}>
                Entity ID (audience) and metadata
              </Text>
              <CopyValue value={settings.sp_entity_id} label="entity ID" />
            </div>
            <div>
              <Text size="sm" fw={500}>
                ACS URL (reply URL)
              </Text>
              <CopyValue value={settings.acs_url} label="ACS URL" />
            </div>
            <div>
              <Text size="sm" fw={500}>
                Sign-in URL
              </Text>
              <CopyValue value={settings.login_url} label="sign-in URL" />
            </div>
            <div>
              <Text size="sm" fw={500}>
                Single logout URL
              </Text>
              <CopyValue value={settings.sp_slo_url} label="single logout URL" />
            </div>
            <SamlSpCertificate settings={settings} />
            <div>
              <Text size="sm" fw={500}>
                Identity provider certificates
              </Text>
              {settings.certificates.map((c) => (
                <Text key={c.fingerprint} size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
                  {c.fingerprint}
                  {c.not_after ? ` · valid until ${c.not_after.slice(0, 10)}` : ''}
                </Text>
              ))}
            </div>
            <div>
              <Text size="sm" fw={500}>
                Identity provider single logout
              </Text>
              <Text size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
                {settings.slo_url ?? 'None: signing out of Rally ends the Rally session only.'}
              </Text>
            </div>
            <SamlMetadataRefresh settings={settings} />
          </SimpleGrid>
        )}
        {!settings && (
          <Text size="sm" c="dimmed">
            Save once to get the entity ID and ACS URL to give your identity provider.
          </Text>
        )}
        <SegmentedControl
          aria-label="Identity provider from"
          data={[
            { value: 'xml', label: 'Paste metadata' },
            { value: 'url', label: 'Metadata URL' },
            { value: 'manual', label: 'Enter by hand' },
          ]}
          {...form.getInputProps('source')}
        />
        {v.source === 'xml' && (
          <Textarea
            label="Identity provider metadata (XML)"
            rows={4}
            {...form.getInputProps('metadata_xml')}
          />
        )}
        {v.source === 'url' && (
          <TextInput
            label="Metadata URL"
            placeholder="https://yourcompany.okta.com/app/…/sso/saml/metadata"
            {...form.getInputProps('metadata_url')}
          />
        )}
        {v.source === 'manual' && (
          <>
            <TextInput label="Identity provider entity ID" {...form.getInputProps('idp_entity_id')} />
            <TextInput label="Sign-on URL" {...form.getInputProps('sso_url')} />
            <Textarea
              label="Signing certificates (PEM)"
              description={
                settings?.certificates.length
                  ? `Empty keeps the ${settings.certificates.length === 1 ? 'certificate' : `${settings.certificates.length} certificates`} on file for this provider. To rotate, paste the new certificate beside the old one: either may sign.`
                  : 'Paste the new certificate beside the old one while rotating: either may sign.'
              }
              rows={4}
              {...form.getInputProps('certificates')}
            />
            <TextInput
              label="Single logout URL (optional)"
              placeholder="https://idp.example.com/slo"
              {...form.getInputProps('slo_url')}
            />
          </>
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          <Select
            label="NameID format"
            data={SAML_NAMEID_FORMATS.map((f) => ({ value: f, label: NAMEID_LABELS[f] }))}
            allowDeselect={false}
            {...form.getInputProps('name_id_format')}
          />
          <TextInput
            label="E-mail attribute"
            description="Empty: the NameID when it is an e-mail address, else 'email' or 'mail'."
            {...form.getInputProps('email_attribute')}
          />
          <TextInput label="First name attribute" {...form.getInputProps('first_name_attribute')} />
          <TextInput label="Last name attribute" {...form.getInputProps('last_name_attribute')} />
        </SimpleGrid>
        <Switch
          label="Just-in-time membership"
          description="Someone on a verified domain who is not a member yet joins at their first sign-in."
          {...form.getInputProps('jit_enabled', { type: 'checkbox' })}
        />
        {v.jit_enabled && (
          <Select
            label="Role of new members"
            data={SAML_JIT_ROLES.map((r) => ({ value: r, label: SCIM_GROUP_NAMES[r] }))}
            allowDeselect={false}
            {...form.getInputProps('jit_role')}
          />
        )}
        <Switch
          label="Allow sign-in started at the identity provider (IdP-initiated)"
          description="Off: members start from Rally's sign-in URL, which ties each answer to a request."
          {...form.getInputProps('idp_initiated', { type: 'checkbox' })}
        />
        <Switch
          label="Sign authentication requests"
          description={
            settings?.idp_wants_signed_requests
              ? 'Your identity provider’s metadata asks for signed requests: they are signed in any case.'
              : 'Signed with Rally’s certificate (RSA-SHA256). Upload the certificate at the identity provider first.'
          }
          {...form.getInputProps('sign_requests', { type: 'checkbox' })}
        />
        <Switch
          label="Require encrypted assertions"
          description="Refuse a sign-in whose assertion is not encrypted to Rally’s certificate."
          {...form.getInputProps('require_encryption', { type: 'checkbox' })}
        />
        <Switch
          label="Turn on SAML single sign-on"
          {...form.getInputProps('enabled', { type: 'checkbox' })}
        />
        <Alert color="blue" variant="light" icon={<IconMail size={18} />}>
          When SAML is turned on, or its identity provider changes, every member of this client is e-mailed.
        </Alert>
        {Object.keys(errors).length === 0 && <FormError error={save.error} />}
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save SAML
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
