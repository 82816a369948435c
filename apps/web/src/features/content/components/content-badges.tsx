import { Badge } from '@mantine/core';
import type { ContentStatus } from '@rally/shared/schemas/content';

const STATUS: Record<ContentStatus, { label: string; color: string }> = {
  draft: { label: 'Draft', color: 'gray' },
  published: { label: 'Published', color: 'teal' },
};

/** SPEC.md §3 "Content item": status draft or published. */
export function ContentStatusBadge({ status }: { status: ContentStatus }) {
  const s = STATUS[status];
  return (
    <Badge color={s.color} variant="light" miw="max-content" aria-label={`Status: ${s.label}`}>
      {s.label}
    </Badge>
  );
}

export function ArchivedBadge() {
  return (
    <Badge color="orange" variant="outline" miw="max-content">
      Archived
    </Badge>
  );
}
