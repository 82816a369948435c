import { Anchor, Group } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { Link } from 'react-router';

/** The way back from an editor to its list, above the editor's title. */
export function BackLink({ to, label }: { to: string; label: string }) {
  return (
    <Anchor component={Link} to={to} size="sm" w="fit-content">
      <Group gap={4}>
        <IconArrowLeft size={14} />
        {label}
      </Group>
    </Anchor>
  );
}
