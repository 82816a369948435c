import { Button, Group, PasswordInput, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import { z } from 'zod';
import { PASSWORD_MIN } from '@rally/shared/schemas/auth';
import { useUpdateSelf } from '../api/update-self.ts';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { SettingsCard } from './settings-card.tsx';

const schemaFor = (hasPassword: boolean) =>
  z
    .object({
      current_password: hasPassword ? z.string().min(1, 'Enter your current password') : z.string(),
      password: z
        .string()
        .min(PASSWORD_MIN, `Use at least ${PASSWORD_MIN} characters`)
        .max(200, 'Use at most 200 characters'),
      confirm: z.string(),
    })
    .refine((v) => v.password === v.confirm, { message: 'The passwords do not match', path: ['confirm'] });

/**
 * Change (or, for an account made through Google or Microsoft, set) the password. The server's 422
 * on current_password is shown under that field.
 */
export function PasswordCard({ hasPassword }: { hasPassword: boolean }) {
  const form = useForm({
    mode: 'uncontrolled',
    initialValues: { current_password: '', password: '', confirm: '' },
    validate: zod4Resolver(schemaFor(hasPassword)),
  });
  const update = useUpdateSelf();
  const fieldErrors = fieldErrorsOf(update.error);

  return (
    <SettingsCard
      title="Password"
      description={
        hasPassword
          ? 'Changing your password signs you out on your other devices.'
          : 'You sign in with Google or Microsoft. Set a password to also sign in with your e-mail address.'
      }
    >
      <form
        noValidate
        onSubmit={form.onSubmit((v) =>
          update.mutate(
            hasPassword
              ? { current_password: v.current_password, password: v.password }
              : { password: v.password },
            {
              onSuccess: () => {
                form.reset();
                notifications.show({
                  color: 'green',
                  message: hasPassword
                    ? 'Your password has been changed. Your other sessions were signed out.'
                    : 'Your password has been set.',
                });
              },
              onError: (error) => form.setErrors(fieldErrorsOf(error)),
            },
          ),
        )}
      >
        <Stack gap="sm">
          {hasPassword && (
            <PasswordInput
              label="Current password"
              autoComplete="current-password"
              key={form.key('current_password')}
              {...form.getInputProps('current_password')}
            />
          )}
          <Group grow align="flex-start">
            <PasswordInput
              label="New password"
              description={`At least ${PASSWORD_MIN} characters`}
              autoComplete="new-password"
              key={form.key('password')}
              {...form.getInputProps('password')}
            />
            <PasswordInput
              label="Repeat the new password"
              description="Type it again to be sure"
              autoComplete="new-password"
              key={form.key('confirm')}
              {...form.getInputProps('confirm')}
            />
          </Group>
          {Object.keys(fieldErrors).length === 0 && <FormError error={update.error} />}
          <Group justify="flex-end">
            <Button type="submit" loading={update.isPending}>
              {hasPassword ? 'Change password' : 'Set password'}
            </Button>
          </Group>
        </Stack>
      </form>
    </SettingsCard>
  );
}
