import { Badge } from '@mantine/core';
import type { MantineColor } from '@mantine/core';
import { parseRole } from '@rally/shared';

/** Role colours are product words (SPEC.md §3 `colour_role`); Mantine names some differently. */
const COLOURS: Record<string, MantineColor> = {
  purple: 'grape',
  violet: 'violet',
  blue: 'blue',
  green: 'green',
  yellow: 'yellow',
  orange: 'orange',
  red: 'red',
  pink: 'pink',
  teal: 'teal',
  cyan: 'cyan',
  grey: 'gray',
  gray: 'gray',
};

/** A role as a badge in its colour with its name: `purple_owner` → a purple 'owner'. */
export function RoleBadge({ role }: { role: string }) {
  const { colour, name } = parseRole(role);
  const color = COLOURS[colour] ?? 'gray';
  // The light variant's default text shade is too pale on yellow and green; shade 9 reads well.
  return (
    <Badge variant="light" color={color} c={`${color}.9`} data-colour={colour}>
      {name}
    </Badge>
  );
}
