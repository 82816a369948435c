import { Badge, FileInput, Group, Paper, Stack, Table, Text } from '@mantine/core';
import { IconFileTypeCsv } from '@tabler/icons-react';
import { useState } from 'react';
import { PBA_CSV_MAX_CHARS, PBA_MAX_ROWS } from '@rally/shared/schemas/campaigns';
import type { PbaPeopleReply } from '@rally/shared/schemas/campaigns';
import { AbbreviatedNumber } from '../../../components/abbreviated-number.tsx';
import { FormError } from '../../../components/form-error.tsx';
import { formatCount } from '@rally/shared';

/** Rows shown in the check: the unusable ones first (what needs fixing), then the usable. */
const SHOWN_ROWS = 50;

/**
 * The CSV source of a new cohort: a file of people (email; first and last name; company; title),
 * read in the browser and checked by the server row by row before the cohort is made.
 */
export function PeopleUpload({
  check,
  pending,
  error,
  onFile,
}: {
  check: PbaPeopleReply | undefined;
  pending: boolean;
  error: unknown;
  onFile: (csv: string | null) => void;
}) {
  const [file, setFile] = useState<File | null>(null);
  const [tooBig, setTooBig] = useState<string | null>(null);
  const pick = (f: File | null) => {
    setFile(f);
    setTooBig(null);
    if (!f) {
      onFile(null);
      return;
    }
    if (f.size > PBA_CSV_MAX_CHARS * 2) {
      setTooBig(`This file is too large: at most ${formatCount(PBA_MAX_ROWS)} people. Split the list.`);
      onFile(null);
      return;
    }
    void f.text().then((text) => {
      if (text.length > PBA_CSV_MAX_CHARS) {
        setTooBig(`This file is too large: at most ${formatCount(PBA_MAX_ROWS)} people. Split the list.`);
        onFile(null);
      } else onFile(text);
    });
  };
  const rows = check
    ? [...check.rows.filter((r) => !r.usable), ...check.rows.filter((r) => r.usable)].slice(0, SHOWN_ROWS)
    : [];
  return (
    <Stack gap="md">
      <FileInput
        label="List of people (CSV)"
        description="A header row naming the columns: email, first_name, last_name (or name), company, title. A person needs an email, or a first and last name with a company."
        placeholder="Choose a .csv file"
        accept=".csv,text/csv"
        leftSection={<IconFileTypeCsv size={16} />}
        value={file}
        onChange={pick}
        clearable
        error={tooBig ?? undefined}
      />
      <FormError error={error} />
      <Paper withBorder radius="md" p="md" aria-live="polite" aria-busy={pending}>
        <Text size="sm" fw={600} mb={4}>
          People in the list
        </Text>
        {pending ? (
          <Text size="sm" c="dimmed">
            Checking the list…
          </Text>
        ) : !check ? (
          <Text size="sm" c="dimmed">
            Choose a file to see which people can get ads.
          </Text>
        ) : (
          <Stack gap="sm">
            <Group gap="xl" data-testid="people-check">
              <Text size="sm">
                <Text span fw={700} fz="xl">
                  <AbbreviatedNumber value={check.usable} />
                </Text>{' '}
                usable
              </Text>
              <Text size="sm">
                <Text span fw={700} fz="xl">
                  <AbbreviatedNumber value={check.unusable} />
                </Text>{' '}
                not usable
              </Text>
              {check.ignored_columns.length > 0 && (
                <Text size="xs" c="dimmed">
                  Columns not read: {check.ignored_columns.join(', ')}
                </Text>
              )}
            </Group>
            <Table.ScrollContainer minWidth={560}>
              <Table verticalSpacing={4} fz="sm">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Row</Table.Th>
                    <Table.Th>Person</Table.Th>
                    <Table.Th>Company</Table.Th>
                    <Table.Th>Usable</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {rows.map((r) => (
                    <Table.Tr key={r.row}>
                      <Table.Td>{r.row}</Table.Td>
                      <Table.Td>
                        {[r.first_name, r.last_name].filter(Boolean).join(' ') || '—'}
                        {r.email && (
                          <Text size="xs" c="dimmed">
                            {r.email}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>{r.company || '—'}</Table.Td>
                      <Table.Td>
                        {r.usable ? (
                          <Badge color="teal" variant="light">
                            {r.match === 'email' ? 'By email' : 'By name and company'}
                          </Badge>
                        ) : (
                          <Text size="xs" c="red.8">
                            {r.reasons.join('; ')}
                          </Text>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            {check.total > SHOWN_ROWS && (
              <Text size="xs" c="dimmed">
                Showing {SHOWN_ROWS} of {check.total} rows, those not usable first.
              </Text>
            )}
          </Stack>
        )}
      </Paper>
    </Stack>
  );
}
