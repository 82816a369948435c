import type { ReactNode } from 'react';
import { Button, Paper, Stack, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import type { ListTableProps } from './archivable-list-screen.tsx';

type Copy = { title: string; text: string };

/**
 * A list with nothing to show: what goes there, and on the active list (for those who may write)
 * the button that makes the first item.
 */
export function ListEmptyState({
  archived,
  canWrite,
  onCreate,
  icon,
  newLabel,
  active,
  archivedCopy,
}: Omit<ListTableProps, 'clientId'> & {
  icon: ReactNode;
  newLabel: string;
  /** What the active list says when it is empty. */
  active: Copy;
  /** What the archived list says when it is empty. */
  archivedCopy: Copy;
}) {
  const copy = archived === 'only' ? archivedCopy : active;
  return (
    <Paper withBorder radius="md" p="xl">
      <Stack align="center" gap="xs">
        {icon}
        <Text fw={600}>{copy.title}</Text>
        <Text size="sm" c="dimmed" ta="center" maw={420}>
          {copy.text}
        </Text>
        {archived !== 'only' && canWrite && (
          <Button mt="xs" leftSection={<IconPlus size={16} />} onClick={onCreate}>
            {newLabel}
          </Button>
        )}
      </Stack>
    </Paper>
  );
}
