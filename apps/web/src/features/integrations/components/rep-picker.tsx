import { useState } from 'react';
import type { ReactNode } from 'react';
import { Avatar, Button, Checkbox, Group, ScrollArea, Stack, Table, Text, Title } from '@mantine/core';
import { FormError } from '../../../components/form-error.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useSalesReps, useSelectSalesReps } from '../api/sales-reps.ts';

/** Onboarding: the sales reps whose prospects see ads (all of them by default). */
export function RepPicker({
  clientId,
  waitForSync,
  header,
  onSaved,
}: {
  clientId: string;
  /** Keep asking while a sync is still bringing reps in. */
  waitForSync: boolean;
  header?: ReactNode;
  onSaved: () => void;
}) {
  const reps = useSalesReps(clientId, { poll: waitForSync });
  const save = useSelectSalesReps(clientId);
  const [chosen, setChosen] = useState<Set<string> | null>(null);
  const list = reps.data ?? [];
  // Until the user touches a box, every rep (or the ones chosen before) is ticked.
  const effective =
    chosen ??
    new Set(
      list.some((r) => r.selected) ? list.filter((r) => r.selected).map((r) => r.id) : list.map((r) => r.id),
    );
  const toggle = (id: string) => {
    const next = new Set(effective);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setChosen(next);
  };
  const allChecked = list.length > 0 && effective.size === list.length;

  let body;
  if (reps.isPending) body = <PanelLoading label="Loading sales reps" />;
  else if (reps.isError)
    body = <PanelError error={reps.error} what="sales reps" onRetry={() => void reps.refetch()} />;
  else if (list.length === 0)
    body = (
      <Text size="sm" c="dimmed" role="status">
        {waitForSync
          ? 'Sales reps appear here as soon as the sync has read them…'
          : 'No sales reps were found.'}
      </Text>
    );
  else
    body = (
      <ScrollArea.Autosize mah={420}>
        <Table verticalSpacing="xs" aria-label="Sales reps">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={40}>
                <Checkbox
                  aria-label="Select every sales rep"
                  checked={allChecked}
                  indeterminate={effective.size > 0 && !allChecked}
                  onChange={() => setChosen(allChecked ? new Set() : new Set(list.map((r) => r.id)))}
                />
              </Table.Th>
              <Table.Th>Sales rep</Table.Th>
              <Table.Th ta="right">Active prospects</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.map((r) => {
              const name = `${r.first_name} ${r.last_name}`.trim() || r.email || 'Unnamed rep';
              return (
                <Table.Tr key={r.id}>
                  <Table.Td>
                    <Checkbox
                      aria-label={`Run ads for ${name}`}
                      checked={effective.has(r.id)}
                      onChange={() => toggle(r.id)}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Group gap="sm" wrap="nowrap">
                      <Avatar src={r.photo_url} name={name} color="initials" size={32} />
                      <div>
                        <Text size="sm" fw={500}>
                          {name}
                        </Text>
                        <Text size="xs" c="dimmed">
                          {[r.title, name === r.email ? null : r.email].filter(Boolean).join(' · ')}
                        </Text>
                      </div>
                    </Group>
                  </Table.Td>
                  <Table.Td ta="right">
                    <Text size="sm">{r.active_targets_count}</Text>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </ScrollArea.Autosize>
    );

  return (
    <Stack>
      <div>
        <Title order={2} size="h3">
          Choose the sales reps to run ads for
        </Title>
        <Text size="sm" c="dimmed">
          Their prospects see ads and landing pages featuring them. You can change this later.
        </Text>
      </div>
      {header}
      {body}
      {save.isError && <FormError error={save.error} />}
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          {effective.size} of {list.length} selected
        </Text>
        <Button
          disabled={list.length === 0 || effective.size === 0}
          loading={save.isPending}
          onClick={() => save.mutate([...effective], { onSuccess: onSaved })}
        >
          Continue
        </Button>
      </Group>
    </Stack>
  );
}
