import { Fragment, useState } from 'react';
import type { ReactNode } from 'react';
import { Alert, Stack } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError } from '../../../components/panel-states.tsx';
import { ApiError } from '../../../lib/api-client.ts';

/**
 * Loads the record an editor edits. A 404 or 422 (an id that is not in this client) reads as "not
 * found" under the way back; other errors can be retried. `onReload` fetches the record again and
 * starts the form afresh from it (after a 409: edited elsewhere).
 */
export function EditorLoader<T>({
  query,
  back,
  notFound,
  what,
  children,
}: {
  query: UseQueryResult<T>;
  back: ReactNode;
  notFound: { title: string; text: string };
  /** What failed to load, for the error panel ("the ad"). */
  what: string;
  children: (record: T, onReload: () => Promise<void>) => ReactNode;
}) {
  // Bumped to start the form again from the stored record.
  const [version, setVersion] = useState(0);
  if (query.isPending) return <ScreenLoader />;
  if (query.isError) {
    const missing =
      query.error instanceof ApiError && (query.error.status === 404 || query.error.status === 422);
    return (
      <Stack gap="md">
        {back}
        {missing ? (
          <Alert color="gray" title={notFound.title}>
            {notFound.text}
          </Alert>
        ) : (
          <PanelError error={query.error} what={what} onRetry={() => void query.refetch()} />
        )}
      </Stack>
    );
  }
  const onReload = async () => {
    await query.refetch();
    setVersion((v) => v + 1);
  };
  // A save updates the record without remounting, so what is being typed is kept.
  return <Fragment key={version}>{children(query.data, onReload)}</Fragment>;
}
