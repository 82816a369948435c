import { Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useId } from 'react';
import type { ReactNode } from 'react';

/** A titled card of a settings screen: a landmark section named by its heading. */
export function SettingsCard({
  title,
  description,
  status,
  children,
}: {
  title: string;
  description?: ReactNode;
  /** Shown beside the title, e.g. an On/Off badge. */
  status?: ReactNode;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <Paper component="section" aria-labelledby={id} withBorder radius="md" p="lg">
      <Stack gap="md">
        <div>
          <Group gap="sm" align="center">
            <Title order={2} fz="lg" id={id}>
              {title}
            </Title>
            {status}
          </Group>
          {description && (
            <Text size="sm" c="dimmed" mt={4}>
              {description}
            </Text>
          )}
        </div>
        {children}
      </Stack>
    </Paper>
  );
}
