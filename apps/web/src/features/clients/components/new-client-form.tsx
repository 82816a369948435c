import { Button, Group, Paper, Select, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconPlus } from '@tabler/icons-react';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import { z } from 'zod';
import { ApiError } from '../../../lib/api-client.ts';
import { useCreateClient } from '../api/create-client.ts';

/** The "no parent" choice of the select (a select's values are strings). */
const NONE = 'none';

const schema = z.object({
  name: z.string().trim().min(1, 'Enter a name for the client').max(100, 'Use at most 100 characters'),
  parent: z.string(),
});

export type ParentOption = { id: string; name: string };

/**
 * client.write: a new client, its creator its owner. The parent is chosen, not implied (issue 42 item
 * 13: "created under Acme Robotics" nested a client under whichever was current): `parents` are the
 * clients where the user may create clients, `defaultParent` the top of the current client's tree.
 */
export function NewClientForm({
  parents,
  defaultParent,
}: {
  parents: ParentOption[];
  defaultParent: string | null;
}) {
  const form = useForm({
    mode: 'controlled',
    initialValues: { name: '', parent: defaultParent ?? NONE },
    validate: zod4Resolver(schema),
  });
  const create = useCreateClient();
  const parentName = parents.find((p) => p.id === form.values.parent)?.name;

  return (
    <Paper withBorder radius="md" p="lg" component="section" aria-label="New client">
      <form
        noValidate
        onSubmit={form.onSubmit((v) => {
          const { name, parent } = schema.parse(v);
          create.mutate(
            { name, parent_id: parent === NONE ? null : parent },
            {
              onSuccess: (client) => {
                form.setFieldValue('name', '');
                notifications.show({
                  color: 'green',
                  message: `${client.name} was created${parentName ? ` under ${parentName}` : ''}. You are its owner.`,
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
              Add a company you work for. You become its owner.
            </Text>
          </div>
          <TextInput
            label="Client name"
            placeholder="e.g. Initech"
            key={form.key('name')}
            {...form.getInputProps('name')}
          />
          <Select
            label="Create under"
            description={
              parentName
                ? `It becomes one of ${parentName}'s clients.`
                : 'It stands on its own, under no other client.'
            }
            data={[
              ...parents.map((p) => ({ value: p.id, label: p.name })),
              { value: NONE, label: 'No parent (a client of its own)' },
            ]}
            allowDeselect={false}
            key={form.key('parent')}
            {...form.getInputProps('parent')}
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
