import { Anchor, Group, Image, Paper, Table, Text } from '@mantine/core';
import { IconPhoto, IconWorld } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { ContentItem } from '@rally/shared/schemas/content';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useCreateContentItem } from '../api/create-content-item.ts';
import { useContentItems } from '../api/get-content-items.ts';
import { ArchivableListScreen } from './archivable-list-screen.tsx';
import type { ListTableProps } from './archivable-list-screen.tsx';
import { ArchivedBadge, ContentStatusBadge } from './content-badges.tsx';
import { ListEmptyState } from './list-empty-state.tsx';
import { NewNamedItemForm } from './new-named-item-form.tsx';
import { RelativeTime } from './relative-time.tsx';
import { TEMPLATES } from './template-picker.tsx';

export const contentHref = (clientId: string, id: string) => `/content/${id}?client_id=${clientId}`;
export const contentLabel = (c: Pick<ContentItem, 'name' | 'title'>) =>
  c.name?.trim() || c.title.replace(/<[^>]*>/g, '').trim() || 'Untitled ad';

/** /content: the client's ad creatives, their status and template, and a way to make one. */
export function ContentListScreen() {
  return (
    <ArchivableListScreen
      title="Content"
      description="Ad creatives your prospects see day by day, each with a landing page to click through to."
      sibling={{ path: '/landing-pages', label: 'Landing pages', icon: <IconWorld size={16} /> }}
      newLabel="New ad"
      newTitle="New ad creative"
      what="the content"
      table={ContentTable}
      newForm={NewAdForm}
    />
  );
}

function ContentTable({ clientId, archived, canWrite, onCreate }: ListTableProps) {
  const list = useContentItems(clientId, archived);
  if (list.isPending) return <PanelLoading label="Loading content" />;
  if (list.isError)
    return <PanelError error={list.error} what="content" onRetry={() => void list.refetch()} />;
  if (list.data.items.length === 0)
    return (
      <ListEmptyState
        archived={archived}
        canWrite={canWrite}
        onCreate={onCreate}
        icon={<IconPhoto size={32} stroke={1.5} />}
        newLabel="New ad"
        active={{
          title: 'No ads yet',
          text: 'Make an ad: pick a template, write the headline, choose your colours and a landing page, and see it at all four sizes as you type.',
        }}
        archivedCopy={{
          title: 'No archived ads',
          text: 'Ads you archive move here. Archived ads stay on the cadence days that use them.',
        }}
      />
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
  return (
    <NewNamedItemForm
      create={create}
      editorHref={(id) => contentHref(clientId, id)}
      nameRequired="Name the ad, for example “Spring launch”"
      description="For you and your team; prospects never see it"
      placeholder="Spring launch"
      onCancel={onCancel}
    />
  );
}
