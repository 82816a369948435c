import { Button, Group, Paper, Text } from '@mantine/core';
import { setConsent } from '../lib/analytics.ts';

/** The consent question itself; see analytics-consent-banner.tsx. */
export default function AnalyticsConsentPanel() {
  return (
    <Paper
      role="region"
      aria-label="Analytics consent"
      withBorder
      shadow="md"
      p="md"
      w="calc(100% - 32px)"
      maw={420}
      // Bottom centre: toasts own the bottom left, and the footer's legal links (which a visitor may
      // want to read before answering) sit at the right on wide screens.
      style={{ position: 'fixed', left: '50%', transform: 'translateX(-50%)', bottom: 16, zIndex: 300 }}
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
