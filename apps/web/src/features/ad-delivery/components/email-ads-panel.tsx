import { useEffect, useRef } from 'react';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Image,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { IconAlertTriangle, IconMailForward } from '@tabler/icons-react';
import { Link, useLocation } from 'react-router';
import { relativeTime } from '@rally/shared/utils/dates';
import { PLATFORM_NAMES } from '@rally/shared/utils/email-snippet';
import { SOURCE_LABELS } from '@rally/shared/schemas/integrations';
import type { EmailSnippetStatus } from '@rally/shared/schemas/email-ads';
import { FormError } from '../../../components/form-error.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useAdFields } from '../api/get-ad-fields.ts';
import { useEmailSnippet, useSendSnippetTest } from '../api/email-snippet.ts';
import { HOW_TO, fileSnippet, isAdFieldSource, platformSnippet } from './snippet-howto.ts';
import { SnippetBlock } from './snippet-block.tsx';
import { TargetsExportButton } from './targets-export-button.tsx';
import { formatCount, formatDayTime } from '@rally/shared';

/** What the panel needs of the cadence (the cadences feature passes it; features meet in app/routes). */
export type EmailAdsCadence = { id: number; integration_id: number; source: string; name: string };

/** The time a status or test line shows: the date and time, local. */
const at = (iso: string) => formatDayTime(iso);

/**
 * "Add ads to your e-mails" on a cadence's page (issue 38, decision 0020), anchored at #email-ads:
 * the snippet for the platform that sends the cadence's e-mails in its merge-field syntax, how to
 * paste it, a preview of the e-mail ad, a test e-mail to the user, whether a prospect's mail client
 * has shown it yet, and the targets with their ad URLs as CSV.
 */
export function EmailAdsPanel({
  clientId,
  cadence,
  canWrite,
}: {
  clientId: string;
  cadence: EmailAdsCadence;
  canWrite: boolean;
}) {
  const status = useEmailSnippet(clientId, cadence.id);
  const ref = useRef<HTMLElement>(null);
  const { hash } = useLocation();
  const loaded = status.isSuccess;
  // A link to the step (onboarding, the connection page) lands on it once its height is known.
  useEffect(() => {
    if (hash === '#email-ads' && loaded) ref.current?.scrollIntoView({ block: 'start' });
  }, [hash, loaded]);

  return (
    <Paper
      ref={ref}
      withBorder
      radius="md"
      p={{ base: 'sm', xs: 'md' }}
      component="section"
      id="email-ads"
      aria-labelledby="email-ads-title"
    >
      <Stack gap="md">
        <Stack gap={4}>
          <Group gap="sm" wrap="wrap">
            <Title order={2} size="h4" id="email-ads-title">
              Add ads to your e-mails
            </Title>
            {status.data && <InstalledBadge installedAt={status.data.installed_at} />}
          </Group>
          <Text size="sm" c="dimmed" maw={640}>
            Put this snippet in the cadence&apos;s e-mail templates: each prospect then sees their own ad in
            the e-mail, and opening or clicking it counts like any other ad.
          </Text>
          {status.data && <InstalledLine installedAt={status.data.installed_at} />}
        </Stack>
        {status.isPending ? (
          <PanelLoading label="Loading the e-mail step" />
        ) : status.isError ? (
          <PanelError error={status.error} what="the e-mail step" onRetry={() => void status.refetch()} />
        ) : (
          <Step clientId={clientId} cadence={cadence} status={status.data} canWrite={canWrite} />
        )}
      </Stack>
    </Paper>
  );
}

function InstalledBadge({ installedAt }: { installedAt: string | null }) {
  return installedAt ? (
    <Badge color="teal" variant="light">
      Installed
    </Badge>
  ) : (
    <Badge color="gray" variant="light">
      Not installed yet
    </Badge>
  );
}

function InstalledLine({ installedAt }: { installedAt: string | null }) {
  return (
    <Text size="sm" fw={installedAt ? 600 : undefined} c={installedAt ? 'teal.9' : 'dimmed'} role="status">
      {installedAt
        ? `Installed — first impression at ${at(installedAt)}`
        : 'Turns to “Installed” when a prospect’s mail client first shows the e-mail ad. Test e-mails do not count.'}
    </Text>
  );
}

function Step({
  clientId,
  cadence,
  status,
  canWrite,
}: {
  clientId: string;
  cadence: EmailAdsCadence;
  status: EmailSnippetStatus;
  canWrite: boolean;
}) {
  const auth = useAuth();
  const canExport = Boolean(auth.currentRole?.permissions.includes('reports.read'));
  return (
    <Stack gap="md">
      {!status.ads_on && (
        <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />} title="Ads are off">
          This cadence is not active with ads on, so its e-mails would show an empty image. Switch ads on
          above before you send the e-mails.
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg" verticalSpacing="lg">
        <SnippetColumn clientId={clientId} cadence={cadence} />
        <Stack gap="md">
          <Preview path={status.preview_path} />
          <TestEmail clientId={clientId} cadence={cadence} status={status} canWrite={canWrite} />
        </Stack>
      </SimpleGrid>
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Text size="sm" c="dimmed" maw={560}>
          {status.targets === 0
            ? 'This cadence has no prospects yet; their ad URLs appear with the next sync.'
            : `Each of the ${formatCount(status.targets)} prospects with their own ad image and click URL, for any other tool.`}
        </Text>
        {canExport ? (
          status.targets > 0 && (
            <TargetsExportButton clientId={clientId} kind="cadence" id={cadence.id} name={cadence.name} />
          )
        ) : (
          <Text size="xs" c="dimmed">
            Downloading the targets needs access to reports.
          </Text>
        )}
      </Group>
    </Stack>
  );
}

/** The snippet: the connection's two fields in the platform's syntax; for a file, the CSV's columns. */
function SnippetColumn({ clientId, cadence }: { clientId: string; cadence: EmailAdsCadence }) {
  const platform = isAdFieldSource(cadence.source) ? cadence.source : null;
  const fields = useAdFields(clientId);
  if (!platform)
    return (
      <Stack gap="xs">
        <Text size="sm">
          {SOURCE_LABELS[cadence.source] ?? cadence.source} cadences are sent by a tool Rally does not write
          to. Give it each prospect&apos;s ad URLs from the CSV below:
        </Text>
        <SnippetBlock snippet={fileSnippet()} platform="your e-mail tool" howTo={HOW_TO.file} />
      </Stack>
    );
  const name = PLATFORM_NAMES[platform];
  if (fields.isPending) return <PanelLoading label="Loading the ad fields" />;
  if (fields.isError)
    return <PanelError error={fields.error} what="the ad fields" onRetry={() => void fields.refetch()} />;
  const row = fields.data.items.find((i) => i.integration_id === cadence.integration_id);
  const snippet = platformSnippet(row);
  if (!snippet)
    return (
      <Alert color="blue" variant="light" title={`Choose the two ${name} fields first`}>
        <Stack gap="xs" align="flex-start">
          <Text size="sm">
            Rally writes each prospect&apos;s ad image and click URLs into two fields of {name}, and the
            snippet names those fields. An owner or admin picks them (or lets Rally create them) on the
            connection.
          </Text>
          <Anchor
            component={Link}
            to={`/settings/integrations/${platform}?client_id=${clientId}#ad-fields`}
            size="sm"
          >
            Open the {name} connection
          </Anchor>
        </Stack>
      </Alert>
    );
  return <SnippetBlock key={platform} snippet={snippet} platform={name} howTo={HOW_TO[platform]} />;
}

function Preview({ path }: { path: string | null }) {
  return (
    <Stack gap={6}>
      <Text size="sm" fw={600}>
        Preview
      </Text>
      {path ? (
        <Image
          src={path}
          alt="The e-mail ad of this cadence's first day with content"
          radius="sm"
          w="100%"
          maw={600}
          // Holds the ad's shape in grey while it renders, so the column does not jump.
          style={{
            aspectRatio: '2 / 1',
            border: '1px solid var(--mantine-color-gray-3)',
            background: 'var(--mantine-color-gray-1)',
          }}
        />
      ) : (
        <Text size="sm" c="dimmed">
          No day of this cadence has content yet, so its e-mails would show a blank image. Choose content for
          a day below.
        </Text>
      )}
    </Stack>
  );
}

function TestEmail({
  clientId,
  cadence,
  status,
  canWrite,
}: {
  clientId: string;
  cadence: EmailAdsCadence;
  status: EmailSnippetStatus;
  canWrite: boolean;
}) {
  const auth = useAuth();
  const send = useSendSnippetTest(clientId, cadence.id);
  const test = status.last_test;
  const noTargets = status.targets === 0;
  return (
    <Stack gap="xs" align="flex-start">
      <Text size="sm" fw={600}>
        Test e-mail
      </Text>
      {canWrite ? (
        <>
          <Text size="sm" c="dimmed">
            Sends you the e-mail ad as one of this cadence&apos;s prospects would get it. Opening it counts
            nothing for them.
          </Text>
          <Button
            size="sm"
            leftSection={<IconMailForward size={16} />}
            loading={send.isPending}
            disabled={noTargets}
            onClick={() => send.mutate({})}
          >
            Send me a test e-mail
          </Button>
          {noTargets && (
            <Text size="xs" c="dimmed">
              The test shows a prospect&apos;s ad; this cadence has none yet.
            </Text>
          )}
          {send.isSuccess && (
            <Text size="sm" c="teal.9" role="status">
              Sent to {send.data.sent_to}. It shows {send.data.prospect_name}&apos;s ad.
            </Text>
          )}
          {send.isError && <FormError error={send.error} />}
        </>
      ) : (
        <Text size="sm" c="dimmed">
          Read only: sending a test e-mail changes nothing, but it needs the permission to change cadences,
          which your role ({auth.currentRole?.name ?? 'member'}) does not have. You can still copy the
          snippet.
        </Text>
      )}
      {test && (
        <Text size="xs" c="dimmed">
          Your last test: sent to {test.sent_to} {relativeTime(test.sent_at)} with {test.prospect_name}&apos;s
          ad · {test.opened_at ? `opened ${relativeTime(test.opened_at)}` : 'not opened yet'}
          {test.clicked_at ? ` · clicked ${relativeTime(test.clicked_at)}` : ''}
        </Text>
      )}
    </Stack>
  );
}
