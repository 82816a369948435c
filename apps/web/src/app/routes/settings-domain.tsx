import { Stack } from '@mantine/core';
import { DomainSettingsScreen } from '../../features/content/index.ts';
import { SsoPanel, VerifiedDomainsPanel } from '../../features/domains/index.ts';
import type { SsoAccess } from '../../features/domains/index.ts';
import { useAuth } from '../../lib/auth/store.ts';

/**
 * /settings/domain: the landing page domain, then the client's verified domains and its single
 * sign-on (docs/domains.md). The features meet here, so each keeps its own screen code.
 */
export default function SettingsDomainRoute() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  const role = auth.currentRole;
  const access: SsoAccess = !role
    ? 'none'
    : `${role.colour}_${role.name}` === 'purple_owner'
      ? 'owner'
      : role.permissions.includes('client.write')
        ? 'read'
        : 'none';
  return (
    <Stack gap={48}>
      <DomainSettingsScreen />
      {clientId && role && (
        <Stack gap={40} maw={860}>
          <VerifiedDomainsPanel clientId={clientId} canWrite={role.permissions.includes('settings.write')} />
          <SsoPanel clientId={clientId} access={access} />
        </Stack>
      )}
    </Stack>
  );
}
