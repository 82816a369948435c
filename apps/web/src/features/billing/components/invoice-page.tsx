import { Anchor, Button, Container, Divider, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { IconArrowLeft, IconPrinter } from '@tabler/icons-react';
import { Link, useParams } from 'react-router';
import { PRODUCT_NAME, formatDayRange } from '@rally/shared';
import type { InvoiceLine } from '@rally/shared/schemas/billing';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth/store.ts';
import { useInvoice } from '../api/billing.ts';
import { brandName, money, monthName, shortDate } from '../format.ts';
import { StatusBadge } from './invoices-panel.tsx';

/** /settings/billing/invoices/{id}: one invoice laid out for reading and printing (no app chrome). */
export function InvoicePage() {
  const auth = useAuth();
  const { id = '' } = useParams();
  const clientId = auth.currentClient;
  if (!clientId) return <ScreenLoader />;
  return <InvoiceBody clientId={clientId} invoiceId={id} />;
}

function InvoiceBody({ clientId, invoiceId }: { clientId: string; invoiceId: string }) {
  const query = useInvoice(clientId, invoiceId);
  const back = `/settings/billing?client_id=${clientId}`;
  return (
    <Container size={820} py="xl">
      <Group justify="space-between" mb="md" className="no-print" data-print="hide">
        <Anchor component={Link} to={back} size="sm">
          <Group gap={4}>
            <IconArrowLeft size={14} /> Back to billing
          </Group>
        </Anchor>
        {query.data && (
          <Button leftSection={<IconPrinter size={16} />} variant="light" onClick={() => window.print()}>
            Print
          </Button>
        )}
      </Group>
      <style>
        {'@media print { [data-print="hide"] { display: none !important; } body { background: white; } }'}
      </style>
      {query.isPending ? (
        <PanelLoading label="Loading the invoice" />
      ) : query.isError ? (
        query.error instanceof ApiError && (query.error.status === 404 || query.error.status === 422) ? (
          <Paper withBorder p="xl" radius="md">
            <Title order={1} fz="xl">
              Invoice not found
            </Title>
            <Text c="dimmed" mt="xs">
              There is no such invoice for this client.{' '}
              <Anchor component={Link} to={back}>
                See all invoices
              </Anchor>
              .
            </Text>
          </Paper>
        ) : (
          <PanelError error={query.error} what="the invoice" onRetry={() => void query.refetch()} />
        )
      ) : (
        <InvoiceSheet detail={query.data} />
      )}
    </Container>
  );
}

const COHORT_PREFIX = 'Cohort: ';

/** A line's source: a cohort's members are targets of a hidden cadence named "Cohort: …". */
export function lineSource(line: Pick<InvoiceLine, 'cadence_name'>): {
  kind: 'Cadence' | 'Cohort';
  name: string;
} {
  return line.cadence_name.startsWith(COHORT_PREFIX)
    ? { kind: 'Cohort', name: line.cadence_name.slice(COHORT_PREFIX.length) }
    : { kind: 'Cadence', name: line.cadence_name };
}

/**
 * What an invoice covers (issue 42 item 6): the days its superprospects became super, first to last,
 * which is not the month it was charged in; null without lines.
 */
export function coveredDays(lines: readonly Pick<InvoiceLine, 'super_date'>[]): string | null {
  if (lines.length === 0) return null;
  const times = lines.map((l) => Date.parse(l.super_date));
  return formatDayRange(Math.min(...times), Math.max(...times));
}

/** The people billed more than once on the invoice (one line per cadence or cohort they are in). */
export function repeatedPeople(lines: readonly Pick<InvoiceLine, 'prospect'>[]): Set<string> {
  const seen = new Map<string, number>();
  for (const l of lines) seen.set(l.prospect, (seen.get(l.prospect) ?? 0) + 1);
  return new Set([...seen].filter(([, n]) => n > 1).map(([p]) => p));
}

function InvoiceSheet({ detail }: { detail: NonNullable<ReturnType<typeof useInvoice>['data']> }) {
  const { invoice, lines, billing_address: address, billing_info: info, card } = detail;
  const covers = coveredDays(lines);
  const repeated = repeatedPeople(lines);
  return (
    <Paper withBorder radius="md" p="xl" component="article" aria-label={`Invoice ${invoice.number}`}>
      <Stack gap="lg">
        <Group justify="space-between" align="flex-start">
          <div>
            <Text fw={800} fz="xl">
              {PRODUCT_NAME}
            </Text>
            <Text size="sm" c="dimmed">
              Superprospect billing
            </Text>
          </div>
          <div style={{ textAlign: 'right' }}>
            <Title order={1} fz={26}>
              Invoice {invoice.number}
            </Title>
            <Text size="sm">Issued {shortDate(invoice.created_at)}</Text>
            <Text size="sm">Charged in {monthName(invoice.period)}</Text>
            {covers && (
              <Text size="sm" fw={600} data-testid="invoice-covers">
                Superprospects of {covers}
              </Text>
            )}
            <Group justify="flex-end" mt={4}>
              <StatusBadge invoice={invoice} />
            </Group>
          </div>
        </Group>
        <Group align="flex-start" gap="xl">
          <div>
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
              Billed to
            </Text>
            <Text fw={600}>{info?.company_name || address?.company || detail.client_name}</Text>
            {address && (
              <>
                {(address.first_name || address.last_name) && (
                  <Text size="sm">
                    {address.first_name} {address.last_name}
                  </Text>
                )}
                <Text size="sm">{address.line1}</Text>
                {address.line2 && <Text size="sm">{address.line2}</Text>}
                <Text size="sm">
                  {[address.city, address.state, address.zip].filter(Boolean).join(', ')} {address.country}
                </Text>
              </>
            )}
            {info?.billing_email && <Text size="sm">{info.billing_email}</Text>}
            {info?.tax_id && <Text size="sm">Tax ID: {info.tax_id}</Text>}
            {info?.po_number && <Text size="sm">PO: {info.po_number}</Text>}
          </div>
          <div>
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
              Payment
            </Text>
            {invoice.status === 'paid' && invoice.paid_at ? (
              <Text size="sm">Paid {shortDate(invoice.paid_at)}</Text>
            ) : (
              <Text size="sm">
                {invoice.failure_reason ??
                  `Due; charged to ${card ? `${brandName(card.brand)} ending in ${card.last4}` : 'the card on file'}.`}
              </Text>
            )}
            <Text size="sm" c="dimmed">
              {invoice.reason === 'threshold'
                ? 'Charged when 40 superprospects added up'
                : 'Month-end charge'}
            </Text>
          </div>
        </Group>
        <Divider />
        {/* On a phone the lines scroll sideways in their own box, not the page (WCAG 1.4.10). */}
        <Table.ScrollContainer minWidth={520} type="native">
          <Table verticalSpacing={6} fz="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Superprospect</Table.Th>
                <Table.Th>Cadence or cohort</Table.Th>
                <Table.Th>Became super</Table.Th>
                <Table.Th ta="right">Amount</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {lines.map((line) => (
                <Table.Tr key={line.target_id}>
                  <Table.Td>
                    {line.prospect}
                    {repeated.has(line.prospect) && (
                      <Text size="xs" c="dimmed">
                        Billed once for each cadence or cohort where this person became a superprospect
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Text span size="xs" c="dimmed" tt="uppercase" fw={600}>
                      {lineSource(line).kind}
                    </Text>{' '}
                    {lineSource(line).name}
                  </Table.Td>
                  <Table.Td>{shortDate(line.super_date)}</Table.Td>
                  <Table.Td ta="right">{money(line.amount_cents, invoice.currency)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <Divider />
        <Group justify="flex-end" gap="xl">
          <Text>
            {invoice.superprospects} × {money(500, invoice.currency)}
          </Text>
          <Text fw={700} fz="lg" data-testid="invoice-total">
            Total {money(invoice.amount_cents, invoice.currency)}
          </Text>
        </Group>
      </Stack>
    </Paper>
  );
}
