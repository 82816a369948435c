import { useState } from 'react';
import {
  Anchor,
  Avatar,
  Badge,
  Button,
  Drawer,
  FileButton,
  Group,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconPencil, IconUpload, IconUsers } from '@tabler/icons-react';
import { zod4Resolver } from 'mantine-form-zod-resolver';
import { Link } from 'react-router';
import { z } from 'zod';
import { sortSalesReps } from '@rally/shared';
import type { SalesRep } from '@rally/shared/schemas/integrations';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useSalesReps } from '../api/sales-reps.ts';
import { useUpdateSalesRep } from '../api/update-sales-rep.ts';
import { UploadsUnavailableError, useUploadPhoto } from '../api/upload-photo.ts';
import { ReadOnlyNote } from '../../../components/read-only-note.tsx';

const nameOf = (r: Pick<SalesRep, 'first_name' | 'last_name' | 'email'>) =>
  `${r.first_name} ${r.last_name}`.trim() || r.email || 'Unnamed rep';

/** /client-settings/sales-reps: the reps shown on ads and landing pages, and how they appear there. */
export function SalesRepsScreen() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  const [editing, setEditing] = useState<SalesRep | null>(null);
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  const canEdit = auth.currentRole.permissions.includes('settings.write');
  return (
    <Stack gap="lg">
      <div>
        <Title order={1}>Sales reps</Title>
        <Text c="dimmed">
          Each prospect's ads and landing page feature their rep: photo, title, company and a link to book a
          meeting.
        </Text>
      </div>
      {!canEdit && <ReadOnlyNote permission="settings.write" />}
      <RepTable clientId={clientId} canEdit={canEdit} onEdit={setEditing} />
      <Drawer
        opened={editing !== null}
        onClose={() => setEditing(null)}
        position="right"
        title={editing ? `Edit ${nameOf(editing)}` : ''}
        size="md"
      >
        {editing && (
          <RepForm key={editing.id} clientId={clientId} rep={editing} onDone={() => setEditing(null)} />
        )}
      </Drawer>
    </Stack>
  );
}

function RepTable({
  clientId,
  canEdit,
  onEdit,
}: {
  clientId: string;
  canEdit: boolean;
  onEdit: (rep: SalesRep) => void;
}) {
  const reps = useSalesReps(clientId);
  if (reps.isPending) return <PanelLoading label="Loading sales reps" />;
  if (reps.isError)
    return <PanelError error={reps.error} what="sales reps" onRetry={() => void reps.refetch()} />;
  if (reps.data.length === 0)
    return (
      <Paper withBorder radius="md" p="xl">
        <Stack align="center" gap="xs">
          <IconUsers size={32} stroke={1.5} />
          <Text fw={600}>No sales reps yet</Text>
          <Text size="sm" c="dimmed" ta="center">
            Reps come from your sequence platform or a CSV import, with the prospects they work.
          </Text>
          <Button component={Link} to={`/settings/connections?client_id=${clientId}`} mt="xs" variant="light">
            Go to connections
          </Button>
        </Stack>
      </Paper>
    );
  // SPEC.md §5: photos first, then by first name (the server sends them so; an edit may change it).
  const list = sortSalesReps(reps.data);
  return (
    <Paper withBorder radius="md">
      {/* Focusable so a keyboard can scroll it sideways (a read-only table has no buttons inside). */}
      <Table.ScrollContainer
        minWidth={960}
        type="native"
        tabIndex={0}
        role="region"
        aria-label="Sales reps table"
      >
        <Table verticalSpacing="sm" aria-label="Sales reps">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Sales rep</Table.Th>
              <Table.Th>Title</Table.Th>
              <Table.Th>Company name</Table.Th>
              <Table.Th>Calendar</Table.Th>
              <Table.Th>Ads</Table.Th>
              <Table.Th ta="right">Active targets</Table.Th>
              <Table.Th ta="right">Super targets</Table.Th>
              {canEdit && <Table.Th w={80} />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.map((r) => {
              const name = nameOf(r);
              return (
                <Table.Tr key={r.id} aria-label={name}>
                  <Table.Td>
                    <Group gap="sm" wrap="nowrap">
                      <Avatar
                        src={r.photo_url}
                        name={name}
                        color="initials"
                        size={36}
                        alt={`Photo of ${name}`}
                      />
                      <div>
                        <Text size="sm" fw={600}>
                          {name}
                        </Text>
                        {r.email && name !== r.email && (
                          <Text size="xs" c="dimmed">
                            {r.email}
                          </Text>
                        )}
                        {r.email_invalid && (
                          <Text size="xs" c="orange">
                            No valid e-mail in the source: fix it there and sync again
                          </Text>
                        )}
                      </div>
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    {r.title || (
                      <Text c="dimmed" size="sm">
                        —
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    {r.company_name || (
                      <Text c="dimmed" size="sm">
                        —
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td maw={220}>
                    {r.calendar_url ? (
                      <Anchor href={r.calendar_url} target="_blank" rel="noreferrer" size="sm" lineClamp={1}>
                        {r.calendar_url.replace(/^https?:\/\//, '')}
                      </Anchor>
                    ) : (
                      <Text c="dimmed" size="sm">
                        —
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Badge
                      variant="light"
                      color={r.selected ? 'teal' : 'gray'}
                      // A badge's label may shrink to nothing in a table cell ("SELE…"): never here.
                      styles={{ label: { overflow: 'visible' } }}
                    >
                      {r.selected ? 'Selected' : 'Not selected'}
                    </Badge>
                  </Table.Td>
                  <Table.Td ta="right">{r.active_targets_count}</Table.Td>
                  <Table.Td ta="right">{r.super_targets_count}</Table.Td>
                  {canEdit && (
                    <Table.Td>
                      <Button
                        size="compact-sm"
                        variant="subtle"
                        leftSection={<IconPencil size={14} />}
                        aria-label={`Edit ${name}`}
                        onClick={() => onEdit(r)}
                      >
                        Edit
                      </Button>
                    </Table.Td>
                  )}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

const urlOrEmpty = (what: string) =>
  z
    .string()
    .trim()
    .max(2000, 'Use at most 2000 characters')
    .refine(
      (v) => v === '' || /^https?:\/\/\S+$/i.test(v),
      `Enter a web address starting with https:// (${what})`,
    );
const schema = z.object({
  first_name: z.string().trim().max(100, 'Use at most 100 characters'),
  last_name: z.string().trim().max(100, 'Use at most 100 characters'),
  title: z.string().trim().max(200, 'Use at most 200 characters'),
  company_name: z.string().trim().max(200, 'Use at most 200 characters'),
  calendar_url: urlOrEmpty('a booking page'),
});

function RepForm({ clientId, rep, onDone }: { clientId: string; rep: SalesRep; onDone: () => void }) {
  const update = useUpdateSalesRep(clientId);
  const upload = useUploadPhoto();
  const [photo, setPhoto] = useState<string | null>(rep.photo_url);
  const form = useForm({
    mode: 'uncontrolled',
    initialValues: {
      first_name: rep.first_name,
      last_name: rep.last_name,
      title: rep.title,
      company_name: rep.company_name,
      calendar_url: rep.calendar_url,
    },
    validate: zod4Resolver(schema),
  });
  const name = nameOf(rep);

  return (
    <form
      noValidate
      onSubmit={form.onSubmit((v) => {
        const body = { ...schema.parse(v), ...(photo !== rep.photo_url ? { photo_url: photo } : {}) };
        update.mutate(
          { id: rep.id, body },
          {
            onSuccess: () => {
              notifications.show({ color: 'green', message: `${name} has been saved.` });
              onDone();
            },
            onError: (error) => form.setErrors(fieldErrorsOf(error)),
          },
        );
      })}
    >
      <Stack gap="md">
        <Group gap="md" align="center">
          <Avatar src={photo} name={name} color="initials" size={72} alt={`Photo of ${name}`} />
          <Stack gap={6}>
            <Group gap="xs">
              <FileButton
                accept="image/png,image/jpeg,image/gif,image/webp"
                onChange={(file) => {
                  if (!file) return;
                  upload.mutate({ clientId, file }, { onSuccess: (u) => setPhoto(u.url) });
                }}
              >
                {(props) => (
                  <Button
                    {...props}
                    size="xs"
                    variant="light"
                    leftSection={<IconUpload size={14} />}
                    loading={upload.isPending}
                  >
                    Upload photo
                  </Button>
                )}
              </FileButton>
              {photo && (
                <Button size="xs" variant="subtle" color="gray" onClick={() => setPhoto(null)}>
                  Remove photo
                </Button>
              )}
            </Group>
            <Text size="xs" c="dimmed">
              PNG, JPEG, GIF or WebP, at least 64×64, up to 5 MB.
            </Text>
          </Stack>
        </Group>
        {upload.isError &&
          (upload.error instanceof UploadsUnavailableError ? (
            <Stack gap="xs">
              <Text size="sm" c="dimmed">
                {upload.error.message}
              </Text>
              <TextInput
                label="Photo URL"
                placeholder="https://…/photo.jpg"
                value={photo ?? ''}
                onChange={(e) => setPhoto(e.currentTarget.value.trim() || null)}
              />
            </Stack>
          ) : (
            <FormError error={upload.error} />
          ))}
        <Group grow>
          <TextInput label="First name" key={form.key('first_name')} {...form.getInputProps('first_name')} />
          <TextInput label="Last name" key={form.key('last_name')} {...form.getInputProps('last_name')} />
        </Group>
        <TextInput
          label="Title"
          placeholder="Senior SDR"
          key={form.key('title')}
          {...form.getInputProps('title')}
        />
        <TextInput
          label="Company name"
          description="Shown under the rep's name on ads"
          key={form.key('company_name')}
          {...form.getInputProps('company_name')}
        />
        <TextInput
          label="Calendar URL"
          description="Where prospects book a meeting from the landing page"
          placeholder="https://cal.example.com/you"
          key={form.key('calendar_url')}
          {...form.getInputProps('calendar_url')}
        />
        {Object.keys(fieldErrorsOf(update.error)).length === 0 && <FormError error={update.error} />}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={update.isPending} disabled={upload.isPending}>
            Save
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
