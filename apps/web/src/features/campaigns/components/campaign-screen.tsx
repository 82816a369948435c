import {
  Alert,
  Anchor,
  Badge,
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
} from '@mantine/core';
import { IconDownload, IconInfoCircle } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  CAMPAIGN_NAME_MAX,
  CAMPAIGN_STATUSES,
  CAMPAIGN_STATUS_LABELS,
} from '@rally/shared/schemas/campaigns';
import type { Campaign, CampaignStatus } from '@rally/shared/schemas/campaigns';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth/store.ts';
import {
  campaignHref,
  downloadAds,
  useCampaign,
  useCampaignCohort,
  useCampaignContentOptions,
  useCreateCampaign,
  useUpdateCampaign,
} from '../api/campaigns.ts';

const STATUS_COLORS: Record<CampaignStatus, string> = {
  draft: 'gray',
  active: 'teal',
  paused: 'yellow',
  ended: 'dark',
};

export function CampaignStatusBadge({ status }: { status: CampaignStatus }) {
  return (
    <Badge
      color={STATUS_COLORS[status]}
      variant="light"
      aria-label={`Status: ${CAMPAIGN_STATUS_LABELS[status]}`}
    >
      {CAMPAIGN_STATUS_LABELS[status]}
    </Badge>
  );
}

const cohortHref = (clientId: string, id: string) => `/cohorts/${id}?client_id=${clientId}`;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

type FormValues = {
  name: string;
  starts_on: string;
  ends_on: string;
  status: CampaignStatus;
  content_id: string | null;
};

/** /cohorts/{id}/campaigns/new: a new flight for the cohort, its content the cohort's by default. */
export function NewCampaignScreen() {
  const auth = useAuth();
  const { id = '' } = useParams();
  const clientId = auth.currentClient;
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  if (!auth.currentRole.permissions.includes('cohort.write'))
    return (
      <Alert color="yellow" icon={<IconInfoCircle size={18} />} title="You cannot plan campaigns">
        Your role does not have permission to change cohorts. Ask an owner, admin or manager.
      </Alert>
    );
  return <NewCampaign clientId={clientId} cohortId={id} />;
}

function NewCampaign({ clientId, cohortId }: { clientId: string; cohortId: string }) {
  const navigate = useNavigate();
  const cohort = useCampaignCohort(clientId, cohortId);
  const create = useCreateCampaign(clientId);
  // The default flight starts today: read once, not on every render.
  const [now] = useState(() => Date.now());
  if (cohort.isPending) return <PanelLoading label="Loading the cohort" />;
  if (cohort.isError) {
    if (cohort.error instanceof ApiError && cohort.error.status === 404)
      return (
        <Alert color="gray" title="Cohort not found">
          It may have been removed, or it belongs to another client.
        </Alert>
      );
    return <PanelError error={cohort.error} what="the cohort" onRetry={() => void cohort.refetch()} />;
  }
  const c = cohort.data;
  return (
    <Stack gap="lg" maw={860}>
      <div>
        <Anchor component={Link} to={cohortHref(clientId, c.id)} size="sm">
          ← {c.name}
        </Anchor>
        <Title order={1}>New campaign</Title>
        <Text c="dimmed">
          A flight of ads for the cohort “{c.name}” on an ad network: its days, status and ads.
        </Text>
      </div>
      {c.status === 'archived' ? (
        <Alert color="gray" title="Archived cohort">
          Restore the cohort before planning its campaigns.
        </Alert>
      ) : (
        <CampaignForm
          clientId={clientId}
          initial={{
            name: `${c.name} flight`.slice(0, CAMPAIGN_NAME_MAX),
            starts_on: day(now),
            ends_on: day(now + 30 * 86_400_000),
            status: 'draft',
            content_id: c.content_id,
          }}
          submitLabel="Create campaign"
          pending={create.isPending}
          error={create.error}
          onSubmit={(values) =>
            create.mutate(
              { cohort_id: c.id, ...values },
              { onSuccess: (made) => void navigate(campaignHref(clientId, made.id)) },
            )
          }
          cancelTo={cohortHref(clientId, c.id)}
        />
      )}
    </Stack>
  );
}

/** /campaigns/{id}: the flight, status and content, and the download of its ads. */
export function CampaignScreen() {
  const auth = useAuth();
  const { id = '' } = useParams();
  const clientId = auth.currentClient;
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  return (
    <CampaignView
      clientId={clientId}
      id={id}
      canWrite={auth.currentRole.permissions.includes('cohort.write')}
    />
  );
}

function CampaignView({ clientId, id, canWrite }: { clientId: string; id: string; canWrite: boolean }) {
  const campaign = useCampaign(clientId, id);
  const update = useUpdateCampaign(clientId, id);
  if (campaign.isPending) return <PanelLoading label="Loading the campaign" />;
  if (campaign.isError) {
    if (campaign.error instanceof ApiError && campaign.error.status === 404)
      return (
        <Stack>
          <Anchor component={Link} to={`/cohorts?client_id=${clientId}`} size="sm">
            ← Cohorts
          </Anchor>
          <Alert color="gray" title="Campaign not found">
            It may have been removed, or it belongs to another client.
          </Alert>
        </Stack>
      );
    return <PanelError error={campaign.error} what="the campaign" onRetry={() => void campaign.refetch()} />;
  }
  const c = campaign.data;
  const readOnly = !canWrite || c.status === 'ended';
  return (
    <Stack gap="lg" maw={860}>
      <div>
        <Anchor component={Link} to={cohortHref(clientId, c.cohort_id)} size="sm">
          ← {c.cohort_name}
        </Anchor>
        <Group justify="space-between" align="flex-start">
          <div>
            <Group gap="sm">
              <Title order={1}>{c.name}</Title>
              <CampaignStatusBadge status={c.status} />
              {c.live && (
                <Badge color="teal" variant="filled">
                  Live
                </Badge>
              )}
            </Group>
            <Text c="dimmed" size="sm">
              {c.starts_on} to {c.ends_on} · {c.content_name ? `Ads: ${c.content_name}` : 'No content chosen'}
            </Text>
          </div>
          <DownloadButton clientId={clientId} campaign={c} />
        </Group>
      </div>
      {c.status === 'ended' && (
        <Alert color="gray" title="Ended">
          This campaign has ended and is read-only. Plan a new campaign for another flight.
        </Alert>
      )}
      {readOnly ? (
        <Summary campaign={c} />
      ) : (
        <CampaignForm
          key={c.updated_at}
          clientId={clientId}
          initial={{
            name: c.name,
            starts_on: c.starts_on,
            ends_on: c.ends_on,
            status: c.status,
            content_id: c.content_id,
          }}
          submitLabel="Save changes"
          pending={update.isPending}
          error={update.error}
          saved={update.isSuccess}
          onSubmit={(values) => update.mutate(values)}
        />
      )}
    </Stack>
  );
}

function DownloadButton({ clientId, campaign }: { clientId: string; campaign: Campaign }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <Stack gap={4} align="flex-end">
      <Button
        leftSection={<IconDownload size={16} />}
        loading={busy}
        disabled={!campaign.download_url}
        title={campaign.download_url ? undefined : 'Choose its content first'}
        onClick={() => {
          setBusy(true);
          setError(null);
          downloadAds(clientId, campaign)
            .catch((err: unknown) => setError(err))
            .finally(() => setBusy(false));
        }}
      >
        Download ads
      </Button>
      <Text size="xs" c="dimmed">
        {campaign.download_url
          ? 'A zip of PNGs at 1080×1080, 1200×628, 728×90 and 300×250'
          : 'Choose content to download its ads'}
      </Text>
      <FormError error={error} />
    </Stack>
  );
}

function Summary({ campaign }: { campaign: Campaign }) {
  return (
    <Paper withBorder radius="md" p="md">
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Field label="First day" value={campaign.starts_on} />
        <Field label="Last day" value={campaign.ends_on} />
        <Field label="Status" value={CAMPAIGN_STATUS_LABELS[campaign.status]} />
        <Field label="Ads" value={campaign.content_name ?? 'None'} />
      </SimpleGrid>
    </Paper>
  );
}

function Field({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={500}>{value}</Text>
    </div>
  );
}

function CampaignForm({
  clientId,
  initial,
  submitLabel,
  pending,
  error,
  saved,
  onSubmit,
  cancelTo,
}: {
  clientId: string;
  initial: FormValues;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  saved?: boolean;
  onSubmit: (values: FormValues) => void;
  cancelTo?: string;
}) {
  const [values, setValues] = useState<FormValues>(initial);
  const [local, setLocal] = useState<Record<string, string>>({});
  const contents = useCampaignContentOptions(clientId);
  const server = fieldErrorsOf(error);
  const errors = { ...server, ...local };
  const set = <K extends keyof FormValues>(key: K, value: FormValues[K]) => {
    setValues((v) => ({ ...v, [key]: value }));
    setLocal((l) => ({ ...l, [key]: '' }));
  };
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const problems: Record<string, string> = {};
    if (!values.name.trim()) problems.name = 'Give the campaign a name';
    if (!values.starts_on) problems.starts_on = 'Choose the first day';
    if (!values.ends_on) problems.ends_on = 'Choose the last day';
    else if (values.starts_on && values.ends_on <= values.starts_on)
      problems.ends_on = 'The last day must be after the first day';
    if (values.status === 'active' && !values.content_id)
      problems.content_id = 'Choose the ads before it goes active';
    setLocal(problems);
    if (Object.values(problems).some(Boolean)) return;
    onSubmit({ ...values, name: values.name.trim() });
  };
  const options = (contents.data ?? []).map((c) => ({ value: c.id, label: c.label }));
  // Content picked before (archived or unpublished since) stays shown.
  if (values.content_id && !options.some((o) => o.value === values.content_id))
    options.unshift({ value: values.content_id, label: 'Current content' });
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <Paper withBorder radius="md" p="md">
          <Stack gap="md">
            <TextInput
              label="Name"
              required
              maxLength={CAMPAIGN_NAME_MAX}
              value={values.name}
              error={errors.name || undefined}
              onChange={(e) => set('name', e.currentTarget.value)}
            />
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput
                type="date"
                label="First day"
                required
                value={values.starts_on}
                error={errors.starts_on || undefined}
                onChange={(e) => set('starts_on', e.currentTarget.value)}
              />
              <TextInput
                type="date"
                label="Last day"
                required
                value={values.ends_on}
                error={errors.ends_on || undefined}
                onChange={(e) => set('ends_on', e.currentTarget.value)}
              />
            </SimpleGrid>
            <Select
              label="Ads"
              description="The content whose ads run in this flight (and are in the download)."
              placeholder={
                contents.isPending ? 'Loading content…' : options.length ? 'None' : 'No published content yet'
              }
              clearable
              data={options}
              value={values.content_id}
              onChange={(v) => set('content_id', v)}
              error={errors.content_id || (contents.isError ? 'Could not load the content' : undefined)}
            />
            <div>
              <Text size="sm" fw={500} mb={4} id="campaign-status-label">
                Status
              </Text>
              <SegmentedControl
                aria-labelledby="campaign-status-label"
                value={values.status}
                onChange={(v) => set('status', v as CampaignStatus)}
                data={CAMPAIGN_STATUSES.map((s) => ({ value: s, label: CAMPAIGN_STATUS_LABELS[s] }))}
              />
              {errors.status && (
                <Text size="sm" c="red.8" mt={4}>
                  {errors.status}
                </Text>
              )}
              {values.status === 'ended' && (
                <Text size="xs" c="dimmed" mt={4}>
                  An ended campaign is read-only.
                </Text>
              )}
            </div>
          </Stack>
        </Paper>
        <FormError error={error} />
        <Group justify="flex-end">
          {saved && !pending && (
            <Text size="sm" c="teal.8" role="status">
              Saved
            </Text>
          )}
          {cancelTo && (
            <Button variant="default" component={Link} to={cancelTo}>
              Cancel
            </Button>
          )}
          <Button type="submit" loading={pending}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
