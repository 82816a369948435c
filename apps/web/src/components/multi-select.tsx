import { MultiSelect as MantineMultiSelect } from '@mantine/core';
import type { MultiSelectProps as MantineMultiSelectProps } from '@mantine/core';
import { MULTISELECT } from '../config/widgets.ts';

export type MultiSelectProps = Omit<
  MantineMultiSelectProps,
  'limit' | 'maxDropdownHeight' | 'placeholder' | 'nothingFoundMessage'
>;

/**
 * The one multi-choice field of the app (SPEC.md §9): at most 1000 options rendered (the search
 * narrows the rest down), a list at most 300 px high of 40 px options, 'Select option' while nothing
 * is chosen, 'List is empty.' when there is nothing to choose and the no-match text when the search
 * finds nothing. The constants are in config/widgets.ts.
 */
export function MultiSelect({ data, styles, searchable = true, ...props }: MultiSelectProps) {
  const empty = !data || data.length === 0;
  const chosen = (props.value ?? props.defaultValue ?? []).length > 0;
  return (
    <MantineMultiSelect
      {...props}
      data={data}
      searchable={searchable}
      limit={MULTISELECT.optionsLimit}
      maxDropdownHeight={MULTISELECT.maxHeightPx}
      // Only while nothing is chosen (SPEC.md §9), not after the picked values.
      placeholder={chosen ? undefined : MULTISELECT.placeholder}
      nothingFoundMessage={empty ? MULTISELECT.emptyText : MULTISELECT.noMatchText}
      styles={{
        ...(typeof styles === 'object' ? styles : {}),
        option: {
          minHeight: MULTISELECT.optionHeightPx,
          ...(typeof styles === 'object' ? styles.option : {}),
        },
      }}
    />
  );
}
