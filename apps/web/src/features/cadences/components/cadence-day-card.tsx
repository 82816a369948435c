import {
  ActionIcon,
  Button,
  Card,
  Group,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { IconPlus, IconX } from '@tabler/icons-react';
import type { CadenceDay } from '@rally/shared/schemas/cadences';
import { AbbreviatedNumber } from '../../../components/abbreviated-number.tsx';
import { contentLabel } from '../api/get-content-options.ts';
import type { ContentOption } from '../api/get-content-options.ts';
import { newKey } from './cadence-draft.ts';
import type { DraftContentDay } from './cadence-draft.ts';
import { TransitionActionsEditor, describeAction } from './transition-actions-editor.tsx';

export const NO_CONTENT_TEXT = 'No content yet — create some in the content studio';

type Props = {
  day: CadenceDay;
  dayNumbers: number[];
  contentDays: DraftContentDay[];
  /** null while the content list loads, [] when the client has none. */
  contentOptions: ContentOption[] | null;
  /** Absent when the user may only look. */
  onChange?: (next: DraftContentDay[]) => void;
  problems: Map<string, string>;
};

function DayCounts({ day }: { day: CadenceDay }) {
  const items = [
    ['Total', day.count_total],
    ['Active', day.count_active],
    ['Contacted', day.count_contacted],
    ['Super', day.count_super],
  ] as const;
  return (
    <SimpleGrid cols={4} spacing="xs" aria-label={`Day ${day.day_number} counts`}>
      {items.map(([label, value]) => (
        <div key={label}>
          <Text size="lg" fw={700} lh={1.1} c={label === 'Super' && value ? 'indigo' : undefined}>
            <AbbreviatedNumber value={value} />
          </Text>
          <Text size="xs" c="dimmed">
            {label}
          </Text>
        </div>
      ))}
    </SimpleGrid>
  );
}

/** One cadence day: its four counts, the content shown on it and each content's transition rules. */
export function CadenceDayCard({ day, dayNumbers, contentDays, contentOptions, onChange, problems }: Props) {
  const title = `Day ${day.day_number}`;
  const byId = new Map((contentOptions ?? []).map((c) => [c.id, c]));
  const nameOf = (id: string | null) => {
    if (!id) return 'No content chosen';
    const c = byId.get(id);
    return c ? contentLabel(c) : 'Content not published';
  };
  const set = (i: number, patch: Partial<DraftContentDay>) =>
    onChange?.(contentDays.map((cd, j) => (j === i ? { ...cd, ...patch } : cd)));

  return (
    <Card withBorder radius="md" padding="md" component="section" aria-label={title}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" wrap="wrap">
          <Title order={3} size="h5">
            {title}
          </Title>
          <DayCounts day={day} />
        </Group>

        {contentDays.length === 0 && (
          <Text size="sm" c="dimmed">
            {onChange ? 'No content on this day yet: its prospects see no ads.' : 'No content on this day.'}
          </Text>
        )}

        {contentDays.map((cd, i) => {
          const label = `${title}, content ${i + 1}`;
          const chosen = cd.content_id;
          // A content item since unpublished or archived stays visible, by id, until it is replaced.
          const data = (contentOptions ?? []).map((c) => ({ value: c.id, label: contentLabel(c) }));
          if (chosen && !byId.has(chosen)) data.push({ value: chosen, label: 'Content not published' });
          const actionProblems = new Map<number, string>();
          for (const [k, v] of problems) {
            const [d, c, a] = k.split('.');
            if (Number(d) === day.day_number && Number(c) === i && a !== undefined)
              actionProblems.set(Number(a), v);
          }
          return (
            <Paper key={cd.key} withBorder radius="sm" p="sm" bg="gray.0">
              {onChange ? (
                <Stack gap="xs">
                  <Group gap="xs" align="flex-end" wrap="nowrap">
                    <Select
                      label="Content"
                      aria-label={`${label}: content`}
                      placeholder={contentOptions === null ? 'Loading content…' : 'Choose content'}
                      data={data}
                      value={chosen}
                      searchable
                      allowDeselect={false}
                      nothingFoundMessage="No published content matches"
                      onChange={(v) => set(i, { content_id: v })}
                      error={problems.get(`${day.day_number}.${i}`)}
                      style={{ flex: 1 }}
                      size="xs"
                    />
                    <ActionIcon
                      variant="subtle"
                      color="gray"
                      aria-label={`Remove ${label}`}
                      mb={4}
                      onClick={() => onChange(contentDays.filter((_, j) => j !== i))}
                    >
                      <IconX size={16} />
                    </ActionIcon>
                  </Group>
                  <TransitionActionsEditor
                    label={label}
                    dayNumber={day.day_number}
                    dayNumbers={dayNumbers}
                    actions={cd.actions}
                    onChange={(actions) => set(i, { actions })}
                    problems={actionProblems}
                  />
                </Stack>
              ) : (
                <Stack gap={4}>
                  <Text size="sm" fw={600}>
                    {nameOf(chosen)}
                  </Text>
                  {cd.actions.length === 0 ? (
                    <Text size="xs" c="dimmed">
                      No transition rules
                    </Text>
                  ) : (
                    cd.actions.map((a) => (
                      <Text key={a.key} size="xs">
                        {describeAction(a)}
                      </Text>
                    ))
                  )}
                </Stack>
              )}
            </Paper>
          );
        })}

        {onChange &&
          (contentOptions !== null && contentOptions.length === 0 ? (
            <Text size="xs" c="dimmed">
              {NO_CONTENT_TEXT}
            </Text>
          ) : (
            <Group>
              <Button
                size="compact-sm"
                variant="light"
                leftSection={<IconPlus size={14} />}
                disabled={contentOptions === null}
                aria-label={`Add content to ${title}`}
                onClick={() => {
                  // The first item not yet on this day, so adding is one click in the common case.
                  const used = new Set(contentDays.map((cd) => cd.content_id));
                  const first = (contentOptions ?? []).find((c) => !used.has(c.id));
                  onChange([...contentDays, { key: newKey(), content_id: first?.id ?? null, actions: [] }]);
                }}
              >
                Add content
              </Button>
            </Group>
          ))}
      </Stack>
    </Card>
  );
}
