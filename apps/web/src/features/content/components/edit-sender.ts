import { notifications } from '@mantine/notifications';
import { fieldErrorsOf } from '../../../components/form-error.tsx';

/** The part of an update mutation an editor saves with: a PATCH of `id` with a body. */
type UpdateMutation<T, B> = {
  mutate: (
    variables: { id: string; body: B },
    callbacks: { onSuccess: (saved: T) => void; onError: (err: Error) => void },
  ) => void;
};

/** The part of a Mantine form a save writes back to. */
type EditorForm<V> = {
  setValues: (values: V) => void;
  resetDirty: (values: V) => void;
  setErrors: (errors: Record<string, string>) => void;
};

/**
 * How an editor sends a change of its record. The body carries the updated_at the record was loaded
 * with, so a save over someone else's answers 409 rather than overwriting it. On success the
 * toast says `done`, and the form shows the saved record as unchanged (unless `keepForm`: a change
 * such as archiving keeps what is being typed). Field errors (422) go on their fields unless the
 * editor handles errors itself.
 */
export function editSender<T, B extends { updated_at?: unknown }, V>({
  update,
  record,
  form,
  formValues,
  onError = (err) => form.setErrors(fieldErrorsOf(err)),
}: {
  update: UpdateMutation<T, B>;
  record: { id: string; updated_at: B['updated_at'] };
  form: EditorForm<V>;
  formValues: (saved: T) => V;
  onError?: (err: Error, body: B) => void;
}) {
  return (body: B, done: string, opts: { keepForm?: boolean } = {}) =>
    update.mutate(
      { id: record.id, body: { ...body, updated_at: record.updated_at } },
      {
        onSuccess: (saved) => {
          notifications.show({ color: 'green', message: done });
          if (!opts.keepForm) {
            form.setValues(formValues(saved));
            form.resetDirty(formValues(saved));
          }
        },
        onError: (err) => onError(err, body),
      },
    );
}
