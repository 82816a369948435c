import { Button, Group } from '@mantine/core';
import { IconDeviceFloppy } from '@tabler/icons-react';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';

/**
 * The end of a settings form: why the last save failed (field errors show on their fields), and
 * Save for those who may write, on only once something has changed.
 */
export function SettingsSaveFooter({
  error,
  saving,
  dirty,
  canWrite,
}: {
  error: Error | null;
  saving: boolean;
  dirty: boolean;
  canWrite: boolean;
}) {
  return (
    <>
      {Object.keys(fieldErrorsOf(error)).length === 0 && <FormError error={error} />}
      {canWrite && (
        <Group justify="flex-end">
          <Button
            type="submit"
            leftSection={<IconDeviceFloppy size={16} />}
            loading={saving}
            disabled={!dirty}
          >
            Save
          </Button>
        </Group>
      )}
    </>
  );
}
