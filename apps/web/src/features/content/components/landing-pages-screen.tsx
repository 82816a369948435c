import { useState } from 'react';
import {
  ActionIcon,
  Anchor,
  Button,
  Group,
  Modal,
  Paper,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconExternalLink, IconPhoto, IconPlus, IconWorld } from '@tabler/icons-react';
import { Link, useNavigate } from 'react-router';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useCreateLandingPage } from '../api/create-landing-page.ts';
import type { ArchivedFilter } from '../api/get-content-items.ts';
import { useLandingPages } from '../api/get-landing-pages.ts';
import { ArchivedBadge } from './content-badges.tsx';
import { PermissionNote, hasPermission } from './permission-note.tsx';
import { RelativeTime } from './relative-time.tsx';

export const landingPageHref = (clientId: string, id: string) => `/landing-pages/${id}?client_id=${clientId}`;

/** /landing-pages: where ads send prospects; each page is public at /lp/{base58}. */
export function LandingPagesScreen() {
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
          <Title order={1}>Landing pages</Title>
          <Text c="dimmed">
            Where a click on an ad lands: your message, the prospect’s rep and a button to book a meeting.
          </Text>
        </div>
        <Group gap="xs">
          <Button
            component={Link}
            to={`/content?client_id=${clientId}`}
            variant="default"
            leftSection={<IconPhoto size={16} />}
          >
            Ads
          </Button>
          {canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              New landing page
            </Button>
          )}
        </Group>
      </Group>
      {!canWrite && <PermissionNote permission="content.write" what="the landing pages" />}
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
      <PageTable
        clientId={clientId}
        archived={archived}
        canWrite={canWrite}
        onCreate={() => setCreating(true)}
      />
      <Modal opened={creating} onClose={() => setCreating(false)} title="New landing page">
        {creating && <NewPageForm clientId={clientId} onCancel={() => setCreating(false)} />}
      </Modal>
    </Stack>
  );
}

function PageTable({
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
  const pages = useLandingPages(clientId, archived);
  if (pages.isPending) return <PanelLoading label="Loading landing pages" />;
  if (pages.isError)
    return <PanelError error={pages.error} what="landing pages" onRetry={() => void pages.refetch()} />;
  if (pages.data.items.length === 0)
    return (
      <Paper withBorder radius="md" p="xl">
        <Stack align="center" gap="xs">
          <IconWorld size={32} stroke={1.5} />
          <Text fw={600}>{archived === 'only' ? 'No archived landing pages' : 'No landing pages yet'}</Text>
          <Text size="sm" c="dimmed" ta="center" maw={420}>
            {archived === 'only'
              ? 'Pages you archive move here; their public links stop working.'
              : 'Write a headline, a few lines about your offer and a footer. Each prospect sees it with their own rep.'}
          </Text>
          {archived !== 'only' && canWrite && (
            <Button mt="xs" leftSection={<IconPlus size={16} />} onClick={onCreate}>
              New landing page
            </Button>
          )}
        </Stack>
      </Paper>
    );
  return (
    <Paper withBorder radius="md">
      <Table.ScrollContainer minWidth={640}>
        <Table verticalSpacing="sm" highlightOnHover aria-label="Landing pages">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Landing page</Table.Th>
              <Table.Th>Public link</Table.Th>
              <Table.Th>Updated</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {pages.data.items.map((p) => (
              <Table.Tr key={p.id} aria-label={p.name}>
                <Table.Td>
                  <Group gap="sm" wrap="nowrap">
                    <Anchor component={Link} to={landingPageHref(clientId, p.id)} fw={600} size="sm">
                      {p.name}
                    </Anchor>
                    {p.is_archived && <ArchivedBadge />}
                  </Group>
                </Table.Td>
                <Table.Td>
                  {p.is_archived ? (
                    <Text size="sm" c="dimmed">
                      Off while archived
                    </Text>
                  ) : (
                    <Group gap={4} wrap="nowrap">
                      <Text size="sm" ff="monospace" c="dimmed">
                        {p.public_path}
                      </Text>
                      <Tooltip label="Open the public page" openDelay={200}>
                        <ActionIcon
                          component="a"
                          href={p.public_path}
                          target="_blank"
                          rel="noreferrer"
                          variant="subtle"
                          size="sm"
                          aria-label={`Open ${p.name}`}
                        >
                          <IconExternalLink size={14} />
                        </ActionIcon>
                      </Tooltip>
                    </Group>
                  )}
                </Table.Td>
                <Table.Td>
                  <RelativeTime value={p.updated_at} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

function NewPageForm({ clientId, onCancel }: { clientId: string; onCancel: () => void }) {
  const create = useCreateLandingPage(clientId);
  const navigate = useNavigate();
  const form = useForm({
    initialValues: { name: '' },
    validate: { name: (v) => (v.trim() ? null : 'Name the page, for example “Growth audit”') },
  });
  return (
    <form
      noValidate
      onSubmit={form.onSubmit(({ name }) =>
        create.mutate(
          { name: name.trim() },
          {
            onSuccess: (page) => navigate(landingPageHref(clientId, page.id)),
            onError: (err) => form.setErrors(fieldErrorsOf(err)),
          },
        ),
      )}
    >
      <Stack gap="md">
        <TextInput
          label="Name"
          description="For you and your team; the page’s own headline is written in the editor"
          placeholder="Growth audit"
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
