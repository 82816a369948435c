import { useMemo, useState } from 'react';
import {
  Radio,
  Alert,
  Badge,
  Button,
  FileInput,
  Group,
  Paper,
  Progress,
  ScrollArea,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconDownload, IconFileUpload } from '@tabler/icons-react';
import { FILEFORCE_FIELDS } from '@rally/shared/schemas/fileforce';
import type {
  CheckReport,
  ColumnMapping,
  FileImport,
  ImportKind,
  ImportRowError,
} from '@rally/shared/schemas/fileforce';
import { relativeTime } from '@rally/shared/utils/dates';
import { formatCount } from '@rally/shared/utils/numbers';
import { DownloadButton } from '../../../components/download-button.tsx';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import {
  useCheckTargets,
  useFileforceFields,
  useImport,
  useImports,
  useSaveMapping,
  useStartImport,
  useUploadCsv,
  downloadSkippedRows,
} from '../api/fileforce.ts';

const REVENUE_EXAMPLE: Record<string, string> = {
  opportunity_id: '006A000001',
  name: 'Analytical Engines - Expansion',
  account_name: 'Analytical Engines',
  amount: '48000',
  currency: 'USD',
  stage: 'Negotiation',
  close_date: '2026-12-15',
};

/** What each kind of file holds, as the upload step says it. */
const KIND_TEXT: Record<ImportKind, { title: string; help: string; sample: string }> = {
  targets: {
    title: 'Upload your prospects',
    help: 'A CSV file with one prospect per row: e-mail address (required), name, title and company, and the cadence, day and sales rep they are on. Rows that name a cadence create it in Rally. You will match the columns next.',
    sample: 'rally-prospects-sample.csv',
  },
  revenue: {
    title: 'Upload your revenue',
    help: 'A CSV file with one opportunity per row: its id in your CRM, name, account, amount, stage and close date. Importing the same id again updates it. The Revenue screen ties them to the accounts that saw your ads. You will match the columns next.',
    sample: 'rally-revenue-sample.csv',
  },
};

/** A two-row example of the columns we accept, offered as a download. */
function sampleCsvUrl(kind: ImportKind = 'targets'): string {
  const fields = FILEFORCE_FIELDS[kind].filter((f) => f.name !== 'cadence_id');
  const example: Record<string, string> = {
    ...REVENUE_EXAMPLE,
    email: 'ada@example.com',
    first_name: 'Ada',
    last_name: 'Lovelace',
    title: 'Head of Engineering',
    company_name: 'Analytical Engines',
    company_website: 'https://example.com',
    cadence: 'Q4 outbound',
    day: '1',
    rep_email: 'sam@yourcompany.com',
    rep_first_name: 'Sam',
    rep_last_name: 'Rep',
    rep_title: 'SDR',
    is_active: 'true',
  };
  const csv = `${fields.map((f) => f.name).join(',')}\n${fields.map((f) => example[f.name] ?? '').join(',')}\n`;
  return `data:text/csv;charset=utf-8,${encodeURIComponent(csv)}`;
}

export function CsvUploadStep({
  clientId,
  kind = 'targets',
  onKindChange,
  onBack,
  onUploaded,
}: {
  clientId: string;
  /** Prospects (targets) or revenue (opportunities): the same mapping, dry run and progress follow. */
  kind?: ImportKind;
  onKindChange?: (kind: ImportKind) => void;
  onBack: () => void;
  onUploaded: (importId: string) => void;
}) {
  const upload = useUploadCsv(clientId);
  const text = KIND_TEXT[kind];
  const [file, setFile] = useState<File | null>(null);
  const fieldError = fieldErrorsOf(upload.error)['file'];
  return (
    <Stack>
      <Title order={2} size="h3">
        {text.title}
      </Title>
      {onKindChange && (
        <Radio.Group
          label="What is in the file?"
          value={kind}
          onChange={(v) => {
            onKindChange(v as ImportKind);
            upload.reset();
          }}
        >
          <Group mt={6}>
            <Radio value="targets" label="Prospects (targets)" />
            <Radio value="revenue" label="Revenue (opportunities)" />
          </Group>
        </Radio.Group>
      )}
      <Text size="sm">{text.help}</Text>
      <Group>
        <Button
          component="a"
          href={sampleCsvUrl(kind)}
          download={text.sample}
          variant="subtle"
          size="xs"
          leftSection={<IconDownload size={14} />}
        >
          Download a sample file
        </Button>
      </Group>
      <FileInput
        label="CSV file"
        placeholder="Choose a .csv file"
        accept=".csv,text/csv"
        leftSection={<IconFileUpload size={16} />}
        value={file}
        onChange={setFile}
        clearable
        error={fieldError}
      />
      {upload.isError && !fieldError && <FormError error={upload.error} />}
      <Group justify="space-between">
        <Button variant="subtle" onClick={onBack}>
          Choose another source
        </Button>
        <Button
          disabled={!file}
          loading={upload.isPending}
          onClick={() => file && upload.mutate({ file, kind }, { onSuccess: (i) => onUploaded(i.id) })}
        >
          Upload
        </Button>
      </Group>
    </Stack>
  );
}

/** "1 row", "12 rows", "1,200 rows". */
export const rows = (n: number) => `${formatCount(n)} ${n === 1 ? 'row' : 'rows'}`;

function RowErrors({ errors, label, kind }: { errors: ImportRowError[]; label: string; kind: ImportKind }) {
  if (!errors.length) return null;
  const fieldLabel = (name: string) =>
    name === 'row' ? 'Whole row' : (FILEFORCE_FIELDS[kind].find((f) => f.name === name)?.label ?? name);
  return (
    <ScrollArea.Autosize mah={260}>
      <Table striped verticalSpacing={4} fz="sm" aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={70}>Row</Table.Th>
            <Table.Th w={140}>Field</Table.Th>
            <Table.Th>Problem</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {errors.map((e, i) => (
            <Table.Tr key={`${e.row}-${e.field}-${i}`}>
              <Table.Td>{e.row}</Table.Td>
              <Table.Td>{fieldLabel(e.field)}</Table.Td>
              <Table.Td>{e.reason}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollArea.Autosize>
  );
}

function CheckSummary({ report, kind }: { report: CheckReport; kind: ImportKind }) {
  return (
    <Paper withBorder radius="md" p="md" role="region" aria-label="Check report">
      <Stack gap="sm">
        <SimpleGrid cols={3}>
          <div>
            <Text size="xs" c="dimmed">
              Rows
            </Text>
            <Text fw={700}>{report.total_rows}</Text>
          </div>
          <div>
            <Text size="xs" c="dimmed">
              Ready to import
            </Text>
            <Text fw={700} c="teal.7">
              {report.valid_rows}
            </Text>
          </div>
          <div>
            <Text size="xs" c="dimmed">
              With problems
            </Text>
            <Text fw={700} c={report.error_rows ? 'red.7' : undefined}>
              {report.error_rows}
            </Text>
          </div>
        </SimpleGrid>
        {report.error_rows > 0 && (
          <Text size="sm">
            Rows with problems are skipped; the others are imported. Fix the file and upload it again to add
            them.
          </Text>
        )}
        <RowErrors errors={report.errors} label="Rows with problems" kind={kind} />
        {report.errors_truncated && (
          <Text size="xs" c="dimmed">
            Only the first {report.errors.length} problems are listed.
          </Text>
        )}
      </Stack>
    </Paper>
  );
}

export function CsvMappingStep({
  clientId,
  importId,
  onBack,
  onStarted,
}: {
  clientId: string;
  importId: string | null;
  onBack: () => void;
  onStarted: () => void;
}) {
  if (!importId)
    return (
      <Alert color="yellow" title="No file yet">
        <Button size="xs" mt="xs" onClick={onBack}>
          Upload a file
        </Button>
      </Alert>
    );
  return <MappingForm clientId={clientId} importId={importId} onBack={onBack} onStarted={onStarted} />;
}

function MappingForm({
  clientId,
  importId,
  onBack,
  onStarted,
}: {
  clientId: string;
  importId: string;
  onBack: () => void;
  onStarted: () => void;
}) {
  const current = useImport(clientId, importId);
  const fields = useFileforceFields(clientId, current.data?.kind ?? 'targets');
  const save = useSaveMapping(clientId, importId);
  const check = useCheckTargets(clientId);
  const start = useStartImport(clientId, importId);
  // The server's suggestion until the user changes a column.
  const [edited, setMapping] = useState<ColumnMapping | null>(null);
  const mapping = edited ?? current.data?.mapping ?? null;
  const missing = useMemo(
    () => (fields.data ?? []).filter((f) => f.required && !mapping?.[f.name]).map((f) => f.label),
    [fields.data, mapping],
  );

  if (current.isPending || fields.isPending || !mapping)
    return <PanelLoading label="Loading the file's columns" />;
  if (current.isError)
    return (
      <PanelError error={current.error} what="the uploaded file" onRetry={() => void current.refetch()} />
    );
  if (fields.isError)
    return <PanelError error={fields.error} what="the columns" onRetry={() => void fields.refetch()} />;
  const columns = current.data.columns.map((c) => ({ value: c, label: c }));
  const set = (field: string, column: string | null) => {
    const next = Object.fromEntries(Object.entries(mapping).filter(([k]) => k !== field));
    if (column) next[field] = column;
    setMapping(next);
    check.reset();
  };
  const serverErrors = fieldErrorsOf(save.error);
  const runImport = () =>
    save.mutate(mapping, {
      onSuccess: () => start.mutate(undefined, { onSuccess: onStarted }),
    });

  return (
    <Stack>
      <div>
        <Title order={2} size="h3">
          Match your columns
        </Title>
        <Text size="sm" c="dimmed">
          {current.data.file_name}: we matched what we recognised. Fields marked * are required.
        </Text>
      </div>
      <Table verticalSpacing="xs" aria-label="Column mapping">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Rally field</Table.Th>
            <Table.Th w="45%">Column in your file</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {fields.data.map((f) => (
            <Table.Tr key={f.name}>
              <Table.Td>
                <Text size="sm" fw={500}>
                  {f.label}
                  {f.required ? ' *' : ''}
                </Text>
                <Text size="xs" c="dimmed">
                  {f.description}
                </Text>
              </Table.Td>
              <Table.Td>
                <Select
                  aria-label={`Column for ${f.label}`}
                  data={columns}
                  value={mapping[f.name] ?? null}
                  onChange={(v) => set(f.name, v)}
                  placeholder="Not in the file"
                  clearable
                  searchable
                  error={serverErrors[`mapping.${f.name}`]}
                />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {missing.length > 0 && (
        <Alert color="yellow" icon={<IconAlertTriangle size={16} />} p="xs">
          Choose a column for: {missing.join(', ')}.
        </Alert>
      )}
      {check.data && <CheckSummary report={check.data} kind={current.data.kind} />}
      {(check.isError || save.isError || start.isError) && (
        <FormError error={check.error ?? save.error ?? start.error} />
      )}
      <Group justify="space-between">
        <Button variant="subtle" onClick={onBack}>
          Upload another file
        </Button>
        <Group>
          <Button
            variant="default"
            disabled={missing.length > 0}
            loading={check.isPending}
            onClick={() => check.mutate({ importId, mapping })}
          >
            Check the file
          </Button>
          <Button
            disabled={missing.length > 0 || (check.data ? check.data.valid_rows === 0 : false)}
            loading={save.isPending || start.isPending}
            onClick={runImport}
          >
            {check.data ? `Import ${rows(check.data.valid_rows)}` : 'Import'}
          </Button>
        </Group>
      </Group>
    </Stack>
  );
}

export function CsvImportStep({
  clientId,
  importId,
  onDone,
}: {
  clientId: string;
  importId: string | null;
  /** Told what the file held: after revenue there are no sales reps to pick. */
  onDone: (kind: ImportKind) => void;
}) {
  if (!importId) return <Text size="sm">No import is running.</Text>;
  return <ImportProgress clientId={clientId} importId={importId} onDone={onDone} />;
}

function ImportProgress({
  clientId,
  importId,
  onDone,
}: {
  clientId: string;
  importId: string;
  onDone: (kind: ImportKind) => void;
}) {
  const imp = useImport(clientId, importId);
  if (imp.isPending) return <PanelLoading label="Loading the import" />;
  if (imp.isError)
    return <PanelError error={imp.error} what="the import" onRetry={() => void imp.refetch()} />;
  const i: FileImport = imp.data;
  const percent = i.total_rows
    ? Math.round((100 * i.processed_rows) / i.total_rows)
    : i.status === 'done'
      ? 100
      : 0;
  return (
    <Stack>
      <Title order={2} size="h3">
        Importing {i.file_name}
      </Title>
      {i.status === 'failed' ? (
        <Alert color="red" icon={<IconAlertTriangle size={18} />} title="The import stopped">
          {i.failure_reason ?? 'Something went wrong. Start it again from the connections page.'}
        </Alert>
      ) : (
        <div>
          <Group justify="space-between" mb={4}>
            <Text size="xs" c="dimmed">
              {i.status === 'done'
                ? 'Finished'
                : i.status === 'queued'
                  ? 'Waiting to start'
                  : `Row ${i.processed_rows}${i.total_rows ? ` of ${i.total_rows}` : ''}`}
            </Text>
            <Text size="xs" c="dimmed">
              {percent}%
            </Text>
          </Group>
          <Progress
            value={Math.max(percent, 3)}
            animated={i.status !== 'done'}
            striped={i.status !== 'done'}
            color={i.status === 'done' ? 'teal' : undefined}
            role="progressbar"
            aria-label={`Import progress ${percent}%`}
            aria-valuenow={percent}
            aria-valuemin={0}
            aria-valuemax={100}
          />
        </div>
      )}
      {i.status === 'done' && (
        <Alert color="teal" icon={<IconCircleCheck size={18} />} title={`${rows(i.imported_rows)} imported`}>
          {i.error_rows > 0
            ? `${rows(i.error_rows)} had problems and ${i.error_rows === 1 ? 'was' : 'were'} skipped; ${i.error_rows === 1 ? 'it is' : 'they are'} listed below.`
            : i.suppressed_rows > 0
              ? ''
              : 'Every row was imported.'}
          {i.suppressed_rows > 0 &&
            ` ${rows(i.suppressed_rows)} ${i.suppressed_rows === 1 ? 'was' : 'were'} skipped: the address is on your suppression list.`}
        </Alert>
      )}
      <RowErrors errors={i.errors} label="Rows skipped" kind={i.kind} />
      {i.status === 'done' && i.error_rows > 0 && (
        <Group>
          <DownloadButton
            label="Download the skipped rows (CSV)"
            failMessage="The skipped rows could not be downloaded. Please try again."
            onDownload={() => downloadSkippedRows(clientId, i.id, i.file_name)}
          />
          <Text size="xs" c="dimmed">
            Each row with its problem and your columns: fix them and upload the file again.
          </Text>
        </Group>
      )}
      <Group justify="flex-end">
        <Button disabled={i.status !== 'done'} onClick={() => onDone(i.kind)}>
          Continue
        </Button>
      </Group>
    </Stack>
  );
}

const STATUS_COLOR: Record<string, string> = {
  done: 'teal',
  failed: 'red',
  running: 'blue',
  queued: 'blue',
  uploaded: 'gray',
  checked: 'gray',
};

/** The file imports of a client, newest first (on the file-import settings page). */
export function ImportHistory({ clientId, canWrite }: { clientId: string; canWrite: boolean }) {
  const imports = useImports(clientId);
  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Title order={2} size="h4">
          Imports
        </Title>
        {canWrite && (
          <Group gap="xs">
            <Button
              size="xs"
              variant="light"
              component="a"
              href={`/onboarding?client_id=${clientId}&source=fileforce`}
            >
              Import prospects
            </Button>
            <Button
              size="xs"
              variant="light"
              component="a"
              href={`/onboarding?client_id=${clientId}&source=fileforce&kind=revenue`}
            >
              Import revenue
            </Button>
          </Group>
        )}
      </Group>
      {imports.isPending ? (
        <PanelLoading label="Loading imports" />
      ) : imports.isError ? (
        <PanelError error={imports.error} what="the imports" onRetry={() => void imports.refetch()} />
      ) : imports.data.length === 0 ? (
        <Text size="sm" c="dimmed">
          No files imported yet.
        </Text>
      ) : (
        <Paper withBorder radius="md">
          <Table.ScrollContainer minWidth={560} type="native">
            <Table verticalSpacing="xs" aria-label="Imports">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>File</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th ta="right">Imported</Table.Th>
                  <Table.Th ta="right">Skipped</Table.Th>
                  <Table.Th>When</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {imports.data.map((i) => (
                  <Table.Tr key={i.id}>
                    <Table.Td>
                      <Text size="sm" fw={500}>
                        {i.file_name}
                      </Text>
                      <Text size="xs" c="dimmed">
                        {i.kind === 'revenue' ? 'Revenue' : 'Prospects'}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Badge color={STATUS_COLOR[i.status] ?? 'gray'} variant="light">
                        {i.status}
                      </Badge>
                    </Table.Td>
                    <Table.Td ta="right">{i.imported_rows}</Table.Td>
                    <Table.Td ta="right">{i.error_rows}</Table.Td>
                    <Table.Td>{relativeTime(i.created_at)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
    </Stack>
  );
}
