import { Alert, Button, Center, Loader, Paper, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { ApiError } from '../lib/api-client.ts';

/** Holds the table's place while it loads, so the page does not jump. */
export function PanelLoading({ label }: { label: string }) {
  return (
    <Paper withBorder radius="md">
      <Center py={48} role="status" aria-label={label}>
        <Loader size="sm" />
      </Center>
    </Paper>
  );
}

/**
 * A failed list: what went wrong and a way to try again (the toast has already been shown). On a
 * phone, inside a card, its padding is smaller so the message keeps some width (issue 21).
 */
export function PanelError({ error, what, onRetry }: { error: unknown; what: string; onRetry: () => void }) {
  const detail = error instanceof ApiError && error.status < 500 ? error.message : null;
  return (
    <Alert
      color="red"
      variant="light"
      p={{ base: 'sm', xs: 'md' }}
      icon={<IconAlertTriangle size={18} />}
      title={`Could not load ${what}`}
    >
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{detail ?? 'Something went wrong. Please try again in a moment.'}</Text>
        {/* Default (dark on white): red on white under the red alert read below 4.5:1. */}
        <Button size="xs" variant="default" onClick={onRetry}>
          Try again
        </Button>
      </Stack>
    </Alert>
  );
}
