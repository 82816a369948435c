import { Box, List, Text, Tooltip } from '@mantine/core';
import type { MantineSpacing } from '@mantine/core';
import { IconShieldCheck } from '@tabler/icons-react';
import { uncountedLines } from '@rally/shared/schemas/tracking';
import type { UncountedSummary } from '@rally/shared/schemas/tracking';

const WHY =
  'Only people count. Opens prefetched by Apple Mail Privacy Protection, links fetched by mail ' +
  'security scanners and requests by bots are kept but left out of every count, superprospect and bill.';

/**
 * What was stored but not counted, and why (issue 38): "2 clicks by a mail security scanner not
 * counted", one line per kind. Nothing when everything counted.
 */
export function UncountedNote({
  summary,
  title = 'Not counted',
  ariaLabel = title,
  mt,
  mb,
}: {
  summary: UncountedSummary | undefined;
  title?: string;
  ariaLabel?: string;
  mt?: MantineSpacing;
  mb?: MantineSpacing;
}) {
  const lines = summary ? uncountedLines(summary) : [];
  if (!lines.length) return null;
  return (
    <Box component="section" aria-label={ariaLabel} mt={mt} mb={mb}>
      <Tooltip label={WHY} multiline w={320}>
        <Text size="xs" c="dimmed" fw={600} span>
          <IconShieldCheck size={12} style={{ verticalAlign: 'middle', marginRight: 4 }} />
          {title}
        </Text>
      </Tooltip>
      <List size="xs" c="dimmed" spacing={0} listStyleType="none" mt={2}>
        {lines.map((line) => (
          <List.Item key={line}>
            <Text size="xs" c="dimmed" span>
              {line}
            </Text>
          </List.Item>
        ))}
      </List>
    </Box>
  );
}
