import { Stack, Text, Title } from '@mantine/core';
import { ScreenLoader } from '../../components/layouts/screen-suspense.tsx';
import { DomainSettingsScreen } from '../../features/content/index.ts';
import { SamlPanel, ScimPanel, SsoPanel, VerifiedDomainsPanel } from '../../features/domains/index.ts';
import type { SsoAccess } from '../../features/domains/index.ts';
import { useAuth } from '../../lib/auth/store.ts';

/**
 * /settings/domain, Settings › Domains (docs/domains.md): the client's verified domains, its single
 * sign-on, its user provisioning (docs/scim.md), and its landing page domain. The features meet here, so each keeps its own section.
 */
export default function SettingsDomainRoute() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  const role = auth.currentRole;
  if (!clientId || !role) return <ScreenLoader />;
  // Changing single sign-on is for owners (the server says so too); reading it needs client.write.
  const access: SsoAccess =
    `${role.colour}_${role.name}` === 'purple_owner'
      ? 'owner'
      : role.permissions.includes('client.write')
        ? 'read'
        : 'none';
  return (
    <Stack gap={40} maw={860}>
      <div>
        <Title order={1}>Domains</Title>
        <Text c="dimmed">
          The domains your company proves it controls, signing in through your identity provider, and where
          your landing pages are served.
        </Text>
      </div>
      <VerifiedDomainsPanel clientId={clientId} canWrite={role.permissions.includes('settings.write')} />
      <SsoPanel clientId={clientId} access={access} />
      <SamlPanel clientId={clientId} access={access} />
      <ScimPanel clientId={clientId} access={access} />
      <DomainSettingsScreen />
    </Stack>
  );
}
