import type { ReactNode } from 'react';
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { FormError } from '../../../components/form-error.tsx';

/** Asks before something that cannot be undone (delete, remove); a refusal shows in the dialog. */
export function ConfirmModal({
  opened,
  onClose,
  title,
  children,
  error,
  loading,
  confirmLabel,
  onConfirm,
}: {
  opened: boolean;
  onClose: () => void;
  title: string;
  /** What will happen, in a sentence or two. */
  children: ReactNode;
  error: unknown;
  loading: boolean;
  confirmLabel: string;
  onConfirm: () => void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title}>
      <Stack gap="md">
        <Text size="sm">{children}</Text>
        <FormError error={error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color="red" loading={loading} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
