import { Alert } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import { permissionWords } from '@rally/shared';

/** Why the edit controls are off: the role lacks the permission named. */
export function PermissionNote({ permission, what }: { permission: string; what: string }) {
  return (
    <Alert color="gray" variant="light" icon={<IconLock size={18} />} role="note">
      You can look at {what} but not change it: your role does not have {permissionWords(permission)}. Ask an
      owner or admin of this client.
    </Alert>
  );
}

/** Does the signed-in user's role in the current client grant `permission`? */
export function hasPermission(permissions: readonly string[] | undefined, permission: string): boolean {
  return permissions?.includes(permission) ?? false;
}
