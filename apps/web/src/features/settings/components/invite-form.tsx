import { Button, Group, Paper, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconSend } from '@tabler/icons-react';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import { z } from 'zod';
import type { BuiltInRole } from '@rally/shared';
import { useInviteUser } from '../api/invite-user.ts';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { RoleSelect, isBuiltInRole } from './role-select.tsx';

const schema = z.object({
  email: z.string().trim().min(1, 'Enter an e-mail address').pipe(z.email('Enter a valid e-mail address')),
  role: z.string().refine(isBuiltInRole, 'Choose a role'),
});

/** Invites someone to the current client by e-mail, with the role they will have. */
export function InviteForm({
  clientId,
  clientName,
  canGrantOwner,
}: {
  clientId: string;
  clientName: string;
  canGrantOwner: boolean;
}) {
  const form = useForm({
    mode: 'uncontrolled',
    initialValues: { email: '', role: 'yellow_sdr' as string },
    validate: zod4Resolver(schema),
  });
  const invite = useInviteUser({ toast: false });
  const fieldErrors = fieldErrorsOf(invite.error);

  return (
    <Paper withBorder radius="md" p="lg" component="section" aria-label="Invite someone">
      <form
        noValidate
        onSubmit={form.onSubmit((v) => {
          const email = v.email.trim().toLowerCase();
          invite.mutate(
            { clientId, email, role: v.role as BuiltInRole },
            {
              onSuccess: () => {
                notifications.show({ color: 'green', message: `Invitation sent to ${email}.` });
                form.setFieldValue('email', '');
              },
              onError: (error) => form.setErrors(fieldErrorsOf(error)),
            },
          );
        })}
      >
        <Stack gap="sm">
          <div>
            <Text fw={600}>Invite someone</Text>
            <Text size="sm" c="dimmed">
              We e-mail them a link to join {clientName}. It works for 7 days.
            </Text>
          </div>
          <Group align="flex-start" gap="sm" wrap="wrap">
            <TextInput
              label="Email"
              type="email"
              placeholder="name@company.com"
              autoComplete="off"
              flex={1}
              miw={240}
              key={form.key('email')}
              {...form.getInputProps('email')}
            />
            <RoleSelect
              label="Role"
              w={200}
              canGrantOwner={canGrantOwner}
              key={form.key('role')}
              {...form.getInputProps('role')}
              onChange={(role) => form.setFieldValue('role', role)}
            />
            <Button type="submit" mt={25} loading={invite.isPending} leftSection={<IconSend size={16} />}>
              Send invitation
            </Button>
          </Group>
          {Object.keys(fieldErrors).length === 0 && <FormError error={invite.error} />}
        </Stack>
      </form>
    </Paper>
  );
}
