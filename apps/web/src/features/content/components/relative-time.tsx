import { Text, Tooltip } from '@mantine/core';
import { formatDayTime, relativeTime } from '@rally/shared';

/** '5 minutes ago', with the exact time on hover. */
export function RelativeTime({ value, prefix = '' }: { value: string | null; prefix?: string }) {
  if (!value)
    return (
      <Text size="sm" c="dimmed" span>
        —
      </Text>
    );
  return (
    <Tooltip label={formatDayTime(value)}>
      <Text size="sm" c="dimmed" span>
        {prefix}
        {relativeTime(value)}
      </Text>
    </Tooltip>
  );
}
