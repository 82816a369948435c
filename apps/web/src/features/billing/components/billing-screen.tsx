import { lazy, Suspense } from 'react';
import { Alert, Skeleton, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { BalancePanel } from './balance-panel.tsx';
import { CardPanel } from './card-panel.tsx';
import { BillingAddressPanel, BillingInfoPanel } from './details-forms.tsx';
import { InvoicesPanel } from './invoices-panel.tsx';
import { SubscriptionPanel } from './subscription-panel.tsx';

// The chart library is most of the screen's weight: it loads beside the rest, not before it.
const UsagePanel = lazy(() => import('./usage-panel.tsx').then((m) => ({ default: m.UsagePanel })));

/**
 * /settings/billing (SPEC.md §2, needs billing_details.read — the route gate shows the error page
 * otherwise): balance, card, plan, usage, invoices, address and details. Changes need
 * billing_details.write; without it the screen is read-only and says why.
 */
export function BillingScreen() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  const canWrite = auth.currentRole.permissions.includes('billing_details.write');

  return (
    <Stack gap="lg">
      <div>
        <Title order={1}>Billing</Title>
        <Text c="dimmed">$5.00 per superprospect, charged to your card at 40 or at the month end.</Text>
      </div>
      {!canWrite && (
        <Alert color="gray" variant="light" icon={<IconLock size={18} />} title="Read-only">
          You can see billing but not change it: changing the card, plan or billing details needs the
          billing_details.write permission, which the client&apos;s owners have.
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <BalancePanel clientId={clientId} />
        <CardPanel clientId={clientId} canWrite={canWrite} />
      </SimpleGrid>
      <Suspense
        fallback={<Skeleton height={360} radius="md" role="status" aria-label="Loading the usage report" />}
      >
        <UsagePanel clientId={clientId} />
      </Suspense>
      <InvoicesPanel clientId={clientId} canWrite={canWrite} />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <SubscriptionPanel clientId={clientId} canWrite={canWrite} />
        <BillingInfoPanel clientId={clientId} canWrite={canWrite} />
      </SimpleGrid>
      <BillingAddressPanel clientId={clientId} canWrite={canWrite} />
    </Stack>
  );
}
