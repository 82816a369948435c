import { ActionIcon, Tooltip } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { METRIC_DEFINITIONS } from '@rally/shared';
import type { MetricTerm } from '@rally/shared';

/**
 * The "i" beside a number's label that says what it counts (issue 42 item 6), from the one shared
 * definitions map, so every screen means the same by the same word. A button, so a keyboard reaches
 * it and a tap shows it on a phone; its name carries the definition for screen readers.
 */
export function MetricInfo({ term, label }: { term: MetricTerm; label: string }) {
  const definition = METRIC_DEFINITIONS[term];
  return (
    <Tooltip
      label={definition}
      multiline
      w={280}
      withArrow
      events={{ hover: true, focus: true, touch: true }}
    >
      <ActionIcon
        variant="subtle"
        color="gray"
        size="xs"
        radius="xl"
        aria-label={`${label}: ${definition}`}
        data-metric={term}
        style={{ verticalAlign: 'middle' }}
      >
        <IconInfoCircle size={14} aria-hidden />
      </ActionIcon>
    </Tooltip>
  );
}
