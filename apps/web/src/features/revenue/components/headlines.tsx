import { Anchor, Group, Paper, SimpleGrid, Skeleton, Text } from '@mantine/core';
import { IconArrowRight } from '@tabler/icons-react';
import { abbreviateNumber, formatCount } from '@rally/shared';
import type { MetricTerm } from '@rally/shared';
import type { ReportSummary } from '@rally/shared/schemas/reports';
import { AbbreviatedNumber } from '../../../components/abbreviated-number.tsx';
import { MetricInfo } from '../../../components/metric-info.tsx';
import { fullMoney } from './opportunity-tables.tsx';

export function currencySymbol(currency: string): string {
  try {
    const part = new Intl.NumberFormat('en-US', { style: 'currency', currency })
      .formatToParts(0)
      .find((p) => p.type === 'currency');
    return part?.value ?? `${currency} `;
  } catch {
    return `${currency} `;
  }
}

/** Headline amounts use the SPEC.md §9 abbreviations (K, MM, B…). */
const shortMoney = (cents: number, currency: string) =>
  `${currencySymbol(currency)}${abbreviateNumber(cents / 100)}`;

export type CardKey =
  'pipeline_generated' | 'pipeline_progressed' | 'revenue_influenced' | 'engaged_accounts';

export function Headlines({
  summary,
  onOpen,
  only,
}: {
  summary: ReportSummary | undefined;
  /** Opens the rows behind a card's number (issue 42 item 7). */
  onOpen: (card: CardKey) => void;
  /** The cards whose rows this screen can open (all by default). */
  only?: CardKey[];
}) {
  if (!summary) {
    return (
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} role="status" aria-label="Loading the headline numbers">
        {[0, 1, 2, 3].map((i) => (
          <Skeleton key={i} height={118} radius="md" />
        ))}
      </SimpleGrid>
    );
  }
  const c = summary.currency;
  const plural = (n: number, one: string, many: string) => `${formatCount(n)} ${n === 1 ? one : many}`;
  const cards: {
    key: CardKey;
    label: string;
    amount: number;
    prefix: string;
    detail: string;
    exact: string;
    open: string;
  }[] = [
    {
      key: 'pipeline_generated',
      open: `See the ${plural(summary.generated, 'opportunity', 'opportunities')}`,
      label: 'Pipeline generated',
      amount: summary.pipeline_generated_cents / 100,
      prefix: currencySymbol(c),
      detail: `${summary.generated} of ${summary.opportunities_created} new opportunities (${shortMoney(summary.pipeline_created_cents, c)})`,
      exact: fullMoney(summary.pipeline_generated_cents, c),
    },
    {
      key: 'pipeline_progressed',
      open: 'See the moves forward',
      label: 'Pipeline progressed',
      amount: summary.pipeline_progressed_cents / 100,
      prefix: currencySymbol(c),
      detail: `${summary.progressed} ${summary.progressed === 1 ? 'opportunity' : 'opportunities'} moved forward`,
      exact: fullMoney(summary.pipeline_progressed_cents, c),
    },
    {
      key: 'revenue_influenced',
      open: `See the ${plural(summary.influenced, 'deal', 'deals')}`,
      label: 'Revenue influenced',
      amount: summary.revenue_influenced_cents / 100,
      prefix: currencySymbol(c),
      detail: `${summary.influenced} of ${summary.won} won (${shortMoney(summary.revenue_won_cents, c)})`,
      exact: fullMoney(summary.revenue_influenced_cents, c),
    },
    {
      key: 'engaged_accounts',
      open: `See the ${plural(summary.engaged_accounts, 'account', 'accounts')}`,
      label: 'Engaged accounts',
      amount: summary.engaged_accounts,
      prefix: '',
      detail: `${abbreviateNumber(summary.impressions)} impressions · ${abbreviateNumber(summary.clicks)} clicks · ${abbreviateNumber(summary.views)} views`,
      exact: formatCount(summary.engaged_accounts),
    },
  ];
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
      {cards.map((card) => (
        <Paper key={card.label} withBorder radius="md" p="md" data-card={card.key}>
          <Group gap={4} wrap="nowrap">
            <Text size="xs" tt="uppercase" fw={700} c="dimmed">
              {card.label}
            </Text>
            <MetricInfo term={card.key satisfies MetricTerm} label={card.label} />
          </Group>
          <Text fz={28} fw={700} lh={1.2} mt={4} w="fit-content">
            <AbbreviatedNumber value={card.amount} prefix={card.prefix} full={card.exact} />
          </Text>
          <Text size="sm" c="dimmed" mt={4}>
            {card.detail}
          </Text>
          {card.label === 'Pipeline generated' && summary.other_currency_opportunities > 0 && (
            <Text size="xs" c="dimmed" mt={4}>
              {summary.other_currency_opportunities} in other currencies not summed
            </Text>
          )}
          {(!only || only.includes(card.key)) && (
            <Anchor
              component="button"
              type="button"
              size="sm"
              fw={600}
              mt={6}
              onClick={() => onOpen(card.key)}
            >
              <Group gap={4} wrap="nowrap" component="span">
                {card.open} <IconArrowRight size={14} aria-hidden />
              </Group>
            </Anchor>
          )}
        </Paper>
      ))}
    </SimpleGrid>
  );
}
