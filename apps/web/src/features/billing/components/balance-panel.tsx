import { ActionIcon, Group, Skeleton, Text, Tooltip } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { relativeTime } from '@rally/shared/utils/dates';
import { PanelError } from '../../../components/panel-states.tsx';
import { useBalance } from '../api/billing.ts';
import { money } from '../format.ts';
import { SettingsBox } from './settings-box.tsx';

/** SPEC.md §3 "Balance": cents shown /100; the app keeps it 10 minutes (SPEC.md §9). */
export function BalancePanel({ clientId }: { clientId: string }) {
  const balance = useBalance(clientId);
  const b = balance.data;
  return (
    <SettingsBox
      title="Balance"
      description="What you owe now: superprospects not yet charged, and invoices not yet paid."
      action={
        <Tooltip label="Refresh the balance">
          <ActionIcon
            variant="subtle"
            aria-label="Refresh the balance"
            loading={balance.isFetching}
            onClick={() => void balance.refetch()}
          >
            <IconRefresh size={16} />
          </ActionIcon>
        </Tooltip>
      }
    >
      {balance.isPending ? (
        <Skeleton height={56} role="status" aria-label="Loading the balance" />
      ) : balance.isError ? (
        <PanelError error={balance.error} what="the balance" onRetry={() => void balance.refetch()} />
      ) : b ? (
        <div>
          <Text fz={36} fw={700} lh={1.1} data-testid="balance-amount">
            {money(b.amount, b.currency)}
          </Text>
          <Group gap="lg" mt="xs">
            <Text size="sm" c="dimmed">
              {b.uncharged_supers} superprospect{b.uncharged_supers === 1 ? '' : 's'} not yet charged (
              {money(b.uncharged_supers * 500, b.currency)})
            </Text>
            <Text size="sm" c="dimmed">
              Unpaid invoices: {money(b.unpaid_invoices_cents, b.currency)}
            </Text>
          </Group>
          <Text size="xs" c="dimmed" mt={4}>
            Updated {relativeTime(b.updated_at)}
          </Text>
        </div>
      ) : null}
    </SettingsBox>
  );
}
