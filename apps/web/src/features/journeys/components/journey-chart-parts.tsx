import { ColorSwatch, Group, Paper, Stack, Text, useMantineTheme } from '@mantine/core';

type Stage = { id: string; name: string };

/** A Mantine colour name ("teal.6") as the CSS colour the chart draws. */
function useColor() {
  const theme = useMantineTheme();
  return (name: string) => {
    const [hue = 'gray', shade = '6'] = name.split('.');
    return theme.colors[hue]?.[Number(shade)] ?? name;
  };
}

/** The stages in their journey order (the chart's own legend sorts them by name). */
export function StageLegend({ stages, colors }: { stages: readonly Stage[]; colors: readonly string[] }) {
  const color = useColor();
  return (
    <Group gap="md" justify="flex-end" mb="xs" aria-hidden data-testid="journey-legend">
      {stages.map((s, i) => (
        <Group key={s.id} gap={6} wrap="nowrap">
          <ColorSwatch color={color(colors[i] ?? 'gray.5')} size={10} withShadow={false} />
          <Text size="xs">{s.name}</Text>
        </Group>
      ))}
    </Group>
  );
}

/**
 * A day of the stacked chart: each stage's own number of accounts, last stage first as the bands
 * stack, and their total. `row` is the day's data row (stage name → accounts).
 */
export function JourneyStagesTooltip({
  label,
  row,
  stages,
  colors,
}: {
  label: string;
  row: Record<string, number> | null;
  stages: readonly Stage[];
  colors: readonly string[];
}) {
  const color = useColor();
  if (!row) return null;
  const total = stages.reduce((n, s) => n + (Number(row[s.name]) || 0), 0);
  return (
    <Paper withBorder shadow="md" radius="md" p="xs" data-testid="journey-tooltip">
      <Text size="sm" fw={600} mb={4}>
        {label}
      </Text>
      <Stack gap={2}>
        {stages
          .map((s, i) => ({ s, i }))
          .reverse()
          .map(({ s, i }) => (
            <Group key={s.id} gap="xs" justify="space-between" wrap="nowrap">
              <Group gap={6} wrap="nowrap">
                <ColorSwatch color={color(colors[i] ?? 'gray.5')} size={8} withShadow={false} />
                <Text size="xs">{s.name}</Text>
              </Group>
              <Text size="xs" fw={600}>
                {Number(row[s.name]) || 0}
              </Text>
            </Group>
          ))}
        <Group gap="xs" justify="space-between" wrap="nowrap" mt={2}>
          <Text size="xs" c="dimmed">
            All stages
          </Text>
          <Text size="xs" fw={700}>
            {total}
          </Text>
        </Group>
      </Stack>
    </Paper>
  );
}
