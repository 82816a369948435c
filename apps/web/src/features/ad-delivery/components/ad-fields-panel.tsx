import { useState } from 'react';
import { Alert, Badge, Button, Group, Paper, Select, Stack, Switch, Text, Title } from '@mantine/core';
import { IconAlertTriangle, IconInfoCircle, IconWand } from '@tabler/icons-react';
import { relativeTime } from '@rally/shared/utils/dates';
import { SOURCE_LABELS } from '@rally/shared/schemas/integrations';
import type { AdFieldsSettings, AdFieldsStatus } from '@rally/shared/schemas/ad-delivery';
import { FormError } from '../../../components/form-error.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAdFields } from '../api/get-ad-fields.ts';
import { useAvailableAdFields } from '../api/get-available-ad-fields.ts';
import { useUpdateAdFields } from '../api/update-ad-fields.ts';
import { createFieldsInstructions, useCreateAdFields } from '../api/create-ad-fields.ts';
import { formatCount } from '@rally/shared';

/** The record each platform's e-mails are sent to, in its own words. */
const RECORD: Record<string, string> = {
  salesloft: 'person',
  outreach: 'prospect',
  apolloio: 'contact',
  hubspot: 'contact',
  salesforce: 'contact and lead',
  marketo: 'lead',
};

const STATUS: Record<AdFieldsStatus, { label: string; color: string }> = {
  not_set_up: { label: 'Not set up', color: 'gray' },
  ready: { label: 'Up to date', color: 'teal' },
  writing: { label: 'Writing', color: 'blue' },
  paused: { label: 'Off', color: 'gray' },
  error: { label: 'Needs attention', color: 'red' },
};

const count = (n: number) => formatCount(n);

/**
 * "Ads in your e-mails" on a connection's settings page (issue 38): which two fields of the
 * platform's person record hold each prospect's ad image and click URLs (picked from the vendor's
 * fields, or created by Rally where the vendor allows), whether writing is on, how many records
 * are written or waiting, and the last error. Anchored at #ad-fields for the cadence's e-mail step.
 */
export function AdFieldsPanel({
  clientId,
  source,
  canWrite,
}: {
  clientId: string;
  source: string;
  canWrite: boolean;
}) {
  const list = useAdFields(clientId);
  const label = SOURCE_LABELS[source] ?? source;
  if (!(source in RECORD)) return null;
  const row = list.data?.items.find((i) => i.source === source);
  return (
    <Stack gap="sm" id="ad-fields" component="section" aria-labelledby="ad-fields-title">
      <Title order={2} size="h4" id="ad-fields-title">
        Ads in your e-mails
      </Title>
      {list.isPending ? (
        <PanelLoading label="Loading the ad fields" />
      ) : list.isError ? (
        <PanelError error={list.error} what="the ad fields" onRetry={() => void list.refetch()} />
      ) : !row ? (
        <Text size="sm" c="dimmed">
          Connect {label} to write each prospect&apos;s ad into its {RECORD[source]} records.
        </Text>
      ) : (
        <Settings clientId={clientId} row={row} label={label} canWrite={canWrite} />
      )}
    </Stack>
  );
}

function Settings({
  clientId,
  row,
  label,
  canWrite,
}: {
  clientId: string;
  row: AdFieldsSettings;
  label: string;
  canWrite: boolean;
}) {
  const record = RECORD[row.source] ?? 'person';
  const status = STATUS[row.status];
  const [picking, setPicking] = useState(false);
  const create = useCreateAdFields(clientId);
  const update = useUpdateAdFields(clientId);
  const instructions = createFieldsInstructions(create.error) ?? row.instructions;
  const configured = Boolean(row.image_field && row.click_field);

  return (
    <Paper withBorder radius="md" p={{ base: 'sm', xs: 'md' }}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" wrap="wrap" gap="xs">
          <Text size="sm" maw={560}>
            Rally writes each prospect&apos;s ad image link and click link into two {label} {record} fields,
            so your e-mail templates can show every prospect their own ad. People who leave their cadence get
            a blank image instead.
          </Text>
          <Badge color={status.color} variant="light">
            {status.label}
          </Badge>
        </Group>

        {configured && (
          <Group gap="lg" wrap="wrap">
            <Fact name="Image field" value={row.image_field ?? ''} />
            <Fact name="Click field" value={row.click_field ?? ''} />
          </Group>
        )}
        {configured && (
          <Text size="sm" c="dimmed">
            {count(row.targets_written)} written · {count(row.targets_pending)} waiting
            {row.targets_failed > 0 && ` · ${count(row.targets_failed)} refused by ${label} (deleted there)`}
            {row.last_written_at && ` · last written ${relativeTime(row.last_written_at)}`}
          </Text>
        )}

        {row.last_error && (
          <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title="Writing stopped">
            {row.last_error}
          </Alert>
        )}
        {instructions && (
          <Alert
            color="blue"
            variant="light"
            icon={<IconInfoCircle size={18} />}
            title={`Create the fields in ${label}`}
          >
            {instructions}
          </Alert>
        )}

        {!canWrite ? (
          !configured && (
            <Text size="sm" c="dimmed">
              An owner or admin chooses the fields.
            </Text>
          )
        ) : (
          <>
            <Group gap="xs" wrap="wrap">
              {row.can_create_fields && (
                <Button
                  size="xs"
                  leftSection={<IconWand size={14} />}
                  loading={create.isPending}
                  onClick={() => create.mutate(row.integration_id)}
                >
                  {configured ? 'Create the fields again' : 'Create the fields for me'}
                </Button>
              )}
              {!picking && (
                <Button size="xs" variant="default" onClick={() => setPicking(true)}>
                  {configured ? 'Change fields' : 'Pick existing fields'}
                </Button>
              )}
              {configured && !picking && (
                <Switch
                  label="Write the fields"
                  checked={row.enabled}
                  disabled={update.isPending}
                  onChange={(e) =>
                    update.mutate({
                      integrationId: row.integration_id,
                      image_field: row.image_field ?? '',
                      click_field: row.click_field ?? '',
                      enabled: e.currentTarget.checked,
                    })
                  }
                />
              )}
            </Group>
            {create.isError && !createFieldsInstructions(create.error) && <FormError error={create.error} />}
            {update.isError && !picking && <FormError error={update.error} />}
            {picking && (
              <FieldPicker clientId={clientId} row={row} label={label} onDone={() => setPicking(false)} />
            )}
          </>
        )}
      </Stack>
    </Paper>
  );
}

function Fact({ name, value }: { name: string; value: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {name}
      </Text>
      <Text size="sm" fw={500} style={{ wordBreak: 'break-word' }}>
        {value}
      </Text>
    </div>
  );
}

/** The two selects, filled from the vendor's fields that can hold a URL. */
function FieldPicker({
  clientId,
  row,
  label,
  onDone,
}: {
  clientId: string;
  row: AdFieldsSettings;
  label: string;
  onDone: () => void;
}) {
  const available = useAvailableAdFields(clientId, row.integration_id);
  const update = useUpdateAdFields(clientId);
  const [image, setImage] = useState<string | null>(row.image_field);
  const [click, setClick] = useState<string | null>(row.click_field);
  if (available.isPending) return <PanelLoading label={`Loading ${label}'s fields`} />;
  if (available.isError) {
    return (
      <PanelError
        error={available.error}
        what={`${label}'s fields`}
        onRetry={() => void available.refetch()}
      />
    );
  }
  const options = available.data.items.map((f) => ({
    value: f.name,
    label: f.object ? `${f.label} (${f.object})` : f.label === f.name ? f.label : `${f.label} — ${f.name}`,
  }));
  const save = () => {
    if (!image || !click) return;
    update.mutate(
      { integrationId: row.integration_id, image_field: image, click_field: click, enabled: true },
      { onSuccess: onDone },
    );
  };
  return (
    <Stack gap="xs">
      {options.length === 0 ? (
        <Text size="sm">
          {label} has no text field that can hold a link yet. Create two, or let Rally create them.
        </Text>
      ) : (
        <Group grow align="flex-start" wrap="wrap" gap="sm">
          <Select
            label="Ad image link goes in"
            placeholder="Choose a field"
            data={options}
            value={image}
            onChange={setImage}
            searchable
            miw={200}
          />
          <Select
            label="Click link goes in"
            placeholder="Choose a field"
            data={options.filter((o) => o.value !== image)}
            value={click}
            onChange={setClick}
            searchable
            miw={200}
          />
        </Group>
      )}
      {update.isError && <FormError error={update.error} />}
      <Group gap="xs">
        <Button
          size="xs"
          onClick={save}
          disabled={!image || !click || image === click}
          loading={update.isPending}
        >
          Save and write
        </Button>
        <Button size="xs" variant="subtle" onClick={onDone}>
          Cancel
        </Button>
      </Group>
    </Stack>
  );
}
