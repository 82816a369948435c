import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import type { Cohort } from '@rally/shared/schemas/cohorts';
import { FormError } from '../../../components/form-error.tsx';
import { useChangeCohortStatus } from '../api/change-cohort-status.ts';
import type { CohortStatusChange } from '../api/change-cohort-status.ts';

type Action = { change: CohortStatusChange; title: string; text: string; label: string; color: string };

function actionsFor(c: Pick<Cohort, 'id' | 'name' | 'status'>): Action[] {
  if (c.status === 'archived')
    return [
      {
        change: { id: c.id, archived: false },
        title: `Restore ${c.name}?`,
        text: 'It comes back to the list with the status it had before it was archived, and can be changed again.',
        label: 'Restore',
        color: 'blue',
      },
    ];
  const pause: Action =
    c.status === 'paused'
      ? {
          change: { id: c.id, paused: false },
          title: `Resume ${c.name}?`,
          text: "Its members' ads are served and counted again, and syncs run again.",
          label: 'Resume',
          color: 'teal',
        }
      : {
          change: { id: c.id, paused: true },
          title: `Pause ${c.name}?`,
          text: "Its members' ad tags show a blank image and count nothing, and syncs stop, until you resume it.",
          label: 'Pause',
          color: 'yellow',
        };
  return [
    pause,
    {
      change: { id: c.id, archived: true },
      title: `Archive ${c.name}?`,
      text: 'Its ads stop, it leaves the list (Show archived brings it back) and it is read-only until restored.',
      label: 'Archive',
      color: 'red',
    },
  ];
}

/** Pause/resume and archive/restore buttons, each asking for confirmation first. */
export function CohortStatusActions({
  clientId,
  cohort,
  size = 'xs',
}: {
  clientId: string;
  cohort: Pick<Cohort, 'id' | 'name' | 'status'>;
  size?: 'xs' | 'sm';
}) {
  const change = useChangeCohortStatus(clientId);
  const [open, setOpen] = useState<Action | null>(null);
  const close = () => {
    setOpen(null);
    change.reset();
  };
  return (
    <>
      <Group gap={6} wrap="nowrap">
        {actionsFor(cohort).map((a) => (
          <Button
            key={a.label}
            size={size}
            variant="light"
            color={a.color}
            onClick={() => setOpen(a)}
            aria-label={`${a.label} ${cohort.name}`}
          >
            {a.label}
          </Button>
        ))}
      </Group>
      <Modal opened={open !== null} onClose={close} title={open?.title ?? ''}>
        <Stack gap="md">
          <Text size="sm">{open?.text}</Text>
          <FormError error={change.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button
              color={open?.color}
              loading={change.isPending}
              onClick={() => {
                if (!open) return;
                change.mutate(open.change, {
                  onSuccess: (c) => {
                    notifications.show({ message: `${c.name} is now ${c.status}.`, color: 'teal' });
                    close();
                  },
                });
              }}
            >
              {open?.label}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
