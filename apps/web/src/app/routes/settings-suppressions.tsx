import { Stack } from '@mantine/core';
import { ScreenLoader } from '../../components/layouts/screen-suspense.tsx';
import { ForgetPersonPanel } from '../../features/erasures/index.ts';
import { SuppressionListScreen } from '../../features/suppressions/index.ts';
import { useAuth } from '../../lib/auth/store.ts';
import { OWNER_ROLE } from '../../lib/app-pages.ts';

/**
 * /settings/suppressions, Settings › Suppression list (issue 44; owners and admins), and under it
 * "Forget a person" (erasure, decision 0031) for owners only.
 */
export default function SettingsSuppressionsRoute() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  const role = auth.currentRole;
  if (!clientId || !role) return <ScreenLoader />;
  const isOwner = `${role.colour}_${role.name}` === OWNER_ROLE;
  return (
    <Stack gap="xl" maw={960}>
      <SuppressionListScreen clientId={clientId} canWrite={role.permissions.includes('settings.write')} />
      {isOwner && <ForgetPersonPanel clientId={clientId} />}
    </Stack>
  );
}
