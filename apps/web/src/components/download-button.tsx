import { useState } from 'react';
import { Button } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconDownload } from '@tabler/icons-react';

/**
 * A button that fetches a file and hands it to the browser (the calls need the client header, so
 * files are fetched rather than linked): busy while it runs, a toast if it fails.
 */
export function DownloadButton({
  onDownload,
  label,
  ariaLabel,
  failMessage = 'The export could not be made. Please try again.',
}: {
  onDownload: () => Promise<void>;
  label: string;
  ariaLabel?: string;
  failMessage?: string;
}) {
  const [busy, setBusy] = useState(false);
  return (
    <Button
      variant="default"
      size="xs"
      leftSection={<IconDownload size={14} />}
      loading={busy}
      aria-label={ariaLabel}
      onClick={async () => {
        setBusy(true);
        try {
          await onDownload();
        } catch {
          notifications.show({ color: 'red', message: failMessage });
        } finally {
          setBusy(false);
        }
      }}
    >
      {label}
    </Button>
  );
}
