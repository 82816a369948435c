/** Permission catalogue (ARCHITECTURE.md §4). */
export const PERMISSIONS = [
  'client.read',
  'client.write',
  'users.read',
  'users.write',
  'billing_details.read',
  'billing_details.write',
  'settings.write',
  'integration.write',
  'cadence.write',
  'content.write',
  'cohort.write',
  'reports.read',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

const ALL: readonly Permission[] = PERMISSIONS;

/** Built-in roles, as `colour_role` strings, and the permissions each grants. */
export const BUILT_IN_ROLES = {
  purple_owner: ALL,
  blue_admin: ALL.filter((p) => p !== 'billing_details.write'),
  green_manager: ['cadence.write', 'content.write', 'cohort.write', 'reports.read', 'users.read'],
  yellow_sdr: ['reports.read'],
  grey_viewer: [],
} as const satisfies Record<string, readonly Permission[]>;

export type BuiltInRole = keyof typeof BUILT_IN_ROLES;

export type RoleParts = { colour: string; name: string };

/** SPEC.md §3: the role string `colour_role` is split on the underscore into colour and name. */
export function parseRole(role: string): RoleParts {
  const at = role.indexOf('_');
  if (at < 0) return { colour: '', name: role };
  return { colour: role.slice(0, at), name: role.slice(at + 1) };
}

/**
 * What each permission lets a person do, in their words (issue 42 item 8: screens said "the
 * content.write permission"). The codes stay the API's; people read these.
 */
export const PERMISSION_WORDS: Record<Permission, string> = {
  'client.read': 'see the clients',
  'client.write': 'create and change clients',
  'users.read': 'see the users',
  'users.write': 'invite and change users',
  'billing_details.read': 'see billing',
  'billing_details.write': 'change billing',
  'settings.write': 'change the settings',
  'integration.write': 'connect and change integrations',
  'cadence.write': 'change cadences',
  'content.write': 'change ads and landing pages',
  'cohort.write': 'change cohorts',
  'reports.read': 'see reports',
};

/** "permission to change ads and landing pages" for content.write; an unknown code as written. */
export function permissionWords(permission: string): string {
  const words = (PERMISSION_WORDS as Record<string, string | undefined>)[permission];
  return words ? `permission to ${words}` : `the ${permission} permission`;
}

/**
 * A server message with its permission code in words: "your role does not have the content.write
 * permission" reads "your role does not have permission to change ads and landing pages".
 */
export function plainPermissionMessage(message: string): string {
  return message.replace(/\bthe ([a-z_]+\.(?:read|write)) permission\b/g, (all, code: string) =>
    Object.hasOwn(PERMISSION_WORDS, code) ? permissionWords(code) : all,
  );
}
