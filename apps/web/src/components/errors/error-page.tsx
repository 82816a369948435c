import { Button, Center, Code, Stack, Text, Title } from '@mantine/core';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { isChunkLoadError, reloadForStaleChunk } from '../../lib/deploy.ts';
import { usePageTitle } from '../../lib/use-page-title.ts';

export function errorMessage(error: unknown): string {
  if (isRouteErrorResponse(error)) return `${error.status} ${error.statusText}`.trim();
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return 'Unknown error';
}

/** SPEC.md §8: "Any other page error | 'An error occurred' followed by the message". */
export function ErrorView({ error }: { error: unknown }) {
  usePageTitle('An error occurred');
  return (
    <Center mih="60vh" p="md">
      <Stack align="center" gap="sm" maw={520} ta="center">
        <Title order={1}>An error occurred</Title>
        <Code block>{errorMessage(error)}</Code>
        <Text c="dimmed" size="sm">
          Try again, or go back to the homepage.
        </Text>
        <Button component="a" href="/" variant="light">
          Go to the homepage
        </Button>
      </Stack>
    </Center>
  );
}

/** Route error boundary element: a stale chunk after a deploy reloads once instead (SPEC.md §8). */
export function ErrorPage() {
  const error = useRouteError();
  if (isChunkLoadError(error) && reloadForStaleChunk()) return null;
  return <ErrorView error={error} />;
}
