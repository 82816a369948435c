import { Alert, Badge, Text } from '@mantine/core';
import { IconFlask } from '@tabler/icons-react';

/** Issue 42 item 4: what marks the demo's sample connection, in place of "Active". */
export function DemoBadge() {
  return (
    <Badge color="grape" variant="light">
      Demo data
    </Badge>
  );
}

/** The line that says what a demo connection is and what to do about it. */
export function DemoNote({ label }: { label: string }) {
  return (
    <Alert color="grape" variant="light" icon={<IconFlask size={16} />} p="xs">
      <Text size="sm">
        These are sample records that show what Rally does; nothing syncs from a real {label}. Connect your
        own {label} to bring in your records in their place.
      </Text>
    </Alert>
  );
}
