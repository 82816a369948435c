import { Group, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';

type Names = { first_name: string; last_name: string };

/** First and last name side by side, for any form whose values include both. */
export function NameFields<T extends Names>({ form }: { form: UseFormReturnType<T> }) {
  const names = form as unknown as UseFormReturnType<Names>;
  return (
    <Group grow align="flex-start">
      <TextInput
        label="First name"
        autoComplete="given-name"
        key={names.key('first_name')}
        {...names.getInputProps('first_name')}
      />
      <TextInput
        label="Last name"
        autoComplete="family-name"
        key={names.key('last_name')}
        {...names.getInputProps('last_name')}
      />
    </Group>
  );
}
