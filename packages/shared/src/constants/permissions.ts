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
