import {
  Alert,
  Anchor,
  Button,
  Group,
  Paper,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
  useMatches,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconInfoCircle } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { COHORT_NAME_MAX } from '@rally/shared/schemas/cohorts';
import type { CohortFilters, CohortPreSyncBody } from '@rally/shared/schemas/cohorts';
import { AbbreviatedNumber } from '../../../components/abbreviated-number.tsx';
import { FormError } from '../../../components/form-error.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useCreateCohort } from '../api/create-cohort.ts';
import { useCadenceOptions, useContentOptions, useCrmLists } from '../api/get-source-options.ts';
import { useCheckPeople, useCreatePeopleCohort } from '../api/people-cohort.ts';
import { usePreSyncEstimate } from '../api/pre-sync-cohort.ts';
import { cohortHref } from './cohorts-screen.tsx';
import { PeopleUpload } from './people-upload.tsx';

type Source = 'filter' | 'crm_list' | 'csv';
type Tri = 'any' | 'yes' | 'no';

/**
 * /cohorts/new: name, source (prospect filters, a CRM list or a CSV of people), content; the estimate
 * (or, for a CSV, the usable rows) shows before saving.
 */
export function CreateCohortScreen() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  if (!auth.currentRole.permissions.includes('cohort.write'))
    return (
      <Alert color="yellow" icon={<IconInfoCircle size={18} />} title="You cannot create cohorts">
        Your role does not have permission to change cohorts. Ask an owner, admin or manager.
      </Alert>
    );
  return <CreateCohortForm clientId={clientId} />;
}

function CreateCohortForm({ clientId }: { clientId: string }) {
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [source, setSource] = useState<Source>('filter');
  const [listId, setListId] = useState<string | null>(null);
  const [title, setTitle] = useState('');
  const [company, setCompany] = useState('');
  const [cadenceId, setCadenceId] = useState<string | null>(null);
  const [superprospect, setSuperprospect] = useState<Tri>('any');
  const [engagement, setEngagement] = useState<'any' | 'engaged' | 'not_engaged'>('any');
  const [contentId, setContentId] = useState<string | null>(null);
  const [nameError, setNameError] = useState<string | null>(null);
  // Three sources do not fit side by side on a phone.
  const sourceOrientation = useMatches<'vertical' | 'horizontal'>({ base: 'vertical', sm: 'horizontal' });
  const lists = useCrmLists(clientId);
  const cadences = useCadenceOptions(clientId);
  const contents = useContentOptions(clientId);
  const create = useCreateCohort(clientId);
  const [csv, setCsv] = useState<string | null>(null);
  const check = useCheckPeople(clientId);
  const createPeople = useCreatePeopleCohort(clientId);
  const onFile = (text: string | null) => {
    setCsv(text);
    check.reset();
    createPeople.reset();
    if (text !== null) check.mutate(text);
  };
  const csvReady = csv !== null && check.isSuccess && check.data.usable > 0;

  const filters = useMemo((): CohortFilters => {
    const f: CohortFilters = {};
    if (title.trim()) f.title = title.trim();
    if (company.trim()) f.company = company.trim();
    if (cadenceId) f.cadence_id = Number(cadenceId);
    if (superprospect !== 'any') f.superprospect = superprospect === 'yes';
    if (engagement !== 'any') f.engagement = engagement;
    return f;
  }, [title, company, cadenceId, superprospect, engagement]);
  const body = useMemo((): CohortPreSyncBody | null => {
    if (source === 'csv') return null;
    if (source === 'crm_list') return listId ? { source_kind: 'crm_list', crm_list_id: listId } : null;
    return { source_kind: 'filter', filters };
  }, [source, listId, filters]);
  const [debounced] = useDebouncedValue(body, 400);
  const estimate = usePreSyncEstimate(clientId, debounced);

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (!name.trim()) {
      setNameError('Give the cohort a name');
      return;
    }
    if (source === 'csv') {
      if (!csv || !csvReady) return;
      createPeople.mutate(
        { name: name.trim(), csv, content_id: contentId },
        { onSuccess: (made) => void navigate(cohortHref(clientId, made.cohort.id)) },
      );
      return;
    }
    if (!body) return;
    create.mutate(
      { name: name.trim(), ...body, content_id: contentId },
      { onSuccess: (c) => void navigate(cohortHref(clientId, c.id)) },
    );
  };

  return (
    <Stack gap="lg" maw={860}>
      <div>
        <Anchor component={Link} to={`/cohorts?client_id=${clientId}`} size="sm">
          ← Cohorts
        </Anchor>
        <Title order={1}>New cohort</Title>
        <Text c="dimmed">
          Choose who is in it. The estimate shows how many people and accounts it would hold.
        </Text>
      </div>
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <Paper withBorder radius="md" p="md">
            <Stack gap="md">
              <TextInput
                label="Name"
                required
                maxLength={COHORT_NAME_MAX}
                value={name}
                error={nameError}
                onChange={(e) => {
                  setName(e.currentTarget.value);
                  setNameError(null);
                }}
              />
              <div>
                <Text size="sm" fw={500} mb={4} id="cohort-source-label">
                  Source
                </Text>
                <SegmentedControl
                  aria-labelledby="cohort-source-label"
                  orientation={sourceOrientation}
                  value={source}
                  onChange={(v) => setSource(v as Source)}
                  data={[
                    { value: 'filter', label: 'Filter prospects' },
                    { value: 'crm_list', label: 'CRM list or campaign' },
                    { value: 'csv', label: 'CSV of people' },
                  ]}
                />
              </div>
              {source === 'csv' ? (
                <PeopleUpload
                  check={check.data}
                  pending={check.isPending}
                  error={check.error}
                  onFile={onFile}
                />
              ) : source === 'crm_list' ? (
                <Select
                  label="CRM list"
                  placeholder={lists.isPending ? 'Loading lists…' : 'Choose a list'}
                  data={(lists.data?.items ?? []).map((l) => ({
                    value: l.id,
                    label: `${l.name} (${l.member_count})`,
                  }))}
                  value={listId}
                  onChange={setListId}
                  searchable
                  nothingFoundMessage="No CRM lists. Connect a CRM in Settings → Connections."
                  error={lists.isError ? 'Could not load the CRM lists' : undefined}
                />
              ) : (
                <SimpleGrid cols={{ base: 1, sm: 2 }}>
                  <TextInput
                    label="Title contains"
                    placeholder="e.g. VP"
                    value={title}
                    onChange={(e) => setTitle(e.currentTarget.value)}
                  />
                  <TextInput
                    label="Company contains"
                    value={company}
                    onChange={(e) => setCompany(e.currentTarget.value)}
                  />
                  <Select
                    label="In cadence"
                    placeholder="Any cadence"
                    clearable
                    data={(cadences.data ?? []).map((c) => ({ value: String(c.id), label: c.name }))}
                    value={cadenceId}
                    onChange={setCadenceId}
                  />
                  <Select
                    label="Superprospect"
                    allowDeselect={false}
                    data={[
                      { value: 'any', label: 'Any' },
                      { value: 'yes', label: 'Superprospects only' },
                      { value: 'no', label: 'Not superprospects' },
                    ]}
                    value={superprospect}
                    onChange={(v) => setSuperprospect((v as Tri | null) ?? 'any')}
                  />
                  <Select
                    label="Engagement"
                    allowDeselect={false}
                    data={[
                      { value: 'any', label: 'Any' },
                      { value: 'engaged', label: 'Engaged (an impression, click or view)' },
                      { value: 'not_engaged', label: 'Not engaged yet' },
                    ]}
                    value={engagement}
                    onChange={(v) => setEngagement((v as typeof engagement | null) ?? 'any')}
                  />
                </SimpleGrid>
              )}
              <Select
                label="Ad content"
                description="What the members' ads show. You can change it later."
                placeholder={contents.data?.length === 0 ? 'No published content yet' : 'None'}
                clearable
                data={(contents.data ?? []).map((c) => ({ value: c.id, label: c.label }))}
                value={contentId}
                onChange={setContentId}
              />
            </Stack>
          </Paper>
          {source !== 'csv' && (
            <Estimate
              pending={body !== null && (estimate.isFetching || debounced !== body)}
              error={estimate.isError}
              data={body ? estimate.data : undefined}
              waiting={body === null}
            />
          )}
          <FormError error={source === 'csv' ? createPeople.error : create.error} />
          <Group justify="flex-end">
            <Button variant="default" component={Link} to={`/cohorts?client_id=${clientId}`}>
              Cancel
            </Button>
            <Button
              type="submit"
              loading={source === 'csv' ? createPeople.isPending : create.isPending}
              disabled={source === 'csv' ? !csvReady : !body}
            >
              Create cohort
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}

function Estimate({
  pending,
  error,
  data,
  waiting,
}: {
  pending: boolean;
  error: boolean;
  data: { contacts: number; accounts: number } | undefined;
  waiting: boolean;
}) {
  return (
    <Paper withBorder radius="md" p="md" aria-live="polite" aria-busy={pending}>
      <Text size="sm" fw={600} mb={4}>
        Estimated audience
      </Text>
      {waiting ? (
        <Text size="sm" c="dimmed">
          Choose a list to see the estimate.
        </Text>
      ) : error ? (
        <Text size="sm" c="red.8">
          Could not estimate the audience.
        </Text>
      ) : data ? (
        <Group gap="xl" data-testid="cohort-estimate" opacity={pending ? 0.6 : 1}>
          <Text size="sm">
            <Text span fw={700} fz="xl">
              <AbbreviatedNumber value={data.contacts} />
            </Text>{' '}
            {data.contacts === 1 ? 'contact' : 'contacts'}
          </Text>
          <Text size="sm">
            <Text span fw={700} fz="xl">
              <AbbreviatedNumber value={data.accounts} />
            </Text>{' '}
            {data.accounts === 1 ? 'account' : 'accounts'}
          </Text>
        </Group>
      ) : (
        <Text size="sm" c="dimmed">
          Estimating…
        </Text>
      )}
    </Paper>
  );
}
