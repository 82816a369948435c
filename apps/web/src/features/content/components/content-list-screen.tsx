import { useState } from 'react';
import {
  Anchor,
  Button,
  Group,
  Image,
  Modal,
  Paper,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconPhoto, IconPlus, IconWorld } from '@tabler/icons-react';
import { Link, useNavigate } from 'react-router';
import type { ContentItem } from '@rally/shared/schemas/content';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useCreateContentItem } from '../api/create-content-item.ts';
import { useContentItems } from '../api/get-content-items.ts';
import type { ArchivedFilter } from '../api/get-content-items.ts';
import { ArchivedBadge, ContentStatusBadge } from './content-badges.tsx';
import { PermissionNote, hasPermission } from './permission-note.tsx';
import { RelativeTime } from './relative-time.tsx';
import { TEMPLATES } from './template-picker.tsx';

export const contentHref = (clientId: string, id: string) => `/content/${id}?client_id=${clientId}`;
export const contentLabel = (c: Pick<ContentItem, 'name' | 'title'>) =>
  c.name?.trim() || c.title.replace(/<[^>]*>/g, '').trim() || 'Untitled ad';

/** /content: the client's ad creatives, their status and template, and a way to make one. */
export function ContentListScreen() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  const [archived, setArchived] = useState<ArchivedFilter>('false');
  const [creating, setCreating] = useState(false);
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  const canWrite = hasPermission(auth.currentRole.permissions, 'content.write');
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <div>
          <Title order={1}>Content</Title>
          <Text c="dimmed">
            Ad creatives your prospects see day by day, each with a landing page to click through to.
          </Text>
        </div>
        <Group gap="xs">
          <Button
            component={Link}
            to={`/landing-pages?client_id=${clientId}`}
            variant="default"
            leftSection={<IconWorld size={16} />}
          >
            Landing pages
          </Button>
          {canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              New ad
            </Button>
          )}
        </Group>
      </Group>
      {!canWrite && <PermissionNote permission="content.write" what="the content" />}
      <SegmentedControl
        w="fit-content"
        value={archived}
        onChange={(v) => setArchived(v as ArchivedFilter)}
        data={[
          { value: 'false', label: 'Active' },
          { value: 'only', label: 'Archived' },
        ]}
        aria-label="Show"
      />
      <ContentTable
        clientId={clientId}
        archived={archived}
        canWrite={canWrite}
        onCreate={() => setCreating(true)}
      />
      <Modal opened={creating} onClose={() => setCreating(false)} title="New ad creative">
        {creating && <NewAdForm clientId={clientId} onCancel={() => setCreating(false)} />}
      </Modal>
    </Stack>
  );
}

function ContentTable({
  clientId,
  archived,
  canWrite,
  onCreate,
}: {
  clientId: string;
  archived: ArchivedFilter;
  canWrite: boolean;
  onCreate: () => void;
}) {
  const list = useContentItems(clientId, archived);
  if (list.isPending) return <PanelLoading label="Loading content" />;
  if (list.isError)
    return <PanelError error={list.error} what="content" onRetry={() => void list.refetch()} />;
  if (list.data.items.length === 0)
    return (
      <Paper withBorder radius="md" p="xl">
        <Stack align="center" gap="xs">
          <IconPhoto size={32} stroke={1.5} />
          <Text fw={600}>{archived === 'only' ? 'No archived ads' : 'No ads yet'}</Text>
          <Text size="sm" c="dimmed" ta="center" maw={420}>
            {archived === 'only'
              ? 'Ads you archive move here. Archived ads stay on the cadence days that use them.'
              : 'Make an ad: pick a template, write the headline, choose your colours and a landing page, and see it at all four sizes as you type.'}
          </Text>
          {archived !== 'only' && canWrite && (
            <Button mt="xs" leftSection={<IconPlus size={16} />} onClick={onCreate}>
              New ad
            </Button>
          )}
        </Stack>
      </Paper>
    );
  return (
    <Paper withBorder radius="md">
      <Table.ScrollContainer minWidth={760}>
        <Table verticalSpacing="sm" highlightOnHover aria-label="Ad creatives">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Ad</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Template</Table.Th>
              <Table.Th>Landing page</Table.Th>
              <Table.Th>Updated</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data.items.map((c) => {
              const label = contentLabel(c);
              const template = TEMPLATES[c.template_id as keyof typeof TEMPLATES];
              return (
                <Table.Tr key={c.id} aria-label={label}>
                  <Table.Td>
                    <Group gap="sm" wrap="nowrap">
                      <Image
                        src={`${c.preview_paths['1200x628'] ?? ''}.png`}
                        alt=""
                        w={96}
                        h={50}
                        radius="sm"
                        fit="cover"
                        bg="gray.1"
                        loading="lazy"
                      />
                      <div style={{ minWidth: 0 }}>
                        <Anchor component={Link} to={contentHref(clientId, c.id)} fw={600} size="sm">
                          {label}
                        </Anchor>
                        {c.image_text && (
                          <Text size="xs" c="dimmed" lineClamp={1} maw={360}>
                            {c.image_text.replace(/<[^>]*>/g, '')}
                          </Text>
                        )}
                      </div>
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={6} wrap="nowrap">
                      <ContentStatusBadge status={c.status} />
                      {c.is_archived && <ArchivedBadge />}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{template?.name ?? `Template ${c.template_id}`}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" c={c.landing_page_id || c.landing_page_url ? undefined : 'dimmed'}>
                      {c.landing_page_id ? 'Landing page' : c.landing_page_url ? 'URL' : 'None yet'}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <RelativeTime value={c.updated_at ?? c.created_at} />
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

function NewAdForm({ clientId, onCancel }: { clientId: string; onCancel: () => void }) {
  const create = useCreateContentItem(clientId);
  const navigate = useNavigate();
  const form = useForm({
    initialValues: { name: '' },
    validate: { name: (v) => (v.trim() ? null : 'Name the ad, for example “Spring launch”') },
  });
  return (
    <form
      noValidate
      onSubmit={form.onSubmit(({ name }) =>
        create.mutate(
          { name: name.trim() },
          {
            onSuccess: (item) => navigate(contentHref(clientId, item.id)),
            onError: (err) => form.setErrors(fieldErrorsOf(err)),
          },
        ),
      )}
    >
      <Stack gap="md">
        <TextInput
          label="Name"
          description="For you and your team; prospects never see it"
          placeholder="Spring launch"
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
