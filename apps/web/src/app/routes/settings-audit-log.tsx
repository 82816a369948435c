import { Stack } from '@mantine/core';
import { ScreenLoader } from '../../components/layouts/screen-suspense.tsx';
import { AuditLogScreen } from '../../features/audit/index.ts';
import { RetentionPanel } from '../../features/retention/index.ts';
import { useAuth } from '../../lib/auth/store.ts';
import { OWNER_ROLE } from '../../lib/app-pages.ts';

/**
 * /settings/audit-log, Settings › Workspace › Audit log (issue 44): owners read it; below it, how long
 * the client's data is kept (settings.write, which this page needs).
 */
export default function SettingsAuditLogRoute() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  const role = auth.currentRole;
  if (!clientId || !role) return <ScreenLoader />;
  return (
    <Stack gap="lg" maw={1100}>
      <AuditLogScreen clientId={clientId} isOwner={`${role.colour}_${role.name}` === OWNER_ROLE} />
      <RetentionPanel clientId={clientId} />
    </Stack>
  );
}
