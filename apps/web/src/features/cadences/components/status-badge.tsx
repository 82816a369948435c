import { Badge } from '@mantine/core';
import { CADENCE_STATUS_LABELS } from '@rally/shared/schemas/cadences';
import type { CadenceStatusValue } from '@rally/shared/schemas/cadences';

const COLORS: Record<CadenceStatusValue, string> = {
  draft: 'gray',
  active: 'teal',
  paused: 'yellow',
  finished: 'dark',
};

export function CadenceStatusBadge({ status }: { status: CadenceStatusValue }) {
  return (
    <Badge
      color={COLORS[status]}
      variant="light"
      miw="max-content"
      aria-label={`Status: ${CADENCE_STATUS_LABELS[status]}`}
    >
      {CADENCE_STATUS_LABELS[status]}
    </Badge>
  );
}

export function AdsBadge({ on }: { on: boolean }) {
  return (
    <Badge color={on ? 'indigo' : 'gray'} variant={on ? 'filled' : 'outline'} miw="max-content">
      {on ? 'Ads on' : 'Ads off'}
    </Badge>
  );
}
