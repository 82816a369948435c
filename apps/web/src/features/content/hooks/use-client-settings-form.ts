import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { clientSettingsUpdateBody } from '@rally/shared/schemas/content';
import type { ClientSettings, ClientSettingsUpdateBody } from '@rally/shared/schemas/content';
import { fieldErrorsOf } from '../../../components/form-error.tsx';
import { useUpdateClientSettings } from '../api/update-client-settings.ts';
import { schemaErrors } from '../components/form-validation.ts';

/**
 * A form over some of the client's settings (PUT sends only its fields). It is checked by the
 * shared request schema as the server would; a save says `saved` and shows the stored values as
 * unchanged; a 422 puts its errors on the fields.
 */
export function useClientSettingsForm<V extends Record<string, unknown>>({
  clientId,
  settings,
  formValues,
  body,
  saved,
  validateInputOnChange,
}: {
  clientId: string;
  settings: ClientSettings;
  formValues: (s: ClientSettings) => V;
  body: (v: V) => ClientSettingsUpdateBody;
  /** The toast after a save. */
  saved: string;
  /** Paths checked as they are typed, not only on blur. */
  validateInputOnChange?: string[];
}) {
  const update = useUpdateClientSettings(clientId);
  const form = useForm<V>({
    mode: 'controlled',
    initialValues: formValues(settings),
    validate: (v) => schemaErrors(clientSettingsUpdateBody, body(v)),
    validateInputOnChange,
    validateInputOnBlur: true,
  });
  const onSubmit = form.onSubmit((v) =>
    update.mutate(body(v), {
      onSuccess: (stored) => {
        notifications.show({ color: 'green', message: saved });
        form.setValues(formValues(stored));
        form.resetDirty(formValues(stored));
      },
      onError: (err) => form.setErrors(fieldErrorsOf(err)),
    }),
  );
  return { form, update, onSubmit };
}
