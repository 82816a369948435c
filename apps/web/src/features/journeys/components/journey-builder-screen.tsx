import {
  ActionIcon,
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Paper,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconArrowDown, IconArrowUp, IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  DEFAULT_JOURNEY_STAGES,
  JOURNEY_COUNT_RULES,
  JOURNEY_NETWORK_RULES,
  JOURNEY_STAGES_MAX,
} from '@rally/shared/schemas/journeys';
import type { Journey, JourneyStageInput } from '@rally/shared/schemas/journeys';
import { MultiSelect } from '../../../components/multi-select.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth/store.ts';
import { useCohortHead, useCohortJourney } from '../api/get-journey.ts';
import { useCrmStageOptions, useStageContent } from '../api/get-options.ts';
import type { ContentOption } from '../api/get-options.ts';
import { useSaveJourney } from '../api/save-journey.ts';
import { RulesEditor } from './journey-rules-editor.tsx';
import type { DraftRule } from './journey-rules-editor.tsx';

type DraftStage = {
  key: string;
  id?: string;
  name: string;
  content_ids: string[];
  rules: DraftRule[];
  match: 'any' | 'all';
  accounts: number;
};

let keys = 0;
const nextKey = () => `s${++keys}`;

function fromJourney(j: Journey): DraftStage[] {
  return j.stages.map((s) => ({
    key: nextKey(),
    id: s.id,
    name: s.name,
    content_ids: s.content_ids,
    rules: s.rules.map((r) => ({
      kind: r.kind,
      value: r.value,
      crm_stage_id: r.crm_stage_id,
      days: r.days ?? null,
    })),
    match: s.match,
    accounts: s.accounts,
  }));
}

const defaults = (): DraftStage[] =>
  DEFAULT_JOURNEY_STAGES.map((name) => ({
    key: nextKey(),
    name,
    content_ids: [],
    rules: [],
    match: 'any',
    accounts: 0,
  }));

function toInput(stages: DraftStage[]): JourneyStageInput[] {
  return stages.map((s, i) => ({
    ...(s.id ? { id: s.id } : {}),
    name: s.name,
    content_ids: s.content_ids,
    rules:
      i === 0
        ? []
        : s.rules.map((r) => ({
            kind: r.kind,
            ...(JOURNEY_COUNT_RULES.includes(r.kind) ? { value: r.value } : {}),
            ...(r.kind === 'crm_stage_reached' ? { crm_stage_id: r.crm_stage_id } : {}),
            ...(JOURNEY_NETWORK_RULES.includes(r.kind) ? { days: r.days } : {}),
          })),
    match: s.match,
  }));
}

/** /cohorts/{id}/journey: build the cohort's journey — stages (rename, reorder), their ads and rules. */
export function JourneyBuilderScreen() {
  const auth = useAuth();
  const { id = '' } = useParams();
  const clientId = auth.currentClient;
  if (!clientId) return <ScreenLoader />;
  return <Builder clientId={clientId} cohortId={id} />;
}

function Builder({ clientId, cohortId }: { clientId: string; cohortId: string }) {
  const cohort = useCohortHead(clientId, cohortId);
  const journey = useCohortJourney(clientId, cohortId);
  const back = (
    <Anchor component={Link} to={`/cohorts/${cohortId}?client_id=${clientId}`} size="sm">
      ← Cohort
    </Anchor>
  );
  if (cohort.isPending || journey.isPending) return <PanelLoading label="Loading the journey" />;
  if (cohort.isError) {
    if (cohort.error instanceof ApiError && cohort.error.status === 404)
      return (
        <Stack>
          {back}
          <Alert color="gray" title="Cohort not found">
            It may have been removed, or it belongs to another client.
          </Alert>
        </Stack>
      );
    return <PanelError error={cohort.error} what="the cohort" onRetry={() => void cohort.refetch()} />;
  }
  if (journey.isError)
    return <PanelError error={journey.error} what="the journey" onRetry={() => void journey.refetch()} />;
  return (
    <Stack gap="lg">
      <div>
        {back}
        <Title order={1}>{journey.data ? 'Journey' : 'New journey'}</Title>
        <Text c="dimmed" size="sm">
          {cohort.data.name} · {cohort.data.accounts} accounts. Each account starts in the first stage and
          moves to the furthest later stage whose rules it meets; its members see that stage&apos;s ads.
        </Text>
      </div>
      {cohort.data.status === 'archived' ? (
        <Alert color="gray" title="Archived">
          This cohort is read-only. Restore it to change its journey.
        </Alert>
      ) : (
        <JourneyForm
          key={journey.data?.id ?? 'new'}
          clientId={clientId}
          cohortId={cohortId}
          cohortName={cohort.data.name}
          journey={journey.data}
        />
      )}
    </Stack>
  );
}

function JourneyForm({
  clientId,
  cohortId,
  cohortName,
  journey,
}: {
  clientId: string;
  cohortId: string;
  cohortName: string;
  journey: Journey | null;
}) {
  const navigate = useNavigate();
  const [name, setName] = useState(journey?.name ?? `${cohortName} journey`);
  const [stages, setStages] = useState<DraftStage[]>(() => (journey ? fromJourney(journey) : defaults()));
  const [error, setError] = useState<string | null>(null);
  const content = useStageContent(clientId);
  const crm = useCrmStageOptions(clientId);
  const save = useSaveJourney(clientId);

  const update = (key: string, patch: Partial<DraftStage>) =>
    setStages((list) => list.map((s) => (s.key === key ? { ...s, ...patch } : s)));
  const move = (index: number, by: -1 | 1) =>
    setStages((list) => {
      const next = [...list];
      const [item] = next.splice(index, 1);
      if (item) next.splice(index + by, 0, item);
      return next;
    });

  const submit = () => {
    setError(null);
    save.mutate(
      { id: journey?.id ?? null, cohortId, name, stages: toInput(stages) },
      {
        onSuccess: (saved) => {
          notifications.show({ color: 'teal', message: `Journey “${saved.name}” saved.` });
          void navigate(`/cohorts/${cohortId}/journey/view?client_id=${clientId}`);
        },
        onError: (err) => {
          const data =
            err instanceof ApiError ? (err.data as { errors?: { field: string; message: string }[] }) : null;
          setError(
            data?.errors?.length
              ? data.errors.map((e) => `${e.field.replace(/^body\./, '')}: ${e.message}`).join('; ')
              : err.message,
          );
        },
      },
    );
  };

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <Stack gap="md">
        <TextInput
          label="Journey name"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          required
          maw={480}
        />
        <Title order={2} size="h4">
          Stages
        </Title>
        <Stack gap="sm" component="ol" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {stages.map((s, i) => (
            <StageCard
              key={s.key}
              stage={s}
              index={i}
              count={stages.length}
              content={content.data ?? []}
              contentLoading={content.isPending}
              crmStages={crm.data ?? []}
              onChange={(patch) => update(s.key, patch)}
              onMove={(by) => move(i, by)}
              onRemove={() => setStages((list) => list.filter((x) => x.key !== s.key))}
            />
          ))}
        </Stack>
        <Group>
          <Button
            variant="default"
            leftSection={<IconPlus size={16} />}
            disabled={stages.length >= JOURNEY_STAGES_MAX}
            onClick={() =>
              setStages((list) => [
                ...list,
                {
                  key: nextKey(),
                  name: `Stage ${list.length + 1}`,
                  content_ids: [],
                  rules: [],
                  match: 'any',
                  accounts: 0,
                },
              ])
            }
          >
            Add a stage
          </Button>
        </Group>
        {error && (
          <Alert color="red" role="alert" title="The journey was not saved">
            {error}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button component={Link} to={`/cohorts/${cohortId}?client_id=${clientId}`} variant="default">
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending}>
            Save journey
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function StageCard({
  stage,
  index,
  count,
  content,
  contentLoading,
  crmStages,
  onChange,
  onMove,
  onRemove,
}: {
  stage: DraftStage;
  index: number;
  count: number;
  content: ContentOption[];
  contentLoading: boolean;
  crmStages: { value: string; label: string }[];
  onChange: (patch: Partial<DraftStage>) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  const label = stage.name.trim() || `Stage ${index + 1}`;
  const chosen = stage.content_ids
    .map((id) => content.find((c) => c.value === id))
    .filter((c): c is ContentOption => Boolean(c));
  return (
    <Paper component="li" withBorder radius="md" p="md" aria-label={`Stage ${index + 1}: ${label}`}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-end" wrap="nowrap">
          <Group gap="sm" align="flex-end" wrap="nowrap" style={{ flex: 1 }}>
            <Badge variant="light" size="lg" circle aria-hidden>
              {index + 1}
            </Badge>
            <TextInput
              label={`Stage ${index + 1} name`}
              value={stage.name}
              onChange={(e) => onChange({ name: e.currentTarget.value })}
              required
              style={{ flex: 1 }}
              maw={360}
            />
            {stage.accounts > 0 && (
              <Text size="sm" c="dimmed">
                {stage.accounts} accounts
              </Text>
            )}
          </Group>
          <Group gap={4} wrap="nowrap">
            <ActionIcon
              variant="default"
              aria-label={`Move ${label} up`}
              disabled={index === 0}
              onClick={() => onMove(-1)}
            >
              <IconArrowUp size={16} />
            </ActionIcon>
            <ActionIcon
              variant="default"
              aria-label={`Move ${label} down`}
              disabled={index === count - 1}
              onClick={() => onMove(1)}
            >
              <IconArrowDown size={16} />
            </ActionIcon>
            <ActionIcon
              variant="default"
              color="red"
              aria-label={`Remove ${label}`}
              disabled={count <= 2 || stage.accounts > 0}
              title={stage.accounts > 0 ? 'A stage holding accounts cannot be removed' : undefined}
              onClick={onRemove}
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Group>
        </Group>
        <MultiSelect
          label={`Ads of ${label}`}
          description="Members of accounts in this stage see the first of these."
          data={content}
          value={stage.content_ids}
          disabled={contentLoading}
          onChange={(ids) => onChange({ content_ids: ids.slice(0, 5) })}
          maw={520}
        />
        {chosen.length > 0 && (
          <Group gap="sm" role="group" aria-label={`Ad previews of ${label}`}>
            {chosen.map((c) =>
              c.preview ? (
                <img
                  key={c.value}
                  src={c.preview}
                  alt={`Ad preview: ${c.label}`}
                  width={150}
                  height={125}
                  style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 4 }}
                />
              ) : (
                <Text key={c.value} size="xs" c="dimmed">
                  {c.label} (no preview)
                </Text>
              ),
            )}
          </Group>
        )}
        {index === 0 ? (
          <Text size="sm" c="dimmed">
            Every account starts here.
          </Text>
        ) : (
          <RulesEditor label={label} stage={stage} crmStages={crmStages} onChange={onChange} />
        )}
      </Stack>
    </Paper>
  );
}
