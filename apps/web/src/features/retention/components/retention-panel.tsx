import { useState } from 'react';
import { Button, Grid, Group, NumberInput, Paper, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconDeviceFloppy } from '@tabler/icons-react';
import { RETENTION_BOUNDS, RETENTION_FIELDS } from '@rally/shared/schemas/retention';
import type {
  RetentionField,
  RetentionSettings,
  RetentionSettingsUpdate,
} from '@rally/shared/schemas/retention';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useRetention, useUpdateRetention } from '../api/retention.ts';

const LABELS: Record<RetentionField, { label: string; unit: string; description: string }> = {
  events_months: {
    label: 'Raw engagement events',
    unit: 'months',
    description: 'Older events are folded into the daily report totals, then deleted.',
  },
  export_files_days: {
    label: 'Export files',
    unit: 'days',
    description: 'Report CSV files made for download.',
  },
  delivery_logs_days: {
    label: 'Delivery logs',
    unit: 'days',
    description: 'Finished webhook deliveries and sent e-mails.',
  },
  audit_log_days: {
    label: 'Audit log',
    unit: 'days',
    description: 'Older entries are deleted; the chain still verifies from the first one kept.',
  },
};

type Values = Record<RetentionField, number | string>;
const valuesOf = (s: RetentionSettings): Values => ({
  events_months: s.events_months,
  export_files_days: s.export_files_days,
  delivery_logs_days: s.delivery_logs_days,
  audit_log_days: s.audit_log_days,
});

/**
 * Data retention (issue 44, decision 0032): how long this client keeps raw events, export files,
 * delivery logs and the audit log. A daily job applies it. For holders of settings.write.
 */
export function RetentionPanel({ clientId }: { clientId: string }) {
  const settings = useRetention(clientId);
  return (
    <Paper
      withBorder
      radius="md"
      p={{ base: 'sm', xs: 'md' }}
      component="section"
      aria-label="Data retention"
    >
      <Stack gap="sm">
        <div>
          <Title order={2} size="h4">
            Data retention
          </Title>
          <Text size="sm" c="dimmed">
            How long this client&apos;s data is kept. A daily job deletes what is older; reports keep their
            numbers.
          </Text>
        </div>
        {settings.isPending ? (
          <PanelLoading label="Loading retention settings" />
        ) : settings.isError ? (
          <PanelError
            error={settings.error}
            what="retention settings"
            onRetry={() => void settings.refetch()}
          />
        ) : (
          <RetentionForm
            key={settings.data.updated_at ?? 'defaults'}
            clientId={clientId}
            settings={settings.data}
          />
        )}
      </Stack>
    </Paper>
  );
}

function RetentionForm({ clientId, settings }: { clientId: string; settings: RetentionSettings }) {
  const [values, setValues] = useState<Values>(() => valuesOf(settings));
  const update = useUpdateRetention(clientId);
  const fieldErrors = fieldErrorsOf(update.error);
  const changed = RETENTION_FIELDS.filter((f) => values[f] !== settings[f]);
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const body = Object.fromEntries(
      changed.map((f) => [f, values[f] === '' ? null : values[f]]),
    ) as RetentionSettingsUpdate;
    update.mutate(body, {
      onSuccess: () => notifications.show({ message: 'The retention settings have been saved.' }),
    });
  };
  return (
    <form noValidate onSubmit={onSubmit}>
      <Stack gap="sm">
        <Grid>
          {RETENTION_FIELDS.map((f) => {
            const { min, max, default: byDefault } = RETENTION_BOUNDS[f];
            return (
              <Grid.Col key={f} span={{ base: 12, sm: 6 }}>
                <NumberInput
                  label={`${LABELS[f].label} (${LABELS[f].unit})`}
                  description={`${LABELS[f].description} ${min}–${max}; default ${byDefault}.`}
                  min={min}
                  max={max}
                  allowDecimal={false}
                  allowNegative={false}
                  value={values[f]}
                  onChange={(v) => setValues((old) => ({ ...old, [f]: v }))}
                  error={fieldErrors[f]}
                />
              </Grid.Col>
            );
          })}
        </Grid>
        {Object.keys(fieldErrors).length === 0 && <FormError error={update.error} />}
        <Group justify="flex-end">
          <Button
            type="submit"
            leftSection={<IconDeviceFloppy size={16} />}
            loading={update.isPending}
            disabled={changed.length === 0}
          >
            Save
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
