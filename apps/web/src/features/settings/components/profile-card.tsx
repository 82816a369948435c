import { Button, Group, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import { z } from 'zod';
import type { Self } from '@rally/shared/schemas/auth';
import { useUpdateSelf } from '../api/update-self.ts';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { SettingsCard } from './settings-card.tsx';
import { NameFields } from '../../../components/name-fields.tsx';

const name = (what: string) =>
  z.string().trim().min(1, `Enter your ${what}`).max(100, 'Use at most 100 characters');
const schema = z.object({ first_name: name('first name'), last_name: name('last name') });

/** First and last name (the header shows them). */
export function ProfileCard({ user }: { user: Self }) {
  const form = useForm({
    mode: 'uncontrolled',
    initialValues: { first_name: user.first_name, last_name: user.last_name },
    validate: zod4Resolver(schema),
  });
  const update = useUpdateSelf();

  return (
    <SettingsCard title="Profile" description="Your name as your team and your prospects see it.">
      <form
        noValidate
        onSubmit={form.onSubmit((v) => {
          const body = schema.parse(v);
          update.mutate(body, {
            onSuccess: () => {
              form.setValues(body);
              form.resetDirty(body);
              notifications.show({ color: 'green', message: 'Your profile has been saved.' });
            },
            onError: (error) => form.setErrors(fieldErrorsOf(error)),
          });
        })}
      >
        <Stack gap="sm">
          <TextInput
            label="Email"
            value={user.email}
            readOnly
            variant="filled"
            description="Your sign-in address"
          />
          <NameFields form={form} />
          {Object.keys(fieldErrorsOf(update.error)).length === 0 && <FormError error={update.error} />}
          <Group justify="flex-end">
            <Button type="submit" loading={update.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </SettingsCard>
  );
}
