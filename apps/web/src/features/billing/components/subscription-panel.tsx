import { Badge, Button, Group, Skeleton, Stack, Text } from '@mantine/core';
import { PanelError } from '../../../components/panel-states.tsx';
import { useSubscription, useUpdateSubscription } from '../api/billing.ts';
import { money, shortDate } from '../format.ts';
import { SettingsBox } from './settings-box.tsx';

export function SubscriptionPanel({ clientId, canWrite }: { clientId: string; canWrite: boolean }) {
  const sub = useSubscription(clientId);
  const update = useUpdateSubscription(clientId);
  const s = sub.data;
  return (
    <SettingsBox
      title="Plan"
      action={
        s ? (
          <Badge
            color={s.status === 'active' ? (s.cancel_at_period_end ? 'orange' : 'teal') : 'gray'}
            variant="light"
          >
            {s.status === 'active' ? (s.cancel_at_period_end ? 'Ends this month' : 'Active') : 'Canceled'}
          </Badge>
        ) : null
      }
    >
      {sub.isPending ? (
        <Skeleton height={72} role="status" aria-label="Loading the plan" />
      ) : sub.isError ? (
        <PanelError error={sub.error} what="the plan" onRetry={() => void sub.refetch()} />
      ) : s ? (
        <Stack gap="xs">
          <Text fw={600}>
            {s.plan_name}: {money(s.unit_amount_cents, s.currency)} per superprospect
          </Text>
          <Text size="sm" c="dimmed">
            Charged when {s.charge_threshold} superprospects add up, or on the last day of the month,
            whichever comes first.
          </Text>
          <Text size="sm">
            Billing month: {shortDate(`${s.current_period_start}T12:00:00Z`)} –{' '}
            {shortDate(`${s.current_period_end}T12:00:00Z`)}
          </Text>
          {canWrite && (
            <Group>
              {s.status === 'canceled' ? (
                <Button
                  size="xs"
                  variant="light"
                  loading={update.isPending}
                  onClick={() => update.mutate(false)}
                >
                  Restart plan
                </Button>
              ) : s.cancel_at_period_end ? (
                <Button
                  size="xs"
                  variant="light"
                  loading={update.isPending}
                  onClick={() => update.mutate(false)}
                >
                  Keep my plan
                </Button>
              ) : (
                <Button
                  size="xs"
                  variant="subtle"
                  color="red"
                  loading={update.isPending}
                  onClick={() => update.mutate(true)}
                >
                  Cancel at the end of the month
                </Button>
              )}
            </Group>
          )}
        </Stack>
      ) : null}
    </SettingsBox>
  );
}
