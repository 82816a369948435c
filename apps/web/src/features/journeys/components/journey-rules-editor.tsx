import { ActionIcon, Button, Group, NumberInput, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import {
  JOURNEY_COUNT_RULES,
  JOURNEY_NETWORK_RULES,
  JOURNEY_RULE_DAYS_DEFAULT,
  JOURNEY_RULE_DAYS_MAX,
  JOURNEY_RULE_KINDS,
  JOURNEY_RULE_LABELS,
  JOURNEY_RULE_VALUE_MAX,
  JOURNEY_STAGE_RULES_MAX,
} from '@rally/shared/schemas/journeys';
import type { JourneyRuleKind } from '@rally/shared/schemas/journeys';

export type DraftRule = {
  kind: JourneyRuleKind;
  value: number | null;
  crm_stage_id: string | null;
  days: number | null;
};
type RulesDraft = { rules: DraftRule[]; match: 'any' | 'all' };

/**
 * A stage's rules: what moves an account into it. Network rules read the engagement an ad network
 * reports for the account's company (LinkedIn's company-level results) within a number of days.
 */
export function RulesEditor({
  label,
  stage,
  crmStages,
  onChange,
}: {
  label: string;
  stage: RulesDraft;
  crmStages: { value: string; label: string }[];
  onChange: (patch: Partial<RulesDraft>) => void;
}) {
  const setRule = (k: number, patch: Partial<DraftRule>) =>
    onChange({ rules: stage.rules.map((r, i) => (i === k ? { ...r, ...patch } : r)) });
  const setKind = (k: number, kind: JourneyRuleKind) =>
    setRule(k, {
      kind,
      // A network rule needs its window: start from the default rather than an empty field.
      ...(JOURNEY_NETWORK_RULES.includes(kind) && !stage.rules[k]?.days
        ? { days: JOURNEY_RULE_DAYS_DEFAULT }
        : {}),
    });
  const anyNetwork = stage.rules.some((r) => JOURNEY_NETWORK_RULES.includes(r.kind));
  return (
    <Stack gap="xs">
      <Group gap="sm">
        <Text size="sm" fw={500}>
          An account moves here when
        </Text>
        {stage.rules.length > 1 && (
          <SegmentedControl
            size="xs"
            aria-label={`How the rules of ${label} combine`}
            value={stage.match}
            onChange={(v) => onChange({ match: v === 'all' ? 'all' : 'any' })}
            data={[
              { value: 'any', label: 'any rule holds' },
              { value: 'all', label: 'all rules hold' },
            ]}
          />
        )}
      </Group>
      {stage.rules.length === 0 && (
        <Text size="sm" c="dimmed">
          No rules yet: no account moves into this stage.
        </Text>
      )}
      {stage.rules.map((r, k) => (
        <Group key={k} gap="sm" align="flex-end" wrap="wrap">
          <Select
            label={`Rule ${k + 1} of ${label}`}
            data={JOURNEY_RULE_KINDS.map((kind) => ({ value: kind, label: JOURNEY_RULE_LABELS[kind] }))}
            value={r.kind}
            allowDeselect={false}
            onChange={(v) => v && setKind(k, v as JourneyRuleKind)}
            // Wide enough for the longest kind ("Network-reported company impressions at least").
            w={390}
          />
          {JOURNEY_COUNT_RULES.includes(r.kind) && (
            <NumberInput
              label={r.kind === 'days_in_stage_gte' ? 'Days' : 'At least'}
              aria-label={`Value of rule ${k + 1} of ${label}`}
              min={1}
              max={JOURNEY_RULE_VALUE_MAX}
              allowDecimal={false}
              value={r.value ?? ''}
              onChange={(v) => setRule(k, { value: typeof v === 'number' ? v : null })}
              w={120}
            />
          )}
          {JOURNEY_NETWORK_RULES.includes(r.kind) && (
            <NumberInput
              label="In the last (days)"
              aria-label={`Days of rule ${k + 1} of ${label}`}
              min={1}
              max={JOURNEY_RULE_DAYS_MAX}
              allowDecimal={false}
              value={r.days ?? ''}
              onChange={(v) => setRule(k, { days: typeof v === 'number' ? v : null })}
              w={140}
            />
          )}
          {r.kind === 'crm_stage_reached' && (
            <Select
              label="CRM stage"
              aria-label={`CRM stage of rule ${k + 1} of ${label}`}
              data={crmStages}
              value={r.crm_stage_id}
              onChange={(v) => setRule(k, { crm_stage_id: v })}
              placeholder={crmStages.length ? 'Choose a stage' : 'No CRM stages'}
              w={240}
            />
          )}
          <ActionIcon
            variant="subtle"
            color="red"
            aria-label={`Remove rule ${k + 1} of ${label}`}
            onClick={() => onChange({ rules: stage.rules.filter((_, i) => i !== k) })}
            mb={4}
          >
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      ))}
      {anyNetwork && (
        <Text size="xs" c="dimmed">
          Network rules count what an ad network reports for the account&apos;s whole company (LinkedIn
          company-level results, matched to your CRM account by website domain). LinkedIn leaves out companies
          with fewer than 3 impressions a day. Per-person counts come only from Rally&apos;s tags.
        </Text>
      )}
      <Group>
        <Button
          size="xs"
          variant="light"
          leftSection={<IconPlus size={14} />}
          disabled={stage.rules.length >= JOURNEY_STAGE_RULES_MAX}
          onClick={() =>
            onChange({
              rules: [...stage.rules, { kind: 'impressions_gte', value: 1, crm_stage_id: null, days: null }],
            })
          }
        >
          Add a rule to {label}
        </Button>
      </Group>
    </Stack>
  );
}
