import { Box, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useId } from 'react';
import type { ReactNode } from 'react';

/** A titled section of the billing screen, with an optional action at the right of its title. */
export function SettingsBox({
  title,
  description,
  action,
  children,
}: {
  title: string;
  description?: ReactNode;
  action?: ReactNode;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <Paper component="section" aria-labelledby={id} withBorder radius="md" p="lg" h="100%">
      <Stack gap="md">
        <Group justify="space-between" align="flex-start" wrap="nowrap">
          <div>
            <Title order={2} fz="lg" id={id}>
              {title}
            </Title>
            {description && (
              <Text size="sm" c="dimmed" mt={4}>
                {description}
              </Text>
            )}
          </div>
          {/* The title and description wrap beside it; the button keeps its label ("Add a ca" at 375 px). */}
          {action && <Box style={{ flexShrink: 0 }}>{action}</Box>}
        </Group>
        {children}
      </Stack>
    </Paper>
  );
}
