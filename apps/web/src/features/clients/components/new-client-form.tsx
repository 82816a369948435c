import { Button, Group, Paper, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconPlus } from '@tabler/icons-react';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import { z } from 'zod';
import { ApiError } from '../../../lib/api-client.ts';
import { useCreateClient } from '../api/create-client.ts';

const schema = z.object({
  name: z.string().trim().min(1, 'Enter a name for the client').max(100, 'Use at most 100 characters'),
});

/** client.write: a new client under the current one; its creator becomes its owner. */
export function NewClientForm({ parentName }: { parentName: string }) {
  const form = useForm({ mode: 'uncontrolled', initialValues: { name: '' }, validate: zod4Resolver(schema) });
  const create = useCreateClient();

  return (
    <Paper withBorder radius="md" p="lg" component="section" aria-label="New client">
      <form
        noValidate
        onSubmit={form.onSubmit((v) => {
          const { name } = schema.parse(v);
          create.mutate(
            { name },
            {
              onSuccess: (client) => {
                form.reset();
                notifications.show({
                  color: 'green',
                  message: `${client.name} was created. You are its owner.`,
                });
              },
              onError: (error) =>
                form.setFieldError(
                  'name',
                  error instanceof ApiError && error.status < 500
                    ? error.message
                    : 'Something went wrong. Please contact the support team.',
                ),
            },
          );
        })}
      >
        <Stack gap="sm">
          <div>
            <Text fw={600}>New client</Text>
            <Text size="sm" c="dimmed">
              Add a company you work for. It is created under {parentName} and you become its owner.
            </Text>
          </div>
          <TextInput
            label="Client name"
            placeholder="e.g. Initech"
            key={form.key('name')}
            {...form.getInputProps('name')}
          />
          <Group justify="flex-end">
            <Button type="submit" loading={create.isPending} leftSection={<IconPlus size={16} />}>
              Create client
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
