import { ActionIcon, Anchor, Group, Paper, Table, Text, Tooltip } from '@mantine/core';
import { IconExternalLink, IconPhoto, IconWorld } from '@tabler/icons-react';
import { Link } from 'react-router';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useCreateLandingPage } from '../api/create-landing-page.ts';
import { useLandingPages } from '../api/get-landing-pages.ts';
import { ArchivableListScreen } from './archivable-list-screen.tsx';
import type { ListTableProps } from './archivable-list-screen.tsx';
import { ArchivedBadge } from './content-badges.tsx';
import { ListEmptyState } from './list-empty-state.tsx';
import { NewNamedItemForm } from './new-named-item-form.tsx';
import { RelativeTime } from './relative-time.tsx';

export const landingPageHref = (clientId: string, id: string) => `/landing-pages/${id}?client_id=${clientId}`;

/** /landing-pages: where ads send prospects; each page is public at /lp/{base58}. */
export function LandingPagesScreen() {
  return (
    <ArchivableListScreen
      title="Landing pages"
      description="Where a click on an ad lands: your message, the prospect’s rep and a button to book a meeting."
      sibling={{ path: '/content', label: 'Ads', icon: <IconPhoto size={16} /> }}
      newLabel="New landing page"
      newTitle="New landing page"
      what="the landing pages"
      table={PageTable}
      newForm={NewPageForm}
    />
  );
}

function PageTable({ clientId, archived, canWrite, onCreate }: ListTableProps) {
  const pages = useLandingPages(clientId, archived);
  if (pages.isPending) return <PanelLoading label="Loading landing pages" />;
  if (pages.isError)
    return <PanelError error={pages.error} what="landing pages" onRetry={() => void pages.refetch()} />;
  if (pages.data.items.length === 0)
    return (
      <ListEmptyState
        archived={archived}
        canWrite={canWrite}
        onCreate={onCreate}
        icon={<IconWorld size={32} stroke={1.5} />}
        newLabel="New landing page"
        active={{
          title: 'No landing pages yet',
          text: 'Write a headline, a few lines about your offer and a footer. Each prospect sees it with their own rep.',
        }}
        archivedCopy={{
          title: 'No archived landing pages',
          text: 'Pages you archive move here; their public links stop working.',
        }}
      />
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
                      <Tooltip label="Open the public page">
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
  return (
    <NewNamedItemForm
      create={create}
      editorHref={(id) => landingPageHref(clientId, id)}
      nameRequired="Name the page, for example “Growth audit”"
      description="For you and your team; the page’s own headline is written in the editor"
      placeholder="Growth audit"
      onCancel={onCancel}
    />
  );
}
