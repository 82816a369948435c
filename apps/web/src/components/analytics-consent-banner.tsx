import { Button, Group, Paper, Text } from '@mantine/core';
import { setConsent, useAnalyticsConsent } from '../lib/analytics.ts';

/** Asks once for analytics consent (SPEC.md §4); shown only while analytics is configured and pending. */
export function AnalyticsConsentBanner() {
  const { enabled, consent } = useAnalyticsConsent();
  if (!enabled || consent !== 'pending') return null;
  return (
    <Paper
      role="region"
      aria-label="Analytics consent"
      withBorder
      shadow="md"
      p="md"
      maw={360}
      style={{ position: 'fixed', right: 16, bottom: 16, zIndex: 300 }}
    >
      <Text size="sm" mb="sm">
        We use analytics to learn how the product is used and to improve it. Is that all right with you?
      </Text>
      <Group justify="flex-end" gap="xs">
        <Button variant="default" size="xs" onClick={() => setConsent('denied')}>
          Decline
        </Button>
        <Button size="xs" onClick={() => setConsent('granted')}>
          Accept
        </Button>
      </Group>
    </Paper>
  );
}
