import { useEffect } from 'react';
import type { ReactNode } from 'react';
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useBlocker } from 'react-router';
import type { Location } from 'react-router';

/** Leaving means another page: a new path or new query (another client, another record); not a #hash. */
export function leavesPage(from: Location, to: Location): boolean {
  return from.pathname !== to.pathname || from.search !== to.search;
}

/**
 * While a form holds changes not yet saved, asks before they are lost: a "Leave without saving?"
 * dialog for a link or Back inside the app (react-router's useBlocker, which needs the data router
 * the app uses), and the browser's own prompt for closing or reloading the tab (beforeunload).
 * `what` names the changes in the dialog ("the days", "this ad"). Returns the dialog to render.
 * Pass `dirty` false during a deliberate exit (after a delete) so it is not questioned.
 */
export function useUnsavedChangesPrompt(dirty: boolean, what: string): ReactNode {
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => dirty && leavesPage(currentLocation, nextLocation),
  );

  useEffect(() => {
    if (!dirty) return;
    const ask = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', ask);
    return () => window.removeEventListener('beforeunload', ask);
  }, [dirty]);

  // Saved (or discarded) while the dialog was open: nothing is lost any more, so let the move happen.
  useEffect(() => {
    if (blocker.state === 'blocked' && !dirty) blocker.proceed();
  }, [blocker, dirty]);

  const stay = () => blocker.state === 'blocked' && blocker.reset();
  return (
    <Modal opened={blocker.state === 'blocked'} onClose={stay} title="Leave without saving?" zIndex={400}>
      <Stack gap="md">
        <Text size="sm">Your changes to {what} will be lost.</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={stay} data-autofocus>
            Stay
          </Button>
          <Button color="red" onClick={() => blocker.state === 'blocked' && blocker.proceed()}>
            Leave
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
