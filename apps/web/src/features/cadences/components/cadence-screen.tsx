import { useMemo, useState } from 'react';
import type { ComponentType } from 'react';
import {
  Affix,
  Anchor,
  Avatar,
  Button,
  Card,
  Group,
  Modal,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Title,
  Transition,
} from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { Link, useParams, useSearchParams } from 'react-router';
import { CADENCE_STATUS_NEXT } from '@rally/shared/schemas/cadences';
import type { Cadence, CadenceStatusValue } from '@rally/shared/schemas/cadences';
import { SOURCE_LABELS } from '@rally/shared/schemas/integrations';
import type { SalesRep } from '@rally/shared/schemas/integrations';
import { sortSalesReps } from '@rally/shared';
import { FormError } from '../../../components/form-error.tsx';
import { MetricInfo } from '../../../components/metric-info.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { AbbreviatedNumber } from '../../../components/abbreviated-number.tsx';
import { MultiSelect } from '../../../components/multi-select.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useUnsavedChangesPrompt } from '../../../lib/unsaved-changes.tsx';
import { useChangeCadenceStatus } from '../api/change-cadence-status.ts';
import { useCadence } from '../api/get-cadence.ts';
import { useCadenceReps, useClientReps } from '../api/get-cadence-reps.ts';
import { useCadences } from '../api/get-cadences.ts';
import { useContentOptions } from '../api/get-content-options.ts';
import { useUpdateCadence } from '../api/update-cadence.ts';
import { bodyOf, comparable, draftOf, draftProblems } from './cadence-draft.ts';
import type { CadenceDraft } from './cadence-draft.ts';
import { AdsSwitch } from './ads-switch.tsx';
import { CadenceDayCard } from './cadence-day-card.tsx';
import { repName } from './cadences-screen.tsx';
import type { SourceLogoComponent } from './cadences-screen.tsx';
import { AdsBadge, CadenceStatusBadge } from './status-badge.tsx';
import { CadenceSyncState } from './sync-state.tsx';
import { ReadOnlyNote } from '../../../components/read-only-note.tsx';

/** The "Add ads to your e-mails" step (the ad-delivery feature's), given by the route. */
export type EmailAdsComponent = ComponentType<{
  clientId: string;
  cadence: { id: number; integration_id: number; source: string; name: string };
  canWrite: boolean;
}>;

/** "Run on networks" for the cadence's prospects (the ad-networks feature's panel), given by the route. */
export type CadenceNetworksComponent = ComponentType<{ clientId: string; cadenceId: number }>;

/** /cadence/{id}: one cadence, its controls, its e-mail ads step, sales reps and days. */
export function CadenceScreen({
  SourceLogo,
  EmailAds,
  Networks,
}: {
  SourceLogo: SourceLogoComponent;
  EmailAds?: EmailAdsComponent;
  Networks?: CadenceNetworksComponent;
}) {
  const auth = useAuth();
  const { id } = useParams();
  const clientId = auth.currentClient;
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  const cadenceId = Number(id);
  if (!Number.isInteger(cadenceId) || cadenceId <= 0) return <NotFound clientId={clientId} />;
  return (
    <WithIntegration
      clientId={clientId}
      cadenceId={cadenceId}
      canWrite={auth.currentRole.permissions.includes('cadence.write')}
      SourceLogo={SourceLogo}
      EmailAds={EmailAds}
      Networks={Networks}
    />
  );
}

function BackLink({ clientId }: { clientId: string }) {
  return (
    <Anchor component={Link} to={`/cadence?client_id=${clientId}`} size="sm">
      <Group gap={4}>
        <IconArrowLeft size={14} />
        Cadences
      </Group>
    </Anchor>
  );
}

function NotFound({ clientId }: { clientId: string }) {
  return (
    <Stack gap="md">
      <BackLink clientId={clientId} />
      <Paper withBorder radius="md" p="xl">
        <Text fw={600}>This cadence was not found</Text>
        <Text size="sm" c="dimmed">
          It may belong to another client, or it was removed from the sequence platform.
        </Text>
      </Paper>
    </Stack>
  );
}

type Common = {
  clientId: string;
  cadenceId: number;
  canWrite: boolean;
  SourceLogo: SourceLogoComponent;
  EmailAds?: EmailAdsComponent;
  Networks?: CadenceNetworksComponent;
};

/** The cadence call needs its integration: from the link, else from the list (a typed or old URL). */
function WithIntegration(props: Common) {
  const [params] = useSearchParams();
  const given = Number(params.get('integration_id'));
  const fromLink = Number.isInteger(given) && given > 0 ? given : null;
  const list = useCadences(props.clientId);
  const integrationId = fromLink ?? list.data?.find((c) => c.id === props.cadenceId)?.integration_id ?? null;
  if (integrationId === null) {
    if (list.isPending) return <PanelLoading label="Loading the cadence" />;
    if (list.isError)
      return <PanelError error={list.error} what="the cadence" onRetry={() => void list.refetch()} />;
    return <NotFound clientId={props.clientId} />;
  }
  return <CadenceView {...props} integrationId={integrationId} />;
}

function CadenceView({
  clientId,
  cadenceId,
  integrationId,
  canWrite,
  SourceLogo,
  EmailAds,
  Networks,
}: Common & { integrationId: number }) {
  const cadence = useCadence(clientId, cadenceId, integrationId);
  if (cadence.isPending) return <PanelLoading label="Loading the cadence" />;
  if (cadence.isError) {
    if ((cadence.error as { status?: number }).status === 404) return <NotFound clientId={clientId} />;
    return <PanelError error={cadence.error} what="the cadence" onRetry={() => void cadence.refetch()} />;
  }
  const c = cadence.data;
  return (
    <Stack gap="lg">
      <BackLink clientId={clientId} />
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="md">
        <Group gap="md" wrap="nowrap">
          <SourceLogo source={c.source} size={44} />
          <div>
            <Group gap="sm">
              <Title order={1} size="h2">
                {c.name}
              </Title>
              <CadenceStatusBadge status={c.status} />
            </Group>
            <Text size="sm" c="dimmed">
              {SOURCE_LABELS[c.source] ?? c.source}
              {c.owner ? ` · owned by ${repName({ ...c.owner, email: null })}` : ''}
            </Text>
          </div>
        </Group>
        {canWrite && <StatusControl clientId={clientId} cadence={c} />}
      </Group>
      {!canWrite && <ReadOnlyNote permission="cadence.write" />}

      <Paper withBorder radius="md" p="md">
        <Group justify="space-between" wrap="wrap" gap="md">
          {canWrite ? <AdsSwitch clientId={clientId} cadence={c} /> : <AdsBadge on={c.is_super} />}
          <CadenceSyncState clientId={clientId} cadence={c} canSync={canWrite} />
        </Group>
      </Paper>

      <SimpleGrid cols={{ base: 2, sm: 4 }} aria-label="Cadence counts">
        {(
          [
            ['Prospects', c.counts.total, 'on every day', null],
            ['Active', c.counts.active, 'still in the sequence', null],
            ['Contacted', c.counts.contacted, 'by the sequence or in the CRM', 'contacted'],
            ['Superprospects', c.counts.super, '≥1 click or ≥15 impressions', 'superprospects'],
          ] as const
        ).map(([label, value, hint, term]) => (
          <Card key={label} withBorder radius="md" padding="sm">
            <Group gap={4} wrap="nowrap">
              <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                {label}
              </Text>
              {term && <MetricInfo term={term} label={label} />}
            </Group>
            <Text size="xl" fw={700}>
              <AbbreviatedNumber value={value} />
            </Text>
            <Text size="xs" c="dimmed">
              {hint}
            </Text>
          </Card>
        ))}
      </SimpleGrid>

      {EmailAds && <EmailAds clientId={clientId} cadence={c} canWrite={canWrite} />}
      {Networks && <Networks clientId={clientId} cadenceId={c.id} />}

      <CadenceEditor clientId={clientId} cadence={c} canWrite={canWrite} />
    </Stack>
  );
}

const STATUS_ACTIONS: Record<CadenceStatusValue, string> = {
  draft: 'Back to draft',
  active: 'Activate',
  paused: 'Pause',
  finished: 'Finish',
};

/** The moves the status allows (draft → active ⇄ paused → finished); finishing asks first. */
function StatusControl({ clientId, cadence }: { clientId: string; cadence: Cadence }) {
  const change = useChangeCadenceStatus(clientId);
  const [confirmFinish, setConfirmFinish] = useState(false);
  const next = CADENCE_STATUS_NEXT[cadence.status];
  if (next.length === 0)
    return (
      <Text size="sm" c="dimmed">
        Finished cadences stay as they are.
      </Text>
    );
  const go = (status: CadenceStatusValue) =>
    change.mutate({ clientId, id: cadence.id, integrationId: cadence.integration_id, status });
  return (
    <Group gap="xs">
      {next.map((s) => (
        <Button
          key={s}
          size="sm"
          variant={s === 'finished' ? 'default' : 'filled'}
          color={s === 'paused' ? 'yellow' : undefined}
          loading={change.isPending && change.variables?.status === s}
          disabled={change.isPending}
          onClick={() => (s === 'finished' ? setConfirmFinish(true) : go(s))}
        >
          {s === 'active' && cadence.status === 'paused' ? 'Resume' : STATUS_ACTIONS[s]}
        </Button>
      ))}
      <Modal opened={confirmFinish} onClose={() => setConfirmFinish(false)} title="Finish this cadence?">
        <Stack>
          <Text size="sm">
            A finished cadence shows no more ads and cannot be started again. Its prospects and superprospects
            stay.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirmFinish(false)}>
              Keep it
            </Button>
            <Button
              color="red"
              onClick={() => {
                setConfirmFinish(false);
                go('finished');
              }}
            >
              Finish cadence
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Group>
  );
}

/** Sales reps and days: edited together and saved with one click. */
function CadenceEditor({
  clientId,
  cadence,
  canWrite,
}: {
  clientId: string;
  cadence: Cadence;
  canWrite: boolean;
}) {
  const [draft, setDraft] = useState<CadenceDraft | null>(null);
  const [showProblems, setShowProblems] = useState(false);
  const content = useContentOptions(clientId);
  const save = useUpdateCadence(clientId, { toast: false });
  const stored = useMemo(() => draftOf(cadence), [cadence]);
  const current = draft ?? stored;
  const dirty = draft !== null && comparable(draft) !== comparable(stored);
  const problems = draftProblems(current);
  const dayNumbers = cadence.days.map((d) => d.day_number);
  const edit = canWrite ? (next: CadenceDraft) => setDraft(next) : undefined;
  const leavePrompt = useUnsavedChangesPrompt(dirty, 'the sales reps or days');

  const submit = () => {
    if (!draft) return;
    if (problems.size) {
      setShowProblems(true);
      return;
    }
    save.mutate(
      { id: cadence.id, integrationId: cadence.integration_id, body: bodyOf(draft) },
      {
        onSuccess: () => {
          setDraft(null);
          setShowProblems(false);
        },
      },
    );
  };

  return (
    <Stack gap="lg">
      {leavePrompt}
      <RepsSection
        clientId={clientId}
        cadence={cadence}
        selected={current.selected_sdrs}
        onChange={edit && ((ids) => edit({ ...current, selected_sdrs: ids }))}
      />
      <Stack gap="sm">
        <div>
          <Title order={2} size="h4">
            Days
          </Title>
          <Text size="sm" c="dimmed">
            Each day shows its content to the prospects on it; rules move them on when they engage.
          </Text>
        </div>
        {content.isError && (
          <PanelError error={content.error} what="your content" onRetry={() => void content.refetch()} />
        )}
        {cadence.days.length === 0 ? (
          <Paper withBorder radius="md" p="lg">
            <Text size="sm" c="dimmed">
              This cadence has no days yet. They appear once its steps or prospects are synced.
            </Text>
          </Paper>
        ) : (
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            {cadence.days.map((day) => (
              <CadenceDayCard
                key={day.day_number}
                day={day}
                dayNumbers={dayNumbers}
                contentDays={current.days[day.day_number] ?? []}
                contentOptions={content.data ?? (content.isError ? [] : null)}
                onChange={
                  edit && ((next) => edit({ ...current, days: { ...current.days, [day.day_number]: next } }))
                }
                problems={showProblems ? problems : new Map()}
              />
            ))}
          </SimpleGrid>
        )}
      </Stack>
      {/* Room so the save bar never covers the last day. */}
      {canWrite && <div style={{ height: 72 }} />}
      <Affix position={{ bottom: 16, left: 0, right: 0 }} zIndex={150}>
        <Transition mounted={dirty || save.isError} transition="slide-up">
          {(styles) => (
            <Paper
              style={{ ...styles, maxWidth: 760, margin: '0 auto' }}
              shadow="lg"
              withBorder
              radius="md"
              p="sm"
              role="region"
              aria-label="Unsaved changes"
            >
              <Stack gap="xs">
                {save.isError && <FormError error={save.error} />}
                {showProblems && problems.size > 0 && (
                  <Text size="sm" c="red">
                    Some rules or content are incomplete; see the days marked in red.
                  </Text>
                )}
                <Group justify="space-between">
                  <Text size="sm">You have unsaved changes to the sales reps or days.</Text>
                  <Group gap="xs">
                    <Button
                      variant="default"
                      disabled={save.isPending}
                      onClick={() => {
                        setDraft(null);
                        setShowProblems(false);
                        save.reset();
                      }}
                    >
                      Discard
                    </Button>
                    <Button loading={save.isPending} onClick={submit} disabled={!dirty}>
                      Save changes
                    </Button>
                  </Group>
                </Group>
              </Stack>
            </Paper>
          )}
        </Transition>
      </Affix>
    </Stack>
  );
}

/** selected_sdrs: the reps whose prospects see this cadence's ads; none chosen means all of them. */
function RepsSection({
  clientId,
  cadence,
  selected,
  onChange,
}: {
  clientId: string;
  cadence: Cadence;
  selected: string[];
  onChange?: (ids: string[]) => void;
}) {
  const reps = useCadenceReps(clientId, cadence.id, cadence.integration_id);
  const all = useClientReps(clientId);
  // A rep chosen earlier may have no prospects here any more; keep them listed so they can be removed.
  const byId = new Map<string, SalesRep>();
  for (const r of all.data ?? []) byId.set(r.id, r);
  for (const r of reps.data ?? []) byId.set(r.id, r);
  const options = sortSalesReps([
    ...(reps.data ?? []),
    ...selected.flatMap((id) => (reps.data?.some((r) => r.id === id) ? [] : (byId.get(id) ?? []))),
  ]);

  let body;
  if (reps.isPending) body = <PanelLoading label="Loading sales reps" />;
  else if (reps.isError)
    body = <PanelError error={reps.error} what="sales reps" onRetry={() => void reps.refetch()} />;
  else if (!onChange) {
    const chosen = sortSalesReps(selected.flatMap((id) => byId.get(id) ?? []));
    body =
      selected.length === 0 ? (
        <Text size="sm">Every rep's prospects ({options.length} reps)</Text>
      ) : (
        <Group gap="md">
          {chosen.map((r) => (
            <Group key={r.id} gap={6}>
              <Avatar src={r.photo_url} name={repName(r)} color="initials" size={24} />
              <Text size="sm">{repName(r)}</Text>
            </Group>
          ))}
        </Group>
      );
  } else
    body = (
      <MultiSelect
        label="Sales reps"
        description="Only these reps' prospects see ads. Leave empty for every rep."
        data={options.map((r) => ({ value: r.id, label: repName(r) }))}
        value={selected}
        onChange={onChange}
        clearable
        renderOption={({ option }) => {
          const r = byId.get(option.value);
          return (
            <Group gap="sm" wrap="nowrap">
              <Avatar src={r?.photo_url} name={option.label} color="initials" size={24} />
              <div>
                <Text size="sm">{option.label}</Text>
                {r && (
                  <Text size="xs" c="dimmed">
                    {r.active_targets_count} active · {r.super_targets_count} super
                  </Text>
                )}
              </div>
            </Group>
          );
        }}
      />
    );

  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Sales reps">
      <Stack gap="xs">
        {!onChange && (
          <Title order={2} size="h4">
            Sales reps
          </Title>
        )}
        {body}
      </Stack>
    </Paper>
  );
}
