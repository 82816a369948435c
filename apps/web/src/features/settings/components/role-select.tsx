import { Group, Select, Stack, Text } from '@mantine/core';
import type { SelectProps } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import { BUILT_IN_ROLES, parseRole } from '@rally/shared';
import type { BuiltInRole } from '@rally/shared';

const LABELS: Record<string, string> = {
  owner: 'Owner',
  admin: 'Admin',
  manager: 'Manager',
  sdr: 'SDR',
  viewer: 'Viewer',
};
const DESCRIPTIONS: Record<BuiltInRole, string> = {
  purple_owner: 'Everything, including billing',
  blue_admin: 'Everything but changing billing',
  green_manager: 'Cadences, content, cohorts and reports; sees users',
  yellow_sdr: 'Reports and read-only use',
  grey_viewer: 'Read-only',
};

export const ROLES = Object.keys(BUILT_IN_ROLES) as BuiltInRole[];
export const isBuiltInRole = (role: string): role is BuiltInRole => role in BUILT_IN_ROLES;

/** 'purple_owner' → 'Owner' (the badge shows the bare name, a sentence uses this). */
export function roleLabel(role: string): string {
  const { name } = parseRole(role);
  return LABELS[name] ?? name.charAt(0).toUpperCase() + name.slice(1);
}

/**
 * A Select of the built-in roles, each with what it may do. Only owners grant the owner role (the
 * server answers 403 otherwise), so `canGrantOwner` false disables that option.
 */
export function RoleSelect({
  canGrantOwner,
  onChange,
  ...props
}: Omit<SelectProps, 'data' | 'onChange'> & {
  canGrantOwner: boolean;
  onChange: (role: BuiltInRole) => void;
}) {
  return (
    <Select
      {...props}
      allowDeselect={false}
      maxDropdownHeight={360}
      comboboxProps={{ width: 300, position: 'bottom-end' }}
      data={ROLES.map((r) => ({
        value: r,
        label: roleLabel(r),
        disabled: r === 'purple_owner' && !canGrantOwner,
      }))}
      renderOption={({ option, checked }) => (
        <Group gap="xs" wrap="nowrap" justify="space-between" w="100%">
          <Stack gap={0}>
            <Text size="sm" fw={checked ? 600 : 400}>
              {option.label}
            </Text>
            <Text size="xs" c="dimmed">
              {DESCRIPTIONS[option.value as BuiltInRole]}
            </Text>
          </Stack>
          {checked && <IconCheck size={16} color="var(--mantine-primary-color-filled)" aria-hidden />}
        </Group>
      )}
      onChange={(v) => {
        if (v && isBuiltInRole(v)) onChange(v);
      }}
    />
  );
}
