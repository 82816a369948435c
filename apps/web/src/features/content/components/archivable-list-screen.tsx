import { useState } from 'react';
import type { ComponentType, ReactNode } from 'react';
import { Button, Group, Modal, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { Link } from 'react-router';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import type { ArchivedFilter } from '../api/get-content-items.ts';
import { PermissionNote, hasPermission } from './permission-note.tsx';

/** What a list screen gives its table: which items to show, and how to open the "new" dialog. */
export type ListTableProps = {
  clientId: string;
  archived: ArchivedFilter;
  canWrite: boolean;
  onCreate: () => void;
};

/**
 * The frame of the studio's lists (ads, landing pages): title, a link to the sibling list, "New …"
 * for those with content.write (the others are told why they cannot change anything), the Active /
 * Archived switch, the table, and the dialog that names a new item.
 */
export function ArchivableListScreen({
  title,
  description,
  sibling,
  newLabel,
  newTitle,
  what,
  table: Table,
  newForm: NewForm,
}: {
  title: string;
  description: string;
  /** The other list of the studio, linked from the header. */
  sibling: { path: string; label: string; icon: ReactNode };
  newLabel: string;
  newTitle: string;
  /** What a read-only user may look at, for the permission note ("the content"). */
  what: string;
  table: ComponentType<ListTableProps>;
  /** The dialog's form; it is mounted afresh each time the dialog opens. */
  newForm: ComponentType<{ clientId: string; onCancel: () => void }>;
}) {
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
          <Title order={1}>{title}</Title>
          <Text c="dimmed">{description}</Text>
        </div>
        <Group gap="xs">
          <Button
            component={Link}
            to={`${sibling.path}?client_id=${clientId}`}
            variant="default"
            leftSection={sibling.icon}
          >
            {sibling.label}
          </Button>
          {canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              {newLabel}
            </Button>
          )}
        </Group>
      </Group>
      {!canWrite && <PermissionNote permission="content.write" what={what} />}
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
      <Table clientId={clientId} archived={archived} canWrite={canWrite} onCreate={() => setCreating(true)} />
      <Modal opened={creating} onClose={() => setCreating(false)} title={newTitle}>
        {creating && <NewForm clientId={clientId} onCancel={() => setCreating(false)} />}
      </Modal>
    </Stack>
  );
}
