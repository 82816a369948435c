import { Alert } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';

/** The styled alert of FormError, in its own chunk (see form-error.tsx). */
export default function FormErrorAlert({ message }: { message: string }) {
  return (
    <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} role="alert">
      {message}
    </Alert>
  );
}
