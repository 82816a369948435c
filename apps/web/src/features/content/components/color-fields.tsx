import { ColorInput, SimpleGrid } from '@mantine/core';
import type { GetInputPropsReturnType } from '@mantine/form';
import { DEFAULT_COLORS } from '@rally/shared';

export type ColorKey = 'background' | 'text' | 'accent' | 'primary';

/** The colours of a form: '' for primary means none (SPEC.md §3 "primary (optional)"). */
export type ColorValues = Record<ColorKey, string>;

export const DEFAULT_COLOR_VALUES: ColorValues = { ...DEFAULT_COLORS, primary: '' };

/** Colours as a request body wants them: primary null when empty. */
export const colorsBody = (c: ColorValues) => ({
  background: c.background.trim(),
  text: c.text.trim(),
  accent: c.accent.trim(),
  primary: c.primary.trim() === '' ? null : c.primary.trim(),
});

export const colorValuesOf = (c: {
  background: string;
  text: string;
  accent: string;
  primary?: string | null;
}) => ({
  background: c.background,
  text: c.text,
  accent: c.accent,
  primary: c.primary ?? '',
});

const FIELDS: { key: ColorKey; label: string; description: string }[] = [
  { key: 'background', label: 'Background', description: `Default ${DEFAULT_COLORS.background}` },
  {
    key: 'text',
    label: 'Text',
    description: `Default ${DEFAULT_COLORS.text}; kept readable on the background`,
  },
  { key: 'accent', label: 'Accent', description: `Default ${DEFAULT_COLORS.accent}; rules, buttons, panels` },
  { key: 'primary', label: 'Primary', description: 'Optional brand colour' },
];

/** The colours' form paths: forms check these as they are typed, so a bad hex says so at once. */
export const COLOR_PATHS = FIELDS.map((f) => `colors.${f.key}`);

const SWATCHES = [
  '#ffffff',
  '#000000',
  '#111827',
  '#0b3d91',
  '#4c6ef5',
  '#12b886',
  '#f97316',
  '#ffb400',
  '#fa5252',
  '#be4bdb',
];

/**
 * The four colours (SPEC.md §3 "Colors"), each a Mantine ColorInput checked by the shared hex rule
 * (SPEC.md §5 'is not a valid hex color'). Typing is allowed and not silently undone on blur, so a
 * wrong value shows its error rather than vanishing.
 */
export function ColorFields({
  inputProps,
  disabled,
}: {
  inputProps: (key: ColorKey) => GetInputPropsReturnType;
  disabled?: boolean;
}) {
  return (
    <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
      {FIELDS.map((f) => (
        <ColorInput
          key={f.key}
          label={f.label}
          description={f.description}
          placeholder={f.key === 'primary' ? 'None' : '#rrggbb'}
          format="hex"
          swatches={SWATCHES}
          swatchesPerRow={10}
          fixOnBlur={false}
          withEyeDropper={false}
          readOnly={disabled}
          {...inputProps(f.key)}
        />
      ))}
    </SimpleGrid>
  );
}
