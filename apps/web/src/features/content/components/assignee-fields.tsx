import { Select, SimpleGrid, Stack, TextInput } from '@mantine/core';
import type { GetInputPropsReturnType } from '@mantine/form';
import { sortSalesReps } from '@rally/shared';
import type { Assignee } from '@rally/shared/schemas/content';
import type { SalesRep } from '@rally/shared/schemas/integrations';
import { useSalesReps } from '../api/get-sales-reps.ts';

export const repName = (r: Pick<SalesRep, 'first_name' | 'last_name' | 'email'>) =>
  `${r.first_name} ${r.last_name}`.trim() || r.email || 'Unnamed rep';

/** A rep's details as an assignee (SPEC.md §3 "Assignee"); the website comes from the form. */
export const assigneeOfRep = (rep: SalesRep, website: string): Assignee => ({
  first_name: rep.first_name,
  last_name: rep.last_name,
  title: rep.title,
  company_name: rep.company_name,
  website,
  calendar_url: rep.calendar_url,
});

/** Empty assignee fields mean "no assignee": the target's own rep fills the ad. */
export const assigneeBody = (a: Assignee): Assignee | null => {
  const trimmed = Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v.trim()])) as Assignee;
  return Object.values(trimmed).some((v) => v !== '') ? trimmed : null;
};

/**
 * The person an ad or page speaks for: typed in, or filled from one of the client's sales reps
 * (GET /sc/sdr). A prospect's own rep replaces it when the ad is shown to them.
 */
export function AssigneeFields({
  clientId,
  inputProps,
  onPickRep,
  disabled,
}: {
  clientId: string;
  inputProps: (key: keyof Assignee) => GetInputPropsReturnType;
  onPickRep: (rep: SalesRep) => void;
  disabled?: boolean;
}) {
  const reps = useSalesReps(clientId);
  const list = sortSalesReps(reps.data ?? []);
  return (
    <Stack gap="sm">
      {!disabled && (
        <Select
          label="Fill from a sales rep"
          placeholder={reps.isPending ? 'Loading reps…' : list.length ? 'Choose a rep' : 'No sales reps yet'}
          data={list.map((r) => ({ value: r.id, label: repName(r) }))}
          value={null}
          onChange={(id) => {
            const rep = list.find((r) => r.id === id);
            if (rep) onPickRep(rep);
          }}
          searchable
          nothingFoundMessage="No elements found. Consider changing the search query."
          disabled={list.length === 0}
          comboboxProps={{ withinPortal: true }}
        />
      )}
      <SimpleGrid cols={2} spacing="sm">
        <TextInput label="First name" readOnly={disabled} {...inputProps('first_name')} />
        <TextInput label="Last name" readOnly={disabled} {...inputProps('last_name')} />
      </SimpleGrid>
      <SimpleGrid cols={2} spacing="sm">
        <TextInput
          label="Job title"
          placeholder="Account executive"
          readOnly={disabled}
          {...inputProps('title')}
        />
        <TextInput label="Company" readOnly={disabled} {...inputProps('company_name')} />
      </SimpleGrid>
      <TextInput
        label="Website"
        placeholder="https://example.com"
        readOnly={disabled}
        {...inputProps('website')}
      />
      <TextInput
        label="Calendar URL"
        description="Where the landing page's button books a meeting"
        placeholder="https://cal.example.com/you"
        readOnly={disabled}
        {...inputProps('calendar_url')}
      />
    </Stack>
  );
}
