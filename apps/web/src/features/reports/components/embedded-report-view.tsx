import { useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import {
  Alert,
  Badge,
  Box,
  Center,
  Container,
  Group,
  Loader,
  Paper,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { abbreviateNumber, formatDayTime, formatMultiple, PRODUCT_NAME } from '@rally/shared';
import { EMBEDDED_REPORT_LABELS } from '@rally/shared/schemas/embedded-reports';
import type { EmbeddedReportView } from '@rally/shared/schemas/embedded-reports';
import type { ReportOpportunity, StageMove } from '@rally/shared/schemas/reports';
import { AbbreviatedNumber } from '../../../components/abbreviated-number.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { useEmbeddedReportView } from '../api/embedded-reports.ts';
import { day, whole } from './report-parts.tsx';

function currencySymbol(currency: string): string {
  try {
    const part = new Intl.NumberFormat('en-US', { style: 'currency', currency })
      .formatToParts(0)
      .find((p) => p.type === 'currency');
    return part?.value ?? `${currency} `;
  } catch {
    return `${currency} `;
  }
}

const fullMoney = (cents: number, currency: string) => {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: 0 }).format(
      cents / 100,
    );
  } catch {
    return `${currency} ${whole(Math.round(cents / 100))}`;
  }
};

/** An amount abbreviated (SPEC.md §9: $1.2MM), the exact one on hover and for screen readers. */
function Money({ cents, currency }: { cents: number; currency: string }) {
  return (
    <AbbreviatedNumber
      value={Math.round(cents / 100)}
      prefix={currencySymbol(currency)}
      full={fullMoney(cents, currency)}
    />
  );
}

/** The token is the address's fragment: it never reaches a server log or another site's Referer. */
function tokenOfLocation(): string {
  return decodeURIComponent(window.location.hash.replace(/^#/, '')).trim();
}

/**
 * The page an embedded report link opens (issue 17; docs/reports.md "Embedded reports"): the saved
 * report, read-only, without the app's chrome or a session, made to sit in another tool's frame.
 */
export function EmbeddedReportPage() {
  const [token, setToken] = useState(tokenOfLocation);
  useEffect(() => {
    const onHash = () => setToken(tokenOfLocation());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const query = useEmbeddedReportView(token);

  let body: ReactNode;
  if (token === '') {
    body = (
      <LinkProblem
        title="Invalid link"
        message="This link is incomplete: it has no report token. Copy the whole link again from Rally."
      />
    );
  } else if (query.isPending) {
    body = (
      <Center py={96} role="status" aria-label="Loading the report">
        <Loader />
      </Center>
    );
  } else if (query.isError) {
    const error = query.error;
    const status = error instanceof ApiError ? error.status : 0;
    const title =
      status === 410
        ? 'This link no longer works'
        : status === 404 || status === 422
          ? 'Invalid link'
          : status === 429
            ? 'Too many attempts'
            : 'The report could not be loaded';
    const message =
      status === 422
        ? 'This link is not a report link. Copy the whole link again from Rally.'
        : error instanceof ApiError && status < 500
          ? error.message
          : 'Something went wrong. Please try again in a moment.';
    body = <LinkProblem title={title} message={message} />;
  } else {
    body = <Report view={query.data} />;
  }

  return (
    <Box component="main" py="lg" px="md" mih="100vh" bg="var(--mantine-color-body)">
      <Container size="lg">
        {body}
        <Text size="xs" c="dimmed" mt="xl" ta="center">
          Shared read-only from {PRODUCT_NAME}.
        </Text>
      </Container>
    </Box>
  );
}

function LinkProblem({ title, message }: { title: string; message: string }) {
  return (
    <Stack gap="md" py={48} maw={560} mx="auto">
      <Title order={1} size="h2">
        {title}
      </Title>
      <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />}>
        {message}
      </Alert>
    </Stack>
  );
}

function Report({ view }: { view: EmbeddedReportView }) {
  const { data } = view;
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="xs">
        <div>
          <Text size="sm" c="dimmed" fw={600}>
            {view.client_name} · {EMBEDDED_REPORT_LABELS[view.report]}
          </Text>
          <Title order={1} size="h2">
            {view.name}
          </Title>
        </div>
        <Text size="sm" c="dimmed">
          Last {view.range_days} {view.range_days === 1 ? 'day' : 'days'} · as of{' '}
          {formatDayTime(view.generated_at)}
        </Text>
      </Group>
      {data.kind === 'summary' && <SummaryCards summary={data.summary} />}
      {data.kind === 'value_report' && <ValueCards report={data.value_report} />}
      {data.kind === 'pipeline_generated' && <GeneratedTable report={data.pipeline_generated} />}
      {data.kind === 'pipeline_progressed' && <ProgressedTable report={data.pipeline_progressed} />}
    </Stack>
  );
}

function Card({ label, value, detail }: { label: string; value: ReactNode; detail?: string }) {
  return (
    <Paper withBorder radius="md" p="md">
      <Text size="xs" tt="uppercase" fw={700} c="dimmed">
        {label}
      </Text>
      <Text fz={28} fw={700} lh={1.2} mt={4}>
        {value}
      </Text>
      {detail && (
        <Text size="sm" c="dimmed" mt={4}>
          {detail}
        </Text>
      )}
    </Paper>
  );
}

type Summary = Extract<EmbeddedReportView['data'], { kind: 'summary' }>['summary'];

function SummaryCards({ summary: s }: { summary: Summary }) {
  const c = s.currency;
  const count = (n: number) => <AbbreviatedNumber value={n} />;
  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
        <Card
          label="Pipeline generated"
          value={<Money cents={s.pipeline_generated_cents} currency={c} />}
          detail={`${whole(s.generated)} of ${whole(s.opportunities_created)} new opportunities`}
        />
        <Card
          label="Pipeline progressed"
          value={<Money cents={s.pipeline_progressed_cents} currency={c} />}
          detail={`${whole(s.progressed)} ${s.progressed === 1 ? 'opportunity' : 'opportunities'} moved forward`}
        />
        <Card
          label="Revenue influenced"
          value={<Money cents={s.revenue_influenced_cents} currency={c} />}
          detail={`${whole(s.influenced)} of ${whole(s.won)} won (${currencySymbol(c)}${abbreviateNumber(Math.round(s.revenue_won_cents / 100))})`}
        />
        <Card label="Engaged accounts" value={count(s.engaged_accounts)} />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 2, md: 4 }}>
        <Card label="Impressions" value={count(s.impressions)} />
        <Card label="Clicks" value={count(s.clicks)} />
        <Card label="Landing page views" value={count(s.views)} />
        <Card label="New superprospects" value={count(s.new_superprospects)} />
      </SimpleGrid>
      <Text size="xs" c="dimmed">
        Attribution window {s.window_days} days.
        {s.other_currency_opportunities > 0 &&
          ` ${whole(s.other_currency_opportunities)} opportunities in other currencies are not summed.`}
      </Text>
    </Stack>
  );
}

type Value = Extract<EmbeddedReportView['data'], { kind: 'value_report' }>['value_report'];

function ValueCards({ report: r }: { report: Value }) {
  const ratio = formatMultiple;
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }}>
      <Card
        label="Spend on superprospects"
        value={<Money cents={r.spend_cents} currency={r.spend_currency} />}
        detail={`${whole(r.superprospects_billed)} superprospects billed`}
      />
      <Card
        label="Pipeline generated"
        value={<Money cents={r.pipeline_generated_cents} currency={r.currency} />}
      />
      <Card
        label="Pipeline progressed"
        value={<Money cents={r.pipeline_progressed_cents} currency={r.currency} />}
      />
      <Card
        label="Revenue influenced"
        value={<Money cents={r.revenue_influenced_cents} currency={r.currency} />}
      />
      <Card label="Pipeline as a multiple of spend" value={ratio(r.pipeline_per_spend)} />
      <Card label="Revenue as a multiple of spend" value={ratio(r.revenue_per_spend)} />
    </SimpleGrid>
  );
}

function Shown({ shown, total, noun }: { shown: number; total: number; noun: string }) {
  return (
    <Text size="sm" c="dimmed">
      {total === 0
        ? `No ${noun} in this period.`
        : shown < total
          ? `The first ${whole(shown)} of ${whole(total)} ${noun}.`
          : `${whole(total)} ${total === 1 ? noun.replace(/s$/, '') : noun}.`}
    </Text>
  );
}

function TableBox({ label, children, head }: { label: string; children: ReactNode; head: ReactNode }) {
  return (
    <Paper withBorder radius="md">
      <Table.ScrollContainer minWidth={640} type="native">
        <Table verticalSpacing="sm" aria-label={label}>
          <Table.Thead>{head}</Table.Thead>
          <Table.Tbody>{children}</Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

type Generated = { items: ReportOpportunity[]; total: number };

function GeneratedTable({ report }: { report: Generated }) {
  const sum = report.items.reduce((n, o) => n + o.amount_cents, 0);
  const currency = report.items[0]?.currency ?? 'USD';
  return (
    <Stack gap="sm">
      <SimpleGrid cols={{ base: 1, xs: 2 }}>
        <Card label="Opportunities generated" value={<AbbreviatedNumber value={report.total} />} />
        <Card label="Their amount (shown)" value={<Money cents={sum} currency={currency} />} />
      </SimpleGrid>
      <Shown shown={report.items.length} total={report.total} noun="opportunities" />
      {report.items.length > 0 && (
        <TableBox
          label="Opportunities generated"
          head={
            <Table.Tr>
              <Table.Th>Opportunity</Table.Th>
              <Table.Th>Account</Table.Th>
              <Table.Th>Stage</Table.Th>
              <Table.Th ta="right">Amount</Table.Th>
              <Table.Th>Created</Table.Th>
            </Table.Tr>
          }
        >
          {report.items.map((o) => (
            <Table.Tr key={o.id}>
              <Table.Td>{o.name}</Table.Td>
              <Table.Td>{o.account_name}</Table.Td>
              <Table.Td>
                <Badge variant="light" color={o.is_won ? 'teal' : o.is_closed ? 'gray' : 'indigo'}>
                  {o.stage}
                </Badge>
              </Table.Td>
              <Table.Td ta="right">
                <Money cents={o.amount_cents} currency={o.currency} />
              </Table.Td>
              <Table.Td>{day(o.created_at)}</Table.Td>
            </Table.Tr>
          ))}
        </TableBox>
      )}
    </Stack>
  );
}

type Progressed = { items: StageMove[]; total: number };

function ProgressedTable({ report }: { report: Progressed }) {
  return (
    <Stack gap="sm">
      <Shown shown={report.items.length} total={report.total} noun="stage moves" />
      {report.items.length > 0 && (
        <TableBox
          label="Stage moves after engagement"
          head={
            <Table.Tr>
              <Table.Th>Opportunity</Table.Th>
              <Table.Th>Account</Table.Th>
              <Table.Th>Move</Table.Th>
              <Table.Th ta="right">Amount</Table.Th>
              <Table.Th>Moved</Table.Th>
            </Table.Tr>
          }
        >
          {report.items.map((m) => (
            <Table.Tr key={`${m.opportunity_id}-${m.moved_at}`}>
              <Table.Td>{m.name}</Table.Td>
              <Table.Td>{m.account_name}</Table.Td>
              <Table.Td>
                {m.from_stage} → {m.to_stage}
              </Table.Td>
              <Table.Td ta="right">
                <Money cents={m.amount_cents} currency={m.currency} />
              </Table.Td>
              <Table.Td>{day(m.moved_at)}</Table.Td>
            </Table.Tr>
          ))}
        </TableBox>
      )}
    </Stack>
  );
}
