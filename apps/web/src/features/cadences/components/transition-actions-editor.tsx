import { ActionIcon, Button, Group, NumberInput, Select, Stack, Text } from '@mantine/core';
import { IconArrowRight, IconPlus, IconTrash } from '@tabler/icons-react';
import { CADENCE_ACTION_RULES, CADENCE_ACTION_RULE_LABELS } from '@rally/shared/schemas/cadences';
import type { CadenceActionRule } from '@rally/shared/schemas/cadences';
import { newKey } from './cadence-draft.ts';
import type { DraftAction } from './cadence-draft.ts';

const ruleLabel = (rule: string) => CADENCE_ACTION_RULE_LABELS[rule as CadenceActionRule] ?? rule;

/** 'move:3' or 'finish': the action and its day in one choice. */
const thenValue = (a: DraftAction) =>
  a.action_type === 'move_to_day'
    ? a.target_day_number === null
      ? null
      : `move:${a.target_day_number}`
    : a.action_type;

/** A rule as a sentence: "When clicks ≥ 1 → move to day 3". */
export function describeAction(a: DraftAction): string {
  const then =
    a.action_type === 'move_to_day'
      ? `move to day ${a.target_day_number ?? '?'}`
      : a.action_type === 'finish'
        ? 'finish'
        : a.action_type;
  return `When ${ruleLabel(a.action_rule)} ${a.action_rule_value} → ${then}`;
}

type Props = {
  /** Where the rules apply, for labels ("Day 1, Spring launch"). */
  label: string;
  dayNumber: number;
  /** The cadence's days, the targets of "move to day". */
  dayNumbers: number[];
  actions: DraftAction[];
  onChange: (next: DraftAction[]) => void;
  problems: Map<number, string>;
};

/**
 * ARCHITECTURE.md §5 "day_transition_actions": when a target on this day reaches N impressions, N
 * clicks or N days here, it moves to another day or finishes.
 */
export function TransitionActionsEditor({
  label,
  dayNumber,
  dayNumbers,
  actions,
  onChange,
  problems,
}: Props) {
  const set = (i: number, patch: Partial<DraftAction>) =>
    onChange(actions.map((a, j) => (j === i ? { ...a, ...patch } : a)));
  const others = dayNumbers.filter((d) => d !== dayNumber);
  const nextDay = others.find((d) => d > dayNumber) ?? null;
  const thenOptions = [
    ...others.map((d) => ({ value: `move:${d}`, label: `Move to day ${d}` })),
    { value: 'finish', label: 'Finish' },
  ];

  return (
    <Stack gap={6}>
      {actions.length === 0 && (
        <Text size="xs" c="dimmed">
          No rules: prospects stay on this day until the sequence moves them.
        </Text>
      )}
      {actions.map((a, i) => {
        const n = i + 1;
        const ruleData = CADENCE_ACTION_RULES.map((r) => ({ value: r, label: ruleLabel(r) }));
        if (!ruleData.some((r) => r.value === a.action_rule))
          ruleData.push({ value: a.action_rule as CadenceActionRule, label: a.action_rule });
        const then = thenValue(a);
        const thenData =
          then && !thenOptions.some((o) => o.value === then)
            ? [...thenOptions, { value: then, label: then }]
            : thenOptions;
        const problem = problems.get(i);
        return (
          <Stack key={a.key} gap={2} role="group" aria-label={`Rule ${n} of ${label}`}>
            <Group gap={6} wrap="wrap" align="center">
              <Text size="sm" w={36}>
                When
              </Text>
              <Select
                aria-label={`Rule ${n}: when`}
                size="xs"
                w={148}
                data={ruleData}
                value={a.action_rule}
                allowDeselect={false}
                onChange={(v) => v && set(i, { action_rule: v })}
              />
              <NumberInput
                aria-label={`Rule ${n}: value`}
                size="xs"
                w={68}
                min={0}
                allowNegative={false}
                value={a.action_rule_value}
                onChange={(v) =>
                  set(i, { action_rule_value: typeof v === 'number' ? v : v === '' ? '' : Number(v) })
                }
              />
              <IconArrowRight size={14} aria-hidden />
              <Select
                aria-label={`Rule ${n}: then`}
                size="xs"
                w={136}
                placeholder="Then…"
                data={thenData}
                value={then}
                allowDeselect={false}
                onChange={(v) => {
                  if (!v) return;
                  if (v.startsWith('move:'))
                    set(i, { action_type: 'move_to_day', target_day_number: Number(v.slice(5)) });
                  else set(i, { action_type: v, target_day_number: null });
                }}
              />
              <ActionIcon
                variant="subtle"
                color="gray"
                aria-label={`Remove rule ${n} of ${label}`}
                onClick={() => onChange(actions.filter((_, j) => j !== i))}
              >
                <IconTrash size={14} />
              </ActionIcon>
            </Group>
            {problem && (
              <Text size="xs" c="red" role="alert">
                {problem}
              </Text>
            )}
          </Stack>
        );
      })}
      <Group>
        <Button
          size="compact-xs"
          variant="subtle"
          leftSection={<IconPlus size={12} />}
          aria-label={`Add rule to ${label}`}
          onClick={() =>
            onChange([
              ...actions,
              {
                key: newKey(),
                action_rule: 'impressions_gte',
                action_rule_value: 15,
                ...(nextDay === null
                  ? { action_type: 'finish', target_day_number: null }
                  : { action_type: 'move_to_day', target_day_number: nextDay }),
              },
            ])
          }
        >
          Add rule
        </Button>
      </Group>
    </Stack>
  );
}
