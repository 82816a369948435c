import type { ReactNode } from 'react';
import { ActionIcon, Group, Menu, Text, Title } from '@mantine/core';
import { IconArchive, IconArchiveOff, IconDots, IconTrash } from '@tabler/icons-react';

/** An editor's title with its badges and a line about it, and (for those who may write) its actions. */
export function EditorHeader({
  title,
  badges,
  subtitle,
  actions,
}: {
  title: string;
  badges: ReactNode;
  subtitle: ReactNode;
  /** Left out for a read-only user. */
  actions?: ReactNode;
}) {
  return (
    <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
      <div style={{ minWidth: 0 }}>
        <Group gap="sm" wrap="nowrap">
          <Title order={1} lineClamp={1}>
            {title}
          </Title>
          {badges}
        </Group>
        <Text size="sm" c="dimmed">
          {subtitle}
        </Text>
      </div>
      {actions && (
        <Group gap="xs" wrap="nowrap">
          {actions}
        </Group>
      )}
    </Group>
  );
}

/** "More actions" of an editor: its own items first, then Archive (or Unarchive) and Delete. */
export function EditorActionsMenu({
  archived,
  onToggleArchive,
  onDelete,
  children,
}: {
  archived: boolean;
  onToggleArchive: () => void;
  onDelete: () => void;
  children?: ReactNode;
}) {
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon variant="default" size="lg" aria-label="More actions">
          <IconDots size={18} />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        {children}
        <Menu.Item
          leftSection={archived ? <IconArchiveOff size={16} /> : <IconArchive size={16} />}
          onClick={onToggleArchive}
        >
          {archived ? 'Unarchive' : 'Archive'}
        </Menu.Item>
        <Menu.Divider />
        <Menu.Item color="red" leftSection={<IconTrash size={16} />} onClick={onDelete}>
          Delete
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
