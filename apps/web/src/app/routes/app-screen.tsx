import { Paper, Stack, Text, Title } from '@mantine/core';
import { useRouteTitle } from '../../components/layouts/route-title.tsx';

/**
 * The frame of an app screen whose feature is not in this build yet (issues 4-9 bring them). It
 * names the screen so navigation and the route table can be exercised end to end.
 */
export default function AppScreen() {
  const title = useRouteTitle('');
  return (
    <Stack gap="md">
      <Title order={1}>{title}</Title>
      <Paper withBorder p="xl">
        <Text c="dimmed">This screen is not available in this version of Rally.</Text>
      </Paper>
    </Stack>
  );
}
