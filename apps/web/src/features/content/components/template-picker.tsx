import { Group, Radio, SimpleGrid, Text } from '@mantine/core';
import { TEMPLATE_IDS } from '@rally/shared/schemas/content';
import type { TemplateId } from '@rally/shared/schemas/content';

/** The renderer's four templates (SPEC.md §9 "Template ids 1 to 4"), named as the server names them. */
export const TEMPLATES: Record<TemplateId, { name: string; description: string }> = {
  1: { name: 'Spotlight', description: 'Big headline and the rep’s signature' },
  2: { name: 'Portrait', description: 'The rep’s photo beside an accent panel' },
  3: { name: 'Bold', description: 'Accent fills the ad, oversized headline' },
  4: { name: 'Note', description: 'A personal message from the rep' },
};

/** Sketches of each layout, so the choice is visual before the preview renders. */
function Sketch({ id }: { id: TemplateId }) {
  const ink = 'var(--mantine-color-gray-5)';
  const accent = 'var(--mantine-color-indigo-4)';
  return (
    <svg width="56" height="40" viewBox="0 0 56 40" aria-hidden>
      <rect x="0.5" y="0.5" width="55" height="39" rx="4" fill="white" stroke="var(--mantine-color-gray-3)" />
      {id === 1 && (
        <>
          <rect x="6" y="7" width="14" height="2" fill={accent} />
          <rect x="6" y="12" width="36" height="5" rx="1" fill={ink} />
          <rect x="6" y="19" width="26" height="5" rx="1" fill={ink} />
          <circle cx="10" cy="32" r="3.5" fill={accent} />
          <rect x="16" y="30" width="16" height="3" rx="1" fill={ink} />
        </>
      )}
      {id === 2 && (
        <>
          <rect x="1" y="1" width="22" height="38" rx="3" fill="var(--mantine-color-gray-3)" />
          <rect x="23" y="1" width="32" height="38" fill={accent} />
          <rect x="27" y="10" width="22" height="4" rx="1" fill="white" />
          <rect x="27" y="17" width="16" height="4" rx="1" fill="white" />
          <rect x="27" y="28" width="14" height="5" rx="2.5" fill="white" />
        </>
      )}
      {id === 3 && (
        <>
          <rect x="1" y="1" width="54" height="38" rx="3" fill={accent} />
          <rect x="6" y="7" width="40" height="7" rx="1" fill="white" />
          <rect x="6" y="16" width="30" height="7" rx="1" fill="white" />
          <rect x="6" y="28" width="26" height="7" rx="2" fill="white" />
        </>
      )}
      {id === 4 && (
        <>
          <rect
            x="6"
            y="6"
            width="44"
            height="18"
            rx="6"
            fill="var(--mantine-color-gray-1)"
            stroke={accent}
          />
          <rect x="11" y="11" width="30" height="3" rx="1" fill={ink} />
          <rect x="11" y="16" width="22" height="3" rx="1" fill={ink} />
          <circle cx="12" cy="32" r="4" fill={accent} />
          <rect x="19" y="30" width="18" height="3" rx="1" fill={ink} />
        </>
      )}
    </svg>
  );
}

/** Choose one of the four templates (a radio group of cards). */
export function TemplatePicker({
  value,
  onChange,
  disabled,
  error,
}: {
  value: number;
  onChange: (id: TemplateId) => void;
  disabled?: boolean;
  error?: string;
}) {
  return (
    <Radio.Group
      label="Template"
      value={String(value)}
      onChange={(v) => onChange(Number(v) as TemplateId)}
      error={error}
    >
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs" mt={6}>
        {TEMPLATE_IDS.map((id) => (
          <Radio.Card
            key={id}
            value={String(id)}
            disabled={disabled}
            radius="md"
            p="xs"
            aria-label={`Template ${id}: ${TEMPLATES[id].name}`}
            style={{ opacity: disabled ? 0.6 : 1 }}
          >
            <Group gap="sm" wrap="nowrap" align="flex-start">
              <Radio.Indicator size="xs" mt={2} />
              <Sketch id={id} />
              <div>
                <Text size="sm" fw={600} lh={1.2}>
                  {TEMPLATES[id].name}
                </Text>
                <Text size="xs" c="dimmed" lh={1.3}>
                  {TEMPLATES[id].description}
                </Text>
              </div>
            </Group>
          </Radio.Card>
        ))}
      </SimpleGrid>
    </Radio.Group>
  );
}
