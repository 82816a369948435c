import { Badge } from '@mantine/core';
import { COHORT_STATUS_LABELS } from '@rally/shared/schemas/cohorts';
import type { Cohort, CohortStatus } from '@rally/shared/schemas/cohorts';
import { formatDayTime } from '@rally/shared';

const COLORS: Record<CohortStatus, string> = { active: 'teal', paused: 'yellow', archived: 'gray' };

export function CohortStatusBadge({ status }: { status: CohortStatus }) {
  return (
    <Badge
      color={COLORS[status]}
      variant="light"
      miw="max-content"
      aria-label={`Status: ${COHORT_STATUS_LABELS[status]}`}
    >
      {COHORT_STATUS_LABELS[status]}
    </Badge>
  );
}

const SYNC_LABELS: Record<Cohort['sync_state'], string> = {
  idle: 'Not synced',
  queued: 'Sync queued',
  running: 'Syncing',
  done: 'Synced',
  failed: 'Sync failed',
};

/** The sync state in words, with the progress of a running sync and the time of the last one. */
export function syncText(c: Pick<Cohort, 'sync_state' | 'sync_progress' | 'last_synced_at'>): string {
  if (c.sync_state === 'running' && c.sync_progress) {
    const { done, total } = c.sync_progress;
    return total ? `Syncing ${done} of ${total}` : `Syncing ${done}`;
  }
  if (c.sync_state === 'done' && c.last_synced_at) {
    return `Synced ${formatDayTime(c.last_synced_at)}`;
  }
  return SYNC_LABELS[c.sync_state];
}
