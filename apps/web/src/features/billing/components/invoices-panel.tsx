import { useState } from 'react';
import { Alert, Anchor, Badge, Button, Group, Modal, Skeleton, Stack, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { Invoice, PaymentIntent } from '@rally/shared/schemas/billing';
import { FormError } from '../../../components/form-error.tsx';
import { PanelError } from '../../../components/panel-states.tsx';
import { getRuntimeConfig } from '../../../lib/runtime-config.ts';
import { useCard, useInvoices, usePayInvoice } from '../api/billing.ts';
import { money, monthName, shortDate } from '../format.ts';
import { SettingsBox } from './settings-box.tsx';
import { loadStripe } from './stripe-js.ts';

export function StatusBadge({ invoice }: { invoice: Invoice }) {
  if (invoice.status === 'paid')
    return (
      <Badge color="teal" variant="light">
        Paid
      </Badge>
    );
  if (invoice.status === 'processing')
    return (
      <Badge color="gray" variant="light">
        Processing
      </Badge>
    );
  if (invoice.action_required)
    return (
      <Badge color="orange" variant="light">
        Needs your confirmation
      </Badge>
    );
  if (invoice.status === 'failed')
    return (
      <Badge color="red" variant="light">
        Payment failed
      </Badge>
    );
  return (
    <Badge color="blue" variant="light">
      Open
    </Badge>
  );
}

/** The client's invoices; unpaid ones say why and can be paid (or confirmed) now. */
export function InvoicesPanel({ clientId, canWrite }: { clientId: string; canWrite: boolean }) {
  const invoices = useInvoices(clientId);
  const unpaid = invoices.data?.invoices.filter((i) => i.status !== 'paid') ?? [];
  return (
    <SettingsBox
      title="Invoices"
      description="Each charge is an invoice listing the superprospects it covers."
    >
      {invoices.isPending ? (
        <Skeleton height={120} role="status" aria-label="Loading the invoices" />
      ) : invoices.isError ? (
        <PanelError error={invoices.error} what="the invoices" onRetry={() => void invoices.refetch()} />
      ) : invoices.data.invoices.length === 0 ? (
        <Text size="sm" c="dimmed">
          No invoices yet. The first comes when 40 superprospects add up, or on the last day of the month.
        </Text>
      ) : (
        <Stack gap="md">
          {unpaid.map((invoice) => (
            <UnpaidAlert key={invoice.id} clientId={clientId} invoice={invoice} canWrite={canWrite} />
          ))}
          <Table.ScrollContainer minWidth={560}>
            <Table verticalSpacing="xs" striped highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Invoice</Table.Th>
                  <Table.Th>Date</Table.Th>
                  <Table.Th>Period</Table.Th>
                  <Table.Th ta="right">Superprospects</Table.Th>
                  <Table.Th ta="right">Amount</Table.Th>
                  <Table.Th>Status</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {invoices.data.invoices.map((invoice) => (
                  <Table.Tr key={invoice.id}>
                    <Table.Td>
                      <Anchor
                        component={Link}
                        to={`/settings/billing/invoices/${invoice.id}?client_id=${clientId}`}
                        aria-label={`Invoice ${invoice.number}`}
                      >
                        {invoice.number}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>{shortDate(invoice.created_at)}</Table.Td>
                    <Table.Td>{monthName(invoice.period)}</Table.Td>
                    <Table.Td ta="right">{invoice.superprospects}</Table.Td>
                    <Table.Td ta="right">{money(invoice.amount_cents, invoice.currency)}</Table.Td>
                    <Table.Td>
                      <StatusBadge invoice={invoice} />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Stack>
      )}
    </SettingsBox>
  );
}

function UnpaidAlert({
  clientId,
  invoice,
  canWrite,
}: {
  clientId: string;
  invoice: Invoice;
  canWrite: boolean;
}) {
  const pay = usePayInvoice(clientId);
  const provider = useCard(clientId).data?.provider;
  const [waiting, setWaiting] = useState<PaymentIntent | null>(null);
  const [error, setError] = useState<unknown>(null);

  const done = (reply: PaymentIntent) => {
    if (reply.status === 'succeeded') {
      notifications.show({ color: 'green', message: `Invoice ${invoice.number} is paid. Thank you!` });
    } else if (reply.status === 'processing') {
      notifications.show({
        message: `Your bank is processing the payment of invoice ${invoice.number}; it shows as paid once the bank confirms it.`,
      });
    } else if (reply.status === 'failed') {
      setError(new Error(reply.invoice.failure_reason ?? 'The payment failed.'));
    }
  };

  async function payNow() {
    setError(null);
    try {
      const reply = await pay.mutateAsync({ invoice_id: invoice.id });
      if (reply.status !== 'requires_action') return done(reply);
      const config = await getRuntimeConfig();
      if (provider === 'stripe' && config.stripe_publishable_key && reply.client_secret) {
        // Stripe.js shows the bank's 3-D Secure page; then the server records the outcome.
        const stripe = await loadStripe(config.stripe_publishable_key);
        const confirmed = await stripe.confirmCardPayment(reply.client_secret);
        if (confirmed.error) throw new Error(confirmed.error.message ?? 'The payment was not confirmed.');
        done(await pay.mutateAsync({ invoice_id: invoice.id, confirm: true }));
      } else {
        setWaiting(reply);
      }
    } catch (err) {
      setError(err);
    }
  }

  const processing = invoice.status === 'processing';
  const title = invoice.action_required
    ? `Invoice ${invoice.number} needs your confirmation`
    : processing
      ? `Invoice ${invoice.number}: payment processing`
      : invoice.status === 'failed'
        ? `Invoice ${invoice.number} could not be paid`
        : `Invoice ${invoice.number} is open`;
  return (
    <Alert
      color={invoice.action_required ? 'orange' : invoice.status === 'failed' ? 'red' : 'blue'}
      variant="light"
      icon={<IconAlertTriangle size={18} />}
      title={title}
    >
      <Stack gap="xs">
        <Text size="sm">
          {money(invoice.amount_cents, invoice.currency)} for {invoice.superprospects} superprospect
          {invoice.superprospects === 1 ? '' : 's'}.{' '}
          {processing
            ? 'Your bank is processing the payment; the invoice shows as paid once the bank confirms it.'
            : (invoice.failure_reason ??
              (invoice.next_attempt_at
                ? `It will be charged to your card on ${shortDate(invoice.next_attempt_at)}.`
                : 'It will be charged to your card shortly.'))}
          {invoice.status === 'failed' &&
          invoice.next_attempt_at &&
          !invoice.failure_reason?.startsWith('No card')
            ? ` We will try again on ${shortDate(invoice.next_attempt_at)}.`
            : ''}
        </Text>
        {error ? <FormError error={error} /> : null}
        {processing ? null : canWrite ? (
          <Group>
            <Button size="xs" onClick={() => void payNow()} loading={pay.isPending && !waiting}>
              {invoice.action_required ? 'Confirm payment' : 'Pay now'}
            </Button>
          </Group>
        ) : (
          <Text size="xs" c="dimmed">
            An owner (billing_details.write) can pay it.
          </Text>
        )}
      </Stack>
      <Modal opened={waiting !== null} onClose={() => setWaiting(null)} title="Confirm this payment">
        <Stack gap="md">
          <Text size="sm">
            Your bank asks you to confirm the payment of{' '}
            <b>{money(invoice.amount_cents, invoice.currency)}</b> for invoice {invoice.number}.
          </Text>
          <Text size="xs" c="dimmed">
            Test authentication of the built-in payment provider, standing in for the bank&apos;s 3-D Secure
            page.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setWaiting(null)}>
              Not now
            </Button>
            <Button
              loading={pay.isPending}
              onClick={() =>
                pay.mutate(
                  { invoice_id: invoice.id, confirm: true },
                  {
                    onSuccess: (reply) => {
                      setWaiting(null);
                      done(reply);
                    },
                    onError: (err) => {
                      setWaiting(null);
                      setError(err);
                    },
                  },
                )
              }
            >
              Confirm payment
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Alert>
  );
}
