import { notifications } from '@mantine/notifications';
import { useNavigate } from 'react-router';
import type { ReactNode } from 'react';
import { ConfirmModal } from './confirm-modal.tsx';

/** The part of a delete mutation the dialog uses. */
type DeleteMutation = {
  mutate: (id: string, callbacks: { onSuccess: () => void }) => void;
  isPending: boolean;
  error: Error | null;
};

/**
 * Asks before an editor deletes its record; once deleted, says so by name and goes back to the list.
 * A refusal (409: still in use) shows in the dialog.
 */
export function DeleteRecordModal({
  opened,
  onClose,
  title,
  id,
  name,
  remove,
  listPath,
  children,
}: {
  opened: boolean;
  onClose: () => void;
  title: string;
  id: string;
  /** How the record is called in the toast. */
  name: string;
  remove: DeleteMutation;
  listPath: string;
  /** What deleting means for this record. */
  children: ReactNode;
}) {
  const navigate = useNavigate();
  return (
    <ConfirmModal
      opened={opened}
      onClose={onClose}
      title={title}
      error={remove.error}
      loading={remove.isPending}
      confirmLabel="Delete"
      onConfirm={() =>
        remove.mutate(id, {
          onSuccess: () => {
            notifications.show({ color: 'green', message: `“${name}” has been deleted.` });
            navigate(listPath);
          },
        })
      }
    >
      {children}
    </ConfirmModal>
  );
}
