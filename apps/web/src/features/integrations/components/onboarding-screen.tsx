import { useEffect } from 'react';
import type { ReactNode } from 'react';
import {
  Alert,
  Button,
  Card,
  Group,
  Paper,
  SimpleGrid,
  Stack,
  Stepper,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { IconAlertTriangle, IconArrowRight, IconCircleCheck } from '@tabler/icons-react';
import { useNavigate, useSearchParams } from 'react-router';
import { SEQUENCE_SOURCES, SOURCE_LABELS } from '@rally/shared/schemas/integrations';
import type { SequenceSourceName } from '@rally/shared/schemas/integrations';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { FormError } from '../../../components/form-error.tsx';
import { refreshIntegrations, useAuth } from '../../../lib/auth/store.ts';
import { useConnect, useIntegrations } from '../api/integrations.ts';
import { NOT_AVAILABLE_HERE, canConnectHere, useRuntimeConfig } from '../../../lib/runtime-config.ts';
import { ApiKeyForm } from './api-key-form.tsx';
import { CsvImportStep, CsvMappingStep, CsvUploadStep } from './csv-steps.tsx';
import { RepPicker } from './rep-picker.tsx';
import { SourceLogo } from './source-logo.tsx';
import { SyncProgress } from './sync-progress.tsx';

type Source = SequenceSourceName | 'fileforce';
type StepId = 'source' | 'connect' | 'map' | 'reps' | 'sync' | 'done';

const SEQUENCE_STEPS: StepId[] = ['source', 'connect', 'reps', 'sync', 'done'];
const FILE_STEPS: StepId[] = ['source', 'connect', 'map', 'sync', 'reps', 'done'];

const BLURB: Record<Source, string> = {
  salesloft: 'Sign in to Salesloft and allow Rally to read cadences, people and your team.',
  outreach: 'Sign in to Outreach and allow Rally to read sequences, prospects and users.',
  apolloio: 'Paste a master API key from Apollo.',
  fileforce: 'No sequence platform? Upload a CSV of prospects, their cadence, day and sales rep.',
};

const isSource = (v: string | null): v is Source =>
  v === 'fileforce' || (SEQUENCE_SOURCES as readonly string[]).includes(v ?? '');

/**
 * /onboarding: choose a source, connect it (or upload a file and map its columns), choose the sales
 * reps to run ads for, watch the first sync, then on to the feed. Where the user is lives in the
 * query (`source`, `step`, `import_id`) so the vendor's OAuth redirect and a reload land back here.
 */
export function OnboardingScreen({
  nextSteps,
  openAction,
  checklist,
}: {
  /** What to do after setup, shown on the last step (features meet in app/routes). */
  nextSteps?: (clientId: string) => ReactNode;
  /**
   * The last step's main button: opening what the setup brought in (the new cadence), given the
   * source and a way to go to a path once the app knows of the connection. The feed without it.
   */
  openAction?: (clientId: string, source: string | null, open: (path: string) => void) => ReactNode;
  /** Beside the steps: the setup checklist, so a new account sees what else blocks results. */
  checklist?: (clientId: string) => ReactNode;
} = {}) {
  const auth = useAuth();
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const clientId = auth.currentClient;
  const connected = params.get('connected');
  const connectError = params.get('connect_error');
  const rawSource = params.get('source') ?? connected;
  const source = isSource(rawSource) ? rawSource : null;
  const steps = source === 'fileforce' ? FILE_STEPS : SEQUENCE_STEPS;
  const requested = params.get('step') as StepId | null;
  const step: StepId = !source
    ? 'source'
    : requested && steps.includes(requested)
      ? requested
      : connected
        ? 'reps'
        : 'connect';

  const go = (patch: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) {
      if (v === null) next.delete(k);
      else next.set(k, v);
    }
    next.delete('connect_error');
    setParams(next);
  };
  const nextStep = (after: StepId) => {
    const i = steps.indexOf(after);
    go({ step: steps[i + 1] ?? 'done' });
  };

  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  const canWrite = auth.currentRole.permissions.includes('integration.write');
  const clientName = auth.clients.find((c) => c.id === clientId)?.name ?? 'this client';

  const open = async (path: string) => {
    await refreshIntegrations().catch(() => undefined);
    navigate(path);
  };

  return (
    <Stack gap="lg" maw={880} mx="auto" w="100%">
      <div>
        <Title order={1}>Set up {clientName}</Title>
        <Text c="dimmed">
          Rally reads your cadences and prospects from where your team already works, then shows each prospect
          ads featuring their own sales rep.
        </Text>
      </div>
      {!canWrite ? (
        <Alert color="gray" icon={<IconAlertTriangle size={18} />} title="Ask an owner to connect a source">
          Your role ({auth.currentRole.name}) cannot connect integrations. An owner or admin of {clientName}{' '}
          can connect a sequence platform or upload a file.
        </Alert>
      ) : (
        <>
          <Stepper active={steps.indexOf(step)} size="sm" allowNextStepsSelect={false} iconSize={30}>
            {steps.map((s) => (
              <Stepper.Step key={s} label={stepLabel(s, source)} />
            ))}
          </Stepper>
          {connectError && (
            <Alert color="red" icon={<IconAlertTriangle size={18} />} title="The connection did not complete">
              {connectError}
            </Alert>
          )}
          <Paper withBorder radius="md" p={{ base: 'md', sm: 'xl' }}>
            {step === 'source' && (
              <ChooseSource onChoose={(s) => go({ source: s, step: 'connect', connected: null })} />
            )}
            {step === 'connect' && source && source !== 'fileforce' && (
              <ConnectStep
                source={source}
                clientId={clientId}
                onBack={() => go({ source: null, step: null })}
                onConnected={() => go({ connected: source, step: 'reps' })}
              />
            )}
            {step === 'connect' && source === 'fileforce' && (
              <CsvUploadStep
                clientId={clientId}
                kind={params.get('kind') === 'revenue' ? 'revenue' : 'targets'}
                onKindChange={(k) => go({ kind: k === 'revenue' ? k : null })}
                onBack={() => go({ source: null, step: null })}
                onUploaded={(importId) => go({ import_id: importId, step: 'map' })}
              />
            )}
            {step === 'map' && (
              <CsvMappingStep
                clientId={clientId}
                importId={params.get('import_id')}
                onBack={() => go({ step: 'connect' })}
                onStarted={() => go({ step: 'sync' })}
              />
            )}
            {step === 'sync' && source === 'fileforce' && (
              <CsvImportStep
                clientId={clientId}
                importId={params.get('import_id')}
                onDone={(kind) => (kind === 'revenue' ? go({ step: 'done' }) : nextStep('sync'))}
              />
            )}
            {step === 'sync' && source && source !== 'fileforce' && (
              <FirstSyncStep clientId={clientId} source={source} onDone={() => nextStep('sync')} />
            )}
            {step === 'reps' && (
              <RepPicker
                clientId={clientId}
                waitForSync={source !== 'fileforce'}
                header={
                  source && source !== 'fileforce' ? (
                    <SourceSyncBar clientId={clientId} source={source} />
                  ) : null
                }
                onSaved={() => nextStep('reps')}
              />
            )}
            {step === 'done' && (
              <DoneStep
                onFinish={() => void open(`/feed?client_id=${clientId}`)}
                primary={openAction?.(clientId, source, (path) => void open(path))}
                next={nextSteps?.(clientId)}
              />
            )}
          </Paper>
        </>
      )}
      {step !== 'done' && checklist?.(clientId)}
    </Stack>
  );
}

function stepLabel(step: StepId, source: Source | null): string {
  switch (step) {
    case 'source':
      return 'Choose a source';
    case 'connect':
      return source === 'fileforce' ? 'Upload' : 'Connect';
    case 'map':
      return 'Map columns';
    case 'reps':
      return 'Sales reps';
    case 'sync':
      return source === 'fileforce' ? 'Import' : 'First sync';
    case 'done':
      return 'Done';
  }
}

function ChooseSource({ onChoose }: { onChoose: (s: Source) => void }) {
  // Issue 42 item 3: a platform this installation cannot connect is not offered.
  const config = useRuntimeConfig();
  const sources: Source[] = [...SEQUENCE_SOURCES, 'fileforce'].filter((s): s is Source =>
    canConnectHere(config, s),
  );
  return (
    <Stack>
      <Title order={2} size="h3">
        Where do your cadences live?
      </Title>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        {sources.map((s) => (
          <Card
            key={s}
            withBorder
            radius="md"
            padding="lg"
            component="button"
            type="button"
            onClick={() => onChoose(s)}
            style={{ textAlign: 'left', cursor: 'pointer' }}
          >
            <Group wrap="nowrap" align="flex-start">
              <SourceLogo source={s} />
              <div>
                {/* The card is named by its content, so the name holds the visible title (WCAG 2.5.3). */}
                <Text fw={600}>
                  {s === 'fileforce' ? (
                    'Upload a CSV file'
                  ) : (
                    <>
                      <VisuallyHidden>Connect </VisuallyHidden>
                      {SOURCE_LABELS[s]}
                    </>
                  )}
                </Text>
                <Text size="sm" c="dimmed">
                  {BLURB[s]}
                </Text>
              </div>
            </Group>
          </Card>
        ))}
      </SimpleGrid>
    </Stack>
  );
}

function ConnectStep({
  source,
  clientId,
  onBack,
  onConnected,
}: {
  source: SequenceSourceName;
  clientId: string;
  onBack: () => void;
  onConnected: () => void;
}) {
  const connect = useConnect(clientId);
  const label = SOURCE_LABELS[source];
  const available = canConnectHere(useRuntimeConfig(), source);
  return (
    <Stack>
      <Group>
        <SourceLogo source={source} />
        <Title order={2} size="h3">
          Connect {label}
        </Title>
      </Group>
      {source === 'apolloio' ? (
        <ApiKeyForm clientId={clientId} returnTo="onboarding" onDone={onConnected} />
      ) : !available ? (
        <Alert
          color="gray"
          icon={<IconAlertTriangle size={18} />}
          title={`${label} cannot be connected here`}
        >
          {NOT_AVAILABLE_HERE}
        </Alert>
      ) : (
        <>
          <Text size="sm">
            {BLURB[source]} You will come back here when {label} has asked you to allow access. Rally only
            reads; it never changes anything in {label}.
          </Text>
          {connect.isError && <FormError error={connect.error} />}
          <Group>
            <Button
              rightSection={<IconArrowRight size={16} />}
              loading={connect.isPending}
              onClick={() => connect.mutate({ source, returnTo: 'onboarding' })}
            >
              Continue to {label}
            </Button>
          </Group>
        </>
      )}
      <Group>
        <Button variant="subtle" onClick={onBack}>
          Choose another source
        </Button>
      </Group>
    </Stack>
  );
}

/** The source's sync bar above the rep picker while reps are still arriving. */
function SourceSyncBar({ clientId, source }: { clientId: string; source: SequenceSourceName }) {
  const integrations = useIntegrations(clientId);
  const integration = integrations.data?.find((i) => i.source === source);
  if (!integration?.is_syncing) return null;
  return <SyncProgress integration={integration} />;
}

function FirstSyncStep({
  clientId,
  source,
  onDone,
}: {
  clientId: string;
  source: SequenceSourceName;
  onDone: () => void;
}) {
  const integrations = useIntegrations(clientId);
  const integration = integrations.data?.find((i) => i.source === source);
  const finished = integration && !integration.is_syncing && integration.last_synced_at !== null;
  const failed = integration && !integration.is_syncing && !integration.is_active;
  useEffect(() => {
    if (finished) onDone();
  }, [finished, onDone]);
  return (
    <Stack>
      <Title order={2} size="h3">
        Reading your cadences from {SOURCE_LABELS[source]}
      </Title>
      <Text size="sm" c="dimmed">
        The first sync reads every sales rep, cadence and prospect. Large teams take a few minutes; you can
        leave this page and come back.
      </Text>
      {integration ? (
        failed ? (
          <Alert color="red" icon={<IconAlertTriangle size={18} />} title="The sync stopped">
            {integration.last_error ?? 'The connection is no longer active.'}
          </Alert>
        ) : (
          <SyncProgress integration={integration} />
        )
      ) : (
        <Text size="sm">Waiting for the connection…</Text>
      )}
    </Stack>
  );
}

function DoneStep({
  onFinish,
  primary,
  next,
}: {
  onFinish: () => void;
  /** Opens what was brought in; the feed button steps back to second place beside it. */
  primary?: ReactNode;
  next?: ReactNode;
}) {
  return (
    <Stack align="center" gap="sm" py="lg">
      <IconCircleCheck size={48} color="var(--mantine-color-teal-6)" />
      <Title order={2} size="h3">
        You are all set
      </Title>
      <Text c="dimmed" ta="center" maw={520}>
        Your cadences and prospects are in Rally. Next, switch ads on for a cadence and watch engaged
        prospects turn into superprospects in the feed.
      </Text>
      {next}
      <Group justify="center">
        {primary}
        <Button
          size="md"
          variant={primary ? 'default' : 'filled'}
          rightSection={<IconArrowRight size={16} />}
          onClick={onFinish}
        >
          Go to the feed
        </Button>
      </Group>
    </Stack>
  );
}
