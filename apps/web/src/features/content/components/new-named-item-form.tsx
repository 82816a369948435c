import { Button, Group, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useNavigate } from 'react-router';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';

/** The part of a create mutation this form uses: it sends only a name. */
export type CreateByName = {
  mutate: (
    body: { name: string },
    callbacks: { onSuccess: (created: { id: string }) => void; onError: (err: Error) => void },
  ) => void;
  isPending: boolean;
  error: Error | null;
};

/**
 * Names a new ad or landing page, creates it, and opens it in its editor. A 422 shows on the
 * field; any other error above the buttons.
 */
export function NewNamedItemForm({
  create,
  editorHref,
  nameRequired,
  description,
  placeholder,
  onCancel,
}: {
  create: CreateByName;
  editorHref: (id: string) => string;
  /** What an empty name says, with an example. */
  nameRequired: string;
  description: string;
  placeholder: string;
  onCancel: () => void;
}) {
  const navigate = useNavigate();
  const form = useForm({
    initialValues: { name: '' },
    validate: { name: (v) => (v.trim() ? null : nameRequired) },
  });
  return (
    <form
      noValidate
      onSubmit={form.onSubmit(({ name }) =>
        create.mutate(
          { name: name.trim() },
          {
            onSuccess: (created) => navigate(editorHref(created.id)),
            onError: (err) => form.setErrors(fieldErrorsOf(err)),
          },
        ),
      )}
    >
      <Stack gap="md">
        <TextInput
          label="Name"
          description={description}
          placeholder={placeholder}
          data-autofocus
          {...form.getInputProps('name')}
        />
        {Object.keys(fieldErrorsOf(create.error)).length === 0 && <FormError error={create.error} />}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending}>
            Create and edit
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
