import { useState } from 'react';
import { ActionIcon, Anchor, Button, Checkbox, Group, Popover, Stack, Text, TextInput } from '@mantine/core';
import { IconBookmark, IconColumns3, IconTrash } from '@tabler/icons-react';
import type { DataColumn } from './columns.ts';

/** The column chooser: key columns stay; the others come and go, remembered per user and table. */
export function ColumnChooser<T>({
  columns,
  shown,
  onChange,
  onReset,
}: {
  columns: readonly DataColumn<T>[];
  shown: readonly string[];
  onChange: (next: string[]) => void;
  onReset: () => void;
}) {
  const hideable = columns.filter((c) => !c.key);
  if (hideable.length === 0) return null;
  return (
    <Popover position="bottom-end" shadow="md" withinPortal trapFocus hideDetached={false}>
      <Popover.Target>
        <Button variant="default" size="xs" leftSection={<IconColumns3 size={14} />}>
          Columns
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="xs" role="group" aria-label="Shown columns">
          <Text size="sm" fw={600}>
            Shown columns
          </Text>
          {columns.map((c) => (
            <Checkbox
              key={c.id}
              size="sm"
              label={c.label}
              description={c.key ? 'Always shown' : undefined}
              disabled={c.key}
              checked={c.key || shown.includes(c.id)}
              onChange={(e) =>
                onChange(
                  columns
                    .filter((x) => (x.id === c.id ? e.currentTarget.checked : x.key || shown.includes(x.id)))
                    .map((x) => x.id),
                )
              }
            />
          ))}
          <Anchor component="button" type="button" size="sm" onClick={onReset} ta="left">
            Back to the usual columns
          </Anchor>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

export type SavedView = { name: string; state: string };
export const MAX_SAVED_VIEWS = 20;

export const isSavedViewList = (v: unknown): v is SavedView[] =>
  Array.isArray(v) &&
  v.every(
    (x) =>
      typeof x === 'object' &&
      x !== null &&
      typeof (x as SavedView).name === 'string' &&
      typeof (x as SavedView).state === 'string',
  );

/** Saved views: a name for the table's state (search, filters, sort), opened again in one click. */
export function SavedViews({
  views,
  current,
  onApply,
  onSave,
  onDelete,
}: {
  views: readonly SavedView[];
  current: string;
  onApply: (view: SavedView) => void;
  onSave: (name: string) => void;
  onDelete: (name: string) => void;
}) {
  const [opened, setOpened] = useState(false);
  const [name, setName] = useState('');
  const trimmed = name.trim();
  const active = views.find((v) => v.state === current);
  const full = views.length >= MAX_SAVED_VIEWS && !views.some((v) => v.name === trimmed);
  return (
    <Popover
      opened={opened}
      onChange={setOpened}
      position="bottom-end"
      shadow="md"
      withinPortal
      trapFocus
      hideDetached={false}
    >
      <Popover.Target>
        <Button
          variant="default"
          size="xs"
          leftSection={<IconBookmark size={14} />}
          onClick={() => setOpened((o) => !o)}
        >
          {active ? `View: ${active.name}` : 'Views'}
        </Button>
      </Popover.Target>
      <Popover.Dropdown maw={320}>
        <Stack gap="xs">
          <Text size="sm" fw={600}>
            Saved views
          </Text>
          {views.length === 0 ? (
            <Text size="sm" c="dimmed">
              None yet. Set the search, filters and sort you want, then name them here.
            </Text>
          ) : (
            <Stack gap={4} role="list" aria-label="Saved views">
              {views.map((v) => (
                <Group key={v.name} justify="space-between" wrap="nowrap" gap="xs" role="listitem">
                  <Anchor
                    component="button"
                    type="button"
                    size="sm"
                    fw={v.state === current ? 700 : 400}
                    ta="left"
                    onClick={() => {
                      onApply(v);
                      setOpened(false);
                    }}
                  >
                    {v.name}
                  </Anchor>
                  <ActionIcon
                    variant="subtle"
                    color="gray"
                    size="sm"
                    aria-label={`Delete view ${v.name}`}
                    onClick={() => onDelete(v.name)}
                  >
                    <IconTrash size={14} />
                  </ActionIcon>
                </Group>
              ))}
            </Stack>
          )}
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (!trimmed || full) return;
              onSave(trimmed);
              setName('');
            }}
          >
            <Group gap="xs" align="flex-end" wrap="nowrap">
              <TextInput
                size="xs"
                label="Save what is shown as"
                placeholder="e.g. My open deals"
                value={name}
                maxLength={60}
                onChange={(e) => setName(e.currentTarget.value)}
                error={full ? `At most ${MAX_SAVED_VIEWS} views; delete one first` : undefined}
                style={{ flex: 1 }}
              />
              <Button type="submit" size="xs" disabled={!trimmed || full}>
                Save view
              </Button>
            </Group>
          </form>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
