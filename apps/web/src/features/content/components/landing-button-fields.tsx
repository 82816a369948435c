import { Select, SimpleGrid, TextInput } from '@mantine/core';
import type { GetInputPropsReturnType } from '@mantine/form';

export type LandingButtonKey = 'landing_button_name' | 'landing_trigger_field' | 'landing_trigger_type';

/**
 * The field the button takes its link from, and what kind of control it is, in plain words (issue 42
 * item 8: the editor showed "Trigger field: calendar_url"). The stored values stay as they are.
 */
export const TRIGGER_FIELDS = [
  { value: 'calendar_url', label: "The sales rep's calendar link" },
  { value: 'website', label: 'The company website' },
];
export const TRIGGER_TYPES = [
  { value: 'button', label: 'A button' },
  { value: 'link', label: 'A text link' },
];

/** The options, with a value stored earlier that is not one of them kept (shown as written). */
const withCurrent = (options: { value: string; label: string }[], current: unknown) =>
  typeof current === 'string' && current !== '' && !options.some((o) => o.value === current)
    ? [...options, { value: current, label: current }]
    : options;

/** A landing page's call to action: the button's name, where it links to and how it shows. */
export function LandingButtonFields({
  inputProps,
  disabled,
}: {
  inputProps: (key: LandingButtonKey) => GetInputPropsReturnType;
  disabled: boolean;
}) {
  const field = inputProps('landing_trigger_field');
  const type = inputProps('landing_trigger_type');
  return (
    <>
      <TextInput
        label="Button name"
        placeholder="Book a meeting"
        readOnly={disabled}
        {...inputProps('landing_button_name')}
      />
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
        <Select
          label="Button links to"
          placeholder="The sales rep's calendar link"
          data={withCurrent(TRIGGER_FIELDS, field.value)}
          readOnly={disabled}
          allowDeselect={false}
          {...field}
        />
        <Select
          label="Shows as"
          placeholder="A button"
          data={withCurrent(TRIGGER_TYPES, type.value)}
          readOnly={disabled}
          allowDeselect={false}
          {...type}
        />
      </SimpleGrid>
    </>
  );
}
