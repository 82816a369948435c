import { Autocomplete, SimpleGrid, TextInput } from '@mantine/core';
import type { GetInputPropsReturnType } from '@mantine/form';

export type LandingButtonKey = 'landing_button_name' | 'landing_trigger_field' | 'landing_trigger_type';

/** The field the button takes its link from, and what kind of control it is. */
const TRIGGER_FIELDS = ['calendar_url', 'website'];
const TRIGGER_TYPES = ['button', 'link'];

/** A landing page's call to action: the button's name, where it links to and how it shows. */
export function LandingButtonFields({
  inputProps,
  disabled,
}: {
  inputProps: (key: LandingButtonKey) => GetInputPropsReturnType;
  disabled: boolean;
}) {
  return (
    <>
      <TextInput
        label="Button name"
        placeholder="Book a meeting"
        readOnly={disabled}
        {...inputProps('landing_button_name')}
      />
      <SimpleGrid cols={2} spacing="sm">
        <Autocomplete
          label="Trigger field"
          description="Where the button links to"
          placeholder="calendar_url"
          data={TRIGGER_FIELDS}
          readOnly={disabled}
          {...inputProps('landing_trigger_field')}
        />
        <Autocomplete
          label="Trigger type"
          description="How it shows"
          placeholder="button"
          data={TRIGGER_TYPES}
          readOnly={disabled}
          {...inputProps('landing_trigger_type')}
        />
      </SimpleGrid>
    </>
  );
}
