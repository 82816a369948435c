import { Alert, Anchor } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { Link } from 'react-router';

/**
 * A screen of a client with nothing connected yet (issue 42 item 5): what it will show and the one
 * step that fills it, instead of charts and cards of zeros that read as results.
 */
export function NoDataYet({
  clientId,
  what,
  canConnect,
}: {
  clientId: string;
  /** What the screen shows once data arrives, as a sentence ending in a full stop. */
  what: string;
  canConnect: boolean;
}) {
  return (
    <Alert variant="light" color="blue" icon={<IconInfoCircle size={18} />} title="Nothing to show yet">
      {what} No prospects are in Rally yet.{' '}
      {canConnect ? (
        <Anchor
          component={Link}
          to={`/onboarding?client_id=${clientId}`}
          c="blue.9"
          fz="sm"
          fw={600}
          td="underline"
        >
          Connect a sequence platform or import prospects
        </Anchor>
      ) : (
        'Ask an owner or admin to connect a sequence platform or import prospects'
      )}
      .
    </Alert>
  );
}
