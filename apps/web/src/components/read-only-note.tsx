import { Group, Text } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import { BUILT_IN_ROLES, permissionWords } from '@rally/shared';
import type { BuiltInRole, Permission } from '@rally/shared';

const ROLE_PLURALS: Record<BuiltInRole, string> = {
  purple_owner: 'owners',
  blue_admin: 'admins',
  green_manager: 'managers',
  yellow_sdr: 'SDRs',
  grey_viewer: 'viewers',
};

/** "owners and admins" for settings.write: the built-in roles that grant `permission`. */
export function rolesThatCan(permission: Permission): string {
  const names = (Object.keys(BUILT_IN_ROLES) as BuiltInRole[])
    .filter((r) => (BUILT_IN_ROLES[r] as readonly string[]).includes(permission))
    .map((r) => ROLE_PLURALS[r]);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? 'owners');
}

/**
 * One line saying why a screen or panel is read-only (issue 42 item 9: switches that are off with no
 * reason): "Only owners and admins can change this: your role does not have permission to …".
 */
export function ReadOnlyNote({ permission }: { permission: Permission }) {
  const who = rolesThatCan(permission);
  return (
    <Group gap={6} wrap="nowrap" align="flex-start" role="note">
      <IconLock size={16} aria-hidden style={{ flexShrink: 0, marginTop: 2 }} />
      <Text size="sm" c="dimmed">
        Only {who} can change this: your role does not have {permissionWords(permission)}.
      </Text>
    </Group>
  );
}
