import { Group, Progress, Text } from '@mantine/core';
import type { Integration } from '@rally/shared/schemas/auth';

const PHASES = {
  users: [0, 10],
  cadences: [10, 30],
  memberships: [30, 100],
  // A CRM sync (issue 16).
  stages: [0, 5],
  owners: [5, 10],
  accounts: [10, 25],
  contacts: [25, 50],
  opportunities: [50, 75],
  history: [75, 85],
  lists: [85, 95],
  activities: [95, 100],
  done: [100, 100],
} as const;
const PHASE_LABEL = {
  users: 'Reading sales reps',
  cadences: 'Reading cadences',
  memberships: 'Reading prospects',
  stages: 'Reading stages',
  owners: 'Reading owners',
  accounts: 'Reading accounts',
  contacts: 'Reading contacts',
  opportunities: 'Reading opportunities',
  history: 'Reading stage history',
  lists: 'Reading lists',
  activities: 'Reading activities',
  done: 'Done',
} as const;

/**
 * A sync's progress as one bar: each phase owns a slice of it, filled by the pages read so far
 * (exactly when the vendor tells how many pages there are, else creeping towards the slice's end).
 */
export function syncPercent(p: Integration['sync_progress']): number {
  if (!p) return 0;
  const [from, to] = PHASES[p.phase];
  const share = p.total ? Math.min(1, p.done / p.total) : 1 - 1 / (1 + p.done / 3);
  return Math.round(from + (to - from) * share);
}

export function SyncProgress({ integration }: { integration: Integration }) {
  const p = integration.sync_progress;
  const percent = syncPercent(p);
  return (
    <div>
      <Group justify="space-between" mb={4}>
        <Text size="xs" c="dimmed">
          {p ? PHASE_LABEL[p.phase] : 'Waiting to start'}
          {p?.total ? ` (page ${Math.min(p.done, p.total)} of ${p.total})` : ''}
        </Text>
        <Text size="xs" c="dimmed">
          {percent}%
        </Text>
      </Group>
      <Progress
        value={Math.max(percent, 3)}
        animated
        striped
        aria-label={`Sync progress ${percent}%`}
        role="progressbar"
        aria-valuenow={percent}
        aria-valuemin={0}
        aria-valuemax={100}
      />
    </div>
  );
}
