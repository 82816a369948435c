import { Alert } from '@mantine/core';
import { IconCalendarOff } from '@tabler/icons-react';
import type { Assignee } from '@rally/shared/schemas/content';

/**
 * Issue 42 item 14: the page's buttons open the rep's calendar link; without one they open the rep's
 * website, else the brand's, else they are left off. Said before the page is published, not found
 * out by a prospect who lands on a home page.
 */
export function CalendarLinkWarning({ assignee, buttonName }: { assignee: Assignee; buttonName: string }) {
  if (assignee.calendar_url.trim()) return null;
  const label = buttonName.trim() || 'Book a meeting';
  const website = assignee.website.trim();
  return (
    <Alert
      color="yellow"
      variant="light"
      icon={<IconCalendarOff size={18} />}
      title={`“${label}” has no calendar to open`}
      role="status"
    >
      The sales rep below has no calendar link, so the page&apos;s “{label}” buttons open{' '}
      {website ? <b>{website}</b> : "your brand's website (or are left off when there is none)"} instead of a
      booking page. Add the rep&apos;s calendar link under Sales rep. A prospect&apos;s own rep&apos;s
      calendar link is used when they have one.
    </Alert>
  );
}
