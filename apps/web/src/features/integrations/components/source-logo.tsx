import { Box } from '@mantine/core';
import { IconFileSpreadsheet } from '@tabler/icons-react';
import { SOURCE_LABELS } from '@rally/shared/schemas/integrations';

/** Brand-coloured marks (our own drawing, not the vendors' trademarks) so sources are told apart. */
const MARKS: Record<string, { bg: string; fg: string; text: string }> = {
  salesloft: { bg: '#0b2d4f', fg: '#4fd1a5', text: 'SL' },
  outreach: { bg: '#5951ff', fg: '#ffffff', text: 'O' },
  apolloio: { bg: '#f7d046', fg: '#1b1b1b', text: 'A' },
  salesforce: { bg: '#00a1e0', fg: '#ffffff', text: 'SF' },
  hubspot: { bg: '#ff7a59', fg: '#ffffff', text: 'H' },
  marketo: { bg: '#5c4c9f', fg: '#ffffff', text: 'M' },
};

export function SourceLogo({ source, size = 40 }: { source: string; size?: number }) {
  const label = SOURCE_LABELS[source] ?? source;
  const mark = MARKS[source];
  if (!mark) {
    return (
      <Box
        role="img"
        aria-label={`${label} logo`}
        w={size}
        h={size}
        bg="teal.6"
        c="white"
        style={{ borderRadius: 10, display: 'grid', placeItems: 'center', flex: 'none' }}
      >
        <IconFileSpreadsheet size={size * 0.6} stroke={1.6} />
      </Box>
    );
  }
  return (
    <svg
      role="img"
      aria-label={`${label} logo`}
      width={size}
      height={size}
      viewBox="0 0 40 40"
      style={{ flex: 'none' }}
    >
      <rect width="40" height="40" rx="10" fill={mark.bg} />
      <text
        x="20"
        y="25.5"
        textAnchor="middle"
        fontFamily="system-ui, sans-serif"
        fontWeight="700"
        fontSize={mark.text.length > 1 ? 15 : 18}
        fill={mark.fg}
      >
        {mark.text}
      </text>
    </svg>
  );
}
