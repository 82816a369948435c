import { Group, Paper, Select, Stack, Switch, Table, Text, Title } from '@mantine/core';
import { SOURCE_LABELS } from '@rally/shared/schemas/integrations';
import type { CrmSettings, CrmSourceName } from '@rally/shared/schemas/crm';
import { FormError } from '../../../components/form-error.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { MultiSelect } from '../../../components/multi-select.tsx';
import {
  useActivityDefinition,
  useCrmOwners,
  useCrmWriteBack,
  useMapOwner,
  useSaveActivityDefinition,
} from '../api/crm.ts';
import type { ActivityKind } from '../api/crm.ts';
import { useSalesReps } from '../api/sales-reps.ts';
import { formatCount } from '@rally/shared';

/** What each source's write-back does (Marketo has none). */
const WRITE_BACK_TEXT: Partial<Record<CrmSourceName, string>> = {
  salesforce:
    'After each sync, prospects who became superprospects join the “Rally superprospects” campaign with their engagement.',
  hubspot:
    'After each sync, superprospects’ contacts get Rally’s properties: superprospect date, ad impressions and clicks.',
};

/** The write-back switch: off by default; on, each sync writes superprospects to the CRM. */
export function WriteBackPanel({
  clientId,
  settings,
  canEdit,
}: {
  clientId: string;
  settings: CrmSettings;
  canEdit: boolean;
}) {
  const save = useCrmWriteBack(clientId, settings.source);
  const description = WRITE_BACK_TEXT[settings.source];
  if (!description) return null;
  const label = SOURCE_LABELS[settings.source] ?? settings.source;
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Write-back">
      <Stack gap="xs">
        <Switch
          label={`Write superprospects back to ${label}`}
          description={description}
          checked={settings.write_back}
          disabled={!canEdit || save.isPending}
          onChange={(e) => save.mutate(e.currentTarget.checked)}
        />
        {save.isError && <FormError error={save.error} />}
      </Stack>
    </Paper>
  );
}

const KIND_TEXT: Record<ActivityKind, { title: string; help: string }> = {
  outreach: {
    title: 'Sales outreach',
    help: 'Activity types that count as sales outreach (calls, e-mails…).',
  },
  meeting_activity: { title: 'Meetings', help: 'Activity types that count as meetings.' },
};

/** The outreach and meeting definitions: which of the CRM's activity types count as what. */
export function ActivityDefinitionsPanel({
  clientId,
  source,
  canEdit,
}: {
  clientId: string;
  source: CrmSourceName;
  canEdit: boolean;
}) {
  return (
    <Stack gap="sm">
      <Title order={2} size="h4">
        Activity definitions
      </Title>
      <Paper withBorder radius="md" p="md">
        <Group grow align="flex-start" wrap="wrap">
          <ActivityPicker clientId={clientId} source={source} kind="outreach" canEdit={canEdit} />
          <ActivityPicker clientId={clientId} source={source} kind="meeting_activity" canEdit={canEdit} />
        </Group>
      </Paper>
    </Stack>
  );
}

function ActivityPicker({
  clientId,
  source,
  kind,
  canEdit,
}: {
  clientId: string;
  source: CrmSourceName;
  kind: ActivityKind;
  canEdit: boolean;
}) {
  const def = useActivityDefinition(clientId, source, kind);
  const save = useSaveActivityDefinition(clientId, source, kind);
  const text = KIND_TEXT[kind];
  if (def.isPending) return <PanelLoading label={`Loading ${text.title}`} />;
  if (def.isError)
    return <PanelError error={def.error} what={text.title} onRetry={() => void def.refetch()} />;
  const types = [...new Set([...def.data.available.map((a) => a.type), ...def.data.activity_types])];
  return (
    <Stack gap={4} miw={240}>
      <MultiSelect
        label={text.title}
        description={text.help}
        data={types.map((t) => {
          const a = def.data.available.find((x) => x.type === t);
          return { value: t, label: a ? `${t} (${formatCount(a.total)})` : t };
        })}
        value={def.data.activity_types}
        disabled={!canEdit || save.isPending || types.length === 0}
        onChange={(v) => save.mutate(v)}
      />
      {save.isError && <FormError error={save.error} />}
    </Stack>
  );
}

/** The CRM's active owners and the sales rep each maps to (by e-mail, or by hand here). */
export function OwnersPanel({
  clientId,
  source,
  canEdit,
}: {
  clientId: string;
  source: CrmSourceName;
  canEdit: boolean;
}) {
  const owners = useCrmOwners(clientId, source);
  const reps = useSalesReps(clientId);
  const map = useMapOwner(clientId, source);
  const head = (
    <div>
      <Title order={2} size="h4">
        Owners and sales reps
      </Title>
      <Text size="sm" c="dimmed">
        Owners are matched to sales reps by e-mail; choose another rep to map one by hand.
      </Text>
    </div>
  );
  if (owners.isPending || reps.isPending)
    return (
      <Stack gap="sm">
        {head}
        <PanelLoading label="Loading owners" />
      </Stack>
    );
  if (owners.isError || reps.isError)
    return (
      <Stack gap="sm">
        {head}
        <PanelError
          error={owners.error ?? reps.error}
          what="the owners"
          onRetry={() => void Promise.all([owners.refetch(), reps.refetch()])}
        />
      </Stack>
    );
  const repOptions = reps.data.map((r) => ({
    value: r.id,
    label: `${r.first_name} ${r.last_name}`.trim() || (r.email ?? r.id),
  }));
  return (
    <Stack gap="sm">
      {head}
      {map.isError && <FormError error={map.error} />}
      <Paper withBorder radius="md">
        {owners.data.length === 0 ? (
          <Text size="sm" c="dimmed" ta="center" p="lg">
            No active owners yet: they arrive with the sync.
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={480}>
            <Table verticalSpacing="xs" aria-label="CRM owners">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Owner</Table.Th>
                  <Table.Th>E-mail</Table.Th>
                  <Table.Th>Sales rep</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {owners.data.map((o) => {
                  const name = `${o.first_name} ${o.last_name}`.trim();
                  return (
                    <Table.Tr key={o.id}>
                      <Table.Td>{name || '—'}</Table.Td>
                      <Table.Td>{o.email ?? '—'}</Table.Td>
                      <Table.Td>
                        <Select
                          aria-label={`Sales rep of ${name || o.external_id}`}
                          data={repOptions}
                          value={o.sales_rep_id}
                          placeholder="Not mapped"
                          clearable
                          searchable
                          size="xs"
                          disabled={!canEdit || map.isPending}
                          onChange={(v) => map.mutate({ ownerId: o.id, salesRepId: v })}
                        />
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Paper>
    </Stack>
  );
}
